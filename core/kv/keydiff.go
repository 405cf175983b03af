package kv

// KeyDiff (Park et al., "KeyDiff: Key Similarity-Based KV Cache Eviction
// for Long-Context LLM Inference in Resource-Constrained Environments",
// arXiv 2504.15364; kvpress keydiff_press.py) keeps the keys least like
// the others: a token's score is −cos(k, k̄), where k̄ is the mean of the
// head's cached keys after normalising each to unit length. It needs no
// queries and no attention, so it works with fused attention kernels.
// Before each eviction the mean is taken afresh over the keys the store
// holds (one weighted sum and one dot product per cached key: O(budget·Dim)
// per step), with each key's norm as it arrived. State: one float32 key
// norm per cached token and head.
func init() {
	define(KeyDiff, &policyDef{
		desc: Description{
			Name: "keydiff", Label: "KeyDiff", Color: "#332288", Scored: "most distinct keys", KeysAsStored: true,
			Short: "keeps the keys least like the mean key",
			Help:  "Keeps the keys least like the average key (lowest cosine to the mean direction). Needs no attention weights at all, so it works with fused attention kernels, and it keeps the unusual tokens a later query may look for.",
			Paper: "Park et al., KeyDiff: Key Similarity-Based KV Cache Eviction for Long-Context LLM Inference in Resource-Constrained Environments, arXiv 2504.15364",
			Reads: scorerReads(ParamShared),
		},
		budgeted: true, sinks: true, recent: true, scoredRole: Heavy, keyNorms: true, stateBytes: 4,
		setup: func(l *Layer) {
			l.state = &keyDiffState{w: make([]float32, l.capacity), dots: make([]float32, l.capacity), mean: make([]float32, l.cfg.Dim)}
		},
		rescore: func(l *Layer) {
			st := l.state.(*keyDiffState)
			for g := range l.heads {
				h := &l.heads[g]
				n := len(h.pos)
				w := st.w[:n]
				for i, nk := range h.norm {
					w[i] = 0
					if nk > 0 {
						w[i] = 1 / nk
					}
				}
				h.keys.WeightedSum(w, h.kslot, st.mean) // Σ k̂: the mean up to a positive factor
				nm := float64(norm2(st.mean))
				dots := st.dots[:n]
				h.keys.Dots(st.mean, h.kslot, dots)
				for i, d := range dots {
					den := nm * float64(h.norm[i])
					h.score[i] = 0
					if den > 0 {
						h.score[i] = -float64(d) / den
					}
				}
			}
		},
	})
}

// keyDiffState is KeyDiff's scratch.
type keyDiffState struct {
	w, dots []float32 // capacity
	mean    []float32 // Dim
}
