package kv

import (
	"math"
	"testing"
)

// TestExpNeg holds expNeg within 3e-7 relative error of math.Exp over
// [−87.3, 0], at 0 below it and NaN for NaN.
func TestExpNeg(t *testing.T) {
	worst := 0.0
	for x := float32(0); x >= -87.3; x -= 0.00137 {
		want := math.Exp(float64(x))
		worst = max(worst, math.Abs(float64(expNeg(x))-want)/want)
	}
	if worst > 3e-7 {
		t.Errorf("relative error %g, want below 3e-7", worst)
	}
	for _, tc := range []struct{ x, want float32 }{{0, 1}, {-87.31, 0}, {-1000, 0}, {float32(math.Inf(-1)), 0}} {
		if got := expNeg(tc.x); got != tc.want {
			t.Errorf("expNeg(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if got := expNeg(float32(math.NaN())); !math.IsNaN(float64(got)) {
		t.Errorf("expNeg(NaN) = %v", got)
	}
}

// TestSoftmax holds softmax within 1e-6 of a float64 softmax, summing to 1.
func TestSoftmax(t *testing.T) {
	for _, x := range [][]float32{{3}, {0, 0, 0}, {1, -2, 30, 4.5, -100, 7}, {-5, -5.5, -200}} {
		got := append([]float32(nil), x...)
		const scale = 0.25
		softmax(got, scale)
		m := math.Inf(-1)
		for _, v := range x {
			m = max(m, float64(v))
		}
		var z, sum float64
		for _, v := range x {
			z += math.Exp((float64(v) - m) * scale)
		}
		for i, v := range x {
			want := math.Exp((float64(v)-m)*scale) / z
			if math.Abs(float64(got[i])-want) > 1e-6 {
				t.Errorf("softmax(%v)[%d] = %v, want %v", x, i, got[i], want)
			}
			sum += float64(got[i])
		}
		if math.Abs(sum-1) > 1e-6 {
			t.Errorf("softmax(%v) sums to %v", x, sum)
		}
	}
}
