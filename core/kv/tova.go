package kv

// TOVA (Oren et al., "Transformers are Multi-State RNNs", 2024) drops,
// whenever the cache is over budget, the token that the current query
// attends to least (averaged over the query heads of a key/value head).
// Sink and Recent, when set, are protected. State: none beyond the step's
// attention.
func init() {
	define(TOVA, &policyDef{
		desc: Description{
			Name: "tova", Label: "TOVA", Color: "#d55e00", Scored: "most attended now",
			Landmark: true,
			Short:    "drops the token the current query attends to least",
			Help:     "When over budget, drops the token the current query attends to least. No accumulated history, so it adapts quickly when the text changes topic.",
			Paper:    "Oren et al., Transformers are Multi-State RNNs, 2024",
			Reads:    scorerReads(ParamShared, ParamValueWeight),
		},
		budgeted: true, sinks: true, recent: true, latest: true,
		observe: func(l *Layer, _ []float32, _ int) {
			for g := range l.heads {
				h := &l.heads[g]
				for i, a := range h.attn {
					h.score[i] = float64(a)
				}
			}
		},
	})
}
