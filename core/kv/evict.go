package kv

import (
	"fmt"
	"math"
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
	case l.cfg.Policy == SnapKV:
		l.snapSelect()
	case l.cfg.Policy == Chunk:
		for end := l.cfg.ChunkSize; end <= l.promptEnd; end += l.cfg.ChunkSize {
			l.dropChunk(end-l.cfg.ChunkSize, end, l.last)
		}
	case l.cfg.Policy.budgeted():
		l.evictDown(l.last)
	}
}

// evict applies the policy after the token at pos was added.
func (l *Layer) evict(pos int) {
	if l.inPrompt && l.cfg.Policy != Seed000 {
		return
	}
	switch {
	case l.cfg.Policy == Chunk:
		if (pos+1)%l.cfg.ChunkSize == 0 {
			l.dropChunk(pos+1-l.cfg.ChunkSize, pos+1, pos)
		}
	case l.cfg.Policy.budgeted():
		l.evictDown(pos)
	}
}

// evictDown evicts until every head is within budget; at is the position
// being decoded, recorded as the time of eviction.
func (l *Layer) evictDown(at int) {
	budget := l.cfg.Budget()
	if l.cfg.sharedDecision() {
		for len(l.heads[0].pos) > budget {
			i := l.victim(-1)
			if i < 0 {
				return
			}
			for g := range l.heads {
				l.remove(&l.heads[g], i, at)
			}
		}
		return
	}
	for g := range l.heads {
		for len(l.heads[g].pos) > budget {
			i := l.victim(g)
			if i < 0 {
				break
			}
			l.remove(&l.heads[g], i, at)
		}
	}
}

// value is the quantity a policy ranks tokens by, for head g or, when g
// is negative, averaged over all heads (shared decisions).
func (l *Layer) value(g, i int) float64 {
	pick := func(h *head) float64 {
		if l.cfg.Policy == Knorm || l.cfg.Policy == Chunk {
			return float64(h.norm[i])
		}
		return h.score[i]
	}
	if g >= 0 {
		return pick(&l.heads[g])
	}
	if l.cfg.Policy == Seed000 {
		return pick(&l.heads[0]) // one shared score already
	}
	var s float64
	for gg := range l.heads {
		s += pick(&l.heads[gg])
	}
	return s / float64(len(l.heads))
}

// victim returns the index of the token head g (all heads when g < 0)
// should evict next, or -1 when nothing may be evicted. Only tokens
// outside the sink and recent windows are candidates. Ties go to the
// oldest token.
func (l *Layer) victim(g int) int {
	h := &l.heads[max(g, 0)]
	lo, hi := l.sinkCount(h), len(h.pos)-l.recentCount(h)
	if l.spareNewest && hi == len(h.pos) {
		hi--
	}
	if hi <= lo {
		return -1
	}
	switch l.cfg.Policy {
	case Window, Streaming:
		return lo
	case Random:
		return lo + l.rng.IntN(hi-lo)
	case Knorm:
		best, bv := lo, l.value(g, lo)
		for i := lo + 1; i < hi; i++ {
			if v := l.value(g, i); v > bv {
				best, bv = i, v
			}
		}
		return best
	}
	best, bv := lo, l.value(g, lo)
	for i := lo + 1; i < hi; i++ {
		if v := l.value(g, i); v < bv {
			best, bv = i, v
		}
	}
	return best
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
	copy(h.attn[i:], h.attn[i+1:])
	h.pos, h.kslot, h.vslot = h.pos[:n-1], h.kslot[:n-1], h.vslot[:n-1]
	h.attn = h.attn[:n-1]
}

// dropChunk drops DropShare of the tokens in positions [start, end) with
// the lowest key norm, per head or shared.
func (l *Layer) dropChunk(start, end, at int) {
	span := func(h *head) (int, int) {
		a := sort.Search(len(h.pos), func(i int) bool { return int(h.pos[i]) >= start })
		b := sort.Search(len(h.pos), func(i int) bool { return int(h.pos[i]) >= end })
		return a, b
	}
	drop := func(g int, a, b int) int {
		best, bv := a, l.value(g, a)
		for i := a + 1; i < b; i++ {
			if v := l.value(g, i); v < bv {
				best, bv = i, v
			}
		}
		return best
	}
	if l.cfg.sharedDecision() {
		a, b := span(&l.heads[0])
		for n := int(l.cfg.DropShare * float64(b-a)); n > 0; n-- {
			i := drop(-1, a, b)
			for g := range l.heads {
				l.remove(&l.heads[g], i, at)
			}
			b--
		}
		return
	}
	for g := range l.heads {
		h := &l.heads[g]
		a, b := span(h)
		for n := int(l.cfg.DropShare * float64(b-a)); n > 0; n-- {
			l.remove(h, drop(g, a, b), at)
			b--
		}
	}
}

// observe remembers SnapKV's observation window: the last Recent queries
// of the prompt.
func (l *Layer) observe(q []float32, pos int) {
	if l.cfg.Policy != SnapKV || !l.inPrompt {
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
