package model

import (
	"fmt"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Layer holds one transformer block's weights. Matrices are row-major [out][in].
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
}

// Weights holds all parameters of a Llama model as float32.
type Weights struct {
	TokenEmbedding []float32 // (vocab, dim)
	Layers         []Layer
	OutputNorm     []float32 // (dim)
	// Output is the classifier (vocab, dim); it aliases TokenEmbedding when the
	// file has no output.weight (tied embeddings).
	Output []float32
}

// loadWeights reads and decodes every tensor, checking each shape against c.
func loadWeights(f *gguf.File, c Config) (Weights, error) {
	var err error
	read := func(name string, dims ...int) []float32 {
		if err != nil {
			return nil
		}
		var x []float32
		x, err = readTensor(f, name, dims...)
		return x
	}
	var w Weights
	w.TokenEmbedding = read("token_embd.weight", c.Dim, c.Vocab)
	w.OutputNorm = read("output_norm.weight", c.Dim)
	if _, ok := f.Tensor("output.weight"); ok {
		w.Output = read("output.weight", c.Dim, c.Vocab)
	} else {
		w.Output = w.TokenEmbedding
	}
	w.Layers = make([]Layer, c.Layers)
	for i := range w.Layers {
		l := &w.Layers[i]
		p := fmt.Sprintf("blk.%d.", i)
		l.AttnNorm = read(p+"attn_norm.weight", c.Dim)
		l.Wq = read(p+"attn_q.weight", c.Dim, c.Heads*c.HeadDim)
		l.Wk = read(p+"attn_k.weight", c.Dim, c.KVDim())
		l.Wv = read(p+"attn_v.weight", c.Dim, c.KVDim())
		l.Wo = read(p+"attn_output.weight", c.Heads*c.HeadDim, c.Dim)
		l.FFNNorm = read(p+"ffn_norm.weight", c.Dim)
		l.WGate = read(p+"ffn_gate.weight", c.Dim, c.Hidden)
		l.WUp = read(p+"ffn_up.weight", c.Dim, c.Hidden)
		l.WDown = read(p+"ffn_down.weight", c.Hidden, c.Dim)
	}
	return w, err
}

// readTensor decodes the named tensor after checking that its dimensions
// (innermost first) are exactly dims.
func readTensor(f *gguf.File, name string, dims ...int) ([]float32, error) {
	t, ok := f.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("model: tensor %s missing", name)
	}
	match := len(t.Dims) == len(dims)
	for i := 0; match && i < len(dims); i++ {
		match = t.Dims[i] == uint64(dims[i])
	}
	if !match {
		want := make([]uint64, len(dims))
		for i, d := range dims {
			want[i] = uint64(d)
		}
		return nil, fmt.Errorf("model: tensor %s has shape %s, config needs %s", name, gguf.DimsString(t.Dims), gguf.DimsString(want))
	}
	x, err := f.ReadFloat32(name)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return x, nil
}
