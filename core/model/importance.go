package model

import "fmt"

// AttentionImportance feeds tokens (usually starting with BOS) through the
// model with an uncompressed cache and returns, per layer and query head,
// the attention importance of every position k: importance_k = Σ_q A[q,k] /
// (T − k), the attention key k receives averaged over the T − k queries
// that can see it (T = len(tokens); Gu et al., "When Attention Sink Emerges
// in Language Models", ICLR 2025). The result is laid out
// [layer][head][k], Layers·Heads·T values; importance_0 is the sink
// metric's input (see sim.Sinks). It returns an error for an empty token
// list, more tokens than the context length, or a token out of range.
func (m *Model) AttentionImportance(tokens []int) ([]float64, error) {
	c := m.Config
	n := len(tokens)
	if n == 0 || n > c.ContextLength {
		return nil, fmt.Errorf("model: attention importance needs 1 to %d tokens, got %d", c.ContextLength, n)
	}
	fc, err := NewFullCache(c, n)
	if err != nil {
		return nil, err
	}
	r := m.NewRunner(fc)
	imp := make([]float64, c.Layers*c.Heads*n)
	for _, t := range tokens {
		if _, err := r.Forward(t); err != nil {
			return nil, err
		}
		for l := range c.Layers {
			for h := range c.Heads {
				row := imp[(l*c.Heads+h)*n:][:n]
				for k, a := range fc.Attention(l, h) {
					row[k] += float64(a)
				}
			}
		}
	}
	for i := range imp {
		imp[i] /= float64(n - i%n)
	}
	return imp, nil
}
