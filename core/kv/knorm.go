package kv

// Knorm (Devoto et al., "A Simple and Effective L2 Norm-Based Strategy for
// KV Cache Compression", EMNLP 2024) keeps low-L2-norm keys: over budget,
// the highest-norm key outside the sink and recent windows goes. It needs
// no attention weights. State: one float32 norm per cached token and head.
func init() {
	define(Knorm, &policyDef{
		desc: Description{
			Name: "knorm", Label: "key norm", Color: "#0072b2", Scored: "lowest key norms",
			Short: "keeps the keys with the lowest L2 norm",
			Help:  "Keeps keys with a small norm: large-norm keys tend to receive little attention. It needs no attention weights at all, so it works with fused attention kernels.",
			Paper: "Devoto et al., A Simple and Effective L2 Norm-Based Strategy for KV Cache Compression, EMNLP 2024",
			Reads: scorerReads(ParamShared),
		},
		budgeted: true, sinks: true, recent: true, keyNorms: true, stateBytes: 4,
		keep: func(_ *Layer, h *head, i int) float64 { return -float64(h.norm[i]) },
	})
}
