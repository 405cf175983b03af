package kv

// TOVA (Oren et al., "Transformers are Multi-State RNNs", 2024) drops,
// whenever the cache is over budget, the token that the current query
// attends to least (averaged over the query heads of a key/value head).
// Sink and Recent, when set, are protected. Reads: Sink, Recent, Heavy,
// Shared. Budget: Sink + Recent + Heavy. State: none beyond the step's
// attention.
func init() {
	define(TOVA, &policyDef{
		name: "tova", params: budgetParams | ParamShared, budgeted: true, sinks: true, recent: true,
		attention: true, latest: true,
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
