package kv

import "github.com/kvscope/kvscope/core/internal/splitmix"

// Random evicts a uniformly chosen token outside the sink and recent
// windows, from a seeded generator: the baseline a real policy must beat.
// Under an allocator that compares heads (AdaKV), a token's score is a
// hash of the seed, its head and its position instead: as random, and
// fixed once drawn.
func init() {
	define(Random, &policyDef{
		desc: Description{
			Name: "random", Label: "random", Color: "#999933", Scored: "random picks",
			Short: "evicts a uniformly chosen token outside the sinks and the recent window",
			Help:  "Evicts a random token when over budget — the control experiment that shows how much a smart choice is worth.",
			Reads: scorerReads(ParamShared, ParamSeed),
		},
		budgeted: true, sinks: true, recent: true,
		victim: func(l *Layer, _, lo, hi int) int { return lo + l.rng.IntN(hi-lo) },
		keep: func(l *Layer, h *head, i int) float64 {
			g := uint64(h.idx)
			return float64(splitmix.Mix((l.cfg.Seed^g<<40^uint64(h.pos[i]))+splitmix.Gamma)>>11) / (1 << 53)
		},
	})
}
