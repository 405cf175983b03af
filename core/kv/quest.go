package kv

import (
	"fmt"
	"math"
)

// Quest's page size and pages per query when Config.PageSize and
// Config.Pages are 0.
const (
	DefaultPageSize = 16
	DefaultPages    = 4
)

// Quest (Tang et al., "Quest: Query-Aware Sparsity for Efficient
// Long-Context LLM Inference", ICML 2024; mit-han-lab/Quest) selects
// instead of evicting: nothing leaves the cache. The cache is cut into
// pages of PageSize tokens (16 by default) and keeps, per page and key
// channel, the smallest and largest key. A query q bounds its logits on a
// page by Σ_c max(q_c·max_c, q_c·min_c) and attends only to the Pages
// pages with the highest bound plus the newest, partial page; the other
// tokens get no attention this step (Pages 0 means 4, PageSize 0 means 16). Memory stays full — plus the page
// bounds, 2·Dim FP16 values per page and head — while attention work falls
// to O(pages·Dim + selected·Dim) per query head. Selected tells which
// tokens each query head attended.
func init() {
	define(Quest, &policyDef{
		desc: Description{
			Name: "quest", Label: "Quest", Color: "#aa4499", KeysAsStored: true, Work: 0.5,
			Short: "evicts nothing: each query attends to its best pages only",
			Help:  "Selects instead of evicting: every token stays, in pages (16 tokens by default); each query reads only the pages whose key bounds promise the largest scores. Attention work falls; memory does not (the bar says so honestly).",
			Paper: "Tang et al., Quest: Query-Aware Sparsity for Efficient Long-Context LLM Inference, ICML 2024",
			Reads: []Setting{
				{Param: ParamPages, Min: 0, Max: 1 << 20, Means: fmt.Sprintf("pages each query reads besides the newest; 0 means %d", DefaultPages)},
				{Param: ParamPageSize, Min: 0, Max: 1 << 16, Means: fmt.Sprintf("tokens per page; 0 means %d", DefaultPageSize)},
			},
		},
		noIndex: true, neverShared: true,
		keeps: func(c Config) string {
			return fmt.Sprintf("nothing is evicted; each query reads only its %d best pages of %d tokens and the newest", c.pageCount(), c.pageSize())
		},
		setup: func(l *Layer) {
			c := &l.cfg
			p := c.pageSize()
			pages := (l.capacity + p - 1) / p
			l.state = &questState{
				page: p,
				lo:   make([]float32, c.KVHeads*pages*c.Dim), hi: make([]float32, c.KVHeads*pages*c.Dim),
				pages: pages, ub: make([]float32, pages), top: make([]int32, c.pageCount()),
				slots: make([]int, l.capacity), sel: make([]int32, c.Heads*l.capacity), nsel: make([]int, c.Heads),
			}
		},
		reset: func(l *Layer) {
			st := l.state.(*questState)
			clear(st.nsel)
		},
		arrive: func(l *Layer, g int, k []float32) {
			st := l.state.(*questState)
			d := l.cfg.Dim
			i := len(l.heads[g].pos) - 1
			pg := i / st.page
			lo := st.lo[(g*st.pages+pg)*d : (g*st.pages+pg+1)*d]
			hi := st.hi[(g*st.pages+pg)*d : (g*st.pages+pg+1)*d]
			if i%st.page == 0 {
				copy(lo, k)
				copy(hi, k)
				return
			}
			for c, x := range k {
				lo[c] = min(lo[c], x)
				hi[c] = max(hi[c], x)
			}
		},
		attend: (*Layer).questAttend,
		extraBytes: func(l *Layer) int64 {
			st := l.state.(*questState)
			var pages int64
			for g := range l.heads {
				pages += int64((len(l.heads[g].pos) + st.page - 1) / st.page)
			}
			return pages * 2 * 2 * int64(l.cfg.Dim) // min and max per channel, FP16
		},
	})
}

func (c Config) pageCount() int {
	if c.Pages == 0 {
		return DefaultPages
	}
	return c.Pages
}

func (c Config) pageSize() int {
	if c.PageSize == 0 {
		return DefaultPageSize
	}
	return c.PageSize
}

// questState holds Quest's page bounds and selections.
type questState struct {
	page, pages int
	lo, hi      []float32 // [kv head][page][dim]
	ub          []float32 // pages: this query's bounds
	top         []int32   // Pages: the best full pages, by bound
	slots       []int     // capacity: the selected tokens' key/value slots
	sel         []int32   // [query head][capacity]: the selected tokens' cache indices
	nsel        []int     // per query head: tokens selected at the last step
}

// questAttend is Quest's attention: each query head reads only its top
// pages and the newest page.
func (l *Layer) questAttend(q, out []float32) {
	st := l.state.(*questState)
	cfg := &l.cfg
	d := cfg.Dim
	scale := float32(1 / math.Sqrt(float64(d)))
	for g := range l.heads {
		h := &l.heads[g]
		n := len(h.pos)
		clear(h.attn)
		full := n / st.page // complete pages; the rest is the newest page
		if n%st.page == 0 && full > 0 {
			full-- // the newest page is complete: it is still the newest
		}
		for r := 0; r < l.group; r++ {
			qh := g*l.group + r
			qv := q[qh*d : (qh+1)*d]
			sel := st.sel[qh*l.capacity : (qh+1)*l.capacity]
			ns := 0
			if full <= cfg.pageCount() {
				for i := range n {
					sel[ns] = int32(i)
					ns++
				}
			} else {
				ub := st.ub[:full]
				los := st.lo[g*st.pages*d : (g*st.pages+full)*d]
				his := st.hi[g*st.pages*d : (g*st.pages+full)*d]
				for p := range full {
					lo, hi := los[p*d:(p+1)*d:(p+1)*d], his[p*d:(p+1)*d:(p+1)*d]
					lo, hi = lo[:len(qv)], hi[:len(qv)]
					var s0, s1 float32
					c := 0
					for ; c+1 < len(qv); c += 2 {
						a0, b0 := qv[c]*lo[c], qv[c]*hi[c]
						a1, b1 := qv[c+1]*lo[c+1], qv[c+1]*hi[c+1]
						if b0 > a0 {
							a0 = b0
						}
						if b1 > a1 {
							a1 = b1
						}
						s0 += a0
						s1 += a1
					}
					for ; c < len(qv); c++ {
						a, b := qv[c]*lo[c], qv[c]*hi[c]
						if b > a {
							a = b
						}
						s0 += a
					}
					ub[p] = s0 + s1
				}
				top := topPages(ub, st.top[:0], cfg.pageCount())
				// Ascending page order keeps the selection in position order.
				for _, p := range sortedPages(top) {
					for i := int(p) * st.page; i < (int(p)+1)*st.page; i++ {
						sel[ns] = int32(i)
						ns++
					}
				}
				for i := full * st.page; i < n; i++ {
					sel[ns] = int32(i)
					ns++
				}
			}
			st.nsel[qh] = ns
			slots := st.slots[:ns]
			for j, i := range sel[:ns] {
				slots[j] = h.kslot[i]
			}
			w := l.w[qh*l.capacity : qh*l.capacity+ns]
			h.keys.Dots(qv, slots, w)
			softmax(w, scale)
			for j, i := range sel[:ns] {
				slots[j] = h.vslot[i]
			}
			h.values.WeightedSum(w, slots, out[qh*d:(qh+1)*d])
			for j, i := range sel[:ns] {
				h.attn[i] += w[j] / float32(l.group)
			}
		}
	}
}

// topPages returns the k pages with the highest bounds (ties to the
// older page), in dst: O(pages·k).
func topPages(ub []float32, dst []int32, k int) []int32 {
	for p, v := range ub {
		if len(dst) < k {
			dst = append(dst, int32(p))
		} else if v > ub[dst[len(dst)-1]] {
			dst[len(dst)-1] = int32(p)
		} else {
			continue
		}
		// Bubble the new page up to keep dst sorted by bound, descending.
		for j := len(dst) - 1; j > 0 && ub[dst[j]] > ub[dst[j-1]]; j-- {
			dst[j], dst[j-1] = dst[j-1], dst[j]
		}
	}
	return dst
}

// sortedPages sorts pages ascending in place (k is small: insertion sort).
func sortedPages(p []int32) []int32 {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j] < p[j-1]; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
	return p
}

// Selected returns the cache indices (into Positions) query head qh
// attended at the last step under Quest, in ascending order, and nil under
// every other policy (they attend to every cached token). The slice is
// the layer's own.
func (l *Layer) Selected(qh int) []int32 {
	st, ok := l.state.(*questState)
	if !ok {
		return nil
	}
	return st.sel[qh*l.capacity : qh*l.capacity+st.nsel[qh]]
}

// Attended returns the mean number of tokens a query head attended at the
// last step: Len under every policy but Quest.
func (l *Layer) Attended() float64 {
	st, ok := l.state.(*questState)
	if !ok {
		var n int
		for g := range l.heads {
			n += len(l.heads[g].pos)
		}
		return float64(n) / float64(len(l.heads))
	}
	var n int
	for _, x := range st.nsel {
		n += x
	}
	return float64(n) / float64(len(st.nsel))
}
