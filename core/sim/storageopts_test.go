package sim

import (
	"strings"
	"testing"
)

func TestStorageOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"unknown rotation", func(c *Config) { c.Rotate = "spin" }, "rotation"},
		{"unknown quantizer", func(c *Config) { c.Quant = "nvfp4" }, "quantizer"},
		{"turbo at FP16", func(c *Config) { c.Quant, c.Bits = "turbo", 16 }, "Bits"},
		{"turbo with low rank", func(c *Config) { c.Quant, c.Rank = "turbo", 8 }, "low-rank"},
		{"outliers with turbo", func(c *Config) { c.Quant, c.OutliersFP16 = "turbo-prod", 0.05 }, "uniform"},
		{"outliers with kivi keys", func(c *Config) { c.Granularity, c.OutliersFP16 = "kivi", 0.05 }, "per-channel"},
		{"outliers beyond half", func(c *Config) { c.OutliersFP16 = 0.7 }, "Outliers"},
		{"negative sinks", func(c *Config) { c.SinkFP16 = -1 }, "Sinks"},
		{"sinks at FP16", func(c *Config) { c.SinkFP16, c.Bits = 4, 16 }, "compresses nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mod(&c)
			_, err := New(c)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

// newStorages are the storage options over the default configuration.
var newStorages = []struct {
	name string
	mod  func(*Config)
}{
	{"hadamard-int4", func(c *Config) { c.Bits, c.Rotate = 4, "hadamard" }},
	{"hadamard-kivi2", func(c *Config) { c.Bits, c.Granularity, c.Residual, c.Rotate = 2, "kivi", 32, "hadamard" }},
	{"turbo3", func(c *Config) { c.Bits, c.Quant = 3, "turbo" }},
	{"turbo-prod3", func(c *Config) { c.Bits, c.Quant = 3, "turbo-prod" }},
	{"qjl3", func(c *Config) { c.Bits, c.Quant = 3, "qjl" }},
	{"outliers-int3", func(c *Config) { c.Bits, c.OutliersFP16 = 3, 0.06 }},
	{"sinks-int2", func(c *Config) { c.Bits, c.SinkFP16 = 2, 4 }},
}

// Every new storage decodes without allocating once running, the sketch
// seed is part of the configuration (same seed, same run; another seed,
// another run), and the engine's memory counts what the stores itemize.
func TestNewStoragesRun(t *testing.T) {
	for _, st := range newStorages {
		t.Run(st.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Tokens, c.RefStride = 400, 0
			st.mod(&c)
			e, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			e.RunTo(150)
			if a := testing.AllocsPerRun(100, func() { e.Step() }); a != 0 {
				t.Errorf("a step allocates %v times", a)
			}
			if m, it := e.Memory(), e.StorageItems(); m.Payload+m.Meta+m.Residual+m.Factors+m.Holes != it.Total() {
				t.Errorf("engine memory %+v does not hold the stores' %d bytes", m, it.Total())
			}
			c.RefStride, c.Tokens = 4, 120
			bias := func(seed uint64) float64 {
				c.SketchSeed = seed
				_, b := runKeys(t, c)
				return b
			}
			a, b, other := bias(1), bias(1), bias(2)
			if a != b {
				t.Errorf("same seed, bias %g then %g", a, b)
			}
			random := c.Quant != ""
			if random && a == other {
				t.Errorf("sketch seeds 1 and 2 give the same bias %g", a)
			}
		})
	}
}

// The model-scale projection counts the quantizers' fixed tables at the
// model's head dimension, exactly as the stores itemize them.
func TestStoreTablesMatchItems(t *testing.T) {
	for _, q := range []string{"", "turbo", "turbo-prod", "qjl"} {
		for _, d := range []int{16, 32} {
			c := DefaultConfig()
			c.Bits, c.Quant, c.HeadDim, c.Layers, c.KVHeads, c.Heads, c.Tokens, c.Prompt, c.RefStride = 3, q, d, 1, 1, 1, 8, 2, 0
			e, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			e.RunTo(4)
			it := e.StorageItems()
			if got := c.storeTables(d); got != it.Codebook+it.Rotation {
				t.Errorf("%q at head dim %d: storeTables %d, stores hold %d", q, d, got, it.Codebook+it.Rotation)
			}
		}
	}
}
