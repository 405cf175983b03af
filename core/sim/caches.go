package sim

import (
	"math"

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
	kbuf         []float32 // dim
}

// calibration holds, per (layer, kv head), what storage learned beforehand.
type calibration struct {
	kcal, vcal []*quant.Calibration
	kb, vb     [][]float32
}

// newCaches builds one kv.Layer per layer of cfg. wrapKeys, if not nil,
// wraps every key store (the real model's re-positioning of keys).
func newCaches(cfg Config, cal calibration, wrapKeys func(kv.Store) kv.Store) (*caches, error) {
	c := &caches{cfg: cfg}
	for l := range cfg.Layers {
		kc, err := cfg.kv()
		if err != nil {
			return nil, err
		}
		kc.Seed += uint64(l) // the random policy draws differently in every layer
		maker := func(side int) kv.StoreMaker {
			return func(g, dim, capacity int) (kv.Store, error) {
				i := l*cfg.KVHeads + g
				kst, vst, err := cfg.storeConfigs(at(cal.kcal, i), at(cal.vcal, i), at(cal.kb, i), at(cal.vb, i))
				if err != nil {
					return nil, err
				}
				if side == 1 {
					return store.New(vst, dim, capacity)
				}
				s, err := store.New(kst, dim, capacity)
				if err != nil || wrapKeys == nil {
					return s, err
				}
				return wrapKeys(s), nil
			}
		}
		kc.Keys, kc.Values = maker(0), maker(1)
		layer, err := kv.NewLayer(kc)
		if err != nil {
			return nil, err
		}
		c.layers = append(c.layers, layer)
		c.capacity = layer.Capacity()
	}
	n := cfg.Layers * cfg.KVHeads * c.capacity * cfg.HeadDim
	c.origK, c.origV = make([]float32, n), make([]float32, n)
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
}

// step decodes position t in layer l and remembers the token's originals.
// It ends the prompt after its last token (prompt > 0).
func (c *caches) step(l, t, prompt int, q, k, v, out []float32) error {
	layer := c.layers[l]
	if err := layer.Step(t, q, k, v, out); err != nil {
		return err
	}
	if t == prompt-1 {
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
	}
	return nil
}

// orig returns the original vector kept for a slot of layer l, head g.
func (c *caches) orig(x []float32, l, g, slot int) []float32 {
	d := c.cfg.HeadDim
	i := ((l*c.cfg.KVHeads+g)*c.capacity + slot) * d
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
		var kerr, knorm, verr, vnorm, bias, kmax, vmax float64
		for i := range ps {
			kslot, vslot := layer.Slots(g, i)
			orig := c.orig(c.origK, l, g, kslot)
			ks.Read(kslot, c.kbuf)
			for qh := g * group; qh < (g+1)*group; qh++ {
				qv := q[qh*d : (qh+1)*d]
				bias += float64(dot(qv, c.kbuf)-dot(qv, orig)) * scale
			}
			kerr, knorm, kmax = kerr+sqdiff(orig, c.kbuf), knorm+sqnorm(orig), max(kmax, maxdiff(orig, c.kbuf))
			orig = c.orig(c.origV, l, g, vslot)
			vs.Read(vslot, c.kbuf)
			verr, vnorm, vmax = verr+sqdiff(orig, c.kbuf), vnorm+sqnorm(orig), max(vmax, maxdiff(orig, c.kbuf))
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
			var mass, kl float64
			for i, p := range ps {
				wf := float64(w[p])
				mass += wf
				if wc := float64(attn[i]); wc > 0 && wf > 0 {
					kl += wc * math.Log(wc/wf)
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
	n := cfg.KVHeads * pos
	if cap(s.Cells) < n {
		s.Cells = make([]Cell, n, max(n, 2*cap(s.Cells)))
	}
	s.Cells = s.Cells[:n]
	for g := range cfg.KVHeads {
		row := s.Cells[g*pos : (g+1)*pos]
		ev := l.EvictedAt(g)
		for p := range row {
			row[p] = Cell{Role: Evicted, EvictedAt: ev[p]}
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
			cell.KErr = float32(ratio(sqdiff(orig, c.kbuf), sqnorm(orig)))
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

// maxdiff returns max |a[i] − b[i]|.
func maxdiff(a, b []float32) float64 {
	var m float64
	b = b[:len(a)]
	for i, x := range a {
		m = max(m, math.Abs(float64(x-b[i])))
	}
	return m
}
