package kv

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/kvscope/kvscope/core/internal/fastmath"
)

var errFull = errors.New("kv: store is full")

// Role is what a cached token is to its head.
type Role uint8

// Roles of cached tokens.
const (
	Kept   Role = iota // kept by a policy that names no role
	Sink               // pinned attention sink
	Recent             // inside the recent (or SnapKV observation) window
	Heavy              // kept for its score
)

// head is one key/value head's cache: its tokens in position order.
type head struct {
	pos          []int32   // original positions, ascending
	kslot, vslot []int     // slots in the key and value stores
	score        []float64 // the policy's score per token (accumulated or latest attention, KeyDiff, ExpectedAttention…); Seed000 keeps its one shared score in head 0 only, empty elsewhere
	attn         []float32 // this step's attention, averaged over the head's query heads
	norm         []float32 // L2 norm of the key as it arrived (policies that rank by it; empty for others)
	vnorm        []float32 // L2 norm of the value as it arrived (value-aware scores; empty for others)
	evictedAt    []int32   // per position: the position being decoded when it left; -1 if never
	keys, values Store
	idx          int // the head's index in its layer
}

// Layer is the compressed cache of one layer: KVHeads heads, each holding
// the tokens its policy keeps. It is not safe for concurrent use.
type Layer struct {
	cfg   Config
	group int // query heads per kv head
	heads []head
	rng   *rand.Rand
	src   *rand.PCG

	last      int // last position appended; -1 before the first
	inPrompt  bool
	promptEnd int // first position after the prompt; -1 while in the prompt

	// scratch, sized once
	w        []float32 // per query head: weights over its kv head's tokens (Heads × capacity)
	capacity int       // tokens a head holds at most
	agg      []float64 // capacity: attention summed, then averaged, over all heads
	obsQ     []float32 // SnapKV: the last Recent queries (ring, Recent × Heads × Dim)
	obsPos   []int32   // positions of those queries

	undoable bool // every store refuses NaN and ±Inf and can undo an Append (see undoer)

	def    *policyDef // the policy's rule and hooks
	state  any        // the policy's own state, made by its setup hook
	budget int        // tokens a head keeps after each step (the layer's budget; on average under AdaKV)
	floor  int        // AdaKV: tokens a head keeps at least once the layer is full
	vnorms bool       // tokens carry ‖v‖ (head.vnorm)
	mins   []minRef   // AdaKV scratch: each head's lowest-keep candidate
	mbuf   []float32  // Merge scratch: two values

	timing      bool
	costs       Costs
	spareNewest bool // Update's TOVA step: the newest token may not be evicted
}

// NewLayer returns an empty cache for cfg, or the reason cfg is invalid.
// All memory the layer will use is allocated here.
func NewLayer(cfg Config) (*Layer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	capacity := cfg.capacity()
	l := &Layer{cfg: cfg, group: cfg.Heads / cfg.KVHeads, heads: make([]head, cfg.KVHeads), def: cfg.Policy.def()}
	l.budget, l.floor = cfg.LayerBudget(), cfg.headFloor()
	l.vnorms = l.def.valueNorms || cfg.ValueWeight
	l.mins = make([]minRef, cfg.KVHeads)
	l.mbuf = make([]float32, 2*cfg.Dim)
	l.src = rand.NewPCG(cfg.Seed, 0x6b7673636f7065) // "kvscope"
	l.rng = rand.New(l.src)
	mk := func(m StoreMaker, g int) (Store, error) {
		if m == nil {
			return newExact(cfg.Dim, capacity)
		}
		return m(g, cfg.Dim, capacity)
	}
	for g := range l.heads {
		h := &l.heads[g]
		h.idx = g
		h.pos = make([]int32, 0, capacity)
		h.kslot = make([]int, 0, capacity)
		h.vslot = make([]int, 0, capacity)
		h.score = make([]float64, 0, capacity)
		h.attn = make([]float32, 0, capacity)
		h.norm = make([]float32, 0, capacity)
		h.vnorm = make([]float32, 0, capacity)
		h.evictedAt = make([]int32, cfg.MaxTokens)
		var err error
		if h.keys, err = mk(cfg.Keys, g); err != nil {
			return nil, fmt.Errorf("kv: key store: %w", err)
		}
		if h.values, err = mk(cfg.Values, g); err != nil {
			return nil, fmt.Errorf("kv: value store: %w", err)
		}
	}
	l.undoable = true
	for g := range l.heads {
		l.undoable = l.undoable && undoable(l.heads[g].keys) && undoable(l.heads[g].values)
	}
	l.w = make([]float32, cfg.Heads*capacity)
	l.capacity = capacity
	l.agg = make([]float64, capacity)
	if l.def.setup != nil {
		l.def.setup(l)
	}
	l.Reset()
	return l, nil
}

// Capacity is the most tokens a head holds at once: the capacity its
// stores were made with.
func (l *Layer) Capacity() int { return l.capacity }

// Config returns the layer's configuration.
func (l *Layer) Config() Config { return l.cfg }

// Reset empties the cache and restarts the Random policy's generator, so a
// replay from position 0 makes the same decisions.
func (l *Layer) Reset() {
	for g := range l.heads {
		h := &l.heads[g]
		h.pos, h.kslot, h.vslot = h.pos[:0], h.kslot[:0], h.vslot[:0]
		h.score, h.attn, h.norm, h.vnorm = h.score[:0], h.attn[:0], h.norm[:0], h.vnorm[:0]
		for i := range h.evictedAt {
			h.evictedAt[i] = -1
		}
		h.keys.Reset()
		h.values.Reset()
	}
	l.src.Seed(l.cfg.Seed, 0x6b7673636f7065)
	l.last = -1
	l.inPrompt = l.cfg.MaxPrompt > 0
	l.promptEnd = -1
	if l.def.reset != nil {
		l.def.reset(l)
	}
}

// Len returns the number of tokens head g holds.
func (l *Layer) Len(g int) int { return len(l.heads[g].pos) }

// Positions returns head g's cached positions in ascending order. The
// slice is the layer's own: valid until the next call that changes the cache.
func (l *Layer) Positions(g int) []int32 { return l.heads[g].pos }

// Scores returns head g's accumulated scores, aligned with Positions. The
// slice is the layer's own: valid until the next call that changes the
// cache. Under Seed000 every head returns the same shared slice.
func (l *Layer) Scores(g int) []float64 {
	if l.oneScore() {
		return l.heads[0].score
	}
	return l.heads[g].score
}

// oneScore reports whether the layer keeps one score for all heads, in
// head 0: Seed000's scores are shared by construction.
func (l *Layer) oneScore() bool { return l.def.oneScore }

// keepsNorms reports whether the policy ranks by key norm.
func (l *Layer) keepsNorms() bool { return l.def.keyNorms }

// Attention returns the attention of the last Step over head g's tokens,
// averaged over the query heads that read it, aligned with Positions.
func (l *Layer) Attention(g int) []float32 { return l.heads[g].attn }

// EvictedAt returns, for every position, the position being decoded when
// head g evicted it, or -1 if it was never evicted.
func (l *Layer) EvictedAt(g int) []int32 { return l.heads[g].evictedAt }

// Slots returns the key and value store slots of head g's i-th token.
func (l *Layer) Slots(g, i int) (kslot, vslot int) { return l.heads[g].kslot[i], l.heads[g].vslot[i] }

// SlotLists returns the key and value store slots of all head g's tokens,
// aligned with Positions: Slots for every i at once, for loops over the
// cache. The slices are the layer's own: valid until the next call that
// changes the cache.
func (l *Layer) SlotLists(g int) (kslots, vslots []int) { return l.heads[g].kslot, l.heads[g].vslot }

// Stores returns head g's key and value stores.
func (l *Layer) Stores(g int) (keys, values Store) { return l.heads[g].keys, l.heads[g].values }

// IndexBytes is the memory of the index map from cached tokens to their
// original positions: 4 bytes per cached token, per head (or once for all
// heads when the decision is shared). A cache that keeps every token in
// order needs none: Full, Quest, and Duo's retrieval heads.
func (l *Layer) IndexBytes() int64 {
	return l.indexBytes(func(g int) int { return len(l.heads[g].pos) })
}

// indexBytes is IndexBytes with head g holding held(g) tokens.
func (l *Layer) indexBytes(held func(g int) int) int64 {
	if l.def.noIndex {
		return 0
	}
	if l.cfg.SharedDecision() {
		return 4 * int64(held(0))
	}
	var n int64
	for g := range l.heads {
		if l.def.indexedHead == nil || l.def.indexedHead(l, g) {
			n += 4 * int64(held(g))
		}
	}
	return n
}

// Role returns the role of head g's i-th cached token.
func (l *Layer) Role(g, i int) Role {
	h := &l.heads[g]
	p := int(h.pos[i])
	if l.def.role != nil {
		return l.def.role(l, g, i)
	}
	if l.cfg.keepsSinks() && p < l.cfg.Sink {
		return Sink
	}
	if l.cfg.keepsRecent() && i >= len(h.pos)-l.recentCount(h) {
		return Recent
	}
	return l.def.scoredRole
}

// sinkCount is the number of head h's leading tokens that are sinks.
func (l *Layer) sinkCount(h *head) int {
	if !l.cfg.keepsSinks() {
		return 0
	}
	n := 0
	for n < len(h.pos) && int(h.pos[n]) < l.cfg.Sink {
		n++
	}
	return n
}

// recentCount is the number of head h's trailing tokens in the recent window.
func (l *Layer) recentCount(h *head) int {
	if !l.cfg.keepsRecent() {
		return 0
	}
	return min(l.cfg.Recent, len(h.pos)-l.sinkCount(h))
}

// checkFinite returns an error naming the first NaN or infinity in x, if
// any. The common case costs about one addition per value: a sum with a NaN
// or infinite term is NaN or infinite, so a finite sum proves every value
// finite, and only a non-finite sum (which overflow can also cause) sends x
// through the exact scan. The partial sums keep the additions independent.
func checkFinite(name string, x []float32) error {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i < len(x)-7; i += 8 {
		s0 += x[i] + x[i+4]
		s1 += x[i+1] + x[i+5]
		s2 += x[i+2] + x[i+6]
		s3 += x[i+3] + x[i+7]
	}
	for _, v := range x[i:] {
		s0 += v
	}
	if s := s0 + s1 + s2 + s3; s-s == 0 { // s − s is NaN for NaN and ±Inf
		return nil
	}
	for _, v := range x {
		if math.Float32bits(v)&0x7f800000 == 0x7f800000 { // exponent all ones: Inf or NaN
			return fmt.Errorf("kv: %s holds %v", name, v)
		}
	}
	return nil
}

// appendToken stores the token at pos in every head with score 0. The
// caller has validated it with checkToken; a store refusing it leaves the
// cache unchanged.
func (l *Layer) appendToken(pos int, k, v []float32) error {
	cfg := &l.cfg
	if l.inPrompt && pos >= cfg.MaxPrompt {
		l.EndPrompt()
	}
	for g := range l.heads {
		h := &l.heads[g]
		if len(h.pos) == cap(h.pos) {
			return fmt.Errorf("kv: head %d is full (%d tokens); call EndPrompt after the prompt", g, cap(h.pos))
		}
		kg, vg := k[g*cfg.Dim:(g+1)*cfg.Dim], v[g*cfg.Dim:(g+1)*cfg.Dim]
		ks, err := h.keys.Append(kg)
		if err != nil {
			l.unappend(g)
			return fmt.Errorf("kv: head %d keys: %w", g, err)
		}
		vs, err := h.values.Append(vg)
		if err != nil {
			_ = h.keys.Evict(ks)
			l.unappend(g)
			return fmt.Errorf("kv: head %d values: %w", g, err)
		}
		if l.keepsNorms() {
			h.norm = append(h.norm, norm2(kg))
		}
		if l.vnorms {
			h.vnorm = append(h.vnorm, norm2(vg))
		}
		h.pos = append(h.pos, int32(pos))
		h.kslot = append(h.kslot, ks)
		h.vslot = append(h.vslot, vs)
		if g == 0 || !l.oneScore() {
			h.score = append(h.score, 0)
		}
		h.attn = append(h.attn, 0)
	}
	if l.def.arrive != nil {
		for g := range l.heads {
			l.def.arrive(l, g, k[g*cfg.Dim:(g+1)*cfg.Dim])
		}
	}
	l.last = pos
	return nil
}

// norm2 is ‖x‖, summed in float64.
func norm2(x []float32) float32 {
	var n float64
	for _, v := range x {
		n += float64(v) * float64(v)
	}
	return float32(math.Sqrt(n))
}

// checkToken validates a token before anything changes. The scan for NaN
// and infinities is left to the stores when they all make it themselves
// and can undo an Append (l.undoable), except on the step that ends the
// prompt, whose EndPrompt evicts before any store sees the token.
func (l *Layer) checkToken(pos int, k, v []float32) error {
	cfg := &l.cfg
	if len(k) != cfg.KVHeads*cfg.Dim || len(v) != cfg.KVHeads*cfg.Dim {
		return fmt.Errorf("kv: key and value need %d elements, got %d and %d", cfg.KVHeads*cfg.Dim, len(k), len(v))
	}
	if pos <= l.last || pos >= cfg.MaxTokens {
		return fmt.Errorf("kv: position %d out of order or beyond max tokens %d (last %d)", pos, cfg.MaxTokens, l.last)
	}
	if l.undoable && !(l.inPrompt && pos >= cfg.MaxPrompt) {
		return nil
	}
	if err := checkFinite("key", k); err != nil {
		return err
	}
	if err := checkFinite("value", v); err != nil {
		return err
	}
	// Stores that cannot undo an Append, or the step whose EndPrompt evicts
	// first: ask every store now whether it will take its part, so that no
	// head changes unless all of them can.
	for g := range l.heads {
		h := &l.heads[g]
		for _, sv := range [...]struct {
			s    Store
			x    []float32
			name string
		}{{h.keys, k[g*cfg.Dim : (g+1)*cfg.Dim], "keys"}, {h.values, v[g*cfg.Dim : (g+1)*cfg.Dim], "values"}} {
			if c, ok := sv.s.(checker); ok {
				if err := c.Check(sv.x); err != nil {
					return fmt.Errorf("kv: head %d %s: %w", g, sv.name, err)
				}
			}
		}
	}
	return nil
}

// A checker is a Store that can say beforehand whether Append would take
// a vector (all but room: kv never appends to a full store).
type checker interface {
	Check(x []float32) error
}

// unappend takes back the token just appended to heads [0, n), after a
// store refused it in head n, so a failed step leaves the cache as it was.
func (l *Layer) unappend(n int) {
	for g := range n {
		h := &l.heads[g]
		i := len(h.pos) - 1
		_ = h.keys.Evict(h.kslot[i])
		_ = h.values.Evict(h.vslot[i])
		h.pos, h.kslot, h.vslot, h.attn = h.pos[:i], h.kslot[:i], h.vslot[:i], h.attn[:i]
		if l.keepsNorms() {
			h.norm = h.norm[:i]
		}
		if l.vnorms {
			h.vnorm = h.vnorm[:i]
		}
		if g == 0 || !l.oneScore() {
			h.score = h.score[:i]
		}
	}
}

// Step decodes the token at position pos: it stores its key and value
// (k, v: KVHeads×Dim, head-major), computes every query head's attention
// over the stored cache (q, out: Heads×Dim), feeds the weights to the
// policy and evicts. Positions must increase. While the prompt lasts
// (positions < MaxPrompt, until EndPrompt) nothing is evicted, except by
// Seed000, which knows no prompt. Step costs O(Heads·Len·Dim) and
// allocates nothing.
func (l *Layer) Step(pos int, q, k, v, out []float32) error {
	cfg := &l.cfg
	if len(q) != cfg.Heads*cfg.Dim || len(out) != cfg.Heads*cfg.Dim {
		return fmt.Errorf("kv: query and output need %d elements, got %d and %d", cfg.Heads*cfg.Dim, len(q), len(out))
	}
	if err := checkFinite("query", q); err != nil {
		return err
	}
	if !l.timing {
		if err := l.checkToken(pos, k, v); err != nil {
			return err
		}
		if err := l.appendToken(pos, k, v); err != nil {
			return err
		}
		l.slide(pos)
		l.attendAll(q, out)
		if l.def.observe != nil {
			l.def.observe(l, q, pos)
		}
		l.evict(pos)
		return nil
	}
	t0 := time.Now()
	if err := l.checkToken(pos, k, v); err != nil {
		return err
	}
	if err := l.appendToken(pos, k, v); err != nil {
		return err
	}
	l.slide(pos)
	t1 := time.Now()
	l.attendAll(q, out)
	t2 := time.Now()
	if l.def.observe != nil {
		l.def.observe(l, q, pos)
	}
	l.evict(pos)
	t3 := time.Now()
	l.costs.Store += t1.Sub(t0)
	l.costs.Attend += t2.Sub(t1)
	l.costs.Evict += t3.Sub(t2)
	l.costs.Steps++
	return nil
}

// slide drops, from every head, the tokens the architecture's sliding
// window (Config.ArchWindow) no longer shows the query at pos. Positions
// are ascending, so they are the head's first tokens.
func (l *Layer) slide(pos int) {
	w := l.cfg.ArchWindow
	if w <= 0 {
		return
	}
	for g := range l.heads {
		h := &l.heads[g]
		for len(h.pos) > 0 && int(h.pos[0]) <= pos-w {
			l.remove(h, 0, pos)
		}
	}
}

// Window returns the architecture's sliding window (Config.ArchWindow), 0
// for none. A token head g lost to it has EvictedAt(g)[p] == p + Window().
func (l *Layer) Window() int { return l.cfg.ArchWindow }

// attendAll runs the policy's attention, or attend.
func (l *Layer) attendAll(q, out []float32) {
	if l.def.attend != nil {
		l.def.attend(l, q, out)
		return
	}
	l.attend(q, out)
}

// attend computes each query head's softmax attention over its kv head's
// stored tokens, writes the outputs and averages the weights per kv head.
func (l *Layer) attend(q, out []float32) {
	cfg := &l.cfg
	capacity := l.capacity
	scale := float32(1 / math.Sqrt(float64(cfg.Dim)))
	for g := range l.heads {
		h := &l.heads[g]
		n := len(h.pos)
		clear(h.attn)
		for r := 0; r < l.group; r++ {
			qh := g*l.group + r
			w := l.w[qh*capacity : qh*capacity+n]
			h.keys.Dots(q[qh*cfg.Dim:(qh+1)*cfg.Dim], h.kslot, w)
			softmax(w, scale)
			h.values.WeightedSum(w, h.vslot, out[qh*cfg.Dim:(qh+1)*cfg.Dim])
			for i, wi := range w {
				h.attn[i] += wi / float32(l.group)
			}
		}
	}
}

// softmax replaces x by softmax(scale·x) (see fastmath.Softmax).
func softmax(x []float32, scale float32) { fastmath.Softmax(x, scale) }

// checkAttention returns Update's error for the first of attn[:n] that
// has the wrong length or holds a NaN or an infinity.
func (l *Layer) checkAttention(attn [][]float32, n int) error {
	for qh, w := range attn[:n] {
		if len(w) != 0 && len(w) != len(l.heads[qh/l.group].pos) {
			return fmt.Errorf("kv: head %d attention has %d weights for %d cached tokens", qh, len(w), len(l.heads[qh/l.group].pos))
		}
		if err := checkFinite("attention", w); err != nil {
			return err
		}
	}
	return nil
}

// sumShared sets l.agg[:n] to the sum over query heads of attn, where n is
// the number of cached tokens (empty slices add nothing), and returns
// checkAttention's error, changing nothing else, if attn is not valid.
// Finiteness is checked on the sums: a float64 sum of float32 values
// cannot overflow, so it is finite exactly when every term is.
func (l *Layer) sumShared(attn [][]float32) error {
	n := len(l.heads[0].pos)
	agg := l.agg[:n]
	clear(agg)
	full := true // every head has weights
	for qh, w := range attn {
		if len(w) == 0 {
			full = false
		} else if len(w) != n {
			return l.checkAttention(attn, qh+1)
		}
	}
	// Heads are added in order, four per pass when all have weights: each
	// sum sees the same additions in the same order either way.
	qh := 0
	for ; full && qh+4 <= len(attn); qh += 4 {
		w0, w1, w2, w3 := attn[qh][:n], attn[qh+1][:n], attn[qh+2][:n], attn[qh+3][:n]
		for i := range agg {
			agg[i] = agg[i] + float64(w0[i]) + float64(w1[i]) + float64(w2[i]) + float64(w3[i])
		}
	}
	for ; qh < len(attn); qh++ {
		for i, a := range attn[qh] {
			agg[i] += float64(a)
		}
	}
	for _, a := range agg {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return l.checkAttention(attn, len(attn))
		}
	}
	return nil
}

// Update is Step driven the way seed 000's simulation drives its cache:
// the caller supplies attention weights instead of a query. attn[qh] holds
// query head qh's weights over its kv head's tokens as they were *before*
// this token (nil or empty slices for the first token); they are averaged
// over the query heads sharing a kv head (over all heads for shared
// decisions) and added to the scores, then the token is appended with
// score 0 and the policy evicts. It allocates nothing.
func (l *Layer) Update(pos int, k, v []float32, attn [][]float32) error {
	if attn != nil && len(attn) != l.cfg.Heads {
		return fmt.Errorf("kv: need attention for %d heads, got %d", l.cfg.Heads, len(attn))
	}
	if err := l.checkToken(pos, k, v); err != nil {
		return err
	}
	// Validate (and, for shared decisions, sum) the attention before
	// anything changes; then append; then add the weights to the scores
	// of the tokens that were cached before this one.
	shared := l.cfg.SharedDecision() && len(attn) > 0
	if shared {
		if err := l.sumShared(attn); err != nil {
			return err
		}
	} else if err := l.checkAttention(attn, len(attn)); err != nil {
		return err
	}
	n := len(l.heads[0].pos)
	if err := l.appendToken(pos, k, v); err != nil {
		return err
	}
	if shared {
		agg := l.agg[:n]
		for g := range l.heads {
			if g > 0 && l.oneScore() {
				break // one shared score, in head 0
			}
			sc := l.heads[g].score[:n]
			for i, a := range agg {
				sc[i] += a / float64(l.cfg.Heads)
			}
		}
	} else {
		for qh, w := range attn {
			sc := l.heads[qh/l.group].score
			for i, a := range w {
				sc[i] += float64(a) / float64(l.group)
			}
		}
	}
	if l.def.latest && len(attn) > 0 {
		// TOVA ranks by the latest attention alone, averaged over the group;
		// the new token has received none yet.
		for g := range l.heads {
			h := &l.heads[g]
			clear(h.attn)
			for r := range l.group {
				for i, a := range attn[g*l.group+r] {
					h.attn[i] += a / float32(l.group)
				}
			}
			for i, a := range h.attn {
				h.score[i] = float64(a)
			}
		}
	}
	// TOVA ranks by attention the new token has not received yet (it
	// arrives after the weights were taken): it is not a candidate.
	l.spareNewest = l.def.latest
	l.evict(pos)
	l.spareNewest = false
	return nil
}

// An undoer is a Store that vouches for two things when UndoableAppend
// returns true: its Append refuses a vector holding NaN or ±Inf with an
// error, changing nothing, and Evict of the slot Append has just returned
// puts it back exactly as it was before that Append. *store.Store is one.
// A layer whose stores all are undoers leaves the scan of keys and values
// for NaN and infinities to them: a store refusing a token in a later head
// is undone in the earlier ones.
type undoer interface {
	UndoableAppend() bool
}

// undoable reports whether s is an undoer that vouches for itself.
func undoable(s Store) bool {
	u, ok := s.(undoer)
	return ok && u.UndoableAppend()
}
