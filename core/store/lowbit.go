package store

import (
	"fmt"

	"github.com/kvscope/kvscope/core/quant"
)

// This file holds the kernels of the KIVI layouts: keys per channel in
// online blocks (chanDots: modeChannel without a basis, any width) and
// values per token at 2 bits (tok2: one group per token, no basis). Like
// the tok8 kernels they compute exactly what the general paths compute,
// term for term and in the same order, without the per-slot dispatch,
// calls and unpacking to a buffer: at small head dimensions (8 for the
// test model) the per-slot overhead outweighs the arithmetic.

// dotsChannel is Dots for the chanDots layout; q has Dim values, len(dst)
// == len(slots). Each block's query fold is made on first use in the call,
// as dotSealed makes it; 2-bit rows are dotted inline as quant.DotPacked
// dots them, other widths through quant.DotPacked.
func (s *Store) dotsChannel(q []float32, slots []int, dst []float32) {
	s.prepare(q)
	d, rb, bits := s.sdim, s.rowBytes, s.cfg.Bits
	q = q[:d]
	dst = dst[:len(slots)]
	for i, slot := range slots {
		if s.state[slot] != slotSealed {
			dst[i] = s.unsealedDot(q, slot)
			continue
		}
		b := int(s.block[slot])
		qb := s.blockQuery(b, q)
		row := s.codes[slot*rb:][:rb]
		var t float32
		if bits == 2 {
			t = dot2(qb, row)
		} else {
			t = quant.DotPacked(qb, row, bits)
		}
		dst[i] = t + s.qconst[b]
	}
}

// dot2 is quant.DotPacked(q, src, 2): four codes per byte, low bits
// first; full bytes add their four terms to the running sum as one
// expression, and a partial last byte's terms are summed apart and added
// at the end. src holds at least (len(q)+3)/4 bytes.
func dot2(q []float32, src []byte) float32 {
	var s float32
	i := 0
	for ; i+3 < len(q); i += 4 {
		b := src[i/4]
		s += q[i]*float32(b&3) + q[i+1]*float32(b>>2&3) +
			q[i+2]*float32(b>>4&3) + q[i+3]*float32(b>>6)
	}
	if i == len(q) {
		return s
	}
	var r float32
	b := src[i/4]
	for k := 0; i < len(q); i, k = i+1, k+2 {
		r += q[i] * float32(b>>k&3)
	}
	return s + r
}

// weightedTok2 is WeightedSum for the tok2 layout; dst has Dim values and
// is cleared, len(w) == len(slots). Each sealed token adds
// (w·Scale)·code + w·Min to dst[j] as addAffine does after quant.Unpack,
// decoding the codes from the packed row directly.
func (s *Store) weightedTok2(w []float32, slots []int, dst []float32) {
	d, rb := len(dst), s.rowBytes
	w = w[:len(slots)]
	for i, slot := range slots {
		wi := w[i]
		if s.state[slot] != slotSealed {
			if s.state[slot] == slotFree {
				panic(fmt.Sprintf("store: WeightedSum over free slot %d", slot))
			}
			for j, h := range s.resRow(slot) {
				dst[j] += wi * quant.FP16ToFloat32(h)
			}
			continue
		}
		p := s.tokPar[slot]
		a, m := wi*p.Scale, wi*p.Min
		row := s.codes[slot*rb:][:rb]
		j := 0
		for ; j+3 < d; j += 4 {
			c := row[j/4]
			dst[j] += a*float32(c&3) + m
			dst[j+1] += a*float32(c>>2&3) + m
			dst[j+2] += a*float32(c>>4&3) + m
			dst[j+3] += a*float32(c>>6) + m
		}
		if j < d {
			c := row[j/4]
			for k := 0; j < d; j, k = j+1, k+2 {
				dst[j] += a*float32(c>>k&3) + m
			}
		}
	}
}
