// Package synth generates a deterministic stream of per-layer, per-head
// queries, keys and values whose attention, softmax(q·k/√d) over the
// history, behaves like a language model's: attention sinks, heavy hitters
// with power-law accumulated attention, a band on recent tokens, retrieval
// heads that return to earlier tokens, outlier key channels and
// heavy-tailed noise. Each effect has a strength knob in Config.
//
// Each key of a key/value head is a sum of components along ten (fewer for
// heads under 32 dimensions) fixed orthonormal directions of that head,
// plus noise confined to the remaining subspace, so noise never makes a
// token salient:
//
//   - a sink direction: the first four tokens (position 0 most) sit apart
//     from every other token along it;
//   - a salience direction: each token has a salience (a Gaussian shared
//     across heads plus a per-head part), so exp of its logit is log-normal
//     and a few tokens collect most attention over time;
//   - rotating pairs at geometric frequencies, as RoPE, so that q_t·k_s
//     depends on cos((t−s)ω) and peaks at s = t (keys are produced with
//     their position already applied);
//   - a constant offset (−sink − salience), so tokens that draw attention
//     have smaller keys, as Knorm relies on;
//   - outlier channels: a large constant per channel.
//
// Queries carry the same directions with per-head weights set by the head's
// HeadKind, plus Gaussian noise; a retrieval head now and then also copies
// an earlier key's noise, so its attention returns sharply to that token
// (see Generator.Target). Constant offsets add the same amount to every
// logit of a query, so outlier channels change quantization, not attention.
// Values are a per-head mean plus noise; sinks' values are small, so
// attending to a sink is close to a no-op, as in real models.
//
// Key and value noise is Student-t (Config.TailDF) with unit variance.
// Streams are bitwise reproducible on one platform; across platforms (for
// example native and WebAssembly) they may differ in the last bits.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/quant"
)

// Stream shape and effect sizes. Key amplitudes (kappa*) are in units of the
// unit-variance noise, so each effect stands well above the noise in the
// key itself; the query's weight is chosen so that the logit effect equals
// the head's kindWeights.
const (
	sinkCount     = 4   // leading positions that act as sinks
	kappaSink     = 8   // key offset of position 0 along the sink direction
	kappaHeavy    = 3   // key coordinate per unit salience
	heavyBias     = 3.5 // salience at which a key's salience coordinate crosses zero
	kappaLocal    = 2   // key amplitude of each rotating pair
	sharedWeight  = 0.8 // salience weight shared by all heads …
	ownWeight     = 0.6 // … and the head's own (0.8² + 0.6² = 1)
	maxPairs      = 4   // rotating pairs per head at most
	omegaMax      = 1.0 // fastest rotation, radians per position
	omegaMin      = 1.0 / 48
	sinkValueDrop = 0.8 // position 0's value is this much smaller (sinks are near no-ops)
	valueMean     = 1   // standard deviation of the entries of a head's mean value

	retrievalLogit = 14   // logit boost of the copied token over the expected ordinary token
	retrievalDamp  = 0.5  // weight of the head's other effects while it copies
	retrievalGap   = 32   // copied tokens are at least this many positions old
	copyClip       = 2.5  // copied noise is clipped to ±copyClip
	episodeStart   = 0.06 // chance per step that an idle retrieval head starts copying
	maxEpisode     = 6    // an episode copies 1..maxEpisode consecutive tokens
	reservoirSize  = 64   // earlier positions a retrieval episode may start at
)

// sinkProfile is how strongly each leading position acts as a sink.
var sinkProfile = [sinkCount]float64{1, 0.45, 0.3, 0.2}

// A Generator produces the stream of one Config, one position at a time.
// Its memory is O(Layers·(Heads + KVHeads·HeadDim)) and independent of how
// many positions it has produced (retrieval heads keep a reservoir of 64
// earlier positions and regenerate the keys they copy). It is not safe for
// concurrent use.
type Generator struct {
	cfg      Config
	d, m     int // HeadDim; structural directions per key/value head (2 + 2·pairs)
	pairs    int // rotating pairs per key/value head
	qLen     int // Layers·Heads·HeadDim
	kvLen    int // Layers·KVHeads·HeadDim
	stepSeed uint64
	keySeed  uint64

	dirs   []float32  // [Layers][KVHeads][m][HeadDim] orthonormal directions: sink, salience, pairs
	omega  []float64  // [Layers][KVHeads][pairs] rotation frequencies
	outCh  []int32    // [Layers][KVHeads][OutlierChannels] outlier channel indices
	outOff []float32  // same shape: their signed offsets
	vMean  []float32  // [Layers][KVHeads][HeadDim] mean of the values
	kinds  []HeadKind // [Layers][Heads]
	qw     []float64  // [Layers][Heads][3] query weights along sink, salience and each pair direction

	sinkAmp, heavyAmp, localAmp float64 // key amplitudes, knobs applied

	// State, reset by Reset.
	pos      int
	seen     int     // positions offered to the reservoir
	res      []int32 // reservoir of positions retrieval episodes start at
	epTarget []int32 // [Layers][Heads] next position an episode copies
	epLeft   []int32 // [Layers][Heads] positions left in the episode
	target   []int32 // [Layers][Heads] position copied at the last step, or −1

	stepSrc, keySrc rand.PCG
	step, key       *rand.Rand

	// Scratch, one head's worth.
	copyBuf []float32 // HeadDim
	cs      []float64 // 2·pairs: cos and sin of the current angles
	coef    []float64 // m
}

// New returns a Generator at position 0, or Validate's error. Building it
// costs O(Layers·(Heads + KVHeads·HeadDim)) time and memory.
func New(c Config) (*Generator, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	d := c.HeadDim
	pairs := min(maxPairs, d/8)
	g := &Generator{
		cfg: c, d: d, pairs: pairs, m: 2 + 2*pairs,
		qLen:     c.Layers * c.Heads * d,
		kvLen:    c.Layers * c.KVHeads * d,
		stepSeed: mix(c.Seed, 1),
		keySeed:  mix(c.Seed, 2),
		sinkAmp:  kappaSink * c.SinkStrength,
		heavyAmp: kappaHeavy * c.HeavyStrength,
		localAmp: kappaLocal * c.Locality,
	}
	nkv := c.Layers * c.KVHeads
	nq := c.Layers * c.Heads
	g.dirs = make([]float32, nkv*g.m*d)
	g.omega = make([]float64, nkv*pairs)
	g.outCh = make([]int32, nkv*c.OutlierChannels)
	g.outOff = make([]float32, nkv*c.OutlierChannels)
	g.vMean = make([]float32, nkv*d)
	g.kinds = make([]HeadKind, nq)
	g.qw = make([]float64, nq*3)
	g.res = make([]int32, 0, reservoirSize)
	g.epTarget = make([]int32, nq)
	g.epLeft = make([]int32, nq)
	g.target = make([]int32, nq)
	g.copyBuf = make([]float32, d)
	g.cs = make([]float64, 2*pairs)
	g.coef = make([]float64, g.m)
	g.step = rand.New(&g.stepSrc)
	g.key = rand.New(&g.keySrc)

	r := rand.New(rand.NewPCG(mix(c.Seed, 3), 0))
	// Outliers are sized against the RMS of an ordinary key's channels.
	m2 := g.sinkAmp*g.sinkAmp + g.heavyAmp*g.heavyAmp*(1+heavyBias*heavyBias) +
		float64(pairs)*g.localAmp*g.localAmp + float64(d-g.m)
	outlier := c.OutlierScale * math.Sqrt(m2/float64(d))
	perm := make([]int, d)
	for u := range nkv {
		quant.Orthonormal(g.dirs[u*g.m*d:(u+1)*g.m*d], g.m, d, r)
		for j := range pairs {
			w := 0.3
			if pairs > 1 {
				w = omegaMax * math.Pow(omegaMin/omegaMax, float64(j)/float64(pairs-1))
			}
			g.omega[u*pairs+j] = w * math.Exp(0.1*r.NormFloat64())
		}
		for i := range d {
			g.vMean[u*d+i] = float32(valueMean * r.NormFloat64())
			perm[i] = i
		}
		r.Shuffle(d, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		for j := range c.OutlierChannels {
			g.outCh[u*c.OutlierChannels+j] = int32(perm[j])
			sign := float32(1)
			if r.IntN(2) == 0 {
				sign = -1
			}
			g.outOff[u*c.OutlierChannels+j] = sign * float32(outlier)
		}
	}
	assignKinds(g.kinds, c, r)
	sd := math.Sqrt(float64(d))
	for i, kind := range g.kinds {
		w := kindWeights[kind]
		jitter := func(sd float64) float64 { return min(1+3*sd, max(1-3*sd, 1+sd*r.NormFloat64())) }
		g.qw[3*i] = sd * w.sink * jitter(0.04) / kappaSink
		g.qw[3*i+1] = sd * w.heavy * jitter(0.1) / kappaHeavy
		if pairs > 0 {
			g.qw[3*i+2] = sd * w.local * jitter(0.1) / (kappaLocal * float64(pairs))
		}
	}
	g.Reset()
	return g, nil
}

// Config returns the configuration the Generator was built from.
func (g *Generator) Config() Config { return g.cfg }

// QLen returns the floats of one position's queries, Layers·Heads·HeadDim.
func (g *Generator) QLen() int { return g.qLen }

// KVLen returns the floats of one position's keys (or values),
// Layers·KVHeads·HeadDim.
func (g *Generator) KVLen() int { return g.kvLen }

// Pos returns the position the next call to Next writes.
func (g *Generator) Pos() int { return g.pos }

// HeadKind returns the kind of query head head of layer layer. It panics if
// either index is out of range.
func (g *Generator) HeadKind(layer, head int) HeadKind {
	return g.kinds[g.headIndex(layer, head)]
}

// Target returns the earlier position whose key query head head of layer
// layer copied at the last position produced, or −1 if it did not copy (it
// is not a retrieval head, or was not retrieving). A copied position is at
// least 32 positions old and not a sink. It panics if either index is out
// of range.
func (g *Generator) Target(layer, head int) int {
	return int(g.target[g.headIndex(layer, head)])
}

func (g *Generator) headIndex(layer, head int) int {
	if layer < 0 || layer >= g.cfg.Layers || head < 0 || head >= g.cfg.Heads {
		panic(fmt.Sprintf("synth: head (%d, %d) out of range [0,%d)×[0,%d)", layer, head, g.cfg.Layers, g.cfg.Heads))
	}
	return layer*g.cfg.Heads + head
}

// Reset returns the Generator to position 0; it then replays the same
// stream.
func (g *Generator) Reset() {
	g.pos, g.seen = 0, 0
	g.res = g.res[:0]
	for i := range g.target {
		g.epTarget[i], g.epLeft[i], g.target[i] = 0, 0, -1
	}
}

// Fill writes the next n positions, one after another: q is [n][QLen()],
// k and v are [n][KVLen()], flat. It returns the first position written.
// Fill(q, k, v, Config().Prompt) from position 0 produces the prompt for a
// prefill; the stream is the same as n calls to Next. It panics if n < 0 or
// a slice is too short.
func (g *Generator) Fill(q, k, v []float32, n int) int {
	if n < 0 || len(q) < n*g.qLen || len(k) < n*g.kvLen || len(v) < n*g.kvLen {
		panic(fmt.Sprintf("synth: Fill of %d positions needs %d query and %d key/value floats, got %d, %d, %d",
			n, n*g.qLen, n*g.kvLen, len(q), len(k), len(v)))
	}
	first := g.pos
	for i := range n {
		g.Next(q[i*g.qLen:(i+1)*g.qLen], k[i*g.kvLen:(i+1)*g.kvLen], v[i*g.kvLen:(i+1)*g.kvLen])
	}
	return first
}

// Next writes the next position's vectors and returns that position: q is
// [Layers][Heads][HeadDim], k and v are [Layers][KVHeads][HeadDim], flat;
// query head h reads key/value head h/(Heads/KVHeads). It allocates nothing
// and costs O(Layers·Heads·HeadDim) whatever the position. It panics if q
// is shorter than QLen() or k or v shorter than KVLen().
func (g *Generator) Next(q, k, v []float32) int {
	if len(q) < g.qLen || len(k) < g.kvLen || len(v) < g.kvLen {
		panic(fmt.Sprintf("synth: Next needs %d query and %d key/value floats, got %d, %d, %d",
			g.qLen, g.kvLen, len(q), len(k), len(v)))
	}
	c := &g.cfg
	d, m := g.d, g.m
	t := g.pos
	g.stepSrc.Seed(g.stepSeed, uint64(t))
	shared := g.step.NormFloat64()
	sinkP := 0.0
	if t < sinkCount {
		sinkP = sinkProfile[t]
	}
	valueScale := 1 - sinkValueDrop*min(1, c.SinkStrength)*sinkP
	group := c.Heads / c.KVHeads
	for l := range c.Layers {
		for kh := range c.KVHeads {
			u := l*c.KVHeads + kh
			dirs := g.dirs[u*m*d : (u+1)*m*d]
			for j, w := range g.omega[u*g.pairs : (u+1)*g.pairs] {
				s, co := math.Sincos(float64(t) * w)
				g.cs[2*j], g.cs[2*j+1] = co, s
			}

			// Key: noise off the structure, structure, outlier offsets.
			kout := k[u*d : (u+1)*d]
			g.keyNoise(u, t, kout)
			salience := (sharedWeight*shared + ownWeight*g.step.NormFloat64()) * (1 - min(1, c.SinkStrength)*sinkP)
			g.coef[0] = g.sinkAmp * (sinkP - 1)
			g.coef[1] = g.heavyAmp * (salience - heavyBias)
			for j, x := range g.cs {
				g.coef[2+j] = g.localAmp * x
			}
			combine(kout, dirs, g.coef)
			for j, ch := range g.outCh[u*c.OutlierChannels : (u+1)*c.OutlierChannels] {
				kout[ch] += g.outOff[u*c.OutlierChannels+j]
			}

			vout := v[u*d : (u+1)*d]
			for i, mu := range g.vMean[u*d : (u+1)*d] {
				vout[i] = float32(valueScale * (float64(mu) + tail(&g.stepSrc, g.step, c.TailDF)))
			}

			for h := kh * group; h < (kh+1)*group; h++ {
				g.query(q[(l*c.Heads+h)*d:(l*c.Heads+h+1)*d], l*c.Heads+h, u, t, dirs)
			}
		}
	}
	if t >= sinkCount { // reservoir sampling over non-sink positions
		g.seen++
		if len(g.res) < reservoirSize {
			g.res = append(g.res, int32(t))
		} else if j := g.step.IntN(g.seen); j < reservoirSize {
			g.res[j] = int32(t)
		}
	}
	g.pos++
	return t
}

// query writes query head qi's vector at position t into dst.
func (g *Generator) query(dst []float32, qi, u, t int, dirs []float32) {
	src := -1
	if g.kinds[qi] == Retrieval {
		src = g.retrieve(qi, t)
	}
	g.target[qi] = int32(src)
	scale := 1.0
	if src >= 0 {
		scale = retrievalDamp
	}
	w := g.qw[3*qi : 3*qi+3]
	g.coef[0] = scale * w[0]
	g.coef[1] = scale * w[1]
	for j, x := range g.cs {
		g.coef[2+j] = scale * w[2] * x
	}
	for i := range dst {
		dst[i] = float32(g.step.NormFloat64())
	}
	combine(dst, dirs, g.coef)
	if src < 0 {
		return
	}
	// Copy the source's key noise n, clipped to ±copyClip so one heavy-tailed
	// channel cannot dominate, scaled so that the source's logit rises by
	// retrievalLogit: q·k/√d gains ρ·clip(n)·n/√d.
	g.keyNoise(u, src, g.copyBuf)
	var n2 float64
	for i, x := range g.copyBuf {
		c := min(copyClip, max(-copyClip, x))
		n2 += float64(c) * float64(x)
		g.copyBuf[i] = c
	}
	if n2 == 0 {
		return
	}
	rho := float32(retrievalLogit * math.Sqrt(float64(g.d)) / n2)
	for i, x := range g.copyBuf {
		dst[i] += rho * x
	}
}

// retrieve advances retrieval head qi's episode at position t and returns
// the position it copies, or −1.
func (g *Generator) retrieve(qi, t int) int {
	if g.epLeft[qi] == 0 {
		if len(g.res) == 0 || g.step.Float64() >= episodeStart {
			return -1
		}
		g.epTarget[qi] = g.res[g.step.IntN(len(g.res))]
		g.epLeft[qi] = 1 + int32(g.step.IntN(maxEpisode))
	}
	src := int(g.epTarget[qi])
	if src > t-retrievalGap {
		g.epLeft[qi] = 0
		return -1
	}
	g.epTarget[qi]++
	g.epLeft[qi]--
	return src
}

// keyNoise writes the noise of key/value head u's key at position s into
// dst: unit-variance draws from a stream keyed by (u, s) alone, so that a
// retrieval head can regenerate any earlier key's noise, with the
// structural directions projected out so noise never makes a token salient.
func (g *Generator) keyNoise(u, s int, dst []float32) {
	g.keySrc.Seed(mix(g.keySeed, uint64(u)), uint64(s))
	for i := range dst {
		dst[i] = float32(tail(&g.keySrc, g.key, g.cfg.TailDF))
	}
	d := g.d
	dst = dst[:d]
	for j := range g.m {
		dir := g.dirs[u*g.m*d+j*d:][:len(dst)]
		var p float32
		for i, x := range dst {
			p += x * dir[i]
		}
		for i, x := range dir {
			dst[i] -= p * x
		}
	}
}

// combine adds Σ_j coef[j]·dirs[j] to dst.
func combine(dst, dirs []float32, coef []float64) {
	d := len(dst)
	for j, cj := range coef {
		c := float32(cj)
		for i, x := range dirs[j*d:][:len(dst)] {
			dst[i] += c * x
		}
	}
}
