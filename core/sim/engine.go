package sim

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/store"
	"github.com/kvscope/kvscope/core/synth"
)

// Engine runs one configuration: a synthetic stream decoded through a
// compressed cache per layer, with (optionally) the same attention over
// the uncompressed history as the reference. It is deterministic: the same
// Config gives the same snapshots. It is not safe for concurrent use.
type Engine struct {
	cfg    Config
	gen    Source
	layers []*kv.Layer
	caps   []int // store capacity per layer

	q, k, v []float32 // one position: Layers × (Q)Heads × Dim
	out     []float32 // Heads × Dim, one layer's compressed attention output
	pos     int       // tokens decoded
	err     error

	// Originals of the cached tokens by store slot, for storage error:
	// [layer][kv head][slot][dim].
	origK, origV []float32

	// Reference (nil when RefStride is 0).
	histK, histV []float32 // [layer][t][kv head][dim]
	refW         []float32 // [layer][query head][t]: reference attention of the last reference step
	refAt        int       // position of the last reference step; -1 if none
	refOut       []float32 // Heads × Dim
	kbuf         []float32 // Dim
	history      []Metrics
	last         Metrics

	snap Snapshot
}

// New builds the engine for cfg at step 0, or returns why cfg is invalid.
// It allocates everything the run needs: steps allocate nothing except
// the metrics history (one entry per reference step).
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newEngine(cfg, func() (Source, error) { return synth.New(cfg.synth()) })
}

// A Source produces each position's vectors: q is [Layers][Heads][HeadDim],
// k and v are [Layers][KVHeads][HeadDim], flat. *synth.Generator is one.
type Source interface {
	Next(q, k, v []float32) int
}

func newEngine(cfg Config, newSource func() (Source, error)) (*Engine, error) {
	gen, err := newSource()
	if err != nil {
		return nil, err
	}
	kcal, vcal, kb, vb, err := calibrate(cfg, newSource)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, gen: gen, refAt: -1}
	d := cfg.HeadDim
	for l := range cfg.Layers {
		kc, _ := cfg.kv()
		l := l
		maker := func(side int) kv.StoreMaker {
			return func(g, dim, capacity int) (kv.Store, error) {
				i := l*cfg.KVHeads + g
				kst, vst, err := cfg.storeConfigs(at(kcal, i), at(vcal, i), at(kb, i), at(vb, i))
				if err != nil {
					return nil, err
				}
				if side == 1 {
					kst = vst
				}
				return store.New(kst, dim, capacity)
			}
		}
		kc.Keys, kc.Values = maker(0), maker(1)
		layer, err := kv.NewLayer(kc)
		if err != nil {
			return nil, err
		}
		e.layers = append(e.layers, layer)
		e.caps = append(e.caps, layer.Capacity())
	}
	qLen, kvLen := cfg.Layers*cfg.Heads*d, cfg.Layers*cfg.KVHeads*d
	e.q, e.k, e.v = make([]float32, qLen), make([]float32, kvLen), make([]float32, kvLen)
	e.out = make([]float32, cfg.Heads*d)
	e.origK = make([]float32, cfg.Layers*cfg.KVHeads*e.caps[0]*d)
	e.origV = make([]float32, len(e.origK))
	e.kbuf = make([]float32, d)
	if cfg.RefStride > 0 {
		e.histK = make([]float32, cfg.Tokens*kvLen)
		e.histV = make([]float32, cfg.Tokens*kvLen)
		e.refW = make([]float32, cfg.Layers*cfg.Heads*cfg.Tokens)
		e.refOut = make([]float32, cfg.Heads*d)
		e.history = make([]Metrics, 0, cfg.Tokens/cfg.RefStride+1)
	}
	return e, nil
}

// at returns s[i], or the zero value when s is nil.
func at[T any](s []T, i int) T {
	var zero T
	if s == nil {
		return zero
	}
	return s[i]
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Pos returns the number of tokens decoded so far.
func (e *Engine) Pos() int { return e.pos }

// Err returns the error that stopped the run, if any.
func (e *Engine) Err() error { return e.err }

// Layer returns layer l's cache, for callers that need more than a Snapshot.
func (e *Engine) Layer(l int) *kv.Layer { return e.layers[l] }

// Step decodes one token through every layer and, on reference steps,
// measures it against the uncompressed history. It returns false once
// Config.Tokens tokens are decoded (or after an error, see Err). A step
// costs O(Layers·Heads·Budget·Dim) plus, on reference steps,
// O(Layers·Heads·Pos·Dim).
func (e *Engine) Step() bool {
	if e.pos >= e.cfg.Tokens || e.err != nil {
		return false
	}
	cfg := &e.cfg
	d := cfg.HeadDim
	qs, kvs := cfg.Heads*d, cfg.KVHeads*d
	t := e.pos
	e.gen.Next(e.q, e.k, e.v)
	ref := cfg.RefStride > 0 && (t%cfg.RefStride == 0 || t == cfg.Tokens-1)
	var m Metrics
	for l, layer := range e.layers {
		q, k, v := e.q[l*qs:(l+1)*qs], e.k[l*kvs:(l+1)*kvs], e.v[l*kvs:(l+1)*kvs]
		if err := layer.Step(t, q, k, v, e.out); err != nil {
			e.err = fmt.Errorf("sim: layer %d, position %d: %w", l, t, err)
			return false
		}
		if t == cfg.Prompt-1 {
			layer.EndPrompt()
		}
		e.remember(l, t, k, v)
		if e.histK != nil {
			copy(e.histK[(l*cfg.Tokens+t)*kvs:], k)
			copy(e.histV[(l*cfg.Tokens+t)*kvs:], v)
		}
		if ref {
			e.reference(l, t, q)
			m = m.add(e.measure(l, q))
		}
	}
	if ref {
		m = m.scale(1 / float64(cfg.Layers))
		e.last = m
		e.history = append(e.history, m)
		e.refAt = t
	}
	e.pos++
	return true
}

// RunTo steps until n tokens are decoded (or the run ends) and reports
// whether n was reached.
func (e *Engine) RunTo(n int) bool {
	for e.pos < n {
		if !e.Step() {
			return false
		}
	}
	return true
}

// remember copies the newest token's key and value beside its slots, so
// storage error can be measured later.
func (e *Engine) remember(l, t int, k, v []float32) {
	d := e.cfg.HeadDim
	layer := e.layers[l]
	for g := range e.cfg.KVHeads {
		ps := layer.Positions(g)
		i := len(ps) - 1
		if i < 0 || int(ps[i]) != t {
			continue // evicted on arrival
		}
		ks, vs := layer.Slots(g, i)
		base := (l*e.cfg.KVHeads + g) * e.caps[l]
		copy(e.origK[(base+ks)*d:(base+ks+1)*d], k[g*d:(g+1)*d])
		copy(e.origV[(base+vs)*d:(base+vs+1)*d], v[g*d:(g+1)*d])
	}
}

// reference computes layer l's attention over the uncompressed history
// for the current query into refW and refOut.
func (e *Engine) reference(l, t int, q []float32) {
	cfg := &e.cfg
	d, kvs := cfg.HeadDim, cfg.KVHeads*cfg.HeadDim
	group := cfg.Heads / cfg.KVHeads
	scale := 1 / math.Sqrt(float64(d))
	hk := e.histK[l*cfg.Tokens*kvs : (l*cfg.Tokens+t+1)*kvs]
	hv := e.histV[l*cfg.Tokens*kvs : (l*cfg.Tokens+t+1)*kvs]
	for qh := range cfg.Heads {
		g := qh / group
		w := e.refW[(l*cfg.Heads+qh)*cfg.Tokens : (l*cfg.Heads+qh)*cfg.Tokens+t+1]
		qv := q[qh*d : (qh+1)*d]
		mx := float32(math.Inf(-1))
		for p := range w {
			w[p] = dot(qv, hk[p*kvs+g*d:p*kvs+(g+1)*d])
			mx = max(mx, w[p])
		}
		var z float64
		for p, x := range w {
			ex := float32(math.Exp((float64(x) - float64(mx)) * scale))
			w[p] = ex
			z += float64(ex)
		}
		o := e.refOut[qh*d : (qh+1)*d]
		clear(o)
		inv := float32(1 / z)
		for p := range w {
			w[p] *= inv
			wp := w[p]
			row := hv[p*kvs+g*d : p*kvs+(g+1)*d]
			for j := range o {
				o[j] += wp * row[j]
			}
		}
	}
}

// measure compares layer l's compressed step (its output in e.out, its
// cached tokens) with the reference just computed.
func (e *Engine) measure(l int, q []float32) Metrics {
	cfg := &e.cfg
	d := cfg.HeadDim
	group := cfg.Heads / cfg.KVHeads
	layer := e.layers[l]
	t := e.pos
	var m Metrics
	scale := 1 / math.Sqrt(float64(d))
	for g := range cfg.KVHeads {
		ks, vs := layer.Stores(g)
		ps := layer.Positions(g)
		base := (l*cfg.KVHeads + g) * e.caps[l]
		var kerr, knorm, verr, vnorm, bias float64
		for i, p := range ps {
			kslot, vslot := layer.Slots(g, i)
			orig := e.origK[(base+kslot)*d : (base+kslot+1)*d]
			ks.Read(kslot, e.kbuf)
			for qh := g * group; qh < (g+1)*group; qh++ {
				qv := q[qh*d : (qh+1)*d]
				bias += float64(dot(qv, e.kbuf)-dot(qv, orig)) * scale
			}
			kerr, knorm = kerr+sqdiff(orig, e.kbuf), knorm+sqnorm(orig)
			orig = e.origV[(base+vslot)*d : (base+vslot+1)*d]
			vs.Read(vslot, e.kbuf)
			verr, vnorm = verr+sqdiff(orig, e.kbuf), vnorm+sqnorm(orig)
			_ = p
		}
		m.KErr += ratio(kerr, knorm)
		m.VErr += ratio(verr, vnorm)
		if len(ps) > 0 {
			m.Bias += bias / float64(len(ps)*group)
		}
		attn := layer.Attention(g)
		for qh := g * group; qh < (g+1)*group; qh++ {
			w := e.refW[(l*cfg.Heads+qh)*cfg.Tokens : (l*cfg.Heads+qh)*cfg.Tokens+t+1]
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
			o, r := e.out[qh*d:(qh+1)*d], e.refOut[qh*d:(qh+1)*d]
			m.OutErr += ratio(sqdiff(r, o), sqnorm(r)) / float64(group)
		}
	}
	return m.scale(1 / float64(cfg.KVHeads))
}

func (m Metrics) add(o Metrics) Metrics {
	return Metrics{m.KErr + o.KErr, m.VErr + o.VErr, m.OutErr + o.OutErr, m.Mass + o.Mass, m.KL + o.KL, m.Bias + o.Bias}
}

func (m Metrics) scale(f float64) Metrics {
	return Metrics{m.KErr * f, m.VErr * f, m.OutErr * f, m.Mass * f, m.KL * f, m.Bias * f}
}

func ratio(errSq, normSq float64) float64 {
	if normSq == 0 {
		return 0
	}
	return math.Sqrt(errSq / normSq)
}

func dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

func sqdiff(a, b []float32) float64 {
	var s float64
	b = b[:len(a)]
	for i, x := range a {
		d := float64(x - b[i])
		s += d * d
	}
	return s
}

func sqnorm(a []float32) float64 {
	var s float64
	for _, x := range a {
		s += float64(x) * float64(x)
	}
	return s
}
