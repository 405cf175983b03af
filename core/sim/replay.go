package sim

import (
	"fmt"

	"github.com/kvscope/kvscope/core/trace"
)

// NewReplay builds an engine that replays a recorded trace instead of the
// synthetic stream: the trace sets Layers, Heads, KVHeads and HeadDim,
// Tokens is capped at the trace's length (0 means all of it), and the
// generator's knobs are ignored. With Bits 32 nothing is lost to storage,
// so eviction decisions can be compared with reference implementations.
func NewReplay(cfg Config, tr *trace.Trace) (*Engine, error) {
	if err := tr.Validate(); err != nil {
		return nil, err
	}
	cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.HeadDim = tr.Layers, tr.QHeads, tr.KVHeads, tr.Dim
	if cfg.Tokens <= 0 || cfg.Tokens > tr.Tokens {
		cfg.Tokens = tr.Tokens
	}
	cfg.Prompt = min(cfg.Prompt, cfg.Tokens)
	if err := cfg.validateCache(); err != nil {
		return nil, fmt.Errorf("sim: replay: %w", err)
	}
	return newEngine(cfg, func() (Source, error) { return &traceSource{tr: tr}, nil }, streamKey{tr: tr}, nil)
}

// traceSource plays a trace's positions in order.
type traceSource struct {
	tr  *trace.Trace
	pos int
}

func (s *traceSource) Next(q, k, v []float32) int {
	tr, t := s.tr, s.pos
	d := tr.Dim
	for l := range tr.Layers {
		for h := range tr.QHeads {
			copy(q[(l*tr.QHeads+h)*d:], tr.QAt(l, t, h))
		}
		for h := range tr.KVHeads {
			copy(k[(l*tr.KVHeads+h)*d:], tr.KAt(l, t, h))
			copy(v[(l*tr.KVHeads+h)*d:], tr.VAt(l, t, h))
		}
	}
	s.pos++
	return t
}
