package ggufwrite

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// LlamaSpec describes a synthesized model: its architecture and shape,
// its metadata, how its tensors are stored, and the seed of its random
// weights. The zero Arch is "llama".
type LlamaSpec struct {
	Dim, Layers, Heads, KVHeads, Hidden, Vocab, Context int
	NormEps, RopeBase                                   float32
	Version                                             uint32          // GGUF version (2 or 3; 1 works for small files)
	Type                                                gguf.TensorType // the 2-D weights (any type Quant writes; K-quants need Dim and Hidden multiples of 256); norms are F32
	EmbedType                                           gguf.TensorType // token_embd.weight's type (F32 when 0)
	Untied                                              bool            // write output.weight instead of sharing the embedding
	Seed                                                uint64

	// Arch is general.architecture: "llama" (when empty), "qwen2" (Q, K
	// and V biases), "qwen3" (per-head q/k RMSNorm) or "gemma3" (q/k norm,
	// post-norms, sliding-window layers).
	Arch string
	// HeadDim is written as attention.key_length and value_length when
	// not 0; otherwise the head width is Dim/Heads.
	HeadDim int
	// Window is gemma3's attention.sliding_window (512 when 0).
	Window int
	// RopeFactors writes Llama 3's rope_freqs.weight: per-pair factors
	// that divide RoPE's angles.
	RopeFactors bool
	// EmbedStd is the standard deviation of the token embedding's
	// values (1 when 0). A tied classifier's logits spread by about
	// EmbedStd·√Dim: at real widths, 4/√Dim keeps the next-token
	// distribution from collapsing on one token.
	EmbedStd float64
}

// arch returns s.Arch, "llama" when empty.
func (s LlamaSpec) arch() string {
	if s.Arch == "" {
		return "llama"
	}
	return s.Arch
}

// headDim returns the head width.
func (s LlamaSpec) headDim() int {
	if s.HeadDim != 0 {
		return s.HeadDim
	}
	return s.Dim / s.Heads
}

// Stories15M is the shape of Karpathy's stories15M (dim 288, 6 layers, 6
// heads, hidden 768, a 32,000-token SentencePiece vocabulary, context 256),
// stored as F32, GGUF v3, tied.
var Stories15M = LlamaSpec{Dim: 288, Layers: 6, Heads: 6, KVHeads: 6, Hidden: 768, Vocab: 32000, Context: 256,
	NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeF32}

// The shapes of the small models people run (../shared/notes/models.md),
// for benchmarks and the page's measurements: architecture, widths, heads
// and vocabulary as the real files have them, with synthesized weights,
// a SentencePiece-style vocabulary (Vocab) of the real size, tied
// embeddings, GGUF v3, Q8_0 matrices. Set Type to store them otherwise.
var (
	SmolLM2_135M = LlamaSpec{Arch: "llama", Dim: 576, Layers: 30, Heads: 9, KVHeads: 3, Hidden: 1536, Vocab: 49152, Context: 8192,
		NormEps: 1e-5, RopeBase: 100000, Version: 3, Type: gguf.TypeQ8_0, EmbedType: gguf.TypeQ8_0}
	Qwen25_05B = LlamaSpec{Arch: "qwen2", Dim: 896, Layers: 24, Heads: 14, KVHeads: 2, Hidden: 4864, Vocab: 151936, Context: 32768,
		NormEps: 1e-6, RopeBase: 1e6, Version: 3, Type: gguf.TypeQ8_0, EmbedType: gguf.TypeQ8_0}
	Llama32_1B = LlamaSpec{Arch: "llama", Dim: 2048, Layers: 16, Heads: 32, KVHeads: 8, Hidden: 8192, Vocab: 128256, Context: 131072,
		NormEps: 1e-5, RopeBase: 500000, RopeFactors: true, Version: 3, Type: gguf.TypeQ8_0, EmbedType: gguf.TypeQ8_0}
)

// Vocab returns a SentencePiece-style vocabulary of n pieces (n ≥ 259 +
// 97): <unk>, <s>, </s>, the 256 byte pieces <0x00>…<0xFF> (byte fallback),
// then "▁", the printable ASCII characters, and merges — "▁" with each
// lower-case letter, then every lower-case pair and triple with and
// without a leading "▁" — until n pieces (unused pieces beyond 35,000); scores fall with the index, so earlier merges win, and
// every merge's parts are pieces themselves. Types follow SentencePiece:
// unknown, control, byte, normal.
func Vocab(n int) (pieces []string, scores []float32, types []int32) {
	add := func(p string, typ int32) {
		if len(pieces) < n {
			pieces = append(pieces, p)
			scores = append(scores, -float32(len(pieces)))
			types = append(types, typ)
		}
	}
	add("<unk>", 2)
	add("<s>", 3)
	add("</s>", 3)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), 6)
	}
	add("▁", 1)
	for c := byte(' ' + 1); c < 127; c++ {
		add(string(c), 1)
	}
	letters := "etaoinshrdlcumwfgypbvkjxqz"
	for _, a := range letters {
		add("▁"+string(a), 1)
	}
	for _, a := range letters {
		for _, b := range letters {
			add(string(a)+string(b), 1)
			add("▁"+string(a)+string(b), 1)
		}
	}
	for _, a := range letters {
		for _, b := range letters {
			for _, c := range letters {
				add(string(a)+string(b)+string(c), 1)
				add("▁"+string(a)+string(b)+string(c), 1)
			}
		}
	}
	for i := 0; len(pieces) < n; i++ {
		add(fmt.Sprintf("<unused%d>", i), 5)
	}
	return pieces, scores, types
}

// LlamaKVs returns the llama.cpp metadata of s: architecture, shape, rope
// base, context length, norm epsilon, the architecture's own keys and the
// tokenizer (Vocab(s.Vocab)).
func LlamaKVs(s LlamaSpec) []gguf.KV {
	pieces, scores, types := Vocab(s.Vocab)
	a := s.arch()
	kvs := []gguf.KV{
		{Key: "general.architecture", Value: Scalar(a)},
		{Key: "general.name", Value: Scalar("kvscope synthesized " + a)},
		{Key: a + ".context_length", Value: Scalar(uint32(s.Context))},
		{Key: a + ".embedding_length", Value: Scalar(uint32(s.Dim))},
		{Key: a + ".block_count", Value: Scalar(uint32(s.Layers))},
		{Key: a + ".feed_forward_length", Value: Scalar(uint32(s.Hidden))},
		{Key: a + ".rope.dimension_count", Value: Scalar(uint32(s.headDim()))},
		{Key: a + ".attention.head_count", Value: Scalar(uint32(s.Heads))},
		{Key: a + ".attention.head_count_kv", Value: Scalar(uint32(s.KVHeads))},
		{Key: a + ".attention.layer_norm_rms_epsilon", Value: Scalar(s.NormEps)},
		{Key: a + ".rope.freq_base", Value: Scalar(s.RopeBase)},
	}
	if s.HeadDim != 0 {
		kvs = append(kvs,
			gguf.KV{Key: a + ".attention.key_length", Value: Scalar(uint32(s.HeadDim))},
			gguf.KV{Key: a + ".attention.value_length", Value: Scalar(uint32(s.HeadDim))})
	}
	if a == "gemma3" {
		w := s.Window
		if w == 0 {
			w = 512
		}
		kvs = append(kvs, gguf.KV{Key: a + ".attention.sliding_window", Value: Scalar(uint32(w))})
	}
	return append(kvs, []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: Scalar("llama")},
		{Key: "tokenizer.ggml.tokens", Value: Array(pieces)},
		{Key: "tokenizer.ggml.scores", Value: Array(scores)},
		{Key: "tokenizer.ggml.token_type", Value: Array(types)},
		{Key: "tokenizer.ggml.bos_token_id", Value: Scalar(uint32(1))},
		{Key: "tokenizer.ggml.eos_token_id", Value: Scalar(uint32(2))},
		{Key: "tokenizer.ggml.unknown_token_id", Value: Scalar(uint32(0))},
	}...)
}

// LlamaWeights returns s's tensors as float32 in the file's order, with
// seeded Gaussian weights scaled as an initialised network would be (norms
// near 1, matrices 1/√fan-in, biases small); names and dims are
// llama.cpp's, and each architecture gets its own tensors (see LlamaSpec).
func LlamaWeights(s LlamaSpec) []Tensor {
	var ts []Tensor
	eachWeight(s, func(t Tensor) { ts = append(ts, t) })
	return ts
}

// eachWeight calls f with each of LlamaWeights' tensors in turn, so that
// a large model can be converted tensor by tensor.
func eachWeight(s LlamaSpec, f func(Tensor)) {
	rng := rand.New(rand.NewPCG(s.Seed, 15))
	rnd := func(n int, scale float64, offset float32) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*scale) + offset
		}
		return x
	}
	a := s.arch()
	hd := s.headDim()
	d, q, kv, h, v := uint64(s.Dim), uint64(hd*s.Heads), uint64(hd*s.KVHeads), uint64(s.Hidden), uint64(s.Vocab)
	in := 1 / math.Sqrt(float64(s.Dim))
	std := s.EmbedStd
	if std == 0 {
		std = 1
	}
	f(F32("token_embd.weight", rnd(s.Dim*s.Vocab, std, 0), d, v))
	if s.RopeFactors {
		// Llama 3's shape: factor 1 for the fast pairs, up to 8 for the slow.
		fs := make([]float32, hd/2)
		for i := range fs {
			fs[i] = 1 + 7*float32(i)/float32(len(fs))
		}
		f(F32("rope_freqs.weight", fs, uint64(len(fs))))
	}
	for l := range s.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		f(F32(p+"attn_norm.weight", rnd(s.Dim, 0.1, 1), d))
		f(F32(p+"attn_q.weight", rnd(s.Dim*int(q), 2*in, 0), d, q))
		f(F32(p+"attn_k.weight", rnd(s.Dim*int(kv), 2*in, 0), d, kv))
		f(F32(p+"attn_v.weight", rnd(s.Dim*int(kv), in, 0), d, kv))
		switch a {
		case "qwen2":
			f(F32(p+"attn_q.bias", rnd(int(q), 0.2, 0), q))
			f(F32(p+"attn_k.bias", rnd(int(kv), 0.2, 0), kv))
			f(F32(p+"attn_v.bias", rnd(int(kv), 0.2, 0), kv))
		case "qwen3", "gemma3":
			f(F32(p+"attn_q_norm.weight", rnd(hd, 0.1, 1), uint64(hd)))
			f(F32(p+"attn_k_norm.weight", rnd(hd, 0.1, 1), uint64(hd)))
		}
		f(F32(p+"attn_output.weight", rnd(int(q)*s.Dim, 1/math.Sqrt(float64(q)), 0), q, d))
		if a == "gemma3" {
			f(F32(p+"post_attention_norm.weight", rnd(s.Dim, 0.1, 1), d))
		}
		f(F32(p+"ffn_norm.weight", rnd(s.Dim, 0.1, 1), d))
		f(F32(p+"ffn_gate.weight", rnd(s.Dim*s.Hidden, in, 0), d, h))
		f(F32(p+"ffn_up.weight", rnd(s.Dim*s.Hidden, in, 0), d, h))
		f(F32(p+"ffn_down.weight", rnd(s.Dim*s.Hidden, 1/math.Sqrt(float64(s.Hidden)), 0), h, d))
		if a == "gemma3" {
			f(F32(p+"post_ffw_norm.weight", rnd(s.Dim, 0.1, 1), d))
		}
	}
	f(F32("output_norm.weight", rnd(s.Dim, 0.1, 1), d))
	if s.Untied {
		f(F32("output.weight", rnd(s.Dim*s.Vocab, in, 0), d, v))
	}
}

// Convert returns t re-encoded as typ, any type Quant encodes; t must be
// F32. It panics for another type, or rows that are not whole blocks of
// typ (test helper).
func Convert(t Tensor, typ gguf.TensorType) Tensor {
	if typ == gguf.TypeF32 {
		return t
	}
	x := make([]float32, len(t.Data)/4)
	for i := range x {
		x[i] = math.Float32frombits(uint32(t.Data[4*i]) | uint32(t.Data[4*i+1])<<8 | uint32(t.Data[4*i+2])<<16 | uint32(t.Data[4*i+3])<<24)
	}
	return must(t.Name, typ, x, t.Dims)
}

// Llama returns a whole GGUF file of s: LlamaKVs, then LlamaWeights with
// every 2-D weight converted to s.Type (the embedding to s.EmbedType).
func Llama(s LlamaSpec) []byte {
	var ts []Tensor
	eachWeight(s, func(t Tensor) {
		switch {
		case t.Name == "token_embd.weight":
			if s.EmbedType != 0 {
				t = Convert(t, s.EmbedType)
			}
		case len(t.Dims) == 2:
			t = Convert(t, s.Type)
		}
		ts = append(ts, t)
	})
	return Encode(s.Version, LlamaKVs(s), ts)
}
