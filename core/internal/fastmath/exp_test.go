package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpNeg holds ExpNeg within 3e-7 relative error of math.Exp over
// [−87.3, 0] (a fine grid plus random points), at 0 below it and NaN for NaN.
func TestExpNeg(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := []float32{0, -1e-8, -0.3465, -0.3466, -1, -10, -50, -87.29}
	for x := float32(0); x >= -87.3; x -= 0.00137 {
		xs = append(xs, x)
	}
	for range 100000 {
		xs = append(xs, -float32(rng.Float64()*87.3))
	}
	worst := 0.0
	for _, x := range xs {
		want := math.Exp(float64(x))
		worst = max(worst, math.Abs(float64(ExpNeg(x))-want)/want)
	}
	if worst > 3e-7 {
		t.Errorf("relative error %g, want below 3e-7", worst)
	}
	for _, tc := range []struct{ x, want float32 }{{0, 1}, {-87.31, 0}, {-1000, 0}, {float32(math.Inf(-1)), 0}} {
		if got := ExpNeg(tc.x); got != tc.want {
			t.Errorf("ExpNeg(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if got := ExpNeg(float32(math.NaN())); !math.IsNaN(float64(got)) {
		t.Errorf("ExpNeg(NaN) = %v", got)
	}
}
