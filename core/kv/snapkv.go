package kv

import (
	"fmt"
	"math"
	"sort"
)

// SnapKV (Li et al., "SnapKV: LLM Knows What You are Looking for Before
// Generation", 2024) compresses the prompt only: the last Recent prompt
// queries (the observation window) vote, with average pooling over 5
// positions, for Heavy prompt tokens per head; the window is kept too.
// Generated tokens are never evicted; it always decides per head. State: the window's queries while the prompt
// lasts, none after.
func init() {
	define(SnapKV, &policyDef{
		desc: Description{
			Name: "snapkv", Label: "SnapKV", Color: "#882255",
			Short: "compresses the prompt once: its last queries vote for the prompt tokens each head keeps",
			Help:  "Compresses once, after the prompt: the last prompt queries vote on which prompt tokens matter, each head keeps its top picks, and nothing is evicted while generating.",
			Paper: "Li et al., SnapKV: LLM Knows What You are Looking for Before Generation, 2024",
			Reads: []Setting{
				{Param: ParamRecent, Min: 1, Means: "the prompt's observation window"},
				{Param: ParamHeavy, Means: "the prompt tokens each head keeps beyond the window"},
			},
		},
		roles: []Role{Recent, Heavy, Kept}, neverShared: true,
		keeps: func(c Config) string {
			return fmt.Sprintf("the prompt's last %d queries choose %d prompt tokens per head; every generated token stays", c.Recent, c.Heavy)
		},
		setup: func(l *Layer) {
			l.obsQ = make([]float32, l.cfg.Recent*l.cfg.Heads*l.cfg.Dim)
			l.obsPos = make([]int32, l.cfg.Recent)
		},
		reset: func(l *Layer) {
			for i := range l.obsPos {
				l.obsPos[i] = -1
			}
		},
		held: func(c Config, n int, _ float64) (float64, float64) {
			// The prompt compressed to its window and voted tokens, then
			// every generated token.
			t := float64(min(n, c.Recent+c.Heavy+max(0, n-c.MaxPrompt)))
			return t, c.heldIndex(t)
		},
		setBudget: func(c *Config, budget, _ int) bool {
			kept := max(1, int(math.Round(float64(budget)/float64(c.MaxTokens)*float64(c.MaxPrompt))))
			c.Recent = max(1, (kept+1)/2)
			c.Heavy = kept - c.Recent
			return true
		},
		observe:   (*Layer).observe,
		endPrompt: (*Layer).snapSelect,
		role: func(l *Layer, g, i int) Role {
			p := int(l.heads[g].pos[i])
			switch {
			case l.promptEnd < 0 || p >= l.promptEnd:
				return Kept
			case p >= l.promptEnd-l.cfg.Recent:
				return Recent
			}
			return Heavy
		},
	})
}

// observe remembers SnapKV's observation window: the last Recent queries
// of the prompt.
func (l *Layer) observe(q []float32, pos int) {
	if !l.inPrompt {
		return
	}
	r := pos % l.cfg.Recent
	qs := l.cfg.Heads * l.cfg.Dim
	copy(l.obsQ[r*qs:(r+1)*qs], q)
	l.obsPos[r] = int32(pos)
}

// snapSelect is SnapKV's prompt compression: the observation window's
// queries score the prefix keys, scores are average-pooled over 5
// positions, and each head keeps its Heavy best prefix tokens plus the
// window.
func (l *Layer) snapSelect() {
	cfg := &l.cfg
	capacity := l.capacity
	qs := cfg.Heads * cfg.Dim
	winStart := l.promptEnd - cfg.Recent
	for g := range l.heads {
		h := &l.heads[g]
		n := len(h.pos)
		for r, qp := range l.obsPos {
			if qp < 0 || int(qp) < winStart {
				continue
			}
			// Causal: the query at qp sees tokens at positions <= qp.
			m := sort.Search(n, func(i int) bool { return h.pos[i] > qp })
			for k := 0; k < l.group; k++ {
				qh := g*l.group + k
				w := l.w[qh*capacity : qh*capacity+m]
				h.keys.Dots(l.obsQ[r*qs+qh*cfg.Dim:r*qs+(qh+1)*cfg.Dim], h.kslot[:m], w)
				softmax(w, float32(1/math.Sqrt(float64(cfg.Dim))))
				for i, a := range w {
					h.score[i] += float64(a) / float64(l.group)
				}
			}
		}
		prefix := sort.Search(n, func(i int) bool { return int(h.pos[i]) >= winStart })
		// Average-pool the prefix scores with kernel 5 (same padding) into attn.
		for i := 0; i < prefix; i++ {
			var s float64
			c := 0
			for j := max(0, i-2); j <= min(prefix-1, i+2); j++ {
				s += h.score[j]
				c++
			}
			h.attn[i] = float32(s / float64(c))
		}
		for ; prefix > cfg.Heavy; prefix-- {
			best, bv := 0, h.attn[0]
			for i := 1; i < prefix; i++ {
				if h.attn[i] < bv {
					best, bv = i, h.attn[i]
				}
			}
			l.remove(h, best, l.last)
		}
		clear(h.attn)
	}
}
