package kv

import (
	"fmt"
	"sort"
)

// Prefill feeds n prompt tokens at positions last+1 … last+n (q and out:
// n×Heads×Dim, k and v: n×KVHeads×Dim, token-major) and then ends the
// prompt, so the policy compresses it at once: H2O keeps the heavy hitters
// of the prompt's column sums, SnapKV lets its observation window vote.
func (l *Layer) Prefill(q, k, v, out []float32, n int) error {
	cfg := &l.cfg
	qs, ks := cfg.Heads*cfg.Dim, cfg.KVHeads*cfg.Dim
	if n < 0 || len(q) != n*qs || len(out) != n*qs || len(k) != n*ks || len(v) != n*ks {
		return fmt.Errorf("kv: prefill of %d tokens needs %d query/output and %d key/value elements", n, n*qs, n*ks)
	}
	for t := 0; t < n; t++ {
		if err := l.Step(l.last+1, q[t*qs:(t+1)*qs], k[t*ks:(t+1)*ks], v[t*ks:(t+1)*ks], out[t*qs:(t+1)*qs]); err != nil {
			return err
		}
	}
	l.EndPrompt()
	return nil
}

// EndPrompt ends the prompt: from now on the policy evicts, and the
// tokens the prompt left over budget go now. Step calls it by itself at
// position MaxPrompt; calling it again does nothing.
func (l *Layer) EndPrompt() {
	if !l.inPrompt {
		return
	}
	l.inPrompt = false
	l.promptEnd = l.last + 1
	switch {
	case l.def.endPrompt != nil:
		l.def.endPrompt(l)
	case l.def.budgeted:
		l.evictDown(l.last)
	}
}

// evict applies the policy after the token at pos was added.
func (l *Layer) evict(pos int) {
	if l.inPrompt && !l.def.inPrompt {
		return
	}
	switch {
	case l.def.evict != nil:
		l.def.evict(l, pos)
	case l.def.budgeted:
		l.evictDown(pos)
	}
}

// evictDown evicts until every head is within budget (the layer within
// its total under AdaKV); at is the position being decoded, recorded as
// the time of eviction. The policy's scores are brought up to date first.
func (l *Layer) evictDown(at int) {
	budget := l.budget
	if l.cfg.SharedDecision() {
		if len(l.heads[0].pos) <= budget {
			return
		}
		l.rescore()
		for len(l.heads[0].pos) > budget {
			i := l.victim(-1)
			if i < 0 {
				return
			}
			for g := range l.heads {
				l.drop(&l.heads[g], i, at)
			}
		}
		return
	}
	if l.cfg.Alloc == AdaKV {
		l.adaEvict(at)
		return
	}
	rescored := false
	for g := range l.heads {
		for len(l.heads[g].pos) > budget {
			if !rescored {
				l.rescore()
				rescored = true
			}
			i := l.victim(g)
			if i < 0 {
				break
			}
			l.drop(&l.heads[g], i, at)
		}
	}
}

// rescore runs the policy's rescore hook, if any.
func (l *Layer) rescore() {
	if l.def.rescore != nil {
		l.def.rescore(l)
	}
}

// drop evicts head h's i-th token at position at, folding its value into
// its neighbours first when merging.
func (l *Layer) drop(h *head, i, at int) {
	if l.cfg.Merge {
		l.dropMerged(h, i, at)
		return
	}
	l.remove(h, i, at)
}

// keep is the keep score of head h's i-th token: the policy's score,
// times ‖v‖ under value-aware weighting of an attention score.
func (l *Layer) keep(h *head, i int) float64 {
	var v float64
	if l.def.keep != nil {
		v = l.def.keep(l, h, i)
	} else {
		v = h.score[i]
	}
	if l.cfg.ValueWeight && l.def.params&ParamValueWeight != 0 {
		v *= float64(h.vnorm[i])
	}
	return v
}

// value is the keep score of token i for head g or, when g is negative,
// averaged over all heads (shared decisions).
func (l *Layer) value(g, i int) float64 {
	if g >= 0 {
		return l.keep(&l.heads[g], i)
	}
	if l.oneScore() {
		return l.keep(&l.heads[0], i) // one shared score already
	}
	var s float64
	for gg := range l.heads {
		s += l.keep(&l.heads[gg], i)
	}
	return s / float64(len(l.heads))
}

// candidates returns the range [lo, hi) of head h's tokens that may be
// evicted: those outside the sink and recent windows (and not the newest
// while Update drives TOVA).
func (l *Layer) candidates(h *head) (lo, hi int) {
	lo, hi = l.sinkCount(h), len(h.pos)-l.recentCount(h)
	if l.spareNewest && hi == len(h.pos) {
		hi--
	}
	return lo, hi
}

// victim returns the index of the token head g (all heads when g < 0)
// should evict next, or -1 when nothing may be evicted: the candidate
// with the lowest keep score, ties to the oldest, unless the policy
// chooses its own way.
func (l *Layer) victim(g int) int {
	h := &l.heads[max(g, 0)]
	lo, hi := l.candidates(h)
	if hi <= lo {
		return -1
	}
	if l.def.victim != nil {
		return l.def.victim(l, g, lo, hi)
	}
	best, _ := l.lowest(g, lo, hi)
	return best
}

// lowest returns the index in [lo, hi) with the lowest value for head g
// (ties to the oldest) and that value.
func (l *Layer) lowest(g, lo, hi int) (int, float64) {
	best, bv := lo, l.value(g, lo)
	for i := lo + 1; i < hi; i++ {
		if v := l.value(g, i); v < bv {
			best, bv = i, v
		}
	}
	return best, bv
}

// minRef is a head's lowest-keep candidate for AdaKV.
type minRef struct {
	i int // -1 when the head may not give up a token
	v float64
}

// adaEvict is AdaKV's eviction: while the layer holds more than
// KVHeads·budget tokens, the lowest-scored candidate across the heads
// still above their floor goes. Each eviction rescans only the head that
// lost a token: O(KVHeads·budget) per decode step.
func (l *Layer) adaEvict(at int) {
	total := 0
	for g := range l.heads {
		total += len(l.heads[g].pos)
	}
	limit := l.budget * len(l.heads)
	if total <= limit {
		return
	}
	l.rescore()
	for g := range l.heads {
		l.mins[g] = l.headMin(g)
	}
	for ; total > limit; total-- {
		best := -1
		for g, m := range l.mins {
			if m.i >= 0 && (best < 0 || m.v < l.mins[best].v) {
				best = g
			}
		}
		if best < 0 {
			return
		}
		l.drop(&l.heads[best], l.mins[best].i, at)
		l.mins[best] = l.headMin(best)
	}
}

// headMin is head g's lowest-keep candidate, or i = -1 when the head is at
// its floor or has no candidate.
func (l *Layer) headMin(g int) minRef {
	h := &l.heads[g]
	lo, hi := l.candidates(h)
	if len(h.pos) <= l.floor || hi <= lo {
		return minRef{i: -1}
	}
	i, v := l.lowest(g, lo, hi)
	return minRef{i, v}
}

// remove evicts head h's i-th token at position at.
func (l *Layer) remove(h *head, i, at int) {
	_ = h.keys.Evict(h.kslot[i])
	_ = h.values.Evict(h.vslot[i])
	h.evictedAt[h.pos[i]] = int32(at)
	n := len(h.pos)
	copy(h.pos[i:], h.pos[i+1:])
	copy(h.kslot[i:], h.kslot[i+1:])
	copy(h.vslot[i:], h.vslot[i+1:])
	if len(h.score) == n { // empty in heads that share head 0's score
		copy(h.score[i:], h.score[i+1:])
		h.score = h.score[:n-1]
	}
	if len(h.norm) == n { // empty unless the policy ranks by key norm
		copy(h.norm[i:], h.norm[i+1:])
		h.norm = h.norm[:n-1]
	}
	if len(h.vnorm) == n { // empty unless scores are value-aware
		copy(h.vnorm[i:], h.vnorm[i+1:])
		h.vnorm = h.vnorm[:n-1]
	}
	copy(h.attn[i:], h.attn[i+1:])
	h.pos, h.kslot, h.vslot = h.pos[:n-1], h.kslot[:n-1], h.vslot[:n-1]
	h.attn = h.attn[:n-1]
}

// span returns the range of head h's tokens with positions in [start, end).
func span(h *head, start, end int) (int, int) {
	a := sort.Search(len(h.pos), func(i int) bool { return int(h.pos[i]) >= start })
	b := sort.Search(len(h.pos), func(i int) bool { return int(h.pos[i]) >= end })
	return a, b
}
