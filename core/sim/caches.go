package sim

import (
	"math"
	"math/bits"

	"github.com/kvscope/kvscope/core/internal/fastmath"
	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/quant"
	"github.com/kvscope/kvscope/core/store"
)

// caches is the compressed cache of every layer, plus the original key and
// value of every cached token (kept by store slot, beside the cache, never
// counted as its memory) so that storage error can be measured. The
// synthetic Engine and the real-model run share it.
type caches struct {
	cfg          Config
	layers       []*kv.Layer
	capacity     int       // tokens a head holds at most (the stores' capacity)
	origK, origV []float32 // [layer][kv head][slot][dim]
	normK, normV []float64 // [layer][kv head][slot]: ‖orig‖² of each
	kerrs, verrs []slotErr // [layer][kv head][slot]: storage error of each
	kdiff        []float32 // [layer][kv head][slot][dim]: k̂ − k of each
	diffSum      []int64   // [layer][kv head][dim]: Σ k̂ − k over the tokens inSum, in units of 2^-fixBits
	fixLimit     float64   // largest |k̂ − k| diffSum takes without overflowing
	direct       []bool    // [layer][kv head]: an error beyond fixLimit was seen; the bias sums k̂ − k afresh
	sum64        []float64 // dim: Σ k̂ − k of the head being measured
	inSum        []bool    // [layer][kv head][slot]: the slot's k̂ − k is in diffSum
	seen         []uint32  // [layer][kv head][slot]: the last measure that found the token cached
	stamp        uint32    // measures so far
	kbuf         []float32 // dim
	// deferEnd leaves the prompt's end to the caller (KVzip's Zip, with
	// a real model's reconstruction scores) instead of ending it at the
	// prompt's last position.
	deferEnd bool
}

// calibration holds, per (layer, kv head), what storage learned beforehand.
type calibration struct {
	kcal, vcal []*quant.Calibration
	kb, vb     [][]float32
}

// newCaches builds one kv.Layer per layer of cfg. wrapKeys, if not nil,
// wraps every key store of layer l (the real model's re-positioning of
// keys); archWindow, if not nil, gives layer l's sliding window
// (kv.Config.ArchWindow: the real model's local layers).
func newCaches(cfg Config, cal calibration, wrapKeys func(l int, s kv.Store) kv.Store, archWindow func(l int) int) (*caches, error) {
	c := &caches{cfg: cfg}
	for l := range cfg.Layers {
		kc, err := cfg.kv()
		if err != nil {
			return nil, err
		}
		kc.Seed += uint64(l) // the random policy draws differently in every layer
		kc.Layer = l         // PyramidKV's budget depends on the layer
		if archWindow != nil {
			kc.ArchWindow = archWindow(l)
		}
		maker := func(side int) kv.StoreMaker {
			return func(g, dim, capacity int) (kv.Store, error) {
				i := l*cfg.KVHeads + g
				kst, vst, err := cfg.storeConfigs(at(cal.kcal, i), at(cal.vcal, i), at(cal.kb, i), at(cal.vb, i))
				if err != nil {
					return nil, err
				}
				kst.Seed, vst.Seed = sketchSeed(cfg.SketchSeed, i, 0), sketchSeed(cfg.SketchSeed, i, 1)
				if side == 1 {
					return store.New(vst, dim, capacity)
				}
				s, err := store.New(kst, dim, capacity)
				if err != nil || wrapKeys == nil {
					return s, err
				}
				return wrapKeys(l, s), nil
			}
		}
		kc.Keys, kc.Values = maker(0), maker(1)
		layer, err := kv.NewLayer(kc)
		if err != nil {
			return nil, err
		}
		c.layers = append(c.layers, layer)
		c.capacity = max(c.capacity, layer.Capacity()) // layers differ under PyramidKV
	}
	n := cfg.Layers * cfg.KVHeads * c.capacity * cfg.HeadDim
	c.origK, c.origV = make([]float32, n), make([]float32, n)
	c.normK, c.normV = make([]float64, n/cfg.HeadDim), make([]float64, n/cfg.HeadDim)
	c.kerrs, c.verrs = make([]slotErr, n/cfg.HeadDim), make([]slotErr, n/cfg.HeadDim)
	c.kdiff, c.diffSum = make([]float32, n), make([]int64, cfg.Layers*cfg.KVHeads*cfg.HeadDim)
	c.inSum, c.seen = make([]bool, n/cfg.HeadDim), make([]uint32, n/cfg.HeadDim)
	c.direct, c.sum64 = make([]bool, cfg.Layers*cfg.KVHeads), make([]float64, cfg.HeadDim)
	// capacity tokens of errors up to fixLimit, in units of 2^-fixBits, stay
	// below 2^62.
	c.fixLimit = math.Ldexp(1, 62-fixBits-bits.Len(uint(c.capacity)))
	c.kbuf = make([]float32, cfg.HeadDim)
	return c, nil
}

// at returns s[i], or the zero value when s is nil.
func at[T any](s []T, i int) T {
	var zero T
	if s == nil {
		return zero
	}
	return s[i]
}

// reset empties every layer.
func (c *caches) reset() {
	for _, l := range c.layers {
		l.Reset()
	}
	clear(c.diffSum)
	clear(c.inSum)
	clear(c.direct)
}

// step decodes position t in layer l and remembers the token's originals.
// It ends the prompt after its last token (prompt > 0).
func (c *caches) step(l, t, prompt int, q, k, v, out []float32) error {
	layer := c.layers[l]
	if err := layer.Step(t, q, k, v, out); err != nil {
		return err
	}
	if t == prompt-1 && !c.deferEnd {
		layer.EndPrompt()
	}
	d := c.cfg.HeadDim
	for g := range c.cfg.KVHeads {
		ps := layer.Positions(g)
		i := len(ps) - 1
		if i < 0 || int(ps[i]) != t {
			continue // evicted on arrival
		}
		ks, vs := layer.Slots(g, i)
		copy(c.orig(c.origK, l, g, ks), k[g*d:(g+1)*d])
		copy(c.orig(c.origV, l, g, vs), v[g*d:(g+1)*d])
		ki, vi := c.slot(l, g, ks), c.slot(l, g, vs)
		c.normK[ki], c.normV[vi] = sqnorm(k[g*d:(g+1)*d]), sqnorm(v[g*d:(g+1)*d])
		c.kerrs[ki], c.verrs[vi] = slotErr{}, slotErr{} // a new token: measure it
	}
	return nil
}

// slot numbers the slots of every layer and head: slot of layer l, head g.
func (c *caches) slot(l, g, slot int) int { return (l*c.cfg.KVHeads+g)*c.capacity + slot }

// orig returns the original vector kept for a slot of layer l, head g.
func (c *caches) orig(x []float32, l, g, slot int) []float32 {
	d := c.cfg.HeadDim
	i := c.slot(l, g, slot) * d
	return x[i : i+d]
}

// memory sums what every store holds and every layer's index map.
func (c *caches) memory() Memory {
	var m Memory
	for _, layer := range c.layers {
		for g := range c.cfg.KVHeads {
			ks, vs := layer.Stores(g)
			for _, s := range []kv.Store{ks, vs} {
				if st, ok := unwrap(s).(*store.Store); ok {
					sm := st.Memory()
					m.Payload += sm.Payload
					m.Meta += sm.Meta
					m.Residual += sm.Residual
					m.Factors += sm.Factors
					m.Holes += sm.Holes
				}
			}
		}
		m.Index += layer.IndexBytes()
		m.Scores += layer.ScoreBytes()
	}
	return m
}

// evictBytes is the FP16 size of the cached tokens before storage compression.
func (c *caches) evictBytes() int64 {
	var n int64
	for _, layer := range c.layers {
		for g := range c.cfg.KVHeads {
			n += int64(layer.Len(g))
		}
	}
	return 2 * 2 * int64(c.cfg.HeadDim) * n
}

// measure compares layer l's last step (query q, compressed output out)
// with the reference: refW(qh) is query head qh's attention over every
// position so far, refOut the reference output. q and refW must use the
// key positions the store holds (both rotated, or neither).
func (c *caches) measure(l int, q, out, refOut []float32, refW func(qh int) []float32) Metrics {
	cfg := &c.cfg
	d := cfg.HeadDim
	group := cfg.Heads / cfg.KVHeads
	layer := c.layers[l]
	scale := 1 / math.Sqrt(float64(d))
	var m Metrics
	for g := range cfg.KVHeads {
		ks, vs := layer.Stores(g)
		ks = unwrap(ks)
		ps := layer.Positions(g)
		kst, _ := ks.(*store.Store)
		vst, _ := vs.(*store.Store)
		var kerr, knorm, verr, vnorm, kmax, vmax float64
		c.stamp++
		base := c.slot(l, g, 0)
		diffSum := c.diffSum[(l*cfg.KVHeads+g)*d : (l*cfg.KVHeads+g+1)*d]
		// The head's slices, sliced once: the loop indexes them by slot.
		kslots, vslots := layer.SlotLists(g)
		kslots, vslots = kslots[:len(ps)], vslots[:len(ps)]
		top := base + c.capacity
		kerrs, verrs, seen := c.kerrs[base:top], c.verrs[base:top], c.seen[base:top]
		normK, normV := c.normK[base:top], c.normV[base:top]
		for i, kslot := range kslots {
			vslot := vslots[i]
			ki, vi := base+kslot, base+vslot
			ke, ve := &kerrs[kslot], &verrs[vslot]
			seen[kslot] = c.stamp
			if kind := kindOf(kst, kslot); kind == store.Empty || kind != ke.kind {
				diff := c.kdiff[ki*d : (ki+1)*d]
				if c.inSum[ki] {
					addFixed(diffSum, diff, -1) // the slot's previous token, or its previous kind
				}
				measureSlot(ke, kind, ks, kslot, c.origK[ki*d:(ki+1)*d], diff)
				addFixed(diffSum, diff, 1)
				c.inSum[ki] = true
				if ke.max > c.fixLimit {
					c.direct[l*cfg.KVHeads+g] = true
				}
			}
			if kind := kindOf(vst, vslot); kind == store.Empty || kind != ve.kind {
				measureSlot(ve, kind, vs, vslot, c.origV[vi*d:(vi+1)*d], c.kbuf)
			}
			kerr, knorm, verr, vnorm = kerr+ke.sq, knorm+normK[kslot], verr+ve.sq, vnorm+normV[vslot]
			if ke.max > kmax {
				kmax = ke.max
			}
			if ve.max > vmax {
				vmax = ve.max
			}
		}
		// Tokens evicted since the last measure leave the sum.
		inSum := c.inSum[base:top]
		for k, in := range inSum {
			if ki := base + k; in && seen[k] != c.stamp {
				addFixed(diffSum, c.kdiff[ki*d:(ki+1)*d], -1)
				c.inSum[ki] = false
			}
		}
		// The mean of q·(k̂ − k) over cached tokens and the group's query
		// heads is, by linearity, each head's q against the sum of k̂ − k,
		// kept from measure to measure: only tokens that arrived, left or
		// changed kind move it. In fixed point, additions and subtractions
		// are exact, so the sum does not depend on the order of arrivals.
		// Errors too large for the fixed point (float32 stores of huge
		// values) make the head sum its cached tokens' k̂ − k afresh.
		sum := c.sum64
		if c.direct[l*cfg.KVHeads+g] {
			clear(sum)
			for i := range ps {
				kslot, _ := layer.Slots(g, i)
				for j, x := range c.kdiff[(base+kslot)*d : (base+kslot+1)*d] {
					sum[j] += float64(x)
				}
			}
		} else {
			for j, v := range diffSum {
				sum[j] = float64(v) / fixOne
			}
		}
		var bias float64
		for qh := g * group; qh < (g+1)*group; qh++ {
			var b float64
			for j, x := range q[qh*d : (qh+1)*d] {
				b += float64(x) * sum[j]
			}
			bias += b * scale
		}
		m.KMax += kmax
		m.VMax += vmax
		m.KErr += ratio(kerr, knorm)
		m.VErr += ratio(verr, vnorm)
		if len(ps) > 0 {
			m.Bias += bias / float64(len(ps)*group)
		}
		attn := layer.Attention(g)
		for qh := g * group; qh < (g+1)*group; qh++ {
			w := refW(qh)
			mass, kl := fastmath.MassKL(attn, w, ps)
			if sel := layer.Selected(qh); sel != nil {
				// A selecting policy (Quest) attends to part of its cache:
				// the mass it keeps is what the selected tokens carry.
				mass = 0
				for _, i := range sel {
					mass += float64(w[ps[i]])
				}
			}
			m.Mass += mass / float64(group)
			m.KL += kl / float64(group)
			o, r := out[qh*d:(qh+1)*d], refOut[qh*d:(qh+1)*d]
			m.OutErr += ratio(sqdiff(r, o), sqnorm(r)) / float64(group)
		}
	}
	return m.scale(1 / float64(cfg.KVHeads))
}

var roleOf = [...]Role{kv.Kept: Kept, kv.Sink: Sink, kv.Recent: Recent, kv.Heavy: Heavy}

var storageOf = [...]Storage{store.Empty: NotStored, store.Full: Full, store.Quantized: Quantized, store.LowRank: LowRank}

// fill writes layer's cells for positions [0, pos) into s (Step, Heads and
// Cells; the caller sets the rest). refW, if not nil, gives query head qh's
// reference attention over those positions.
func (c *caches) fill(s *Snapshot, layer, pos int, refW func(qh int) []float32) {
	cfg := &c.cfg
	l := c.layers[layer]
	group := cfg.Heads / cfg.KVHeads
	s.Step, s.Layer, s.Layers, s.Heads = pos, layer, cfg.Layers, cfg.KVHeads
	c.fillBudgets(s)
	n := cfg.KVHeads * pos
	if cap(s.Cells) < n {
		s.Cells = make([]Cell, n, max(n, 2*cap(s.Cells)))
	}
	s.Cells = s.Cells[:n]
	for g := range cfg.KVHeads {
		row := s.Cells[g*pos : (g+1)*pos]
		ev := l.EvictedAt(g)
		w := l.Window()
		for p := range row {
			row[p] = Cell{Role: Evicted, EvictedAt: ev[p]}
			if w > 0 && int(ev[p]) == p+w {
				row[p].Role = Windowed
			}
		}
		if refW != nil {
			for qh := g * group; qh < (g+1)*group; qh++ {
				for p, a := range refW(qh)[:pos] {
					row[p].AttnFull += a / float32(group)
				}
			}
		}
		ks, _ := l.Stores(g)
		ks = unwrap(ks)
		st, _ := ks.(*store.Store)
		scores, attn := l.Scores(g), l.Attention(g)
		for i, p := range l.Positions(g) {
			cell := &row[p]
			cell.Role = roleOf[l.Role(g, i)]
			cell.EvictedAt = -1
			cell.Score = float32(scores[i])
			cell.Attn = attn[i]
			kslot, _ := l.Slots(g, i)
			cell.Storage = Full
			if st != nil {
				cell.Storage = storageOf[st.Kind(kslot)]
			}
			orig := c.orig(c.origK, layer, g, kslot)
			ks.Read(kslot, c.kbuf)
			cell.KErr = float32(ratio(sqdiff(orig, c.kbuf), c.normK[c.slot(layer, g, kslot)]))
			cell.Attended = true
		}
		if l.Selected(g*group) != nil {
			// A selecting policy (Quest) read only part of its cache.
			ps := l.Positions(g)
			for _, p := range ps {
				row[p].Attended = false
			}
			for qh := g * group; qh < (g+1)*group; qh++ {
				for _, i := range l.Selected(qh) {
					row[ps[i]].Attended = true
				}
			}
		}
	}
}

// wrapper is a key store wrapped by the real-model mode.
type wrapper interface{ Unwrap() kv.Store }

// unwrap returns the store behind a wrapper, or s itself.
func unwrap(s kv.Store) kv.Store {
	if w, ok := s.(wrapper); ok {
		return w.Unwrap()
	}
	return s
}

// slotErr is the storage error of one held token: Σ (x̂ − x)² and
// max |x̂ − x| over its values, measured when the token was held as kind.
// A token's reconstruction depends only on its kind while it is held: a
// store changes how it holds a token only by sealing it out of the FP16
// residual (Full) into codes or coefficients. Empty means not measured.
type slotErr struct {
	kind    store.Kind
	sq, max float64
}

// kindOf returns how st holds the token in slot, or Empty when st is nil
// (a store that is not a *store.Store, measured at every step).
func kindOf(st *store.Store, slot int) store.Kind {
	if st == nil {
		return store.Empty
	}
	return st.Kind(slot)
}

// measureSlot measures the token in slot of s, held as kind, into e: it
// reads the reconstruction and writes x̂ − x into diff.
func measureSlot(e *slotErr, kind store.Kind, s kv.Store, slot int, orig, diff []float32) {
	s.Read(slot, diff)
	for j, x := range orig {
		diff[j] -= x
	}
	e.kind = kind
	e.sq, e.max = errStats(diff)
}

// fixBits is the fixed point of caches.diffSum: k̂ − k in units of 2^-22,
// far below any storage error worth showing. A sum of capacity errors stays
// within an int64 while each is at most caches.fixLimit (2^33 for a
// 64-token budget); a head that sees a larger one is summed directly.
const (
	fixBits = 22
	fixOne  = 1 << fixBits
)

// addFixed adds sign·x to acc (as long) in fixed point.
func addFixed(acc []int64, x []float32, sign int64) {
	x = x[:len(acc)]
	for j, v := range x {
		acc[j] += sign * int64(float64(v)*fixOne)
	}
}

// errStats returns Σ d[i]² and max |d[i]| over the values of d (none
// NaN). Four independent sums keep the additions from waiting on each
// other; the magnitude is
// math.Abs, a sign-bit clear natively and f64.abs under WebAssembly, not a
// mispredicted branch per value; the maximum is a comparison, not the
// builtin max, whose NaN handling is a call under WebAssembly.
func errStats(d []float32) (sq, mx float64) {
	var s0, s1, s2, s3, m float64
	i := 0
	for ; i+4 <= len(d); i += 4 {
		d4 := d[i : i+4 : i+4]
		x0, x1, x2, x3 := float64(d4[0]), float64(d4[1]), float64(d4[2]), float64(d4[3])
		s0, s1, s2, s3 = s0+x0*x0, s1+x1*x1, s2+x2*x2, s3+x3*x3
		for _, x := range d4 {
			if a := math.Abs(float64(x)); a > m {
				m = a
			}
		}
	}
	for ; i < len(d); i++ {
		x := float64(d[i])
		s0 += x * x
		if a := math.Abs(x); a > m {
			m = a
		}
	}
	return (s0 + s1) + (s2 + s3), m
}
