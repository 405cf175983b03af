package kv

// Merging instead of dropping (Config.Merge), after CaM (Zhang et al.,
// "CaM: Cache Merging for Memory-efficient LLMs Inference", ICML 2024):
// when a head evicts a token, its value is folded into its kept
// neighbours — the nearest cached token before it and the nearest after it
// — instead of being dropped. Each neighbour j becomes the attention-
// weighted average of itself and its share of the evicted value:
//
//	v_j ← (a_j·v_j + (a_e/m)·v_e) / (a_j + a_e/m)
//
// where a is this step's attention (averaged over the head's query heads)
// and m the number of neighbours (1 or 2). Keys are left alone, so the
// neighbour is still found by its own key, and carries the evicted
// token's contribution to the output. A neighbour that received no
// attention and an evicted token that received none change nothing.
//
// A value is rewritten in place when the store can (an Overwriter, as the
// exact float32 store is); otherwise it is evicted and appended again,
// taking a new slot. Merging costs O(Dim) per eviction and stores nothing
// extra.

// An Overwriter is a Store that can replace the vector held in a slot.
type Overwriter interface {
	Overwrite(slot int, x []float32) error
}

func (e *exact) Overwrite(slot int, x []float32) error {
	copy(e.data[slot*e.dim:(slot+1)*e.dim], x)
	return nil
}

// dropMerged evicts head h's i-th token at position at and folds its
// value into its neighbours. The token leaves first, so a store without
// Overwrite has the room to take a neighbour's new value before giving up
// its old one.
func (l *Layer) dropMerged(h *head, i, at int) {
	ae := float64(h.attn[i])
	d := l.cfg.Dim
	ve, vj := l.mbuf[:d], l.mbuf[d:2*d]
	h.values.Read(h.vslot[i], ve)
	l.remove(h, i, at)
	if ae <= 0 {
		return
	}
	// The neighbours are now at i-1 and i.
	var nb [2]int
	m := 0
	if i > 0 {
		nb[m] = i - 1
		m++
	}
	if i < len(h.pos) {
		nb[m] = i
		m++
	}
	if m == 0 {
		return
	}
	share := ae / float64(m)
	for _, j := range nb[:m] {
		aj := float64(h.attn[j])
		wj, we := float32(aj/(aj+share)), float32(share/(aj+share))
		h.values.Read(h.vslot[j], vj)
		for c := range vj {
			vj[c] = wj*vj[c] + we*ve[c]
		}
		if o, ok := h.values.(Overwriter); ok {
			if o.Overwrite(h.vslot[j], vj) != nil {
				continue
			}
		} else {
			s, err := h.values.Append(vj)
			if err != nil {
				continue // refused: the neighbour keeps its own value
			}
			_ = h.values.Evict(h.vslot[j])
			h.vslot[j] = s
		}
		// The attention the evicted token had now flows through j.
		h.attn[j] += float32(share)
	}
}
