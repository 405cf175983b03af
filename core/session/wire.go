package session

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kvscope/kvscope/core/sim"
)

// A frame is what the decode worker sends the page after steps: one
// layer's snapshot, the run's state and the stepping time it took. Its
// bytes are little-endian:
//
//	magic "KVF2"
//	id u32 · flags u8 (1 ended, 2 has text, 4 has sinks) · err string
//	steps u32 · nanos u64 (positions fed since the last frame, and the stepping time)
//	step, prompt, layer, layers, heads u32 · attended f64
//	memory 7×i64 · fullBytes i64 · evictBytes i64
//	metrics 8×f64
//	cells: Heads×Step × (role u8, storage u8, attended u8, evictedAt i32, score, attn, attnFull, kErr f32)
//	budgets: n u32, n × u32 · retrieval: n u32, n × u8
//	history: from u32, n u32, n × 8×f64                     (appended)
//	if sinks: layers, heads, tokens u32, layers×heads × f64
//	if text:
//	  tokens: from u32, n u32, n × string                   (appended)
//	  ids: from u32, n u32, n × u32                         (appended)
//	  full, compressed: from u32, string each               (appended)
//	  diverge i32 · nextKL, meanKL, agreement f64 · zipFed u32 · zipTime u64 (ns)
//	  klHistory: from u32, n u32, n × f64                   (appended)
//
// A string is u32 length then bytes. The growing parts (history, tokens,
// token ids, texts, KL history) carry only what the receiver lacks: from
// is how much of it the receiver must already hold.
const magic = "KVF2"

const (
	flagEnded = 1 << iota
	flagText
	flagSinks
)

// cellBytes is the wire size of one sim.Cell.
const cellBytes = 3 + 4 + 4*4

// Frame is a decoded frame: the snapshot lives in the Receiver.
type Frame struct {
	ID    int           // the run the frame belongs to (Open's id)
	Ended bool          // the run is complete or stopped by Err
	Err   string        // why the run stopped, if it failed
	Steps int           // positions fed since the previous frame (a step reading a prompt chunk feeds several)
	Nanos int64         // time the steps feeding them took, ns
	Snap  *sim.Snapshot // the layer's snapshot; owned by the Receiver
	IDs   []int         // the uncompressed run's token ids so far (prompt first); owned by the Receiver
}

// sent is how much of each growing part a sender has sent for its run.
type sent struct {
	hist, toks, ids, full, comp, kl int
}

// encode appends the frame of run id's snapshot s (with ids, the
// uncompressed run's token ids) to dst, sending of the growing parts only
// what *had does not count as sent, and updates *had.
func encode(dst []byte, id int, ended bool, runErr error, steps int, nanos int64, s *sim.Snapshot, ids []int, had *sent) []byte {
	le := binary.LittleEndian
	b := append(dst, magic...)
	flags := byte(0)
	if ended {
		flags |= flagEnded
	}
	if s.Text != nil {
		flags |= flagText
	}
	if s.Sinks != nil {
		flags |= flagSinks
	}
	b = le.AppendUint32(b, uint32(id))
	b = append(b, flags)
	msg := ""
	if runErr != nil {
		msg = runErr.Error()
	}
	b = appendString(b, msg)
	b = le.AppendUint32(b, uint32(steps))
	b = le.AppendUint64(b, uint64(nanos))
	for _, v := range [...]int{s.Step, s.Prompt, s.Layer, s.Layers, s.Heads} {
		b = le.AppendUint32(b, uint32(v))
	}
	b = appendF64(b, s.Attended)
	m := s.Mem
	for _, v := range [...]int64{m.Payload, m.Meta, m.Residual, m.Factors, m.Index, m.Scores, m.Holes, s.FullBytes, s.EvictBytes} {
		b = le.AppendUint64(b, uint64(v))
	}
	b = appendMetrics(b, s.Metrics)
	n := s.Heads * s.Step
	for i := range n {
		c := &s.Cells[i]
		att := byte(0)
		if c.Attended {
			att = 1
		}
		b = append(b, byte(c.Role), byte(c.Storage), att)
		b = le.AppendUint32(b, uint32(c.EvictedAt))
		b = le.AppendUint32(b, math.Float32bits(c.Score))
		b = le.AppendUint32(b, math.Float32bits(c.Attn))
		b = le.AppendUint32(b, math.Float32bits(c.AttnFull))
		b = le.AppendUint32(b, math.Float32bits(c.KErr))
	}
	b = le.AppendUint32(b, uint32(len(s.Budgets)))
	for _, v := range s.Budgets {
		b = le.AppendUint32(b, uint32(v))
	}
	b = le.AppendUint32(b, uint32(len(s.Retrieval)))
	for _, v := range s.Retrieval {
		x := byte(0)
		if v {
			x = 1
		}
		b = append(b, x)
	}
	b = le.AppendUint32(b, uint32(had.hist))
	b = le.AppendUint32(b, uint32(len(s.History)-had.hist))
	for _, h := range s.History[had.hist:] {
		b = appendMetrics(b, h)
	}
	had.hist = len(s.History)
	if k := s.Sinks; k != nil {
		b = le.AppendUint32(b, uint32(k.Layers))
		b = le.AppendUint32(b, uint32(k.Heads))
		b = le.AppendUint32(b, uint32(k.Tokens))
		for _, v := range k.Importance {
			b = appendF64(b, v)
		}
	}
	if t := s.Text; t != nil {
		b = le.AppendUint32(b, uint32(had.toks))
		b = le.AppendUint32(b, uint32(len(s.Tokens)-had.toks))
		for _, p := range s.Tokens[had.toks:] {
			b = appendString(b, p)
		}
		had.toks = len(s.Tokens)
		b = le.AppendUint32(b, uint32(had.ids))
		b = le.AppendUint32(b, uint32(len(ids)-had.ids))
		for _, v := range ids[had.ids:] {
			b = le.AppendUint32(b, uint32(v))
		}
		had.ids = len(ids)
		b = le.AppendUint32(b, uint32(had.full))
		b = appendString(b, t.Full[had.full:])
		had.full = len(t.Full)
		b = le.AppendUint32(b, uint32(had.comp))
		b = appendString(b, t.Compressed[had.comp:])
		had.comp = len(t.Compressed)
		b = le.AppendUint32(b, uint32(int32(t.Diverge)))
		b = appendF64(b, t.NextKL)
		b = appendF64(b, t.MeanKL)
		b = appendF64(b, t.Agreement)
		b = le.AppendUint32(b, uint32(t.ZipFed))
		b = le.AppendUint64(b, uint64(t.ZipTime))
		b = le.AppendUint32(b, uint32(had.kl))
		b = le.AppendUint32(b, uint32(len(t.KLHistory)-had.kl))
		for _, v := range t.KLHistory[had.kl:] {
			b = appendF64(b, v)
		}
		had.kl = len(t.KLHistory)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

func appendF64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

func appendMetrics(b []byte, m sim.Metrics) []byte {
	for _, v := range [...]float64{m.KErr, m.VErr, m.OutErr, m.Mass, m.KL, m.Bias, m.KMax, m.VMax} {
		b = appendF64(b, v)
	}
	return b
}

// Receiver rebuilds a run's snapshot from its frames, in the order they
// were sent. The page keeps one per decoding worker.
type Receiver struct {
	snap   sim.Snapshot
	text   sim.TextCompare
	sinks  sim.Sinks
	ids    []int
	tokens []string
	full   []byte
	comp   []byte
	id     int
	have   bool
}

// maxFrameCount bounds every count a frame declares (positions, heads,
// tokens), so a corrupt frame is refused before anything is allocated
// for it.
const maxFrameCount = 1 << 24

// errShort is the error of a frame that ends early.
var errShort = errors.New("session: frame ends early")

// reader reads a frame; its first error sticks and every later read
// returns zero.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errShort
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) u8() byte {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if p := r.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }
func (r *reader) f32() float32 { return math.Float32frombits(r.u32()) }

// count reads a count and checks that at least each bytes per item remain.
func (r *reader) count(what string, each int) int {
	n := r.u32()
	if r.err == nil && (n > maxFrameCount || int(n)*each > len(r.b)) {
		r.err = fmt.Errorf("session: frame declares %d %s, more than it holds", n, what)
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

func (r *reader) str() string { return string(r.take(r.count("string bytes", 1))) }

func (r *reader) metrics() sim.Metrics {
	return sim.Metrics{KErr: r.f64(), VErr: r.f64(), OutErr: r.f64(), Mass: r.f64(), KL: r.f64(), Bias: r.f64(), KMax: r.f64(), VMax: r.f64()}
}

// from reads where a growing part resumes and checks the receiver holds
// at least that much of it.
func (r *reader) from(what string, have int) int {
	f := int(r.u32())
	if r.err == nil && f > have {
		r.err = fmt.Errorf("session: frame continues the %s from %d, but only %d arrived", what, f, have)
	}
	if r.err != nil {
		return have
	}
	return f
}

// Receive applies one frame. A frame of another run than the last one
// starts the snapshot afresh. A frame that does not decode, or that
// continues what the receiver never got, is refused with an error and
// leaves the receiver's snapshot as it was only up to the point of the
// failure: after an error the receiver must be Reset before further
// frames of that run are applied.
func (rc *Receiver) Receive(b []byte) (Frame, error) {
	r := &reader{b: b}
	if string(r.take(len(magic))) != magic {
		return Frame{}, errors.New("session: not a kvscope frame")
	}
	id := int(r.u32())
	if !rc.have || id != rc.id {
		rc.Reset()
		rc.id, rc.have = id, true
	}
	flags := r.u8()
	f := Frame{ID: id, Ended: flags&flagEnded != 0}
	f.Err = r.str()
	f.Steps = int(r.u32())
	f.Nanos = int64(r.u64())
	s := &rc.snap
	s.Step, s.Prompt, s.Layer, s.Layers, s.Heads = int(r.u32()), int(r.u32()), int(r.u32()), int(r.u32()), int(r.u32())
	s.Attended = r.f64()
	m := &s.Mem
	for _, p := range [...]*int64{&m.Payload, &m.Meta, &m.Residual, &m.Factors, &m.Index, &m.Scores, &m.Holes, &s.FullBytes, &s.EvictBytes} {
		*p = int64(r.u64())
	}
	s.Metrics = r.metrics()
	if r.err == nil && (s.Step > maxFrameCount || s.Heads > maxFrameCount || s.Heads*s.Step*cellBytes > len(r.b)) {
		r.err = fmt.Errorf("session: frame declares %d×%d cells, more than it holds", s.Heads, s.Step)
	}
	if r.err != nil {
		return Frame{}, r.err
	}
	n := s.Heads * s.Step
	s.Cells = s.Cells[:0]
	for range n {
		c := sim.Cell{Role: sim.Role(r.u8()), Storage: sim.Storage(r.u8()), Attended: r.u8() != 0}
		c.EvictedAt = int32(r.u32())
		c.Score, c.Attn, c.AttnFull, c.KErr = r.f32(), r.f32(), r.f32(), r.f32()
		s.Cells = append(s.Cells, c)
	}
	s.Budgets = s.Budgets[:0]
	for range r.count("budgets", 4) {
		s.Budgets = append(s.Budgets, int(r.u32()))
	}
	s.Retrieval = s.Retrieval[:0]
	for range r.count("retrieval flags", 1) {
		s.Retrieval = append(s.Retrieval, r.u8() != 0)
	}
	if len(s.Retrieval) == 0 {
		s.Retrieval = nil
	}
	s.History = s.History[:r.from("history", len(s.History))]
	for range r.count("history entries", 64) {
		s.History = append(s.History, r.metrics())
	}
	s.Sinks = nil
	if flags&flagSinks != 0 {
		k := &rc.sinks
		k.Layers, k.Heads, k.Tokens = int(r.u32()), int(r.u32()), int(r.u32())
		if r.err == nil && (k.Layers > maxFrameCount || k.Heads > maxFrameCount || k.Layers*k.Heads*8 > len(r.b)) {
			r.err = fmt.Errorf("session: frame declares %d×%d sink heads, more than it holds", k.Layers, k.Heads)
			return Frame{}, r.err
		}
		k.Importance = k.Importance[:0]
		for range k.Layers * k.Heads {
			k.Importance = append(k.Importance, r.f64())
		}
		s.Sinks = k
	}
	s.Text, s.Tokens = nil, s.Tokens[:0:0]
	if flags&flagText != 0 {
		t := &rc.text
		s.Tokens = rc.snapTokens(r)
		rc.ids = rc.ids[:r.from("token ids", len(rc.ids))]
		for range r.count("token ids", 4) {
			rc.ids = append(rc.ids, int(r.u32()))
		}
		rc.full = append(rc.full[:r.from("uncompressed text", len(rc.full))], r.take(r.count("text bytes", 1))...)
		rc.comp = append(rc.comp[:r.from("compressed text", len(rc.comp))], r.take(r.count("text bytes", 1))...)
		if len(t.Full) != len(rc.full) {
			t.Full = string(rc.full)
		}
		if len(t.Compressed) != len(rc.comp) {
			t.Compressed = string(rc.comp)
		}
		t.Diverge = int(int32(r.u32()))
		t.NextKL, t.MeanKL, t.Agreement = r.f64(), r.f64(), r.f64()
		t.ZipFed, t.ZipTime = int(r.u32()), time.Duration(r.u64())
		t.KLHistory = t.KLHistory[:r.from("KL history", len(t.KLHistory))]
		for range r.count("KL entries", 8) {
			t.KLHistory = append(t.KLHistory, r.f64())
		}
		s.Text = t
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("session: %d bytes after the frame", len(r.b))
	}
	if r.err != nil {
		return Frame{}, r.err
	}
	f.Snap, f.IDs = s, rc.ids
	return f, nil
}

// snapTokens reads the tokens' texts into the receiver's list.
func (rc *Receiver) snapTokens(r *reader) []string {
	toks := rc.tokens[:r.from("tokens", len(rc.tokens))]
	for range r.count("tokens", 4) {
		toks = append(toks, r.str())
	}
	rc.tokens = toks
	return toks
}

// Reset forgets every frame received.
func (rc *Receiver) Reset() {
	*rc = Receiver{snap: sim.Snapshot{Cells: rc.snap.Cells[:0]}}
}
