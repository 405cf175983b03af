package sim

import (
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

// BenchmarkModelDecode is stories260K decoding 256 greedy tokens from BOS
// through an uncompressed cache and through compressed ones; it reports
// tokens per second. ModelRun, which the page drives, runs three such
// decoders per token (uncompressed, compressed, and the uncompressed
// shadow of the compressed text).
func BenchmarkModelDecode(b *testing.B) {
	m := loadModel(b)
	const n = 256
	for _, tc := range []struct {
		name string
		mod  func(*Config)
	}{
		{"full-cache", nil},
		{"h2o-int8", func(c *Config) { c.Policy, c.Sink, c.Recent, c.Heavy, c.Bits = "h2o", 4, 32, 28, 8 }},
		{"kivi-int2", func(c *Config) {
			c.Policy, c.Bits, c.Granularity, c.GroupSize, c.Residual = "full", 2, "kivi", 8, 32
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var cache model.Cache
			if tc.mod == nil {
				fc, err := model.NewFullCache(m.Config, n)
				if err != nil {
					b.Fatal(err)
				}
				cache = fc
			} else {
				cfg := DefaultConfig()
				tc.mod(&cfg)
				mc, err := NewModelCache(m.Config, cfg, n, 1, false, nil)
				if err != nil {
					b.Fatal(err)
				}
				cache = mc
			}
			r := m.NewRunner(cache)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.Generate([]int{m.Tokenizer.BOS}, model.GenerateOptions{MaxTokens: n - 1, IgnoreEOS: true}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
