package model

import (
	"math"
	"testing"
)

func TestSilu(t *testing.T) {
	for _, x := range []float32{-100, -20, -3, -0.5, -1e-3, 0, 1e-3, 0.5, 3, 20, 100} {
		want := float64(x) / (1 + math.Exp(-float64(x)))
		if got := float64(silu(x)); math.Abs(got-want) > 1e-6*(1+math.Abs(want)) {
			t.Errorf("silu(%v) = %v, want %v", x, got, want)
		}
	}
}
