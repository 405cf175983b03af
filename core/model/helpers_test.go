package model_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// referenceText is the published greedy continuation of BOS for stories260K.
const referenceText = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red ball. She wanted to play with it, but it was too high."

// realModel loads stories260K (skipping the test when it is absent).
func realModel(tb testing.TB) *model.Model { return testmodel.Model(tb) }

// toyPieces is a small vocabulary: specials, a few byte tokens, characters and
// merges.
var toyPieces = []string{
	"<unk>", "<s>", "</s>", "<0x0A>", "<0x41>", "<0xC3>", "<0xA9>",
	"▁", "a", "b", "c", "▁a", "ab", "abc", "▁ab", "bc", "x",
}

var toyScores = []float32{
	0, 0, 0, 0, 0, 0, 0,
	-1, -2, -3, -4, -5, -6, -7, -8, -5, -9,
}

// tinyConfig is the shape of the synthetic model: GQA with 2 query heads per kv head.
var tinyConfig = model.Config{
	Dim: 16, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 4, Hidden: 24,
	Vocab: len(toyPieces), ContextLength: 32, NormEps: 1e-5, RopeBase: 10000,
}

// tinyKVs returns the metadata of a synthetic model of configuration c.
func tinyKVs(c model.Config) []gguf.KV {
	s := ggufwrite.Scalar
	return []gguf.KV{
		{Key: "general.architecture", Value: s("llama")},
		{Key: "llama.context_length", Value: s(uint32(c.ContextLength))},
		{Key: "llama.embedding_length", Value: s(uint32(c.Dim))},
		{Key: "llama.block_count", Value: s(uint32(c.Layers))},
		{Key: "llama.feed_forward_length", Value: s(uint32(c.Hidden))},
		{Key: "llama.attention.head_count", Value: s(uint32(c.Heads))},
		{Key: "llama.attention.head_count_kv", Value: s(uint32(c.KVHeads))},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: s(c.NormEps)},
		{Key: "llama.rope.freq_base", Value: s(c.RopeBase)},
		{Key: "tokenizer.ggml.model", Value: s("llama")},
		{Key: "tokenizer.ggml.tokens", Value: ggufwrite.Array(toyPieces)},
		{Key: "tokenizer.ggml.scores", Value: ggufwrite.Array(toyScores)},
	}
}

// tinyTensors returns random weights of configuration c (tied output).
func tinyTensors(c model.Config, seed uint64) []ggufwrite.Tensor {
	rng := rand.New(rand.NewPCG(seed, 1))
	rnd := func(n int, scale float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * scale)
		}
		return x
	}
	ones := func(n int) []float32 {
		x := rnd(n, 0.1)
		for i := range x {
			x[i]++
		}
		return x
	}
	d, kv, h := uint64(c.Dim), uint64(c.KVDim()), uint64(c.Hidden)
	ts := []ggufwrite.Tensor{
		ggufwrite.F32("token_embd.weight", rnd(c.Dim*c.Vocab, 1), d, uint64(c.Vocab)),
		ggufwrite.F32("output_norm.weight", ones(c.Dim), d),
	}
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		s := 1 / math.Sqrt(float64(c.Dim))
		ts = append(ts,
			ggufwrite.F32(p+"attn_norm.weight", ones(c.Dim), d),
			ggufwrite.F32(p+"attn_q.weight", rnd(c.Dim*c.Dim, 2*s), d, d),
			ggufwrite.F32(p+"attn_k.weight", rnd(c.Dim*c.KVDim(), 2*s), d, kv),
			ggufwrite.F32(p+"attn_v.weight", rnd(c.Dim*c.KVDim(), s), d, kv),
			ggufwrite.F32(p+"attn_output.weight", rnd(c.Dim*c.Dim, s), d, d),
			ggufwrite.F32(p+"ffn_norm.weight", ones(c.Dim), d),
			ggufwrite.F32(p+"ffn_gate.weight", rnd(c.Dim*c.Hidden, s), d, h),
			ggufwrite.F32(p+"ffn_up.weight", rnd(c.Dim*c.Hidden, s), d, h),
			ggufwrite.F32(p+"ffn_down.weight", rnd(c.Dim*c.Hidden, 1/math.Sqrt(float64(c.Hidden))), h, d),
		)
	}
	return ts
}

// tinyModel returns a synthetic model with random weights.
func tinyModel(tb testing.TB, seed uint64) *model.Model {
	tb.Helper()
	data := ggufwrite.Encode(3, tinyKVs(tinyConfig), tinyTensors(tinyConfig, seed))
	m, err := model.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func fullCache(tb testing.TB, c model.Config) *model.FullCache {
	tb.Helper()
	fc, err := model.NewFullCache(c, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return fc
}

// naiveLogits recomputes the whole forward pass over tokens from scratch, with
// no cache, and returns the logits after the last token. It is a deliberately
// plain re-statement of the Llama forward pass: float64 accumulation, the
// RoPE formula of Rope's doc comment, and GQA through h*kvHeads/heads.
func naiveLogits(m *model.Model, tokens []int) []float32 {
	logits, _ := naiveForward(m, tokens)
	return logits
}

// naiveForward is naiveLogits that also returns the attention weights:
// att[l][h][t][u], query t on key u ≤ t (0 outside a local layer's
// window). It follows every architecture kvscope runs: the embedding
// scale, Q/K/V biases, per-head q/k RMSNorm, NEOX or adjacent RoPE pairs
// with frequency factors and a per-layer base, sliding windows,
// post-norms and GELU or SiLU gating.
func naiveForward(m *model.Model, tokens []int) ([]float32, [][][][]float64) {
	c, w := m.Config, m.Weights
	attW := make([][][][]float64, c.Layers)
	n := len(tokens)
	mv := func(wt []float32, x []float64, rows int) []float64 {
		out := make([]float64, rows)
		for i := range out {
			for j, xv := range x {
				out[i] += float64(wt[i*len(x)+j]) * xv
			}
		}
		return out
	}
	norm := func(x []float64, wt []float32) []float64 {
		var ss float64
		for _, v := range x {
			ss += v * v
		}
		s := 1 / math.Sqrt(ss/float64(len(x))+float64(c.NormEps))
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = v * s * float64(wt[i])
		}
		return out
	}
	headNorm := func(x []float64, wt []float32) {
		if wt == nil {
			return
		}
		for h := 0; h < len(x); h += len(wt) {
			copy(x[h:h+len(wt)], norm(x[h:h+len(wt)], wt))
		}
	}
	bias := func(x []float64, b []float32) {
		for i, v := range b {
			x[i] += float64(v)
		}
	}
	rope := func(x []float64, pos, l int) {
		base := float64(c.RopeBase)
		if c.Window(l) > 0 && c.LocalRopeBase > 0 {
			base = float64(c.LocalRopeBase)
		}
		d := c.HeadDim
		for h := 0; h < len(x)/d; h++ {
			for i := 0; i < d/2; i++ {
				th := float64(pos) * math.Pow(base, -2*float64(i)/float64(d))
				if c.RopeFactors != nil {
					th /= float64(c.RopeFactors[i])
				}
				j, k := h*d+2*i, h*d+2*i+1
				if c.RopeNeox {
					j, k = h*d+i, h*d+i+d/2
				}
				a, b := x[j], x[k]
				x[j] = a*math.Cos(th) - b*math.Sin(th)
				x[k] = a*math.Sin(th) + b*math.Cos(th)
			}
		}
	}
	act := func(g float64) float64 {
		if c.GELU {
			return 0.5 * g * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(g+0.044715*g*g*g)))
		}
		return g / (1 + math.Exp(-g))
	}
	scale := 1.0
	if c.EmbedScale != 0 {
		scale = float64(c.EmbedScale)
	}
	// Matrices as float32, dequantized when the model keeps them quantized.
	emb, out := w.Embedding.Float32(), w.Classifier.Float32()
	xs := make([][]float64, n)
	for t, tok := range tokens {
		xs[t] = make([]float64, c.Dim)
		for i := range xs[t] {
			xs[t][i] = float64(emb[tok*c.Dim+i]) * scale
		}
	}
	qd := c.QDim()
	for l := range w.Layers {
		L := &w.Layers[l]
		lm := &L.Mats
		wq, wk, wv, wo := lm.Wq.Float32(), lm.Wk.Float32(), lm.Wv.Float32(), lm.Wo.Float32()
		wg, wu, wd := lm.WGate.Float32(), lm.WUp.Float32(), lm.WDown.Float32()
		attW[l] = make([][][]float64, c.Heads)
		for h := range attW[l] {
			attW[l][h] = make([][]float64, n)
		}
		qs, ks, vs := make([][]float64, n), make([][]float64, n), make([][]float64, n)
		for t := range xs {
			xb := norm(xs[t], L.AttnNorm)
			qs[t], ks[t], vs[t] = mv(wq, xb, qd), mv(wk, xb, c.KVDim()), mv(wv, xb, c.KVDim())
			bias(qs[t], L.BQ)
			bias(ks[t], L.BK)
			bias(vs[t], L.BV)
			headNorm(qs[t], L.QNorm)
			headNorm(ks[t], L.KNorm)
			rope(qs[t], t, l)
			rope(ks[t], t, l)
		}
		for t := range xs {
			from := 0
			if win := c.Window(l); win > 0 {
				from = max(0, t+1-win)
			}
			att := make([]float64, qd)
			for h := 0; h < c.Heads; h++ {
				g := h * c.KVHeads / c.Heads
				sc := make([]float64, t+1)
				mx := math.Inf(-1)
				for u := from; u <= t; u++ {
					for i := 0; i < c.HeadDim; i++ {
						sc[u] += qs[t][h*c.HeadDim+i] * ks[u][g*c.HeadDim+i]
					}
					sc[u] /= math.Sqrt(float64(c.HeadDim))
					mx = math.Max(mx, sc[u])
				}
				var sum float64
				for u := from; u <= t; u++ {
					sc[u] = math.Exp(sc[u] - mx)
					sum += sc[u]
				}
				attW[l][h][t] = make([]float64, t+1)
				for u := from; u <= t; u++ {
					attW[l][h][t][u] = sc[u] / sum
					for i := 0; i < c.HeadDim; i++ {
						att[h*c.HeadDim+i] += sc[u] / sum * vs[u][g*c.HeadDim+i]
					}
				}
			}
			o := mv(wo, att, c.Dim)
			if L.PostAttnNorm != nil {
				o = norm(o, L.PostAttnNorm)
			}
			for i := range o {
				xs[t][i] += o[i]
			}
			xb := norm(xs[t], L.FFNNorm)
			gate, up := mv(wg, xb, c.Hidden), mv(wu, xb, c.Hidden)
			for i := range gate {
				gate[i] = act(gate[i]) * up[i]
			}
			d := mv(wd, gate, c.Dim)
			if L.PostFFNNorm != nil {
				d = norm(d, L.PostFFNNorm)
			}
			for i := range d {
				xs[t][i] += d[i]
			}
		}
	}
	last := norm(xs[n-1], w.OutputNorm)
	logits := mv(out, last, c.Vocab)
	res := make([]float32, len(logits))
	for i, v := range logits {
		res[i] = float32(v)
	}
	return res, attW
}

// maxAbsDiff returns max |a[i]-b[i]|.
func maxAbsDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}
