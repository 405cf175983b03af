package model

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// Config holds the shape and hyper-parameters of a decoder-only
// transformer of one of the architectures kvscope runs (see Archs). The
// zero values of the architecture fields (RopeNeox … GELU) describe a
// plain Llama.
type Config struct {
	Arch          string  // general.architecture ("llama", "qwen2", "qwen3", "gemma3")
	Dim           int     // model (embedding) dimension
	Layers        int     // number of transformer blocks
	Heads         int     // query heads
	KVHeads       int     // key/value heads; Heads must be a multiple of it (grouped-query attention)
	HeadDim       int     // width of one head (Dim / Heads unless the file says otherwise: Qwen3, Gemma 3)
	Hidden        int     // feed-forward (gated) dimension
	Vocab         int     // vocabulary size
	ContextLength int     // training context length
	NormEps       float32 // RMSNorm epsilon
	RopeBase      float32 // RoPE frequency base (theta) of the global layers

	// RopeNeox rotates the pairs (x[i], x[i+HeadDim/2]) as GPT-NeoX does
	// (Qwen, Gemma); false rotates adjacent pairs (x[2i], x[2i+1]) (Llama).
	RopeNeox bool
	// RopeFactors divides pair i's angle by RopeFactors[i] (Llama 3's
	// rope_freqs.weight, HeadDim/2 values); nil divides by nothing.
	RopeFactors []float32
	// SlidingWindow is how many positions, the current one included, a
	// local layer attends to (Gemma 3: 512); 0 means no layer is local.
	SlidingWindow int
	// SlidingPattern makes layer l local when l%SlidingPattern <
	// SlidingPattern−1 (Gemma 3: 6, five local layers then one global).
	SlidingPattern int
	// LocalRopeBase is the RoPE base of local layers (Gemma 3: 10000).
	LocalRopeBase float32
	// EmbedScale multiplies the token embedding (Gemma: √Dim); 0 means 1.
	EmbedScale float32
	// GELU gates the feed-forward network with GELU (tanh approximation)
	// instead of SiLU (Gemma).
	GELU bool
}

// Equal reports whether c and o describe the same model shape and
// hyper-parameters.
func (c Config) Equal(o Config) bool {
	return reflect.DeepEqual(c, o)
}

// KVDim returns KVHeads*HeadDim, the length of one token's key (or value) in one layer.
func (c Config) KVDim() int { return c.KVHeads * c.HeadDim }

// QDim returns Heads*HeadDim, the length of a token's query and of the
// attention output (Dim, except for Qwen3 and Gemma 3).
func (c Config) QDim() int { return c.Heads * c.HeadDim }

// Window returns how many positions layer l attends to, the current one
// included: c.SlidingWindow for a local layer, 0 (all of them) otherwise.
func (c Config) Window(l int) int {
	if c.SlidingWindow > 0 && c.SlidingPattern > 1 && l%c.SlidingPattern < c.SlidingPattern-1 {
		return c.SlidingWindow
	}
	return 0
}

// Rope returns the rotary embedding of layer l's queries and keys.
func (c Config) Rope(l int) Rope {
	r := Rope{Dim: c.HeadDim, Base: c.RopeBase, Neox: c.RopeNeox, Factors: c.RopeFactors}
	if c.Window(l) > 0 && c.LocalRopeBase > 0 {
		r.Base = c.LocalRopeBase
	}
	return r
}

// Limits that keep a hostile file from requesting absurd run-state allocations.
const (
	maxDim     = 1 << 14
	maxLayers  = 1 << 10
	maxHidden  = 1 << 16
	maxVocab   = 1 << 20
	maxContext = 1 << 20
)

// Validate returns an error (prefixed "model:") unless every size is
// positive and within kvscope's limits, Heads is a multiple of KVHeads,
// HeadDim is even (RoPE rotates pairs), RopeFactors is empty or holds
// HeadDim/2 positive factors, and the sliding window is consistent.
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
		{"heads × head dim", c.Heads * c.HeadDim, 4 * maxDim},
		{"hidden", c.Hidden, maxHidden},
		{"vocab", c.Vocab, maxVocab},
		{"context length", c.ContextLength, maxContext},
	}
	for _, ch := range checks {
		if ch.v <= 0 || ch.v > ch.limit {
			return fmt.Errorf("model: %s %d out of range [1, %d]", ch.name, ch.v, ch.limit)
		}
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
	if c.RopeFactors != nil {
		if len(c.RopeFactors) != c.HeadDim/2 {
			return fmt.Errorf("model: %d rope factors, want head dim / 2 = %d", len(c.RopeFactors), c.HeadDim/2)
		}
		for i, f := range c.RopeFactors {
			if !(f > 0) {
				return fmt.Errorf("model: rope factor %d is %v, want > 0", i, f)
			}
		}
	}
	if c.SlidingWindow < 0 || c.SlidingPattern < 0 || (c.SlidingWindow > 0 && c.SlidingPattern < 2) {
		return fmt.Errorf("model: sliding window %d with pattern %d: want both positive, pattern ≥ 2", c.SlidingWindow, c.SlidingPattern)
	}
	if c.LocalRopeBase != 0 && !(c.LocalRopeBase > 1) {
		return fmt.Errorf("model: local rope base %v must be > 1", c.LocalRopeBase)
	}
	return nil
}

// arch describes what an architecture adds to a plain Llama: how its
// metadata is read and which tensors its layers hold.
type arch struct {
	neox   bool // NEOX RoPE pairing
	biases bool // attn_{q,k,v}.bias
	qkNorm bool // attn_{q,k}_norm.weight, per head, before RoPE
	post   bool // post_attention_norm and post_ffw_norm
	gemma  bool // √Dim embedding scale, GELU, sliding-window layers
}

// archs lists the architectures kvscope runs (general.architecture).
var archs = map[string]arch{
	"llama":  {},
	"qwen2":  {neox: true, biases: true},
	"qwen3":  {neox: true, qkNorm: true},
	"gemma3": {neox: true, qkNorm: true, post: true, gemma: true},
}

// Archs returns the architectures kvscope runs, sorted.
func Archs() []string {
	names := make([]string, 0, len(archs))
	for n := range archs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// gemmaSlidingPattern and gemmaLocalRopeBase are what llama.cpp fixes for
// gemma3 rather than reading from the file: five sliding-window layers in
// every six, and RoPE base 10000 on them.
const (
	gemmaSlidingPattern = 6
	gemmaLocalRopeBase  = 10000
)

// ConfigFromGGUF reads a configuration from f's metadata, under the
// prefix of general.architecture (one of Archs): embedding_length,
// block_count, attention.head_count, attention.head_count_kv (default:
// head_count), attention.key_length (default: embedding_length /
// head_count), feed_forward_length, context_length,
// attention.layer_norm_rms_epsilon (default 1e-5), rope.freq_base (default
// 10000), Gemma 3's attention.sliding_window; the vocabulary size from
// tokenizer.ggml.tokens; Llama 3's rope_freqs.weight tensor when present.
// It returns an error naming the architecture if kvscope does not run it,
// or naming the key if one is missing or not an integer, if
// rope.dimension_count differs from the head dimension (partial rotary
// embeddings), or if the result fails Validate.
func ConfigFromGGUF(f *gguf.File) (Config, error) {
	av, _ := f.Lookup("general.architecture")
	name, _ := av.Str()
	a, ok := archs[name]
	if !ok {
		return Config{}, fmt.Errorf("model: general.architecture %q is not supported (kvscope runs %s)", name, strings.Join(Archs(), ", "))
	}
	p := name + "."
	var err error
	integer := func(key string, def int) int {
		v, ok := f.Lookup(p + key)
		if !ok {
			if def < 0 && err == nil {
				err = fmt.Errorf("model: metadata %s missing", p+key)
			}
			return def
		}
		i, ok := v.Int()
		if !ok || i < 0 || i > 1<<31 {
			if err == nil {
				err = fmt.Errorf("model: metadata %s = %v is not a valid integer", p+key, v.Data)
			}
			return 0
		}
		return int(i)
	}
	float := func(key string, def float32) float32 {
		v, ok := f.Lookup(p + key)
		if !ok {
			return def
		}
		x, ok := v.Float()
		if !ok && err == nil {
			err = fmt.Errorf("model: metadata %s = %v is not a number", p+key, v.Data)
		}
		return float32(x)
	}
	c := Config{
		Arch:          name,
		Dim:           integer("embedding_length", -1),
		Layers:        integer("block_count", -1),
		Heads:         integer("attention.head_count", -1),
		Hidden:        integer("feed_forward_length", -1),
		ContextLength: integer("context_length", -1),
		NormEps:       float("attention.layer_norm_rms_epsilon", 1e-5),
		RopeBase:      float("rope.freq_base", 10000),
		RopeNeox:      a.neox,
	}
	c.KVHeads = integer("attention.head_count_kv", c.Heads)
	if c.Heads > 0 {
		c.HeadDim = c.Dim / c.Heads
	}
	if _, ok := f.Lookup(p + "attention.key_length"); !ok && c.Heads > 0 && c.Dim%c.Heads != 0 && err == nil {
		err = fmt.Errorf("model: dim %d is not a multiple of heads %d, and %sattention.key_length does not give the head dim", c.Dim, c.Heads, p)
	}
	c.HeadDim = integer("attention.key_length", c.HeadDim)
	if vd := integer("attention.value_length", c.HeadDim); vd != c.HeadDim && err == nil {
		err = fmt.Errorf("model: %sattention.value_length %d != key_length %d (unsupported)", p, vd, c.HeadDim)
	}
	ropeDims := integer("rope.dimension_count", 0)
	if v, ok := f.Lookup(p + "rope.scaling.type"); ok {
		if s, _ := v.Str(); s != "" && s != "none" {
			factor := float("rope.scaling.factor", 1)
			if !(s == "linear" && factor == 1) && err == nil {
				err = fmt.Errorf("model: %srope.scaling.type %q (factor %v) is not supported", p, s, factor)
			}
		}
	}
	if a.gemma {
		c.SlidingWindow = integer("attention.sliding_window", -1)
		c.SlidingPattern, c.LocalRopeBase = gemmaSlidingPattern, gemmaLocalRopeBase
		c.GELU = true
		if c.Dim > 0 {
			c.EmbedScale = float32(math.Sqrt(float64(c.Dim)))
		}
	}
	if err != nil {
		return Config{}, err
	}
	tokens, ok := f.Lookup("tokenizer.ggml.tokens")
	if !ok || tokens.Elem != gguf.TypeString {
		return Config{}, fmt.Errorf("model: metadata tokenizer.ggml.tokens missing or not an array of strings")
	}
	c.Vocab = tokens.Len()
	if ropeDims != 0 && ropeDims != c.HeadDim {
		return Config{}, fmt.Errorf("model: %srope.dimension_count %d != head dim %d (partial rotary embeddings unsupported)", p, ropeDims, c.HeadDim)
	}
	if _, ok := f.Tensor("rope_freqs.weight"); ok {
		if c.HeadDim <= 0 {
			return Config{}, c.Validate()
		}
		if c.RopeFactors, err = readTensor(f, "rope_freqs.weight", c.HeadDim/2); err != nil {
			return Config{}, err
		}
	}
	return c, c.Validate()
}
