package sim

import (
	"fmt"
	"testing"
)

// BenchmarkStepStride is BenchmarkStep at the reference strides the page
// offers beyond 1 and 8: every 16th and every 64th step.
func BenchmarkStepStride(b *testing.B) {
	for _, stride := range []int{16, 64} {
		b.Run(fmt.Sprintf("history=4096/ref=%d", stride), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.RefStride = stride
			benchSteps(b, cfg, 4096, false)
		})
	}
}

// BenchmarkReference is the reference kernel alone for one layer of the
// page's default configuration (8 heads × 32 dims) at a 4,096-token
// history: 2 × 8 × 4,096 × 32 ≈ 2.1M multiply-adds and 32,768
// exponentials. It reports multiply-adds per nanosecond.
func BenchmarkReference(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Tokens = 4096
	e, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	e.cfg.RefStride = 0 // fill the history without computing references
	e.RunTo(cfg.Tokens)
	t := cfg.Tokens - 1
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.stream.reference(t, 0, e.refW, cfg.Tokens)
	}
	macs := 2 * float64(cfg.Heads*cfg.Tokens*cfg.HeadDim) * float64(b.N)
	b.ReportMetric(macs/float64(b.Elapsed().Nanoseconds()), "MAC/ns")
}
