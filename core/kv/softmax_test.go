package kv

import (
	"math"
	"testing"
)

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
