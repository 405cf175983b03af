package model

import (
	"fmt"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Layer holds one transformer block's weights. Matrices are row-major
// [out][in]. The float32 slices are nil for matrices kept quantized (see
// Options.KeepQuantized); Mats holds every matrix as the kernels read it.
//
// The optional tensors are nil unless the architecture has them: biases
// of the query, key and value projections (qwen2), RMSNorm weights of each
// query and key head applied before RoPE (qwen3, gemma3), and RMSNorms of
// the attention and feed-forward outputs before they join the residual
// stream (gemma3).
type Layer struct {
	AttnNorm []float32 // (dim)
	Wq       []float32 // (heads*headDim, dim)
	Wk       []float32 // (kvHeads*headDim, dim)
	Wv       []float32 // (kvHeads*headDim, dim)
	Wo       []float32 // (dim, heads*headDim)
	FFNNorm  []float32 // (dim)
	WGate    []float32 // (hidden, dim)
	WUp      []float32 // (hidden, dim)
	WDown    []float32 // (dim, hidden)
	Mats     LayerMats

	BQ, BK, BV                []float32 // (heads*headDim), (kvDim), (kvDim)
	QNorm, KNorm              []float32 // (headDim)
	PostAttnNorm, PostFFNNorm []float32 // (dim)
}

// vectors returns the layer's norm and bias vectors (nil ones included).
func (l *Layer) vectors() [][]float32 {
	return [][]float32{l.AttnNorm, l.FFNNorm, l.BQ, l.BK, l.BV, l.QNorm, l.KNorm, l.PostAttnNorm, l.PostFFNNorm}
}

// LayerMats holds a layer's matrices as the forward pass reads them: views
// of the float32 slices, or the file's blocks of any type gguf.Codec reads.
type LayerMats struct {
	Wq, Wk, Wv, Wo, WGate, WUp, WDown Matrix
}

// Weights holds all parameters of a Llama model.
type Weights struct {
	TokenEmbedding []float32 // (vocab, dim); nil when kept quantized
	Layers         []Layer
	OutputNorm     []float32 // (dim)
	// Output is the classifier (vocab, dim); it aliases TokenEmbedding when the
	// file has no output.weight (tied embeddings). Nil when kept quantized.
	Output []float32
	// Embedding and Classifier are the token embedding and the classifier
	// as the forward pass reads them (the same Matrix when tied).
	Embedding, Classifier Matrix
}

// Bytes returns the bytes the weights hold in memory: every matrix (tied
// ones once), norm and bias.
func (w *Weights) Bytes() int64 {
	n := w.Embedding.Bytes() + 4*int64(len(w.OutputNorm))
	if !w.Classifier.sharesWith(&w.Embedding) {
		n += w.Classifier.Bytes()
	}
	for i := range w.Layers {
		l := &w.Layers[i]
		for _, v := range l.vectors() {
			n += 4 * int64(len(v))
		}
		for _, m := range []*Matrix{&l.Mats.Wq, &l.Mats.Wk, &l.Mats.Wv, &l.Mats.Wo, &l.Mats.WGate, &l.Mats.WUp, &l.Mats.WDown} {
			n += m.Bytes()
		}
	}
	return n
}

// Options controls how a model is loaded.
type Options struct {
	// KeepQuantized keeps every non-F32 matrix (F16, BF16 and each
	// quantized type gguf.Codec reads) in its stored blocks, dotted on the
	// blocks by the kernels — Q8_0 holds 1.06 bytes per weight and Q4_K
	// 0.56 instead of 4 — with its float32 slice in Layer and Weights
	// nil. Loaded from bytes (LoadBytes), kept matrices alias the file.
	KeepQuantized bool
}

// loadStep reads one tensor of bytes bytes into the weights.
type loadStep struct {
	bytes int64
	run   func() error
}

// weightSteps returns the steps that fill w, one tensor each, in file-name
// order: embedding, output norm, classifier, then each layer.
func weightSteps(f *gguf.File, c Config, opts Options, w *Weights) []loadStep {
	var steps []loadStep
	size := func(name string) int64 {
		if t, ok := f.Tensor(name); ok {
			return int64(t.NumBytes())
		}
		return 0
	}
	mat := func(name string, rows, cols int, m *Matrix, x *[]float32) {
		steps = append(steps, loadStep{size(name), func() error {
			var err error
			*m, err = readMatrix(f, name, rows, cols, opts.KeepQuantized)
			*x = m.F
			return err
		}})
	}
	vec := func(name string, n int, x *[]float32) {
		steps = append(steps, loadStep{size(name), func() (err error) {
			*x, err = readTensor(f, name, n)
			return err
		}})
	}
	mat("token_embd.weight", c.Vocab, c.Dim, &w.Embedding, &w.TokenEmbedding)
	vec("output_norm.weight", c.Dim, &w.OutputNorm)
	if _, ok := f.Tensor("output.weight"); ok {
		mat("output.weight", c.Vocab, c.Dim, &w.Classifier, &w.Output)
	} else {
		steps = append(steps, loadStep{0, func() error {
			w.Classifier, w.Output = w.Embedding, w.TokenEmbedding
			return nil
		}})
	}
	a := archs[c.Arch]
	w.Layers = make([]Layer, c.Layers)
	for i := range w.Layers {
		l := &w.Layers[i]
		p := fmt.Sprintf("blk.%d.", i)
		m := &l.Mats
		vec(p+"attn_norm.weight", c.Dim, &l.AttnNorm)
		mat(p+"attn_q.weight", c.QDim(), c.Dim, &m.Wq, &l.Wq)
		mat(p+"attn_k.weight", c.KVDim(), c.Dim, &m.Wk, &l.Wk)
		mat(p+"attn_v.weight", c.KVDim(), c.Dim, &m.Wv, &l.Wv)
		if a.biases {
			vec(p+"attn_q.bias", c.QDim(), &l.BQ)
			vec(p+"attn_k.bias", c.KVDim(), &l.BK)
			vec(p+"attn_v.bias", c.KVDim(), &l.BV)
		}
		if a.qkNorm {
			vec(p+"attn_q_norm.weight", c.HeadDim, &l.QNorm)
			vec(p+"attn_k_norm.weight", c.HeadDim, &l.KNorm)
		}
		mat(p+"attn_output.weight", c.Dim, c.QDim(), &m.Wo, &l.Wo)
		if a.post {
			vec(p+"post_attention_norm.weight", c.Dim, &l.PostAttnNorm)
		}
		vec(p+"ffn_norm.weight", c.Dim, &l.FFNNorm)
		mat(p+"ffn_gate.weight", c.Hidden, c.Dim, &m.WGate, &l.WGate)
		mat(p+"ffn_up.weight", c.Hidden, c.Dim, &m.WUp, &l.WUp)
		mat(p+"ffn_down.weight", c.Dim, c.Hidden, &m.WDown, &l.WDown)
		if a.post {
			vec(p+"post_ffw_norm.weight", c.Dim, &l.PostFFNNorm)
		}
	}
	return steps
}
