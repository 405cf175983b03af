package kv_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/quant"
	"github.com/kvscope/kvscope/core/store"
)

// seed000Run is seed 000's benchmark_compressed_cache: 1000 tokens of
// random keys and values for 32 heads × 128 dims, each step fed random
// attention (softmax of Gaussian logits) over the cache before the token,
// into a cache of 4 sinks + 32 recent + 28 heavy hitters whose kept tokens
// are stored as INT8 with per-channel scales from a calibration pass.
// Inputs are generated beforehand, as a benchmark would.
type seed000Run struct {
	layer   *kv.Layer
	k, v    [][]float32   // per step: heads × dim
	attn    [][][]float32 // per step: per head, weights over the cache before the token
	heads   int
	dim     int
	kept    int
	steps   int
	payload int64
}

func newSeed000Run(steps int) (*seed000Run, error) { return newSeed000RunBits(steps, 8) }

// newSeed000RunBits is newSeed000Run with kept tokens stored at bits: 8
// (INT8 per channel, calibrated) or 32 (float32 as given: what seed 000's
// update holds; it quantizes only when asked for its quantized state).
func newSeed000RunBits(steps, bits int) (*seed000Run, error) {
	const heads, dim = 32, 128
	r := rand.New(rand.NewPCG(0, 0))
	gauss := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	// Calibration pass: per-channel ranges of 256 representative vectors.
	cal, err := quant.CalibrateChannels(gauss(256*dim), dim, 0)
	if err != nil {
		return nil, err
	}
	stores := func(g, d, capacity int) (kv.Store, error) {
		if bits == 32 {
			return store.New(store.Config{Bits: 32}, d, capacity)
		}
		return store.New(store.Config{Bits: bits, Granularity: store.PerChannel, Calib: cal}, d, capacity)
	}
	layer, err := kv.NewLayer(kv.Config{Policy: kv.Seed000, Sink: 4, Recent: 32, Heavy: 28,
		Heads: heads, KVHeads: heads, Dim: dim, MaxTokens: steps, Keys: stores, Values: stores})
	if err != nil {
		return nil, err
	}
	run := &seed000Run{layer: layer, heads: heads, dim: dim, steps: steps}
	size := 0
	for t := range steps {
		run.k = append(run.k, gauss(heads*dim))
		run.v = append(run.v, gauss(heads*dim))
		var a [][]float32
		if size > 0 {
			a = make([][]float32, heads)
			for h := range a {
				a[h] = gauss(size)
				softmax(a[h])
			}
		}
		run.attn = append(run.attn, a)
		size = min(size+1, 64)
		_ = t
	}
	return run, nil
}

func softmax(x []float32) {
	var s float64
	for i, v := range x {
		e := math.Exp(float64(v))
		x[i] = float32(e)
		s += e
	}
	for i := range x {
		x[i] = float32(float64(x[i]) / s)
	}
}

// step feeds token t.
func (r *seed000Run) step(t int) error { return r.layer.Update(t, r.k[t], r.v[t], r.attn[t]) }

// memory sums what the stores hold and the layer's index map.
func (r *seed000Run) memory() (m store.Memory, index int64) {
	for g := range r.heads {
		ks, vs := r.layer.Stores(g)
		m = m.Add(ks.(*store.Store).Memory()).Add(vs.(*store.Store).Memory())
	}
	return m, r.layer.IndexBytes()
}

// Seed 000's 1000-token run, with its table computed from what the cache
// really holds: the seed's four lines count the INT8 codes only; the last
// line adds the per-channel scales and zero points, the index map of
// original positions and the accumulated scores, which the seed leaves out.
func Example_seed000() {
	run, err := newSeed000Run(1000)
	if err != nil {
		fmt.Println(err)
		return
	}
	for t := range run.steps {
		if err := run.step(t); err != nil {
			fmt.Println(err)
			return
		}
	}
	const mb = 1024 * 1024
	fp16 := func(tokens int) float64 { return float64(2*2*run.heads*run.dim*tokens) / mb }
	kept := run.layer.Len(0)
	m, index := run.memory()
	fmt.Printf("Without compression: %.1f MB (%d tokens)\n", fp16(run.steps), run.steps)
	fmt.Printf("With eviction only: %.1f MB (%d tokens)\n", fp16(kept), kept)
	fmt.Printf("With eviction + INT8: %.1f MB\n", float64(m.Payload)/mb)
	fmt.Printf("Overall compression: %.1fx\n", fp16(run.steps)*mb/float64(m.Payload))
	scores := run.layer.ScoreBytes()
	total := m.Total() + index + scores
	fmt.Printf("Honest: %d B codes + %d B scales/zero points + %d B index map + %d B scores = %.3f MB, %.1fx\n",
		m.Payload, m.Meta, index, scores, float64(total)/mb, fp16(run.steps)*mb/float64(total))
	// Output:
	// Without compression: 15.6 MB (1000 tokens)
	// With eviction only: 1.0 MB (64 tokens)
	// With eviction + INT8: 0.5 MB
	// Overall compression: 31.2x
	// Honest: 524288 B codes + 32768 B scales/zero points + 256 B index map + 512 B scores = 0.532 MB, 29.4x
}
