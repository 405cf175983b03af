package kv

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// KVzip (Kim et al., "KVzip: Query-Agnostic KV Cache Compression with
// Context Reconstruction", 2025; kvpress's KVzipPress) compresses the
// prompt once, for any question to come. Each prompt token is scored by
// the largest attention any query gives it while the model repeats the
// prompt from its own cache, the maximum over the query heads of its kv
// head; when the prompt ends, the lowest-scored tokens go until the
// layer's budget holds — Heavy tokens per head on average, shared among
// the layer's heads by score, as kvpress's layerwise mode does, so a head
// the reconstruction leans on keeps more. The first Sink tokens always
// stay (kvpress pins four); generated tokens are never evicted.
//
// The reconstruction needs the model: a real model's run (core/sim) feeds
// it after the prompt and hands its scores to Layer.Zip. Without a model
// (the synthetic stream, a replayed trace) the prompt's own queries stand
// in for the reconstruction's: each token keeps the largest attention a
// prompt query gave it. State: one float64 per cached token and head.
func init() {
	define(KVzip, &policyDef{
		desc: Description{
			Name: "kvzip", Label: "KVzip", Color: "#661100", Reconstructs: true,
			Short: "compresses the prompt once, for any question: it keeps what the model needs to repeat the prompt",
			Help:  "Compresses once, after the prompt, without knowing the question: the model is asked to repeat the prompt from its own cache, each token is scored by the most attention that repetition gives it, and the least needed tokens go. Heads share the layer's budget by score. It costs an extra pass over the prompt; with the synthetic stream, which has no model to repeat it, the prompt's own attention stands in.",
			Paper: "Kim et al., KVzip: Query-Agnostic KV Cache Compression with Context Reconstruction, NeurIPS 2025",
			Reads: []Setting{
				{Param: ParamSink, Means: "first tokens always kept"},
				{Param: ParamHeavy, Min: 1, Means: "prompt tokens each head keeps on average: the layer's heads share the budget by score"},
			},
		},
		roles: []Role{Sink, Heavy, Kept}, neverShared: true, stateBytes: 8,
		keeps: func(c Config) string {
			return fmt.Sprintf("%d sinks and %d prompt tokens per head on average, chosen by how much repeating the prompt needs them; every generated token stays", c.Sink, c.Heavy)
		},
		held: func(c Config, n int, _ float64) (float64, float64) {
			t := float64(min(n, c.Sink+c.Heavy+max(0, n-c.MaxPrompt)))
			return t, c.heldIndex(t)
		},
		setBudget: func(c *Config, budget, sink int) bool {
			kept := max(1, int(math.Round(float64(budget)/float64(c.MaxTokens)*float64(c.MaxPrompt))))
			c.Sink = min(sink, max(0, kept-1))
			c.Heavy = kept - c.Sink
			return true
		},
		setup: func(l *Layer) {
			l.state = make([]zipCandidate, 0, l.cfg.KVHeads*l.capacity)
		},
		observe:   maxAttention,
		endPrompt: (*Layer).zipPrompt,
		role: func(l *Layer, g, i int) Role {
			p := int(l.heads[g].pos[i])
			switch {
			case p < l.cfg.Sink:
				return Sink
			case l.promptEnd < 0 || p >= l.promptEnd:
				return Kept
			}
			return Heavy
		},
	})
}

// zipCandidate is a prompt token a KVzip layer may evict.
type zipCandidate struct {
	score  float64
	g, pos int32
}

// maxAttention keeps, while the prompt lasts, the largest attention each
// token received from any query head of its kv head.
func maxAttention(l *Layer, _ []float32, _ int) {
	if !l.inPrompt {
		return
	}
	for g := range l.heads {
		h := &l.heads[g]
		n := len(h.pos)
		for r := 0; r < l.group; r++ {
			qh := g*l.group + r
			for i, a := range l.w[qh*l.capacity : qh*l.capacity+n] {
				h.score[i] = max(h.score[i], float64(a))
			}
		}
	}
}

// Zip ends the prompt of a KVzip layer with scores from a reconstruction
// pass instead of the prompt's own: scores[g] holds one score per token
// head g holds, in Positions(g) order. The layer then compresses as
// EndPrompt does. It returns an error, and changes nothing, for another
// policy, after the prompt has ended, or for scores of the wrong shape
// or not finite.
func (l *Layer) Zip(scores [][]float32) error {
	if l.cfg.Policy != KVzip {
		return fmt.Errorf("kv: Zip scores a KVzip cache, not %s", l.cfg.Policy)
	}
	if !l.inPrompt {
		return fmt.Errorf("kv: Zip after the prompt ended")
	}
	if len(scores) != len(l.heads) {
		return fmt.Errorf("kv: Zip needs scores for %d heads, got %d", len(l.heads), len(scores))
	}
	for g, s := range scores {
		if len(s) != len(l.heads[g].pos) {
			return fmt.Errorf("kv: head %d holds %d tokens, got %d scores", g, len(l.heads[g].pos), len(s))
		}
		if err := checkFinite("KVzip score", s); err != nil {
			return err
		}
	}
	for g, s := range scores {
		h := &l.heads[g]
		for i, v := range s {
			h.score[i] = float64(v)
		}
	}
	l.EndPrompt()
	return nil
}

// zipPrompt is KVzip's compression at the prompt's end: the layer keeps
// the KVHeads·Heavy best-scored prompt tokens beyond the sinks, whichever
// heads hold them (ties: the lower head, then the earlier position).
func (l *Layer) zipPrompt() {
	cand := l.state.([]zipCandidate)[:0]
	for g := range l.heads {
		h := &l.heads[g]
		for i, p := range h.pos {
			if int(p) >= l.cfg.Sink {
				cand = append(cand, zipCandidate{h.score[i], int32(g), p})
			}
		}
	}
	keep := len(l.heads) * l.cfg.Heavy
	if len(cand) <= keep {
		return
	}
	slices.SortFunc(cand, func(a, b zipCandidate) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.g, b.g); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	// Evict the rest, head by head from the last position back, so that
	// each removal leaves the indices still to visit in place.
	drop := cand[keep:]
	slices.SortFunc(drop, func(a, b zipCandidate) int {
		if c := cmp.Compare(a.g, b.g); c != 0 {
			return c
		}
		return cmp.Compare(b.pos, a.pos)
	})
	for _, c := range drop {
		h := &l.heads[c.g]
		i, ok := slices.BinarySearch(h.pos, c.pos)
		if ok {
			l.remove(h, i, l.last)
		}
	}
}
