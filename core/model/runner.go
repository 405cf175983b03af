package model

import "fmt"

// Runner decodes one sequence with a Model, holding the run state as flat
// slices allocated once by NewRunner; attention goes through its Cache. A Runner
// is not safe for concurrent use; create one per sequence.
type Runner struct {
	m     *Model
	cache Cache
	pos   int // position of the next token

	x      []float32 // (dim) residual stream
	xb     []float32 // (dim) normalised input of a sub-block
	q      []float32 // (qDim) query
	k      []float32 // (kvDim) key
	v      []float32 // (kvDim) value
	att    []float32 // (qDim) attention output
	xb2    []float32 // (dim) sub-block output
	hb     []float32 // (hidden) gate
	hb2    []float32 // (hidden) up
	logits []float32 // (vocab)
	batch  batch     // Prefill's scratch
}

// NewRunner returns a Runner at position 0 that stores keys and values in c. It
// resets c.
func (m *Model) NewRunner(c Cache) *Runner {
	cfg := m.Config
	c.Reset()
	return &Runner{
		m: m, cache: c,
		x: make([]float32, cfg.Dim), xb: make([]float32, cfg.Dim),
		q: make([]float32, cfg.QDim()), k: make([]float32, cfg.KVDim()), v: make([]float32, cfg.KVDim()),
		att: make([]float32, cfg.QDim()), xb2: make([]float32, cfg.Dim),
		hb: make([]float32, cfg.Hidden), hb2: make([]float32, cfg.Hidden),
		logits: make([]float32, cfg.Vocab),
	}
}

// Model returns the model the runner decodes with.
func (r *Runner) Model() *Model { return r.m }

// Cache returns the runner's cache.
func (r *Runner) Cache() Cache { return r.cache }

// Pos returns the position the next Forward will occupy (the number of tokens fed).
func (r *Runner) Pos() int { return r.pos }

// Logits returns the logits of the last Forward (zeros before any). The slice is
// owned by the runner and overwritten by the next Forward.
func (r *Runner) Logits() []float32 { return r.logits }

// Reset returns the runner to position 0 and resets its cache.
func (r *Runner) Reset() {
	r.pos = 0
	clear(r.logits)
	r.cache.Reset()
}

// Forward feeds token at position Pos(), advances the position and returns the
// logits for the next token (the slice Logits returns). It returns an error if
// token is out of range or the cache fails; the position does not advance then,
// but the cache may hold the token for the layers that ran. Steady state
// allocates nothing (when the cache does not).
func (r *Runner) Forward(token int) ([]float32, error) {
	c := r.m.Config
	w := &r.m.Weights
	if token < 0 || token >= c.Vocab {
		return nil, fmt.Errorf("model: token %d out of range [0, %d)", token, c.Vocab)
	}
	w.Embedding.Row(token, r.x)
	if c.EmbedScale != 0 {
		for i := range r.x {
			r.x[i] *= c.EmbedScale
		}
	}
	for l := range w.Layers {
		ly := &w.Layers[l]
		rmsNorm(r.xb, r.x, ly.AttnNorm, c.NormEps)
		m := &ly.Mats
		m.Wq.MulVec(r.q, r.xb)
		m.Wk.MulVec(r.k, r.xb)
		m.Wv.MulVec(r.v, r.xb)
		addBias(r.q, ly.BQ)
		addBias(r.k, ly.BK)
		addBias(r.v, ly.BV)
		headNorm(r.q, ly.QNorm, c.NormEps)
		headNorm(r.k, ly.KNorm, c.NormEps)
		if err := r.cache.Attend(l, r.pos, r.q, r.k, r.v, r.att); err != nil {
			return nil, err
		}
		m.Wo.MulVec(r.xb2, r.att)
		r.residualInto(r.x, r.xb2, ly.PostAttnNorm)

		rmsNorm(r.xb, r.x, ly.FFNNorm, c.NormEps)
		m.WGate.MulVec(r.hb, r.xb)
		m.WUp.MulVec(r.hb2, r.xb)
		r.gate(r.hb, r.hb2)
		m.WDown.MulVec(r.xb2, r.hb)
		r.residualInto(r.x, r.xb2, ly.PostFFNNorm)
	}
	rmsNorm(r.x, r.x, w.OutputNorm, c.NormEps)
	w.Classifier.MulVec(r.logits, r.x)
	r.pos++
	return r.logits, nil
}

// residualInto adds a sub-block's output y to the residual stream x,
// RMS-normed by post first when the architecture has that norm (post not
// nil).
func (r *Runner) residualInto(x, y, post []float32) {
	if post != nil {
		rmsNorm(y, y, post, r.m.Config.NormEps)
	}
	for i, v := range y {
		x[i] += v
	}
}

// gate sets g[i] = act(g[i])·up[i], act the architecture's GELU or SiLU.
func (r *Runner) gate(g, up []float32) {
	if r.m.Config.GELU {
		for i, v := range g {
			g[i] = gelu(v) * up[i]
		}
		return
	}
	for i, v := range g {
		g[i] = silu(v) * up[i]
	}
}

// addBias adds b to x; a nil b adds nothing.
func addBias(x, b []float32) {
	for i, v := range b {
		x[i] += v
	}
}

// headNorm RMS-normalises every head of x (len(w) values each) with
// weights w, in place; a nil w leaves x alone.
func headNorm(x, w []float32, eps float32) {
	if w == nil {
		return
	}
	for h := 0; h < len(x); h += len(w) {
		rmsNorm(x[h:h+len(w)], x[h:h+len(w)], w, eps)
	}
}
