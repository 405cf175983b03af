package synth

import (
	"math"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("DefaultConfig: %v", err)
	}
	cases := []struct {
		name string
		set  func(*Config)
		want string // a substring of the error; "" for a valid config
	}{
		{"GQA", func(c *Config) { c.Heads, c.KVHeads = 32, 8 }, ""},
		{"multi-query", func(c *Config) { c.Heads, c.KVHeads = 32, 1 }, ""},
		{"smallest head", func(c *Config) { c.HeadDim = MinHeadDim }, ""},
		{"every effect off", func(c *Config) {
			c.SinkStrength, c.HeavyStrength, c.Locality, c.RetrievalShare = 0, 0, 0, 0
			c.OutlierChannels, c.OutlierScale, c.TailDF = 0, 0, 0
		}, ""},
		{"all channels outliers", func(c *Config) { c.OutlierChannels = c.HeadDim }, ""},
		{"no layers", func(c *Config) { c.Layers = 0 }, "Layers"},
		{"no heads", func(c *Config) { c.Heads = 0 }, "Heads"},
		{"no kv heads", func(c *Config) { c.KVHeads = 0 }, "KVHeads"},
		{"heads not a multiple", func(c *Config) { c.Heads, c.KVHeads = 8, 3 }, "multiple"},
		{"head too small", func(c *Config) { c.HeadDim = MinHeadDim - 1 }, "HeadDim"},
		{"too large", func(c *Config) { c.Layers, c.Heads, c.KVHeads, c.HeadDim = 1024, 64, 64, 128 }, "exceeds"},
		{"huge values do not overflow", func(c *Config) { c.Layers, c.Heads, c.KVHeads, c.HeadDim = math.MaxInt, math.MaxInt, 1, math.MaxInt }, "exceeds"},
		{"negative prompt", func(c *Config) { c.Prompt = -1 }, "Prompt"},
		{"negative sink", func(c *Config) { c.SinkStrength = -0.1 }, "SinkStrength"},
		{"NaN heavy", func(c *Config) { c.HeavyStrength = math.NaN() }, "HeavyStrength"},
		{"huge locality", func(c *Config) { c.Locality = MaxStrength + 1 }, "Locality"},
		{"retrieval share above 1", func(c *Config) { c.RetrievalShare = 1.5 }, "RetrievalShare"},
		{"negative outlier channels", func(c *Config) { c.OutlierChannels = -1 }, "OutlierChannels"},
		{"more outlier channels than dims", func(c *Config) { c.OutlierChannels = c.HeadDim + 1 }, "OutlierChannels"},
		{"infinite outlier scale", func(c *Config) { c.OutlierScale = math.Inf(1) }, "OutlierScale"},
		{"tail df 2", func(c *Config) { c.TailDF = 2 }, "TailDF"},
		{"tail df negative", func(c *Config) { c.TailDF = -4 }, "TailDF"},
		{"tail df infinite", func(c *Config) { c.TailDF = math.Inf(1) }, "TailDF"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.set(&c)
			err := c.Validate()
			_, newErr := New(c)
			if tc.want == "" {
				if err != nil || newErr != nil {
					t.Fatalf("Validate: %v; New: %v; want both nil", err, newErr)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate accepted %+v, want an error about %s", c, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "synth: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate error %q, want the prefix \"synth: \" and %q", err, tc.want)
			}
			if newErr == nil || newErr.Error() != err.Error() {
				t.Errorf("New error %v, want Validate's %v", newErr, err)
			}
		})
	}
}

// TestValidateReportsEveryField checks that one error names every bad field.
func TestValidateReportsEveryField(t *testing.T) {
	c := Config{HeadDim: 1, TailDF: 1, RetrievalShare: 2}
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate accepted the zero Config")
	}
	for _, field := range []string{"Layers", "Heads", "KVHeads", "HeadDim", "RetrievalShare", "TailDF"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error %q does not name %s", err, field)
		}
	}
}

// FuzzNew checks that any Config is either refused with an error or
// produces finite vectors; nothing panics.
func FuzzNew(f *testing.F) {
	d := DefaultConfig()
	f.Add(d.Seed, d.Layers, d.Heads, d.KVHeads, d.HeadDim, d.Prompt, d.SinkStrength, d.HeavyStrength, d.Locality,
		d.RetrievalShare, d.OutlierChannels, d.OutlierScale, d.TailDF)
	f.Add(uint64(7), 2, 4, 2, 8, 0, 8.0, 8.0, 8.0, 1.0, 8, 1000.0, 2.001)
	f.Add(uint64(0), 1, 1, 1, 9, 3, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0)
	f.Add(uint64(1), -1, 3, 2, 4, -5, -1.0, math.NaN(), math.Inf(1), 2.0, 99, -3.0, 1.5)
	f.Fuzz(func(t *testing.T, seed uint64, layers, heads, kvHeads, headDim, prompt int,
		sink, heavy, local, share float64, outCh int, outScale, df float64) {
		c := Config{Seed: seed, Layers: layers, Heads: heads, KVHeads: kvHeads, HeadDim: headDim, Prompt: prompt,
			SinkStrength: sink, HeavyStrength: heavy, Locality: local, RetrievalShare: share,
			OutlierChannels: outCh, OutlierScale: outScale, TailDF: df}
		if c.Validate() != nil {
			if _, err := New(c); err == nil {
				t.Fatal("New accepted a Config that Validate refuses")
			}
			return
		}
		if c.Layers*c.Heads*c.HeadDim > 4096 {
			t.Skip("valid but too large to generate in a fuzz iteration")
		}
		g, err := New(c)
		if err != nil {
			t.Fatalf("New refused a valid Config: %v", err)
		}
		q := make([]float32, g.QLen())
		k := make([]float32, g.KVLen())
		v := make([]float32, g.KVLen())
		for range 50 {
			g.Next(q, k, v)
			for _, xs := range [][]float32{q, k, v} {
				for i, x := range xs {
					if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
						t.Fatalf("position %d: element %d is %v", g.Pos()-1, i, x)
					}
				}
			}
		}
	})
}
