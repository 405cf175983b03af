package kv

// H2O (Zhang et al., "H2O: Heavy-Hitter Oracle for Efficient Generative
// Inference of Large Language Models", NeurIPS 2023) keeps the Recent
// newest tokens plus, per head, the Heavy tokens with the largest
// accumulated post-softmax attention (self-attention included: a new token
// starts with the attention it receives in its own step). Sink > 0
// additionally pins the first Sink positions (its Description lists the
// settings it reads). State: one float64 per cached token and head.
func init() {
	define(H2O, &policyDef{
		desc: Description{
			Name: "h2o", Label: "H2O", Title: "H2O (heavy hitters + recent)", Color: "#009e73",
			Landmark: true,
			Short:    "keeps the heavy hitters by accumulated attention and a recent window",
			Help:     "Each cached token accumulates the attention it receives; when the cache is over budget, the token with the smallest total goes. A few heavy hitters collect most attention, so keeping them plus a recent window preserves most of the attention mass at a fraction of the memory.",
			Paper:    "Zhang et al., H2O: Heavy-Hitter Oracle for Efficient Generative Inference of Large Language Models, NeurIPS 2023",
			Reads:    scorerReads(ParamShared, ParamValueWeight),
		},
		budgeted: true, sinks: true, recent: true, scoredRole: Heavy, stateBytes: 8,
		observe: accumulateAttention,
	})
}

// accumulateAttention adds this step's attention to every head's scores.
func accumulateAttention(l *Layer, _ []float32, _ int) {
	for g := range l.heads {
		h := &l.heads[g]
		for i, a := range h.attn {
			h.score[i] += float64(a)
		}
	}
}
