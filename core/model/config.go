package model

import (
	"fmt"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Config holds the shape and hyper-parameters of a Llama model.
type Config struct {
	Dim           int     // model (embedding) dimension
	Layers        int     // number of transformer blocks
	Heads         int     // query heads
	KVHeads       int     // key/value heads; Heads must be a multiple of it (grouped-query attention)
	HeadDim       int     // Dim / Heads
	Hidden        int     // feed-forward (SwiGLU) dimension
	Vocab         int     // vocabulary size
	ContextLength int     // training context length
	NormEps       float32 // RMSNorm epsilon
	RopeBase      float32 // RoPE frequency base (theta)
}

// KVDim returns KVHeads*HeadDim, the length of one token's key (or value) in one layer.
func (c Config) KVDim() int { return c.KVHeads * c.HeadDim }

// Limits that keep a hostile file from requesting absurd run-state allocations.
const (
	maxDim     = 1 << 14
	maxLayers  = 1 << 10
	maxHidden  = 1 << 16
	maxVocab   = 1 << 20
	maxContext = 1 << 20
)

// Validate returns an error (prefixed "model:") unless every field is positive,
// within kvscope's limits, Dim == Heads*HeadDim, Heads is a multiple of KVHeads
// and HeadDim is even (RoPE rotates pairs).
func (c Config) Validate() error {
	checks := []struct {
		name     string
		v, limit int
	}{
		{"dim", c.Dim, maxDim},
		{"layers", c.Layers, maxLayers},
		{"heads", c.Heads, maxDim},
		{"kv heads", c.KVHeads, maxDim},
		{"head dim", c.HeadDim, maxDim},
		{"hidden", c.Hidden, maxHidden},
		{"vocab", c.Vocab, maxVocab},
		{"context length", c.ContextLength, maxContext},
	}
	for _, ch := range checks {
		if ch.v <= 0 || ch.v > ch.limit {
			return fmt.Errorf("model: %s %d out of range [1, %d]", ch.name, ch.v, ch.limit)
		}
	}
	if c.Heads*c.HeadDim != c.Dim {
		return fmt.Errorf("model: heads %d × head dim %d != dim %d", c.Heads, c.HeadDim, c.Dim)
	}
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("model: heads %d not a multiple of kv heads %d", c.Heads, c.KVHeads)
	}
	if c.HeadDim%2 != 0 {
		return fmt.Errorf("model: head dim %d is odd; RoPE needs pairs", c.HeadDim)
	}
	if !(c.NormEps > 0 && c.NormEps < 1) {
		return fmt.Errorf("model: norm epsilon %v out of range (0, 1)", c.NormEps)
	}
	if !(c.RopeBase > 1) {
		return fmt.Errorf("model: rope base %v must be > 1", c.RopeBase)
	}
	return nil
}

// ConfigFromGGUF reads a Llama configuration from f's metadata:
// llama.embedding_length, llama.block_count, llama.attention.head_count,
// llama.attention.head_count_kv (default: head_count),
// llama.feed_forward_length, llama.context_length,
// llama.attention.layer_norm_rms_epsilon (default 1e-5),
// llama.rope.freq_base (default 10000), and the vocabulary size from
// tokenizer.ggml.tokens. It returns an error if general.architecture is not
// "llama", a required key is missing or not an integer, llama.rope.dimension_count
// differs from the head dimension, or the result fails Validate.
func ConfigFromGGUF(f *gguf.File) (Config, error) {
	arch, _ := f.Lookup("general.architecture")
	if s, _ := arch.Str(); s != "llama" {
		return Config{}, fmt.Errorf("model: general.architecture %q, want \"llama\"", s)
	}
	var err error
	integer := func(key string, def int) int {
		v, ok := f.Lookup(key)
		if !ok {
			if def < 0 && err == nil {
				err = fmt.Errorf("model: metadata %s missing", key)
			}
			return def
		}
		i, ok := v.Int()
		if !ok || i < 0 || i > 1<<31 {
			if err == nil {
				err = fmt.Errorf("model: metadata %s = %v is not a valid integer", key, v.Data)
			}
			return 0
		}
		return int(i)
	}
	float := func(key string, def float32) float32 {
		v, ok := f.Lookup(key)
		if !ok {
			return def
		}
		x, ok := v.Float()
		if !ok && err == nil {
			err = fmt.Errorf("model: metadata %s = %v is not a number", key, v.Data)
		}
		return float32(x)
	}
	c := Config{
		Dim:           integer("llama.embedding_length", -1),
		Layers:        integer("llama.block_count", -1),
		Heads:         integer("llama.attention.head_count", -1),
		Hidden:        integer("llama.feed_forward_length", -1),
		ContextLength: integer("llama.context_length", -1),
		NormEps:       float("llama.attention.layer_norm_rms_epsilon", 1e-5),
		RopeBase:      float("llama.rope.freq_base", 10000),
	}
	c.KVHeads = integer("llama.attention.head_count_kv", c.Heads)
	ropeDims := integer("llama.rope.dimension_count", 0)
	if err != nil {
		return Config{}, err
	}
	tokens, ok := f.Lookup("tokenizer.ggml.tokens")
	if !ok || tokens.Elem != gguf.TypeString {
		return Config{}, fmt.Errorf("model: metadata tokenizer.ggml.tokens missing or not an array of strings")
	}
	c.Vocab = tokens.Len()
	if c.Heads > 0 {
		c.HeadDim = c.Dim / c.Heads
	}
	if ropeDims != 0 && ropeDims != c.HeadDim {
		return Config{}, fmt.Errorf("model: llama.rope.dimension_count %d != head dim %d (partial rotary embeddings unsupported)", ropeDims, c.HeadDim)
	}
	return c, c.Validate()
}
