package kv

// Seed000 is seed 000's combined cache exactly: attention over the cache
// as it was before the new token, averaged over all heads of the layer,
// accumulates into one shared score; the new token enters with score 0;
// over budget it keeps positions < Sink, the Recent newest others and the
// Heavy best-scored of the rest. One decision for all heads, and it evicts
// during the prompt too (seed 000 knows no prompt). State: one float64
// per cached token, once per layer.
func init() {
	define(Seed000, &policyDef{
		desc: Description{
			Name: "seed000", Label: "sinks + H2O + recent", Title: "Sinks + H2O + recent (combined)", Color: "#44aa99",
			Short: "sinks, heavy hitters and a recent window with one decision for all heads (always shared)",
			Help:  "The three ideas together with one decision shared by all heads: sinks stay, the recent window stays, and the heavy-hitter budget goes to the highest accumulated attention.",
			Paper: "kvscope's seed 000",
			Reads: scorerReads(ParamValueWeight),
		},
		budgeted: true, sinks: true, recent: true,
		scoredRole: Heavy, oneScore: true, alwaysShared: true, inPrompt: true, stateBytes: 8,
		observe: func(l *Layer, _ []float32, _ int) {
			// Seed 000 feeds the attention over the cache before the new token:
			// per query head that is the same softmax without the last entry,
			// renormalized. It is averaged over all heads of the layer; the new
			// token enters with score 0.
			capacity := l.capacity
			h0 := &l.heads[0]
			n := len(h0.pos)
			for qh := 0; qh < l.cfg.Heads; qh++ {
				w := l.w[qh*capacity : qh*capacity+n-1]
				var rest float64
				for _, a := range w {
					rest += float64(a)
				}
				if rest <= 0 {
					continue
				}
				f := 1 / (rest * float64(l.cfg.Heads))
				for i, a := range w {
					h0.score[i] += float64(a) * f
				}
			}
		},
	})
}
