package lowrank

import (
	"fmt"
	"testing"
)

type benchSize struct{ n, d, r int }

// benchSizes are general shapes; simSizes are the ones the simulator
// factors: its calibration pass fits one basis per kv head and side on
// CalibTokens = 256 tokens of HeadDim dimensions (32 by default; 48 and 64
// for the bundled models, 128 for larger ones).
var (
	benchSizes = []benchSize{{128, 64, 32}, {512, 128, 32}}
	simSizes   = []benchSize{{256, 32, 8}, {256, 48, 16}, {256, 64, 16}, {256, 128, 32}}
)

// benchEach runs fit on a low-rank-plus-noise matrix of each size, one
// sub-benchmark per size.
func benchEach(b *testing.B, sizes []benchSize, suffix string, fit func(x []float32, s benchSize) error) {
	for _, s := range sizes {
		x := lowRankPlusNoise(s.n, s.d, s.r, 0.1, 1)
		b.Run(fmt.Sprintf("n=%d,d=%d,r=%d%s", s.n, s.d, s.r, suffix), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := fit(x, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func fitOnly(x []float32, s benchSize) error { _, err := Fit(x, s.n, s.d, s.r); return err }

func BenchmarkFit(b *testing.B)    { benchEach(b, benchSizes, "", fitOnly) }
func BenchmarkFitSim(b *testing.B) { benchEach(b, simSizes, "", fitOnly) }

func BenchmarkFitRandomized(b *testing.B) {
	benchEach(b, benchSizes, ",p=8,q=2", func(x []float32, s benchSize) error {
		_, err := FitRandomized(x, s.n, s.d, s.r, 8, 2, 1)
		return err
	})
}

func BenchmarkApproximateSim(b *testing.B) {
	benchEach(b, simSizes, "", func(x []float32, s benchSize) error {
		_, err := Approximate(x, s.n, s.d, s.r)
		return err
	})
}

func BenchmarkProject(b *testing.B) {
	const n, d, r = 128, 64, 32
	x := lowRankPlusNoise(n, d, r, 0.1, 1)
	basis, err := Fit(x, n, d, r)
	if err != nil {
		b.Fatal(err)
	}
	c := make([]float32, r)
	b.ReportAllocs()
	for b.Loop() {
		basis.Project(c, x[:d])
	}
}
