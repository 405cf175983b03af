package sim

import (
	"fmt"
	"math"
	"time"

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

	// The recording the engine reads (nil when RefStride is 0 and none
	// was shared) and the reference (nil refW when RefStride is 0).
	stream   *Stream
	refW     []float32 // [layer][query head][t]: reference attention rows
	rowsAt   []int     // per layer: the position whose full rows refW holds; -1 if none
	refLayer int       // layer whose refW a closure reads
	history  []Metrics
	last     Metrics

	snap Snapshot

	sinks *sinkAcc // the sink metric so far (Sinks); nil until asked

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
// the metrics history (one entry per reference step). With the reference
// on, the engine records its stream privately (see NewShared).
func New(cfg Config) (*Engine, error) { return NewShared(cfg, nil) }

// NewShared builds the engine for cfg at step 0 reading its stream from s
// and recording into it what no engine has decoded yet: positions come
// from the recording instead of the generator, and recorded reference
// steps cost O(Heads·Budget·Dim) instead of O(Heads·Pos·Dim). The run is
// the same as New(cfg)'s, snapshot for snapshot. A nil s is New. It
// returns an error if cfg is invalid or s does not match it (see
// Stream.Matches).
func NewShared(cfg Config, s *Stream) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if s != nil && !s.Matches(cfg) {
		return nil, fmt.Errorf("sim: the shared stream records other generator settings or fewer than %d tokens", cfg.Tokens)
	}
	newSource := func() (Source, error) { return synth.New(cfg.synth()) }
	return newEngine(cfg, newSource, streamKey{synth: cfg.synth()}, s)
}

// newEngine builds an engine of cfg whose stream comes from s or, when s
// is nil, from newSource (recorded in a private Stream of key when the
// reference is on).
func newEngine(cfg Config, newSource func() (Source, error), key streamKey, s *Stream) (*Engine, error) {
	var src Source
	var err error
	switch {
	case s != nil:
	case cfg.RefStride > 0:
		if s, err = newStream(cfg, key, newSource); err != nil {
			return nil, err
		}
	default:
		if src, err = newSource(); err != nil {
			return nil, err
		}
	}
	cal, err := calibrate(cfg, newSource)
	if err != nil {
		return nil, err
	}
	c, err := newCaches(cfg, cal, nil, nil)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, src: src, stream: s, c: c}
	d := cfg.HeadDim
	qLen, kvLen := cfg.Layers*cfg.Heads*d, cfg.Layers*cfg.KVHeads*d
	e.q, e.k, e.v = make([]float32, qLen), make([]float32, kvLen), make([]float32, kvLen)
	e.out = make([]float32, cfg.Heads*d)
	if cfg.RefStride > 0 {
		e.refW = make([]float32, cfg.Layers*cfg.Heads*cfg.Tokens)
		e.rowsAt = make([]int, cfg.Layers)
		for i := range e.rowsAt {
			e.rowsAt[i] = -1
		}
		e.history = make([]Metrics, 0, (cfg.Tokens-1)/cfg.RefStride+2) // every stride-th step and the last
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
// costs O(Layers·Heads·Budget·Dim) plus, on reference steps the stream
// has not recorded yet, O(Layers·Heads·Pos·Dim).
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
	if e.stream != nil {
		e.stream.next(t, e.q, e.k, e.v)
	} else {
		e.src.Next(e.q, e.k, e.v)
	}
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
		if ref {
			if e.timing {
				t0 = time.Now()
			}
			e.reference(l, t)
			if e.timing {
				e.refTime += time.Since(t0)
			}
			e.refLayer = l
			m = m.add(e.c.measure(l, q, e.out, e.stream.output(t, l), e.refRow))
		}
	}
	if ref {
		m = m.scale(1 / float64(cfg.Layers))
		e.last = m
		e.history = append(e.history, m)
	}
	e.pos++
	return true
}

// refRow returns query head qh's reference attention in layer e.refLayer
// at the current step: the stream's row when it keeps rows, else refW's.
func (e *Engine) refRow(qh int) []float32 {
	if r := e.stream.row(e.pos, e.refLayer, qh); r != nil {
		return r
	}
	i := (e.refLayer*e.cfg.Heads + qh) * e.cfg.Tokens
	return e.refW[i : i+e.cfg.Tokens]
}

// reference makes refW's rows of layer l hold the reference attention at
// position t wherever measure reads them: every position when the stream
// has no reference for t yet (computing it, O(Heads·t·Dim)), else only
// the positions the cache keeps, from the recording (O(Heads·Budget·Dim)).
func (e *Engine) reference(l, t int) {
	cfg := &e.cfg
	rows := e.refW[l*cfg.Heads*cfg.Tokens : (l+1)*cfg.Heads*cfg.Tokens]
	if !e.stream.known(t, l) {
		e.stream.reference(t, l, rows, cfg.Tokens)
		e.rowsAt[l] = t
		return
	}
	if e.rowsAt[l] == t || e.stream.row(t, l, 0) != nil {
		return // refRow reads the stream's rows
	}
	group := cfg.Heads / cfg.KVHeads
	layer := e.c.layers[l]
	for qh := range cfg.Heads {
		e.stream.weights(t, l, qh, layer.Positions(qh/group), rows[qh*cfg.Tokens:(qh+1)*cfg.Tokens])
	}
	e.rowsAt[l] = -1 // rows are partial
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
