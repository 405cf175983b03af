package sim

import (
	"fmt"

	"github.com/kvscope/kvscope/core/model"
)

// SinkMeter measures ModelSinks one token per Step, so that a page can
// spread the measurement over its frames: it feeds the tokens through the
// model with an uncompressed cache and sums, per layer and query head, the
// attention each query gives position 0.
type SinkMeter struct {
	m      *model.Model
	fc     *model.FullCache
	r      *model.Runner
	tokens []int
	n      int // tokens to feed: len(tokens), or more continued greedily
	next   int
	acc    *sinkAcc
	err    error
}

// NewSinkMeter prepares the measurement of m on tokens. It returns an
// error for an empty token list, more tokens than the context length, or
// a cache the model's shape refuses.
func NewSinkMeter(m *model.Model, tokens []int) (*SinkMeter, error) {
	c := m.Config
	if len(tokens) == 0 || len(tokens) > c.ContextLength {
		return nil, fmt.Errorf("sim: sink metric needs 1 to %d tokens, got %d", c.ContextLength, len(tokens))
	}
	fc, err := model.NewFullCache(c, len(tokens))
	if err != nil {
		return nil, err
	}
	return &SinkMeter{m: m, fc: fc, r: m.NewRunner(fc), tokens: tokens, n: len(tokens), acc: newSinkAcc(c.Layers, c.Heads)}, nil
}

// NewGreedySinkMeter measures on prompt continued to n tokens by greedy
// decoding with the uncompressed cache (the text a ModelRun's uncompressed
// side decodes): Gu et al.'s 64-token input for a page whose run is
// shorter or paused. n is cut to the context length; the prompt must hold
// 1 to n tokens.
func NewGreedySinkMeter(m *model.Model, prompt []int, n int) (*SinkMeter, error) {
	n = min(n, m.Config.ContextLength)
	if len(prompt) == 0 || len(prompt) > n {
		return nil, fmt.Errorf("sim: sink metric needs a prompt of 1 to %d tokens, got %d", n, len(prompt))
	}
	s, err := NewSinkMeter(m, make([]int, n))
	if err != nil {
		return nil, err
	}
	s.tokens = append(make([]int, 0, n), prompt...)
	return s, nil
}

// Step feeds the next token and reports whether tokens remain; it returns
// false after the last one or after an error (see Err). One step costs a
// forward pass and O(Layers·Heads).
func (s *SinkMeter) Step() bool {
	if s.err != nil || s.next >= s.n {
		return false
	}
	logits, err := s.r.Forward(s.tokens[s.next])
	if err != nil {
		s.err = err
		return false
	}
	if s.next+1 == len(s.tokens) && len(s.tokens) < s.n {
		s.tokens = append(s.tokens, model.Argmax(logits))
	}
	c := s.m.Config
	for l := range c.Layers {
		for h := range c.Heads {
			s.acc.sum[l*c.Heads+h] += float64(s.fc.Attention(l, h)[0])
		}
	}
	s.acc.n++
	s.next++
	return s.next < s.n
}

// Err returns the error that stopped the measurement, if any.
func (s *SinkMeter) Err() error { return s.err }

// Done reports whether every token was fed.
func (s *SinkMeter) Done() bool { return s.next == s.n }

// Tokens returns the tokens fed so far (the greedy continuation included).
func (s *SinkMeter) Tokens() []int { return s.tokens[:s.next] }

// Sinks returns the metric over the tokens fed so far (ModelSinks' result
// once Done). The result is reused by the next call.
func (s *SinkMeter) Sinks() *Sinks { return s.acc.result() }
