package sim

import "testing"

// BenchmarkStepPolicy is BenchmarkStep's default page configuration (8
// heads × 32 dims, budget 4 + 32 + 28, INT8 per token, reference off) at a
// 4,096-token history, through each policy and allocator: the cost of a
// decode step with its scoring and eviction. Duo's retrieval heads and
// Quest keep the whole history, so their attention grows with it.
func BenchmarkStepPolicy(b *testing.B) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
	}{
		{"h2o", func(c *Config) {}},
		{"tova", func(c *Config) { c.Policy = "tova" }},
		{"expected", func(c *Config) { c.Policy = "expected" }},
		{"keydiff", func(c *Config) { c.Policy = "keydiff" }},
		{"h2o/adakv", func(c *Config) { c.Alloc = "adakv" }},
		{"h2o/pyramid", func(c *Config) { c.Alloc = "pyramid" }},
		{"h2o/merge", func(c *Config) { c.Merge = true }},
		{"h2o/vweight", func(c *Config) { c.ValueWeight = true }},
		{"duo", func(c *Config) { c.Policy = "duo" }},
		{"quest", func(c *Config) { c.Policy = "quest" }},
		{"full", func(c *Config) { c.Policy = "full" }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.RefStride = 0
			tc.mod(&cfg)
			benchSteps(b, cfg, 4096, false)
		})
	}
}
