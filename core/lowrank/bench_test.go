package lowrank

import (
	"fmt"
	"testing"
)

var benchSizes = []struct{ n, d, r int }{{128, 64, 32}, {512, 128, 32}}

func BenchmarkFit(b *testing.B) {
	for _, s := range benchSizes {
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

func BenchmarkFitRandomized(b *testing.B) {
	for _, s := range benchSizes {
		x := lowRankPlusNoise(s.n, s.d, s.r, 0.1, 1)
		b.Run(fmt.Sprintf("n=%d,d=%d,r=%d,p=8,q=2", s.n, s.d, s.r), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := FitRandomized(x, s.n, s.d, s.r, 8, 2, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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
