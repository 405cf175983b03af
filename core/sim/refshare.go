package sim

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
)

// Sharing a stream's reference between processes. The reference at a
// position — per layer and query head, the maximum logit, the normalizer
// and the output of attention over the uncompressed history — depends
// only on the stream, and every position's is independent of the others'.
// So helpers (the page's Web Workers) can compute the references of a
// long stream in parallel, each for its share of the positions
// (ReferenceBlocks), and hand them over as bytes (ExportReference); the
// engine's stream takes them in (ImportReference) and its runs then
// measure those positions in O(Heads·Budget·Dim) instead of
// O(Heads·Pos·Dim). The values are the ones the engine would compute
// itself, bit for bit: the same code on the same recorded vectors.

// refMagic starts every exported block of references.
const refMagic = "KVR1"

// ReferenceBlock is the size of the blocks ReferenceBlocks deals out:
// positions per block.
const ReferenceBlock = 64

// ReferenceBlocks returns the blocks of positions [t0, t1) that helper
// part of parts computes for a stream of tokens positions: blocks of
// ReferenceBlock positions counted from the end of the stream, dealt out in
// turn, so that the helpers start with the costliest positions (the
// longest histories) and a run decoding from position 0 meets them
// coming down. Every position is in exactly one part's blocks.
func ReferenceBlocks(tokens, part, parts int) [][2]int {
	if parts < 1 || part < 0 || part >= parts || tokens < 1 {
		return nil
	}
	var bs [][2]int
	for k := part; k*ReferenceBlock < tokens; k += parts {
		t1 := tokens - k*ReferenceBlock
		bs = append(bs, [2]int{max(0, t1-ReferenceBlock), t1})
	}
	return bs
}

// Generate records the stream's positions up to n (at most its capacity).
func (s *Stream) Generate(n int) {
	n = min(n, s.tokens)
	if s.n >= n {
		return
	}
	q := make([]float32, s.layers*s.heads*s.dim)
	k, v := make([]float32, s.layers*s.kvHeads*s.dim), make([]float32, s.layers*s.kvHeads*s.dim)
	for t := s.n; t < n; t++ {
		s.next(t, q, k, v)
	}
}

// ComputeReference computes the reference of every layer at positions
// [t0, t1) that is not known yet, recording the positions first. It
// returns an error if the range is not within the stream.
func (s *Stream) ComputeReference(t0, t1 int) error {
	if t0 < 0 || t1 > s.tokens || t0 > t1 {
		return fmt.Errorf("sim: reference range [%d, %d) outside the stream's %d positions", t0, t1, s.tokens)
	}
	s.Generate(t1)
	var rows []float32
	for t := t0; t < t1; t++ {
		for l := range s.layers {
			if s.known(t, l) {
				continue
			}
			if rows == nil {
				rows = make([]float32, s.heads*s.tokens)
			}
			s.reference(t, l, rows, s.tokens)
		}
	}
	return nil
}

// Known reports whether the references of every layer at positions
// [t0, t1) are known.
func (s *Stream) Known(t0, t1 int) bool {
	for t := max(t0, 0); t < min(t1, s.tokens); t++ {
		for l := range s.layers {
			if !s.known(t, l) {
				return false
			}
		}
	}
	return true
}

// keyJSON is the stream's identity in an exported block: its generator
// settings.
func (s *Stream) keyJSON() ([]byte, error) {
	if s.key.tr != nil {
		return nil, fmt.Errorf("sim: a replayed trace's references are not exported")
	}
	return json.Marshal(s.key.synth)
}

// ExportReference returns the references of positions [t0, t1), all of
// which must be known, as bytes ImportReference reads: the stream's
// identity, its shape, then per position and layer the maximum logits,
// normalizers and outputs of every query head (little-endian float32).
func (s *Stream) ExportReference(t0, t1 int) ([]byte, error) {
	if t0 < 0 || t1 > s.tokens || t0 > t1 {
		return nil, fmt.Errorf("sim: reference range [%d, %d) outside the stream's %d positions", t0, t1, s.tokens)
	}
	if !s.Known(t0, t1) {
		return nil, fmt.Errorf("sim: the references of [%d, %d) are not all computed", t0, t1)
	}
	key, err := s.keyJSON()
	if err != nil {
		return nil, err
	}
	h := s.heads
	per := h * (2 + s.dim)
	b := make([]byte, 0, len(refMagic)+4+len(key)+6*4+4*(t1-t0)*s.layers*per)
	b = append(b, refMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(key)))
	b = append(b, key...)
	for _, x := range []int{s.tokens, s.layers, h, s.dim, t0, t1} {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	for t := t0; t < t1; t++ {
		for l := range s.layers {
			i := (t*s.layers + l) * h
			for _, x := range s.mx[i : i+h] {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
			for _, x := range s.inv[i : i+h] {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
			for _, x := range s.output(t, l) {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		}
	}
	return b, nil
}

// ImportReference takes in references exported by ExportReference from a
// stream of the same generator settings and shape (any capacity that
// holds the block's positions), and reports the positions it did not know
// yet (t0 ≤ t < t1; new is 0 when the block taught it nothing). It returns
// an error, and changes nothing, when b is malformed or comes from another
// stream.
func (s *Stream) ImportReference(b []byte) (t0, t1, new int, err error) {
	bad := func(why string) (int, int, int, error) {
		return 0, 0, 0, fmt.Errorf("sim: reference block: %s", why)
	}
	if len(b) < len(refMagic)+4 || string(b[:len(refMagic)]) != refMagic {
		return bad("not a reference block")
	}
	b = b[len(refMagic):]
	n := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	if n > len(b) {
		return bad("truncated")
	}
	key, err := s.keyJSON()
	if err != nil {
		return 0, 0, 0, err
	}
	if !bytes.Equal(b[:n], key) {
		return bad("from another stream")
	}
	b = b[n:]
	if len(b) < 6*4 {
		return bad("truncated")
	}
	var hdr [6]int
	for i := range hdr {
		hdr[i] = int(binary.LittleEndian.Uint32(b[4*i:]))
	}
	b = b[6*4:]
	layers, h, d := hdr[1], hdr[2], hdr[3]
	t0, t1 = hdr[4], hdr[5]
	if layers != s.layers || h != s.heads || d != s.dim {
		return bad("another shape")
	}
	if t0 > t1 || t1 > s.tokens {
		return bad(fmt.Sprintf("positions [%d, %d) outside the stream's %d", t0, t1, s.tokens))
	}
	per := h * (2 + d)
	if len(b) != 4*(t1-t0)*layers*per {
		return bad("truncated")
	}
	f := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])) }
	for t := t0; t < t1; t++ {
		known := 0
		for l := range layers {
			if s.known(t, l) {
				known++
				continue
			}
			base := ((t-t0)*layers + l) * per
			i := (t*layers + l) * h
			for qh := range h {
				s.mx[i+qh] = f(base + qh)
				s.inv[i+qh] = f(base + h + qh)
			}
			o := s.output(t, l)
			for j := range o {
				o[j] = f(base + 2*h + j)
			}
			s.done[t*layers+l] = true
		}
		if known < layers {
			new++
		}
	}
	return t0, t1, new, nil
}
