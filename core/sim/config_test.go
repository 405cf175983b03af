package sim

import (
	"math"
	"strings"
	"testing"
)

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"zero tokens", func(c *Config) { c.Tokens = 0 }, "tokens"},
		{"prompt beyond tokens", func(c *Config) { c.Prompt = c.Tokens + 1 }, "prompt"},
		{"negative stride", func(c *Config) { c.RefStride = -1 }, "stride"},
		{"rank beyond dim", func(c *Config) { c.Rank = c.HeadDim + 1 }, "rank"},
		{"bits 7 of 1", func(c *Config) { c.Bits = 1 }, "Bits"},
		{"unknown granularity", func(c *Config) { c.Granularity = "row" }, "granularity"},
		{"group does not divide", func(c *Config) { c.Granularity, c.GroupSize = "group", 5 }, "divide"},
		{"unknown policy", func(c *Config) { c.Policy = "lru" }, "policy"},
		{"budget below sink", func(c *Config) { c.Sink, c.Recent, c.Heavy = 8, 0, 0 }, "sink"},
		{"NaN knob", func(c *Config) { c.Locality = math.NaN() }, "Locality"},
		{"gqa", func(c *Config) { c.KVHeads = 3 }, "KVHeads"},
		{"history too long to keep", func(c *Config) { c.Tokens, c.Heads, c.KVHeads, c.HeadDim = 1<<24, 64, 64, 128 }, "too long"},
		{"recording over 1 GiB (queries and outputs count)", func(c *Config) {
			c.Tokens, c.Layers, c.Heads, c.KVHeads, c.HeadDim = 4096, 8, 32, 4, 128
		}, "too long"},
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

func TestPresetsAreValid(t *testing.T) {
	for _, p := range Presets {
		c := DefaultConfig()
		p.Apply(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("preset %s: %v", p.Name, err)
		}
	}
}

// FuzzConfig: any configuration either is rejected with an error or runs
// without panicking, keeps its budget and reports finite numbers.
func FuzzConfig(f *testing.F) {
	f.Add(uint8(3), uint8(4), uint8(32), uint8(28), uint8(8), "token", uint8(32), uint8(0), uint8(0), uint8(2), uint8(8), uint8(16))
	f.Add(uint8(9), uint8(4), uint8(32), uint8(28), uint8(8), "channel", uint8(32), uint8(0), uint8(0), uint8(1), uint8(4), uint8(3))
	f.Add(uint8(0), uint8(0), uint8(0), uint8(0), uint8(2), "kivi", uint8(8), uint8(16), uint8(0), uint8(2), uint8(2), uint8(0))
	f.Add(uint8(6), uint8(1), uint8(3), uint8(3), uint8(4), "group", uint8(4), uint8(2), uint8(4), uint8(1), uint8(1), uint8(5))
	f.Fuzz(func(t *testing.T, policy, sink, recent, heavy, bits uint8, gran string, group, residual, rank, kvDiv, heads, prompt uint8) {
		policies := []string{"full", "window", "streaming", "h2o", "tova", "knorm", "chunk", "random", "snapkv", "seed000"}
		c := DefaultConfig()
		c.Tokens, c.HeadDim = 80, 8
		c.Policy = policies[int(policy)%len(policies)]
		c.Sink, c.Recent, c.Heavy = int(sink%20), int(recent%40), int(heavy%40)
		c.Bits, c.Granularity, c.GroupSize = int(bits%40), gran, int(group%40)
		c.Residual, c.Rank = int(residual%40), int(rank%10)
		c.Heads = int(heads%8) + 1
		c.KVHeads = max(1, c.Heads/(int(kvDiv%4)+1))
		c.Prompt = int(prompt % 90)
		c.ChunkSize, c.RefStride = 16, 3
		e, err := New(c)
		if err != nil {
			return
		}
		for e.Step() {
		}
		if e.Err() != nil {
			t.Fatalf("valid config %+v failed: %v", c, e.Err())
		}
		s := e.Snapshot(0)
		m := s.Metrics
		for _, v := range []float64{m.KErr, m.VErr, m.OutErr, m.Mass, m.KL, m.Bias} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("config %+v: non-finite metric %+v", c, m)
			}
		}
		if s.Mem.Total() <= 0 || s.Mem.Total() > 4*s.FullBytes+int64(c.Rank*c.HeadDim*2*2*c.KVHeads)+1<<16 {
			t.Fatalf("config %+v: memory %+v against %d FP16 bytes", c, s.Mem, s.FullBytes)
		}
	})
}

// StoreAs copies the storage and nothing else: the two configurations
// then store alike, and the stream and policy stay.
func TestStoreAs(t *testing.T) {
	a := DefaultConfig()
	a.Bits, a.Granularity, a.GroupSize, a.Residual, a.Rank = 4, "group", 16, 8, 2
	a.Rotate, a.Quant, a.OutliersFP16, a.SinkFP16, a.SketchSeed = "hadamard", "uniform", 0.01, 4, 9
	b := DefaultConfig()
	b.Policy, b.Sink, b.Recent, b.Seed, b.Tokens = "streaming", 2, 40, 7, 300
	want := b
	b.StoreAs(a)
	got := b
	got.StoreAs(want) // back: the rest never moved
	if got != want {
		t.Errorf("StoreAs moved more than the storage: %+v, want %+v", got, want)
	}
	if b.Bits != 4 || b.Rotate != "hadamard" || b.SketchSeed != 9 || b.Policy != "streaming" || b.Seed != 7 || b.Recent != 40 {
		t.Errorf("after StoreAs: %+v", b)
	}
}
