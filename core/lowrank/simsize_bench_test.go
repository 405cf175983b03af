package lowrank

import (
	"fmt"
	"testing"
)

// simSizes are the shapes the simulator factors: its calibration pass fits
// one basis per kv head and side on CalibTokens = 256 tokens of HeadDim
// dimensions (32 by default; 48 and 64 for the bundled models, 128 for
// larger ones).
var simSizes = []struct{ n, d, r int }{{256, 32, 8}, {256, 48, 16}, {256, 64, 16}, {256, 128, 32}}

func BenchmarkFitSim(b *testing.B) {
	for _, s := range simSizes {
		x := lowRankPlusNoise(s.n, s.d, s.r, 0.1, 1)
		b.Run(fmt.Sprintf("n=%d,d=%d,r=%d", s.n, s.d, s.r), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Fit(x, s.n, s.d, s.r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkApproximateSim(b *testing.B) {
	for _, s := range simSizes {
		x := lowRankPlusNoise(s.n, s.d, s.r, 0.1, 1)
		b.Run(fmt.Sprintf("n=%d,d=%d,r=%d", s.n, s.d, s.r), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Approximate(x, s.n, s.d, s.r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
