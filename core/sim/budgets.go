package sim

import "github.com/kvscope/kvscope/core/synth"

// fillBudgets writes every layer's per-head budgets, Duo's head classes
// and the shown layer's attended-token count into s, reusing its slices.
func (c *caches) fillBudgets(s *Snapshot) {
	cfg := &c.cfg
	n := cfg.Layers * cfg.KVHeads
	if cap(s.Budgets) < n {
		s.Budgets = make([]int, n)
	}
	s.Budgets = s.Budgets[:n]
	s.Retrieval = s.Retrieval[:0]
	for l, layer := range c.layers {
		for g := range cfg.KVHeads {
			s.Budgets[l*cfg.KVHeads+g] = layer.HeadBudget(g)
		}
	}
	for _, layer := range c.layers {
		r := layer.RetrievalHeads()
		if r == nil {
			s.Retrieval = nil
			break
		}
		if s.Retrieval == nil {
			s.Retrieval = make([]bool, 0, n)
		}
		s.Retrieval = append(s.Retrieval, r...)
	}
	s.Attended = c.layers[s.Layer].Attended()
}

// RetrievalTruth returns, per layer and kv head (Layers × KVHeads), whether
// the synthetic stream made any of the head's query heads a retrieval head
// (synth.Retrieval): what DuoAttention's classification should find.
func (c Config) RetrievalTruth() ([]bool, error) {
	g, err := synth.New(c.synth())
	if err != nil {
		return nil, err
	}
	group := c.Heads / c.KVHeads
	out := make([]bool, c.Layers*c.KVHeads)
	for l := range c.Layers {
		for qh := range c.Heads {
			if g.HeadKind(l, qh) == synth.Retrieval {
				out[l*c.KVHeads+qh/group] = true
			}
		}
	}
	return out, nil
}

// DuoAccuracy returns the share of kv heads, over all layers, that the
// engine's DuoAttention classified as the synthetic stream made them
// (retrieval or not), and false when the heads are not classified yet (or
// the policy is not duo, or the stream is a replayed trace).
func (e *Engine) DuoAccuracy() (float64, bool) {
	if _, ok := e.src.(*traceSource); ok || e.stream != nil && e.stream.key.tr != nil {
		return 0, false // a replayed trace has no known retrieval heads
	}
	truth, err := e.cfg.RetrievalTruth()
	if err != nil {
		return 0, false
	}
	right := 0
	for l, layer := range e.c.layers {
		r := layer.RetrievalHeads()
		if r == nil {
			return 0, false
		}
		for g, isRet := range r {
			if isRet == truth[l*e.cfg.KVHeads+g] {
				right++
			}
		}
	}
	return float64(right) / float64(len(truth)), true
}

// Budget is the most tokens a kv head keeps after each step under c's
// policy with the uniform allocator (kv.Config.Budget): the sum of the
// sink, recent and heavy settings the policy reads, or Tokens for the
// policies without a budget. It is 0 for an invalid policy.
func (c Config) Budget() int {
	k, err := c.kv()
	if err != nil {
		return 0
	}
	return k.Budget()
}
