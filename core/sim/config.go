package sim

// Config is every setting of a simulated run: the synthetic stream, the
// eviction policy and the storage of what stays. The page, the command line
// and the tests all build runs from a Config; New validates it and returns
// an error for any value out of range.
type Config struct {
	// The synthetic stream.
	Seed    uint64 // same seed and settings give the same run
	Layers  int    // layers simulated
	Heads   int    // query heads per layer
	KVHeads int    // key/value heads per layer; Heads must be a multiple (grouped-query attention)
	HeadDim int    // dimensions per head
	Prompt  int    // tokens prefilled at once before decoding starts
	Tokens  int    // history length at the end of the run (prompt included)

	// Generator knobs; 1 is the default strength of each effect, 0 turns it off.
	SinkStrength    float64 // how strongly queries attend to the first tokens
	HeavyStrength   float64 // how strongly salient tokens draw attention (power-law salience)
	Locality        float64 // how strongly queries attend to recent tokens
	RetrievalShare  float64 // share of heads that return to specific earlier tokens (0..1)
	OutlierChannels int     // key channels with a large constant offset (KIVI's outliers)
	OutlierScale    float64 // size of those channels relative to the rest
	TailDF          float64 // Student-t degrees of freedom of key/value noise; 0 = Gaussian

	// Eviction.
	Policy    string  // full, window, streaming, h2o, tova, knorm, chunk, random, snapkv, seed000 (see kv.Policies for the rest)
	Sink      int     // tokens kept as attention sinks
	Recent    int     // recent window
	Heavy     int     // heavy-hitter budget
	ChunkSize int     // chunk policy: tokens per chunk
	DropShare float64 // chunk policy: share of each chunk dropped (0..1)
	Shared    bool    // one eviction decision for all heads of a layer (seed 000) instead of one per head

	// Budget allocation and the newer policies' settings.
	Alloc       string // budget allocator: uniform (or ""), adakv, pyramid (see kv.Alloc)
	Merge       bool   // fold evicted values into kept neighbours (CaM) instead of dropping them
	ValueWeight bool   // rank attention scores times ‖v‖ (CriticalKV)
	Pages       int    // quest: pages each query attends to (0: 4)
	PageSize    int    // quest: tokens per page (0: 16)

	// Storage of kept tokens.
	Bits        int    // 32 (float32), 16 (FP16), 8, 4, 3 or 2
	Granularity string // tensor, channel, token, group or kivi (keys per channel, values per token)
	GroupSize   int    // channels per group (group); tokens per block (channel, kivi)
	Residual    int    // newest tokens kept in FP16 before being quantized
	Rank        int    // low-rank coefficients per token; 0 = off

	// Rotation, codebook and sketch quantizers, outliers and sinks (storageopts.go).
	Rotate       string  // "" or none, hadamard: keys and values rotated by H/√d before quantizing
	Quant        string  // "" or uniform, turbo, turbo-prod, qjl (see storageOptions for keys and values)
	OutliersFP16 float64 // share of each token's values kept exactly in FP16 with their indices (0..0.5)
	SinkFP16     int     // first tokens kept in FP16 whatever Bits
	SketchSeed   uint64  // seed of the random rotation and sketch of turbo, turbo-prod and qjl

	// Reference: attention over the uncompressed history, for the fidelity metrics.
	RefStride int // measure against the reference every RefStride steps (1 = every step, 0 = off); with it on, the engine records its stream (see Stream)
}

// DefaultConfig is the page's opening configuration.
func DefaultConfig() Config {
	return Config{
		Seed: 1, Layers: 1, Heads: 8, KVHeads: 8, HeadDim: 32, Prompt: 16, Tokens: 512,
		SinkStrength: 1, HeavyStrength: 1, Locality: 1, RetrievalShare: 0.25,
		OutlierChannels: 2, OutlierScale: 10, TailDF: 4,
		Policy: "h2o", Sink: 4, Recent: 32, Heavy: 28, ChunkSize: 128, DropShare: 0.3,
		Bits: 8, Granularity: "token", GroupSize: 32, Residual: 0, Rank: 0,
		RefStride: 1,
	}
}

// StoreAs makes c store kept tokens as o does: bits, granularity and
// group, FP16 residual, rank, rotation, quantizer, FP16 outliers and
// sinks, and the sketch seed. The stream, the policy and its budgets stay
// c's. A comparison that changes one thing at a time starts here.
func (c *Config) StoreAs(o Config) {
	c.Bits, c.Granularity, c.GroupSize, c.Residual, c.Rank = o.Bits, o.Granularity, o.GroupSize, o.Residual, o.Rank
	c.Rotate, c.Quant, c.OutliersFP16, c.SinkFP16, c.SketchSeed = o.Rotate, o.Quant, o.OutliersFP16, o.SinkFP16, o.SketchSeed
}

// Presets are named configurations the page offers, each applied on top of
// the current configuration (stream settings stay).
var Presets = []Preset{
	{"seed000", "Seed 000: sinks + H2O + recent, INT8 per channel", func(c *Config) {
		c.Policy, c.Sink, c.Recent, c.Heavy, c.Shared = "seed000", 4, 32, 28, true
		c.Bits, c.Granularity, c.Residual, c.Rank = 8, "channel", 0, 0
	}},
	{"streaming", "StreamingLLM: 4 sinks + recent window", func(c *Config) {
		c.Policy, c.Sink, c.Recent, c.Heavy, c.Shared = "streaming", 4, 60, 0, true
		c.Bits, c.Rank = 16, 0
	}},
	{"h2o20", "H2O 20%: 10% heavy hitters + 10% recent", func(c *Config) {
		c.Policy, c.Sink, c.Shared = "h2o", 0, false
		c.Heavy, c.Recent = max(1, c.Tokens/10), max(1, c.Tokens/10)
		c.Bits, c.Rank = 16, 0
	}},
	{"kivi2", "KIVI 2-bit: keys per channel, values per token, FP16 residual", func(c *Config) {
		c.Policy = "full"
		c.Bits, c.Granularity, c.GroupSize, c.Residual, c.Rank = 2, "kivi", 32, 128, 0
	}},
	{"window", "Window only: watch it collapse when the sinks leave", func(c *Config) {
		c.Policy, c.Sink, c.Recent, c.Heavy, c.Shared = "window", 0, 64, 0, true
		c.Bits, c.Rank = 16, 0
	}},
}

// A Preset is a named change to a Config.
type Preset struct {
	Name  string
	Title string
	Apply func(*Config)
}
