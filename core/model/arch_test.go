package model_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
	"github.com/kvscope/kvscope/core/model/llamacpp"
)

// archSpecs are small synthesized models of every architecture kvscope
// runs, each exercising what its family adds: Llama 3's rope factors,
// Qwen2's biases, Qwen3's head width ≠ dim/heads and q/k norm, Gemma 3's
// sliding window (4 positions, so a 12-token run crosses it), post-norms,
// GELU and embedding scale.
var archSpecs = []ggufwrite.LlamaSpec{
	{Arch: "llama", Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, Hidden: 96, Vocab: 400, Context: 64, NormEps: 1e-5, RopeBase: 500000, RopeFactors: true, Version: 3, Seed: 1},
	{Arch: "qwen2", Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, Hidden: 96, Vocab: 400, Context: 64, NormEps: 1e-6, RopeBase: 1e6, Version: 3, Seed: 2},
	{Arch: "qwen3", Dim: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 32, Hidden: 96, Vocab: 400, Context: 64, NormEps: 1e-6, RopeBase: 1e6, Version: 3, Seed: 3},
	{Arch: "gemma3", Dim: 64, Layers: 7, Heads: 2, KVHeads: 1, HeadDim: 32, Hidden: 96, Vocab: 400, Context: 64, NormEps: 1e-6, RopeBase: 1e6, Window: 4, Version: 3, Seed: 4},
}

func loadSpec(t testing.TB, s ggufwrite.LlamaSpec, opts model.Options) *model.Model {
	t.Helper()
	data := ggufwrite.Llama(s)
	m, err := model.LoadOptions(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatalf("%s: %v", s.Arch, err)
	}
	return m
}

func TestArchConfig(t *testing.T) {
	tests := []struct {
		spec       ggufwrite.LlamaSpec
		neox, gelu bool
		headDim    int
		factors    bool
		windows    []int // per layer
		embedScale float32
	}{
		{archSpecs[0], false, false, 16, true, []int{0, 0}, 0},
		{archSpecs[1], true, false, 16, false, []int{0, 0}, 0},
		{archSpecs[2], true, false, 32, false, []int{0, 0}, 0},
		{archSpecs[3], true, true, 32, false, []int{4, 4, 4, 4, 4, 0, 4}, 8},
	}
	for _, tc := range tests {
		t.Run(tc.spec.Arch, func(t *testing.T) {
			c := loadSpec(t, tc.spec, model.Options{}).Config
			if c.Arch != tc.spec.Arch || c.RopeNeox != tc.neox || c.GELU != tc.gelu || c.HeadDim != tc.headDim ||
				(c.RopeFactors != nil) != tc.factors || c.EmbedScale != tc.embedScale {
				t.Errorf("config %+v", c)
			}
			for l, w := range tc.windows {
				if got := c.Window(l); got != w {
					t.Errorf("layer %d window %d, want %d", l, got, w)
				}
				wantBase := c.RopeBase
				if w > 0 {
					wantBase = 10000
				}
				if got := c.Rope(l).Base; got != wantBase {
					t.Errorf("layer %d rope base %v, want %v", l, got, wantBase)
				}
			}
		})
	}
}

// TestArchForwardMatchesNaive: the Runner with a FullCache gives the
// float64 re-statement's logits at every position, for every architecture,
// on F32 weights and on kept-quantized Q8_0 (against the reference over
// the same dequantized weights).
func TestArchForwardMatchesNaive(t *testing.T) {
	tokens := []int{1, 300, 41, 7, 399, 120, 5, 64, 200, 33, 17, 250}
	for _, s := range archSpecs {
		for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeQ8_0} {
			s := s
			s.Type = typ
			t.Run(s.Arch+"/"+typ.String(), func(t *testing.T) {
				m := loadSpec(t, s, model.Options{KeepQuantized: true})
				r := m.NewRunner(fullCache(t, m.Config))
				for i, tok := range tokens {
					got, err := r.Forward(tok)
					if err != nil {
						t.Fatal(err)
					}
					want := naiveLogits(m, tokens[:i+1])
					if d := maxAbsDiff(got, want); d > 2e-4 {
						t.Fatalf("position %d: max |Δ logit| %g", i, d)
					}
				}
			})
		}
	}
}

// TestArchFeaturesMatter: each architecture's own feature changes the
// logits (so the tests above would see it ignored): the reference with
// the feature switched off disagrees with the model.
func TestArchFeaturesMatter(t *testing.T) {
	tokens := []int{1, 300, 41, 7, 399, 120, 5, 64}
	tests := []struct {
		spec ggufwrite.LlamaSpec
		off  func(m *model.Model)
	}{
		{archSpecs[0], func(m *model.Model) { m.Config.RopeFactors = nil }},
		{archSpecs[1], func(m *model.Model) { m.Config.RopeNeox = false }},
		{archSpecs[1], func(m *model.Model) {
			for i := range m.Weights.Layers {
				m.Weights.Layers[i].BK = nil
			}
		}},
		{archSpecs[2], func(m *model.Model) {
			for i := range m.Weights.Layers {
				m.Weights.Layers[i].QNorm = nil
			}
		}},
		{archSpecs[3], func(m *model.Model) { m.Config.SlidingWindow = 5 }},
		{archSpecs[3], func(m *model.Model) { m.Config.LocalRopeBase = 0 }},
		{archSpecs[3], func(m *model.Model) { m.Config.EmbedScale = 0 }},
		{archSpecs[3], func(m *model.Model) { m.Config.GELU = false }},
		{archSpecs[3], func(m *model.Model) {
			for i := range m.Weights.Layers {
				m.Weights.Layers[i].PostFFNNorm = nil
			}
		}},
	}
	for i, tc := range tests {
		m := loadSpec(t, tc.spec, model.Options{})
		want := naiveLogits(m, tokens)
		tc.off(m)
		if d := maxAbsDiff(naiveLogits(m, tokens), want); d < 1e-3 {
			t.Errorf("case %d (%s): switching the feature off moved the logits by only %g", i, tc.spec.Arch, d)
		}
	}
}

func TestArchErrors(t *testing.T) {
	base := archSpecs[2]
	tests := []struct {
		name string
		edit func(kvs []gguf.KV) []gguf.KV
		want string
	}{
		{"unsupported architecture", func(kvs []gguf.KV) []gguf.KV {
			kvs[0].Value = ggufwrite.Scalar("mamba")
			return kvs
		}, `general.architecture "mamba" is not supported`},
		{"value length", func(kvs []gguf.KV) []gguf.KV {
			return setKV(kvs, "qwen3.attention.value_length", ggufwrite.Scalar(uint32(16)))
		}, "value_length"},
		{"partial rope", func(kvs []gguf.KV) []gguf.KV {
			return setKV(kvs, "qwen3.rope.dimension_count", ggufwrite.Scalar(uint32(16)))
		}, "partial rotary"},
		{"rope scaling", func(kvs []gguf.KV) []gguf.KV {
			return append(kvs, gguf.KV{Key: "qwen3.rope.scaling.type", Value: ggufwrite.Scalar("yarn")})
		}, `rope.scaling.type "yarn"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := ggufwrite.Encode(3, tc.edit(ggufwrite.LlamaKVs(base)), ggufwrite.LlamaWeights(base))
			_, err := model.Load(bytes.NewReader(data), int64(len(data)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// Gemma 3 needs its window; a missing bias is named.
	g := archSpecs[3]
	kvs := ggufwrite.LlamaKVs(g)
	kvs = dropKV(kvs, "gemma3.attention.sliding_window")
	data := ggufwrite.Encode(3, kvs, ggufwrite.LlamaWeights(g))
	if _, err := model.Load(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "sliding_window") {
		t.Errorf("gemma3 without a window: err = %v", err)
	}
	q := archSpecs[1]
	var ts []ggufwrite.Tensor
	for _, x := range ggufwrite.LlamaWeights(q) {
		if x.Name != "blk.1.attn_v.bias" {
			ts = append(ts, x)
		}
	}
	data = ggufwrite.Encode(3, ggufwrite.LlamaKVs(q), ts)
	if _, err := model.Load(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "blk.1.attn_v.bias") {
		t.Errorf("qwen2 without a bias: err = %v", err)
	}
}

func setKV(kvs []gguf.KV, key string, v gguf.Value) []gguf.KV {
	for i := range kvs {
		if kvs[i].Key == key {
			kvs[i].Value = v
			return kvs
		}
	}
	return append(kvs, gguf.KV{Key: key, Value: v})
}

func dropKV(kvs []gguf.KV, key string) []gguf.KV {
	var out []gguf.KV
	for _, kv := range kvs {
		if kv.Key != key {
			out = append(out, kv)
		}
	}
	return out
}

// TestRopeNeoxPairs: NEOX turns (x[i], x[i+d/2]) by pair i's angle.
func TestRopeNeoxPairs(t *testing.T) {
	x := []float32{1, 0, 0, 0}
	model.Rope{Dim: 4, Base: 10000, Neox: true}.Apply(x, 1)
	// Pair 0 is (x[0], x[2]), turned by 1 rad.
	if math.Abs(float64(x[0])-math.Cos(1)) > 1e-6 || math.Abs(float64(x[2])-math.Sin(1)) > 1e-6 || x[1] != 0 || x[3] != 0 {
		t.Fatalf("x = %v", x)
	}
	// The table gives the same bits as the direct rotation, and the
	// factors divide the angle.
	r := model.Rope{Dim: 8, Base: 500000, Neox: true, Factors: []float32{1, 2, 4, 8}}
	tab := model.NewRopeTable(r, 16)
	for pos := range 20 {
		a, b := []float32{1, 2, 3, 4, 5, 6, 7, 8}, []float32{1, 2, 3, 4, 5, 6, 7, 8}
		r.Apply(a, pos)
		tab.Apply(b, pos)
		if maxAbsDiff(a, b) != 0 {
			t.Fatalf("pos %d: table %v, direct %v", pos, b, a)
		}
	}
}

// archLogProbs feeds ids to m through kvscope's Runner (uncompressed
// cache) and to the GGUF data through llama.cpp, and returns the largest
// |Δ log-prob| over every position and token llama.cpp gives a non-zero
// probability (the others must be below e^-80 here), and the share of positions
// whose most likely next token agrees.
func archLogProbs(t *testing.T, m *model.Model, data []byte, ids []int) (worst, agree float64) {
	t.Helper()
	path, err := llamacpp.WriteV3(t.TempDir(), data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := llamacpp.LogProbs(path, ids)
	if err != nil {
		t.Fatal(err)
	}
	r := m.NewRunner(fullCache(t, m.Config))
	hits := 0
	for i, id := range ids {
		logits, err := r.Forward(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(want[i]) != len(logits) {
			t.Fatalf("llama.cpp gave %d log-probabilities, the model has %d tokens", len(want[i]), len(logits))
		}
		best, bestRef := 0, 0
		for j, lp := range logSoftmax(logits) {
			ref := float64(want[i][j])
			if math.IsInf(ref, -1) {
				// llama.cpp's float32 softmax underflowed to 0 there; so must
				// ours have come near it.
				if lp > -80 {
					t.Errorf("position %d token %d: llama.cpp gives probability 0, kvscope log-prob %.3g", i, j, lp)
				}
				continue
			}
			worst = math.Max(worst, math.Abs(lp-ref))
			if logits[j] > logits[best] {
				best = j
			}
			if want[i][j] > want[i][bestRef] {
				bestRef = j
			}
		}
		if best == bestRef {
			hits++
		}
	}
	return worst, float64(hits) / float64(len(ids))
}

// archIDs are the ids fed to each architecture: 26 positions, so Gemma 3's
// 4-position window slides 20 times.
var archIDs = []int{1, 300, 41, 7, 399, 120, 5, 64, 200, 33, 17, 250, 90, 91, 92, 93, 11, 12, 13, 14, 260, 261, 262, 263, 500, 511}

// realWidthSpecs are the real models' widths — heads, KV heads, head
// width, feed-forward width, rope base — with few layers and a small
// vocabulary: SmolLM2-135M, Llama-3.2-1B (with its rope factors),
// Qwen2.5-0.5B, Qwen3-0.6B and Gemma-3-270M (seven layers, so the sixth is
// global, and a 4-position window so that it slides).
var realWidthSpecs = []struct {
	name string
	spec ggufwrite.LlamaSpec
}{
	{"SmolLM2-135M", ggufwrite.LlamaSpec{Arch: "llama", Dim: 576, EmbedStd: 4 / math.Sqrt(576), Layers: 2, Heads: 9, KVHeads: 3, Hidden: 1536, Vocab: 512, Context: 64, NormEps: 1e-5, RopeBase: 1e5, Version: 3, Seed: 11}},
	{"Llama-3.2-1B", ggufwrite.LlamaSpec{Arch: "llama", Dim: 2048, EmbedStd: 4 / math.Sqrt(2048), Layers: 1, Heads: 32, KVHeads: 8, Hidden: 8192, Vocab: 512, Context: 64, NormEps: 1e-5, RopeBase: 5e5, RopeFactors: true, Version: 3, Seed: 12}},
	{"Qwen2.5-0.5B", ggufwrite.LlamaSpec{Arch: "qwen2", Dim: 896, EmbedStd: 4 / math.Sqrt(896), Layers: 2, Heads: 14, KVHeads: 2, Hidden: 4864, Vocab: 512, Context: 64, NormEps: 1e-6, RopeBase: 1e6, Version: 3, Seed: 13}},
	{"Qwen3-0.6B", ggufwrite.LlamaSpec{Arch: "qwen3", Dim: 1024, EmbedStd: 4 / math.Sqrt(1024), Layers: 2, Heads: 16, KVHeads: 8, HeadDim: 128, Hidden: 3072, Vocab: 512, Context: 64, NormEps: 1e-6, RopeBase: 1e6, Version: 3, Seed: 14}},
	{"Gemma-3-270M", ggufwrite.LlamaSpec{Arch: "gemma3", Dim: 640, EmbedStd: 4 / math.Sqrt(640), Layers: 7, Heads: 4, KVHeads: 1, HeadDim: 256, Hidden: 2048, Vocab: 512, Context: 64, NormEps: 1e-6, RopeBase: 1e6, Window: 4, Version: 3, Seed: 15}},
}

// TestArchLogProbsMatchLlamaCpp: each architecture's synthesized F32 file,
// at the real models' widths, gives llama.cpp's next-token
// log-probabilities at every position within 1e-4 — Gemma 3 within 1e-2,
// because llama.cpp's CPU GELU reads an fp16 table
// (TestArchForwardMatchesNaive holds it to the exact reference).
func TestArchLogProbsMatchLlamaCpp(t *testing.T) {
	llamacpp.Require(t)
	for _, rs := range realWidthSpecs {
		s := rs.spec
		t.Run(rs.name, func(t *testing.T) {
			data := ggufwrite.Llama(s)
			m, err := model.Load(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			worst, agree := archLogProbs(t, m, data, archIDs)
			tol := 1e-4
			if s.Arch == "gemma3" {
				tol = 1e-2
			}
			t.Logf("%s (%s) F32: max |Δ log-prob| %.3g over %d positions × %d tokens, argmax agreement %.0f %%", rs.name, s.Arch, worst, len(archIDs), m.Config.Vocab, 100*agree)
			if !(worst <= tol) {
				t.Errorf("%s: max |Δ log-prob| %.3g against llama.cpp, want ≤ %g", s.Arch, worst, tol)
			}
		})
	}
}

// quantTypes are the tensor types kvscope reads.
var quantTypes = []gguf.TensorType{gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_1,
	gguf.TypeQ5_0, gguf.TypeQ5_1, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K}

// TestBlockLayoutsMatchLlamaCpp: a file whose token embedding alone is
// stored in each type — everything else F32, the classifier untied —
// gives llama.cpp's log-probabilities within 1e-4. llama.cpp looks an
// embedding row up by dequantizing it exactly, so this checks every
// block layout bit for bit against ggml. Files with every matrix in the
// type are then compared too: there llama.cpp rounds activations to the
// weight's type, so its distance and argmax agreement are reported, while
// kvscope is held to its exact float64 reference (TestLlamaEveryType,
// TestArchForwardMatchesNaive).
func TestBlockLayoutsMatchLlamaCpp(t *testing.T) {
	llamacpp.Require(t)
	base := ggufwrite.LlamaSpec{Arch: "llama", Dim: 256, Layers: 2, Heads: 4, KVHeads: 2, Hidden: 512, Vocab: 512, Context: 64,
		NormEps: 1e-5, RopeBase: 1e4, Version: 3, Seed: 21, Untied: true, Type: gguf.TypeF32, EmbedStd: 0.5}
	for _, typ := range quantTypes {
		t.Run(typ.String(), func(t *testing.T) {
			s := base
			s.EmbedType = typ
			data := ggufwrite.Llama(s)
			m, err := model.LoadBytes(data, model.Options{KeepQuantized: true})
			if err != nil {
				t.Fatal(err)
			}
			if m.Weights.Embedding.Type != typ {
				t.Fatalf("embedding held as %v", m.Weights.Embedding.Type)
			}
			worst, agree := archLogProbs(t, m, data, archIDs)
			if !(worst <= 1e-4) || agree != 1 {
				t.Errorf("%v embedding: max |Δ log-prob| %.3g, argmax agreement %.0f %% against llama.cpp", typ, worst, 100*agree)
			}
			s.EmbedType, s.Type = 0, typ
			data = ggufwrite.Llama(s)
			if m, err = model.LoadBytes(data, model.Options{KeepQuantized: true}); err != nil {
				t.Fatal(err)
			}
			all, allAgree := archLogProbs(t, m, data, archIDs)
			t.Logf("%-5v embedding only: max |Δ log-prob| %.2g; every matrix %v: %.2g (llama.cpp rounds activations), argmax agreement %.0f %%",
				typ, worst, typ, all, 100*allAgree)
		})
	}
}
