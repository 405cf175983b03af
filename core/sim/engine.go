package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/kvscope/kvscope/core/internal/fastmath"
	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/synth"
)

// Engine runs one configuration: a synthetic stream (or a replayed trace)
// decoded through a compressed cache per layer, with, on reference steps,
// the same attention over the uncompressed history for comparison. It is
// deterministic: the same Config gives the same snapshots. It is not safe
// for concurrent use.
type Engine struct {
	cfg Config
	src Source
	c   *caches

	q, k, v []float32 // one position: Layers × (Q)Heads × Dim
	out     []float32 // Heads × Dim, one layer's compressed attention output
	pos     int       // tokens decoded
	err     error

	// Reference (nil when RefStride is 0).
	histK, histV []float32 // [layer][kv head][t][dim]: each head's history is contiguous
	refW         []float32 // [layer][query head][t]: reference attention of the last reference step
	refOut       []float32 // Heads × Dim
	refAt        int       // position of the last reference step; -1 if none
	refLayer     int       // layer whose refW a closure reads
	shownRef     []int     // per layer: the step whose reference Snapshot computed on demand
	history      []Metrics
	last         Metrics

	snap Snapshot

	timing           bool
	genTime, refTime time.Duration
	timedSteps       int
}

// A Source produces each position's vectors: q is [Layers][Heads][HeadDim],
// k and v are [Layers][KVHeads][HeadDim], flat. *synth.Generator is one.
type Source interface {
	Next(q, k, v []float32) int
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

func newEngine(cfg Config, newSource func() (Source, error)) (*Engine, error) {
	src, err := newSource()
	if err != nil {
		return nil, err
	}
	cal, err := calibrate(cfg, newSource)
	if err != nil {
		return nil, err
	}
	c, err := newCaches(cfg, cal, nil)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, src: src, c: c, refAt: -1}
	d := cfg.HeadDim
	qLen, kvLen := cfg.Layers*cfg.Heads*d, cfg.Layers*cfg.KVHeads*d
	e.q, e.k, e.v = make([]float32, qLen), make([]float32, kvLen), make([]float32, kvLen)
	e.out = make([]float32, cfg.Heads*d)
	if cfg.RefStride > 0 {
		e.histK = make([]float32, cfg.Tokens*kvLen)
		e.histV = make([]float32, cfg.Tokens*kvLen)
		e.refW = make([]float32, cfg.Layers*cfg.Heads*cfg.Tokens)
		e.refOut = make([]float32, cfg.Heads*d)
		e.history = make([]Metrics, 0, (cfg.Tokens-1)/cfg.RefStride+2) // every stride-th step and the last
		e.shownRef = make([]int, cfg.Layers)
		for i := range e.shownRef {
			e.shownRef[i] = -1
		}
	}
	return e, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// Pos returns the number of tokens decoded so far.
func (e *Engine) Pos() int { return e.pos }

// Err returns the error that stopped the run, if any.
func (e *Engine) Err() error { return e.err }

// Layer returns layer l's cache, for callers that need more than a Snapshot.
func (e *Engine) Layer(l int) *kv.Layer { return e.c.layers[l] }

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
	var t0 time.Time
	if e.timing {
		t0 = time.Now()
	}
	e.src.Next(e.q, e.k, e.v)
	if e.timing {
		e.genTime += time.Since(t0)
		e.timedSteps++
	}
	ref := cfg.RefStride > 0 && (t%cfg.RefStride == 0 || t == cfg.Tokens-1)
	var m Metrics
	for l := range e.c.layers {
		q, k, v := e.q[l*qs:(l+1)*qs], e.k[l*kvs:(l+1)*kvs], e.v[l*kvs:(l+1)*kvs]
		if err := e.c.step(l, t, cfg.Prompt, q, k, v, e.out); err != nil {
			e.err = fmt.Errorf("sim: layer %d, position %d: %w", l, t, err)
			return false
		}
		if e.histK != nil {
			for g := range cfg.KVHeads {
				i := ((l*cfg.KVHeads+g)*cfg.Tokens + t) * d
				copy(e.histK[i:i+d], k[g*d:(g+1)*d])
				copy(e.histV[i:i+d], v[g*d:(g+1)*d])
			}
		}
		if ref {
			if e.timing {
				t0 = time.Now()
			}
			e.reference(l, t, q)
			if e.timing {
				e.refTime += time.Since(t0)
			}
			e.refLayer = l
			m = m.add(e.c.measure(l, q, e.out, e.refOut, e.refRow))
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

// refRow returns query head qh's reference attention in layer e.refLayer.
func (e *Engine) refRow(qh int) []float32 {
	i := (e.refLayer*e.cfg.Heads + qh) * e.cfg.Tokens
	return e.refW[i : i+e.cfg.Tokens]
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

// reference computes layer l's attention over the uncompressed history
// for the current query into refW and refOut. Per query head it makes
// three passes over the head's contiguous history: the logits (and their
// maximum), the exponentials with the unnormalized output, and the
// normalization.
func (e *Engine) reference(l, t int, q []float32) {
	cfg := &e.cfg
	d, n := cfg.HeadDim, t+1
	group := cfg.Heads / cfg.KVHeads
	scale := float32(1 / math.Sqrt(float64(d)))
	for qh := range cfg.Heads {
		base := (l*cfg.KVHeads + qh/group) * cfg.Tokens * d
		hk, hv := e.histK[base:base+n*d], e.histV[base:base+n*d]
		w := e.refW[(l*cfg.Heads+qh)*cfg.Tokens : (l*cfg.Heads+qh)*cfg.Tokens+n]
		o := e.refOut[qh*d : (qh+1)*d]
		mx := refLogits(w, q[qh*d:(qh+1)*d], hk)
		z := refExpSum(w, mx, scale, hv, o)
		inv := float32(1 / z)
		for p := range w {
			w[p] *= inv
		}
		for j := range o {
			o[j] *= inv
		}
	}
}

// refLogits sets w[p] = q·rows[p] for the len(w) rows of len(q) values
// in rows and returns the largest. Four rows per pass share the loads of
// q; each dot adds its terms in order, as dot does.
func refLogits(w, q, rows []float32) float32 {
	d := len(q)
	rows = rows[:len(w)*d]
	mx := float32(math.Inf(-1))
	p := 0
	for ; p+4 <= len(w); p += 4 {
		r := rows[p*d : (p+4)*d]
		r0, r1, r2, r3 := r[:d], r[d:][:d], r[2*d:][:d], r[3*d:][:d]
		var s0, s1, s2, s3 float32
		for j, x := range q {
			s0 += x * r0[j]
			s1 += x * r1[j]
			s2 += x * r2[j]
			s3 += x * r3[j]
		}
		w4 := w[p : p+4 : p+4]
		w4[0], w4[1], w4[2], w4[3] = s0, s1, s2, s3
		mx = max4(mx, s0, s1, s2, s3)
	}
	for ; p < len(w); p++ {
		s := dot(q, rows[p*d:(p+1)*d])
		w[p] = s
		if s > mx {
			mx = s
		}
	}
	return mx
}

// max4 returns the largest of its arguments (none is NaN: the engine's
// vectors are finite). Comparisons, not the builtin max, whose NaN
// handling is a call under WebAssembly.
func max4(m, a, b, c, d float32) float32 {
	if a > m {
		m = a
	}
	if b > m {
		m = b
	}
	if c > m {
		m = c
	}
	if d > m {
		m = d
	}
	return m
}

// refExpSum replaces w[p] by e^((w[p]−mx)·scale), sets o (len(o) values)
// to Σ_p w[p]·rows[p] over those unnormalized weights and returns Σ_p w[p]
// (summed in float64). Four rows per pass share each o[j] update.
func refExpSum(w []float32, mx, scale float32, rows, o []float32) float64 {
	d := len(o)
	rows = rows[:len(w)*d]
	clear(o)
	var z float64
	p := 0
	for ; p+4 <= len(w); p += 4 {
		w4 := w[p : p+4 : p+4]
		e0, e1 := fastmath.ExpNeg((w4[0]-mx)*scale), fastmath.ExpNeg((w4[1]-mx)*scale)
		e2, e3 := fastmath.ExpNeg((w4[2]-mx)*scale), fastmath.ExpNeg((w4[3]-mx)*scale)
		w4[0], w4[1], w4[2], w4[3] = e0, e1, e2, e3
		z += float64(e0) + float64(e1) + float64(e2) + float64(e3)
		r := rows[p*d : (p+4)*d]
		r0, r1, r2, r3 := r[:d], r[d:][:d], r[2*d:][:d], r[3*d:][:d]
		for j := range o {
			o[j] += (e0*r0[j] + e1*r1[j]) + (e2*r2[j] + e3*r3[j])
		}
	}
	for ; p < len(w); p++ {
		ex := fastmath.ExpNeg((w[p] - mx) * scale)
		w[p] = ex
		z += float64(ex)
		row := rows[p*d : (p+1)*d]
		for j := range o {
			o[j] += ex * row[j]
		}
	}
	return z
}

func (m Metrics) add(o Metrics) Metrics {
	return Metrics{m.KErr + o.KErr, m.VErr + o.VErr, m.OutErr + o.OutErr, m.Mass + o.Mass, m.KL + o.KL, m.Bias + o.Bias, m.KMax + o.KMax, m.VMax + o.VMax}
}

func (m Metrics) scale(f float64) Metrics {
	return Metrics{m.KErr * f, m.VErr * f, m.OutErr * f, m.Mass * f, m.KL * f, m.Bias * f, m.KMax * f, m.VMax * f}
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
