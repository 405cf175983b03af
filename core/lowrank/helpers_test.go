package lowrank

import (
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

// lowRankPlusNoise returns an n×d row-major matrix of exact rank k with
// singular-value-like scales 1, 1/2, 1/3, … plus Gaussian noise of the
// given standard deviation.
func lowRankPlusNoise(n, d, k int, noise float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	left := make([]float64, n*k)
	right := make([]float64, k*d)
	for i := range left {
		left[i] = rng.NormFloat64()
	}
	for i := range right {
		right[i] = rng.NormFloat64()
	}
	x := make([]float32, n*d)
	for i := range n {
		for j := range d {
			var s float64
			for c := range k {
				s += left[i*k+c] * right[c*d+j] / float64(c+1)
			}
			x[i*d+j] = float32(s + noise*rng.NormFloat64())
		}
	}
	return x
}

// checkOrthonormal fails t unless the r×d rows are orthonormal within tol.
func checkOrthonormal(t *testing.T, rows []float32, r, d int, tol float64) {
	t.Helper()
	if a, b, s, found := quant.FirstNonOrthonormal(rows[:r*d], d, tol); found {
		t.Fatalf("rows %d·%d = %g: not orthonormal within %g", a, b, s, tol)
	}
}
