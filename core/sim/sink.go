package sim

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/model"
)

// SinkThreshold is Gu et al.'s threshold: a head is a sink head when the
// attention importance of position 0 exceeds it.
const SinkThreshold = 0.3

// SinkPrompt is the prompt length Gu et al. measure sinks on.
const SinkPrompt = 64

// Sinks is the attention-sink metric of Gu et al. ("When Attention Sink
// Emerges in Language Models: An Empirical View", ICLR 2025) per layer and
// query head: the importance of position 0, Σ_q A[q,0]/T, the attention
// the first token receives averaged over the T queries that see it, with
// A the attention over the uncompressed history. A head whose importance
// exceeds SinkThreshold is a sink head; Share is the share of such heads
// over all (layer, head) pairs.
type Sinks struct {
	Layers, Heads int
	Tokens        int       // T: the queries averaged over (0: nothing measured yet)
	Importance    []float64 // [layer*Heads+head]: importance of position 0
}

// At returns the importance of position 0 for query head h of layer l.
func (s *Sinks) At(l, h int) float64 { return s.Importance[l*s.Heads+h] }

// IsSink reports whether query head h of layer l is a sink head.
func (s *Sinks) IsSink(l, h int) bool { return s.At(l, h) > SinkThreshold }

// Count returns the number of sink heads.
func (s *Sinks) Count() int {
	n := 0
	for _, v := range s.Importance {
		if v > SinkThreshold {
			n++
		}
	}
	return n
}

// Share returns the share of sink heads over all heads (0 when none are
// measured).
func (s *Sinks) Share() float64 {
	if len(s.Importance) == 0 || s.Tokens == 0 {
		return 0
	}
	return float64(s.Count()) / float64(len(s.Importance))
}

// Mean and Max return the mean and the largest importance of position 0
// over the heads.
func (s *Sinks) Mean() float64 {
	var sum float64
	for _, v := range s.Importance {
		sum += v
	}
	return sum / float64(max(1, len(s.Importance)))
}

// Max returns the largest importance of position 0 over the heads.
func (s *Sinks) Max() float64 {
	var m float64
	for _, v := range s.Importance {
		m = math.Max(m, v)
	}
	return m
}

// String summarises the metric in one line: "2 of 8 heads are sinks
// (25%; position-0 importance mean 0.21, max 0.64, over 64 queries)".
func (s *Sinks) String() string {
	return fmt.Sprintf("%d of %d heads are sinks (%.0f%%; position-0 importance mean %.3f, max %.3f, over %d queries)",
		s.Count(), len(s.Importance), 100*s.Share(), s.Mean(), s.Max(), s.Tokens)
}

// sinkAcc accumulates Σ_q A[q,0] per (layer, head) step by step.
type sinkAcc struct {
	sum  []float64 // [layer*heads+head]
	n    int       // queries summed
	out  Sinks     // reused result
	rows []float32 // engine: scratch reference rows (heads × tokens)
}

func newSinkAcc(layers, heads int) *sinkAcc {
	return &sinkAcc{sum: make([]float64, layers*heads),
		out: Sinks{Layers: layers, Heads: heads, Importance: make([]float64, layers*heads)}}
}

// result divides the sums by the queries counted, into the reused Sinks.
func (a *sinkAcc) result() *Sinks {
	a.out.Tokens = a.n
	for i, v := range a.sum {
		a.out.Importance[i] = v / float64(max(1, a.n))
	}
	return &a.out
}

// ModelSinks measures the sink metric of m on tokens (usually BOS and
// SinkPrompt−1 tokens of text, as Gu et al. do), with an uncompressed
// cache: per layer and query head, the importance of position 0, the
// attention it receives averaged over the len(tokens) queries (a
// SinkMeter run to its end). It returns an error when the model cannot
// take the tokens.
func ModelSinks(m *model.Model, tokens []int) (*Sinks, error) {
	sm, err := NewSinkMeter(m, tokens)
	if err != nil {
		return nil, err
	}
	for sm.Step() {
	}
	if err := sm.Err(); err != nil {
		return nil, err
	}
	out := *sm.Sinks()
	out.Importance = append([]float64(nil), out.Importance...)
	return &out, nil
}

// Sinks returns the sink metric over the run so far: the attention the
// uncompressed cache, fed the compressed run's text, gives position 0,
// averaged over every query (every position fed, prompt chunks included).
// It is updated as each position is fed, in O(Layers·Heads), and returned
// without allocating; the result is reused by the next call.
func (r *ModelRun) Sinks() *Sinks { return r.sinks.result() }

// addSinks adds the last query's attention on position 0, per layer and
// head, from the uncompressed cache.
func (r *ModelRun) addSinks() {
	c := r.m.Config
	for l := range c.Layers {
		for h := range c.Heads {
			r.sinks.sum[l*c.Heads+h] += float64(r.tap.full.Attention(l, h)[0])
		}
	}
	r.sinks.n++
}

// Sinks returns the sink metric of the synthetic stream (or trace) over
// the positions decoded so far, from the reference — attention over the
// uncompressed history, as the generator made it, whatever the cache
// keeps. It returns nil when the engine has no reference (RefStride 0 and
// no shared stream). Each new position costs O(Layers·Heads·Dim) when its
// reference is recorded (every step with RefStride 1) and
// O(Layers·Heads·Pos·Dim) otherwise (the reference is computed and
// recorded then); the result is reused by the next call.
func (e *Engine) Sinks() *Sinks {
	if e.stream == nil {
		return nil
	}
	cfg := &e.cfg
	if e.sinks == nil {
		e.sinks = newSinkAcc(cfg.Layers, cfg.Heads)
	}
	a := e.sinks
	for ; a.n < e.pos; a.n++ {
		t := a.n
		for l := range cfg.Layers {
			if !e.stream.known(t, l) {
				if a.rows == nil {
					a.rows = make([]float32, cfg.Heads*cfg.Tokens)
				}
				e.stream.reference(t, l, a.rows, cfg.Tokens)
			}
			for qh := range cfg.Heads {
				a.sum[l*cfg.Heads+qh] += float64(e.stream.weight(t, l, qh, 0))
			}
		}
	}
	return a.result()
}
