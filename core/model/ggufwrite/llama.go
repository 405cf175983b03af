package ggufwrite

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// LlamaSpec describes a synthesized llama model: its shape, its metadata,
// how its tensors are stored, and the seed of its random weights.
type LlamaSpec struct {
	Dim, Layers, Heads, KVHeads, Hidden, Vocab, Context int
	NormEps, RopeBase                                   float32
	Version                                             uint32          // GGUF version (2 or 3; 1 works for small files)
	Type                                                gguf.TensorType // the 2-D weights (F32, F16, BF16, Q8_0 or Q4_0); norms are F32
	EmbedType                                           gguf.TensorType // token_embd.weight's type (F32 when 0)
	Untied                                              bool            // write output.weight instead of sharing the embedding
	Seed                                                uint64
}

// Stories15M is the shape of Karpathy's stories15M (dim 288, 6 layers, 6
// heads, hidden 768, a 32,000-token SentencePiece vocabulary, context 256),
// stored as F32, GGUF v3, tied.
var Stories15M = LlamaSpec{Dim: 288, Layers: 6, Heads: 6, KVHeads: 6, Hidden: 768, Vocab: 32000, Context: 256,
	NormEps: 1e-5, RopeBase: 10000, Version: 3, Type: gguf.TypeF32}

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
// base, context length, norm epsilon and the tokenizer (Vocab(s.Vocab)).
func LlamaKVs(s LlamaSpec) []gguf.KV {
	pieces, scores, types := Vocab(s.Vocab)
	return []gguf.KV{
		{Key: "general.architecture", Value: Scalar("llama")},
		{Key: "general.name", Value: Scalar("kvscope synthesized llama")},
		{Key: "llama.context_length", Value: Scalar(uint32(s.Context))},
		{Key: "llama.embedding_length", Value: Scalar(uint32(s.Dim))},
		{Key: "llama.block_count", Value: Scalar(uint32(s.Layers))},
		{Key: "llama.feed_forward_length", Value: Scalar(uint32(s.Hidden))},
		{Key: "llama.rope.dimension_count", Value: Scalar(uint32(s.Dim / s.Heads))},
		{Key: "llama.attention.head_count", Value: Scalar(uint32(s.Heads))},
		{Key: "llama.attention.head_count_kv", Value: Scalar(uint32(s.KVHeads))},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: Scalar(s.NormEps)},
		{Key: "llama.rope.freq_base", Value: Scalar(s.RopeBase)},
		{Key: "tokenizer.ggml.model", Value: Scalar("llama")},
		{Key: "tokenizer.ggml.tokens", Value: Array(pieces)},
		{Key: "tokenizer.ggml.scores", Value: Array(scores)},
		{Key: "tokenizer.ggml.token_type", Value: Array(types)},
		{Key: "tokenizer.ggml.bos_token_id", Value: Scalar(uint32(1))},
		{Key: "tokenizer.ggml.eos_token_id", Value: Scalar(uint32(2))},
		{Key: "tokenizer.ggml.unknown_token_id", Value: Scalar(uint32(0))},
	}
}

// LlamaWeights returns s's tensors as float32 in the file's order, with
// seeded Gaussian weights scaled as an initialised network would be (norms
// near 1, matrices 1/√fan-in); names and dims are llama.cpp's.
func LlamaWeights(s LlamaSpec) []Tensor {
	rng := rand.New(rand.NewPCG(s.Seed, 15))
	rnd := func(n int, scale float64, offset float32) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64()*scale) + offset
		}
		return x
	}
	d, kv, h, v := uint64(s.Dim), uint64(s.Dim/s.Heads*s.KVHeads), uint64(s.Hidden), uint64(s.Vocab)
	in := 1 / math.Sqrt(float64(s.Dim))
	ts := []Tensor{F32("token_embd.weight", rnd(s.Dim*s.Vocab, 1, 0), d, v)}
	for l := range s.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			F32(p+"attn_norm.weight", rnd(s.Dim, 0.1, 1), d),
			F32(p+"attn_q.weight", rnd(s.Dim*s.Dim, 2*in, 0), d, d),
			F32(p+"attn_k.weight", rnd(s.Dim*int(kv), 2*in, 0), d, kv),
			F32(p+"attn_v.weight", rnd(s.Dim*int(kv), in, 0), d, kv),
			F32(p+"attn_output.weight", rnd(s.Dim*s.Dim, in, 0), d, d),
			F32(p+"ffn_norm.weight", rnd(s.Dim, 0.1, 1), d),
			F32(p+"ffn_gate.weight", rnd(s.Dim*s.Hidden, in, 0), d, h),
			F32(p+"ffn_up.weight", rnd(s.Dim*s.Hidden, in, 0), d, h),
			F32(p+"ffn_down.weight", rnd(s.Dim*s.Hidden, 1/math.Sqrt(float64(s.Hidden)), 0), h, d),
		)
	}
	ts = append(ts, F32("output_norm.weight", rnd(s.Dim, 0.1, 1), d))
	if s.Untied {
		ts = append(ts, F32("output.weight", rnd(s.Dim*s.Vocab, in, 0), d, v))
	}
	return ts
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
	ts := LlamaWeights(s)
	for i, t := range ts {
		switch {
		case t.Name == "token_embd.weight":
			if s.EmbedType != 0 {
				ts[i] = Convert(t, s.EmbedType)
			}
		case len(t.Dims) == 2:
			ts[i] = Convert(t, s.Type)
		}
	}
	return Encode(s.Version, LlamaKVs(s), ts)
}
