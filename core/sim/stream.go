package sim

import (
	"math"

	"github.com/kvscope/kvscope/core/internal/fastmath"
	"github.com/kvscope/kvscope/core/internal/kernels"
	"github.com/kvscope/kvscope/core/synth"
	"github.com/kvscope/kvscope/core/trace"
)

// A Stream records what engines decode: every position's queries, keys
// and values and, per position, layer and query head, the reference —
// attention over the uncompressed history — reduced to its maximum logit,
// its normalizer and its output. None of it depends on the compressed
// cache, only on the stream settings (Config.synth and Tokens), so engines
// that share a Stream (a replay after a compression setting changes, the
// two sides of a comparison) generate each position and compute each
// reference once. An engine replaying a recorded step measures itself
// against the recording in O(Heads·Budget·Dim) instead of
// O(Heads·Pos·Dim).
//
// A Stream is not safe for concurrent use; engines sharing one must be
// stepped from one goroutine.
type Stream struct {
	key    streamKey
	tokens int // positions it can hold
	src    Source
	n      int // positions recorded

	layers, heads, kvHeads, dim int
	scale                       float32 // 1/√dim

	q    []float32 // [t][layer][head][dim]
	k, v []float32 // [layer][kv head][t][dim]: each head's history is contiguous
	done []bool    // [t][layer]: the reference has been computed
	mx   []float32 // [t][layer][head]: largest logit q·k (before scaling)
	inv  []float32 // [t][layer][head]: 1/Σ e^((q·k−mx)/√dim)
	out  []float32 // [t][layer][head][dim]: the reference attention output

	// rows keeps every reference row, [t][layer][head][0..t], when they
	// fit in maxRowFloats (nil otherwise): an engine replaying a recorded
	// step then reads the weights instead of recomputing them from the
	// recorded maximum and normalizer (the same bits, see weight).
	rows  []float32
	rowOK []bool // [t][layer]: rows holds the reference rows (computed here, not imported)
}

// maxRowFloats caps Stream.rows: 32 MiB, the 8 query heads of one layer up
// to about 1,400 tokens (the sweep's 512-token stream takes 4 MiB).
const maxRowFloats = 1 << 23

// rowFloats is the size of every reference row of a stream: Σ_t (t+1)
// values per layer and query head.
func rowFloats(tokens, layers, heads int) int64 {
	n := int64(tokens)
	return n * (n + 1) / 2 * int64(layers) * int64(heads)
}

// streamKey identifies a stream: the generator's settings, or the trace
// replayed.
type streamKey struct {
	synth synth.Config
	tr    *trace.Trace
}

// NewStream returns an empty recording of cfg's synthetic stream, with
// room for cfg.Tokens positions. It allocates everything up front: about
// 4·Tokens·Layers·(2·Heads + 2·KVHeads)·HeadDim bytes. It returns an error
// if cfg is invalid or the recording would exceed 1 GiB.
func NewStream(cfg Config) (*Stream, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return newStream(cfg, streamKey{synth: cfg.synth()}, func() (Source, error) { return synth.New(cfg.synth()) })
}

func newStream(cfg Config, key streamKey, newSource func() (Source, error)) (*Stream, error) {
	if cfg.recordFloats() > maxFloats {
		return nil, cfg.tooLong()
	}
	src, err := newSource()
	if err != nil {
		return nil, err
	}
	s := &Stream{key: key, tokens: cfg.Tokens, src: src,
		layers: cfg.Layers, heads: cfg.Heads, kvHeads: cfg.KVHeads, dim: cfg.HeadDim,
		scale: float32(1 / math.Sqrt(float64(cfg.HeadDim)))}
	qn, kvn := cfg.Tokens*cfg.Layers*cfg.Heads, cfg.Tokens*cfg.Layers*cfg.KVHeads
	s.q = make([]float32, qn*cfg.HeadDim)
	s.k, s.v = make([]float32, kvn*cfg.HeadDim), make([]float32, kvn*cfg.HeadDim)
	s.done = make([]bool, cfg.Tokens*cfg.Layers)
	s.mx, s.inv = make([]float32, qn), make([]float32, qn)
	s.out = make([]float32, qn*cfg.HeadDim)
	if rowFloats(cfg.Tokens, cfg.Layers, cfg.Heads) <= maxRowFloats {
		s.rows = make([]float32, rowFloats(cfg.Tokens, cfg.Layers, cfg.Heads))
		s.rowOK = make([]bool, cfg.Tokens*cfg.Layers)
	}
	return s, nil
}

// Matches reports whether an engine of cfg can decode this stream: the
// same generator settings and at most as many tokens as it holds.
func (s *Stream) Matches(cfg Config) bool {
	return s.key.tr == nil && s.key.synth == cfg.synth() && cfg.Tokens <= s.tokens
}

// Recorded returns how many positions have been generated so far.
func (s *Stream) Recorded() int { return s.n }

// next copies position t's vectors (queries [layer][head][dim], keys and
// values [layer][kv head][dim]) into q, k and v, generating and recording
// the position if no engine has reached it yet. t must be at most
// Recorded() and below the stream's capacity.
func (s *Stream) next(t int, q, k, v []float32) {
	qs, d := s.layers*s.heads*s.dim, s.dim
	if t == s.n {
		s.src.Next(s.q[t*qs:(t+1)*qs], k, v)
		for h := range s.layers * s.kvHeads {
			i := (h*s.tokens + t) * d
			copy(s.k[i:i+d], k[h*d:(h+1)*d])
			copy(s.v[i:i+d], v[h*d:(h+1)*d])
		}
		s.n++
	} else {
		for h := range s.layers * s.kvHeads {
			i := (h*s.tokens + t) * d
			copy(k[h*d:(h+1)*d], s.k[i:i+d])
			copy(v[h*d:(h+1)*d], s.v[i:i+d])
		}
	}
	copy(q, s.q[t*qs:(t+1)*qs])
}

// query returns query head qh of layer l at position t.
func (s *Stream) query(t, l, qh int) []float32 {
	i := ((t*s.layers+l)*s.heads + qh) * s.dim
	return s.q[i : i+s.dim]
}

// history returns kv head g's keys and values of layer l for positions
// 0..n-1.
func (s *Stream) history(l, g, n int) (k, v []float32) {
	i := (l*s.kvHeads + g) * s.tokens * s.dim
	return s.k[i : i+n*s.dim], s.v[i : i+n*s.dim]
}

// known reports whether layer l's reference at position t is recorded.
func (s *Stream) known(t, l int) bool { return s.done[t*s.layers+l] }

// output returns layer l's reference outputs at position t, Heads × Dim;
// valid once known(t, l).
func (s *Stream) output(t, l int) []float32 {
	i := (t*s.layers + l) * s.heads * s.dim
	return s.out[i : i+s.heads*s.dim]
}

// row returns query head qh's reference attention row of layer l at
// position t (t+1 weights), or nil when the stream does not keep rows or
// has not computed this one (a reference imported from another stream,
// see ImportReference, comes without its rows).
func (s *Stream) row(t, l, qh int) []float32 {
	if s.rows == nil || !s.rowOK[t*s.layers+l] {
		return nil
	}
	return s.rowAt(t, l, qh)
}

// rowAt is row's place in rows, valid or not.
func (s *Stream) rowAt(t, l, qh int) []float32 {
	n := t + 1
	i := int(rowFloats(t, s.layers, s.heads)) + (l*s.heads+qh)*n
	return s.rows[i : i+n]
}

// reference computes layer l's attention over the uncompressed history at
// position t (t < Recorded()): per query head qh, the weights of positions
// 0..t into rows[qh*stride:][:t+1], and records the head's maximum logit,
// normalizer and output. Per head it makes three passes over the head's
// contiguous history: the logits (and their maximum), the exponentials
// with the unnormalized output, and the normalization. Cost
// O(Heads·t·Dim).
func (s *Stream) reference(t, l int, rows []float32, stride int) {
	d, n := s.dim, t+1
	group := s.heads / s.kvHeads
	out := s.output(t, l)
	for qh := range s.heads {
		hk, hv := s.history(l, qh/group, n)
		w := rows[qh*stride : qh*stride+n]
		o := out[qh*d : (qh+1)*d]
		mx := refLogits(w, s.query(t, l, qh), hk)
		z := refExpSum(w, mx, s.scale, hv, o)
		inv := float32(1 / z)
		scaleBy(w, inv)
		scaleBy(o, inv)
		i := (t*s.layers+l)*s.heads + qh
		s.mx[i], s.inv[i] = mx, inv
		if s.rows != nil {
			copy(s.rowAt(t, l, qh), w)
		}
	}
	s.done[t*s.layers+l] = true
	if s.rows != nil {
		s.rowOK[t*s.layers+l] = true
	}
}

// weight returns query head qh's reference attention on position p at
// position t of layer l, from the recorded maximum and normalizer: the
// value reference wrote into its row, bit for bit, in O(Dim). Layer l's
// reference at t must be known.
func (s *Stream) weight(t, l, qh, p int) float32 {
	if r := s.row(t, l, qh); r != nil {
		return r[p]
	}
	i := (t*s.layers+l)*s.heads + qh
	k, _ := s.history(l, qh/(s.heads/s.kvHeads), p+1)
	d := s.dim
	return fastmath.ExpNeg((kernels.DotF32(s.query(t, l, qh), k[p*d:(p+1)*d])-s.mx[i])*s.scale) * s.inv[i]
}

// weights sets row[p] = weight(t, l, qh, p) for each position p of ps.
// Layer l's reference at t must be known. Cost O(len(ps)·Dim).
func (s *Stream) weights(t, l, qh int, ps []int32, row []float32) {
	if r := s.row(t, l, qh); r != nil {
		for _, p := range ps {
			row[p] = r[p]
		}
		return
	}
	i := (t*s.layers+l)*s.heads + qh
	mx, inv, scale, d := s.mx[i], s.inv[i], s.scale, s.dim
	q := s.query(t, l, qh)
	hk, _ := s.history(l, qh/(s.heads/s.kvHeads), t+1)
	for _, p := range ps {
		row[p] = fastmath.ExpNeg((kernels.DotF32(q, hk[int(p)*d:int(p+1)*d])-mx)*scale) * inv
	}
}

// refLogits sets w[p] = q·rows[p] (kernels.DotF32's order) for the len(w)
// rows of len(q) values in rows and returns the largest.
func refLogits(w, q, rows []float32) float32 {
	kernels.ScoresF32(w, q, rows, len(q))
	mx := float32(math.Inf(-1))
	p := 0
	for ; p+4 <= len(w); p += 4 {
		w4 := w[p : p+4 : p+4]
		mx = max4(mx, w4[0], w4[1], w4[2], w4[3])
	}
	for _, s := range w[p:] {
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
// to Σ_p w[p]·rows[p] over those unnormalized weights
// (kernels.WeightedSumF32's order: from +0 in increasing p) and returns
// Σ_p w[p], summed in float64 eight weights at a time.
func refExpSum(w []float32, mx, scale float32, rows, o []float32) float64 {
	var z float64
	p := 0
	for ; p+8 <= len(w); p += 8 {
		w8 := w[p : p+8 : p+8]
		e0, e1 := fastmath.ExpNeg((w8[0]-mx)*scale), fastmath.ExpNeg((w8[1]-mx)*scale)
		e2, e3 := fastmath.ExpNeg((w8[2]-mx)*scale), fastmath.ExpNeg((w8[3]-mx)*scale)
		e4, e5 := fastmath.ExpNeg((w8[4]-mx)*scale), fastmath.ExpNeg((w8[5]-mx)*scale)
		e6, e7 := fastmath.ExpNeg((w8[6]-mx)*scale), fastmath.ExpNeg((w8[7]-mx)*scale)
		w8[0], w8[1], w8[2], w8[3], w8[4], w8[5], w8[6], w8[7] = e0, e1, e2, e3, e4, e5, e6, e7
		z += ((float64(e0) + float64(e1)) + (float64(e2) + float64(e3))) + ((float64(e4) + float64(e5)) + (float64(e6) + float64(e7)))
	}
	for ; p < len(w); p++ {
		ex := fastmath.ExpNeg((w[p] - mx) * scale)
		w[p] = ex
		z += float64(ex)
	}
	kernels.WeightedSumF32(o, w, rows, len(o))
	return z
}

// scaleBy multiplies every value of x by f, eight per pass (Go's
// WebAssembly loops pay a dispatch per iteration).
func scaleBy(x []float32, f float32) {
	p := 0
	for ; p+8 <= len(x); p += 8 {
		x8 := x[p : p+8 : p+8]
		x8[0], x8[1], x8[2], x8[3] = x8[0]*f, x8[1]*f, x8[2]*f, x8[3]*f
		x8[4], x8[5], x8[6], x8[7] = x8[4]*f, x8[5]*f, x8[6]*f, x8[7]*f
	}
	for ; p < len(x); p++ {
		x[p] *= f
	}
}
