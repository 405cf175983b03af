package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

func TestRoPEValues(t *testing.T) {
	// headDim 4: pair 0 turns by pos rad, pair 1 by pos/100 rad (base 10000).
	x := []float32{1, 0, 0, 1, 2, 0, 0, 2}
	model.RoPE(x, 1, 4, 10000)
	c0, s0 := math.Cos(1), math.Sin(1)
	c1, s1 := math.Cos(0.01), math.Sin(0.01)
	want := []float64{c0, s0, -s1, c1, 2 * c0, 2 * s0, -2 * s1, 2 * c1}
	for i := range x {
		if math.Abs(float64(x[i])-want[i]) > 1e-6 {
			t.Fatalf("x = %v, want %v", x, want)
		}
	}
}

func TestRoPEProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 50; trial++ {
		hd := 2 * (1 + rng.IntN(8))
		q, k := randVec(rng, hd), randVec(rng, hd)
		m, n, shift := rng.IntN(500), rng.IntN(500), rng.IntN(500)
		// Position 0 is the identity.
		x := append([]float32(nil), q...)
		model.RoPE(x, 0, hd, 10000)
		if maxAbsDiff(x, q) != 0 {
			t.Fatal("RoPE at position 0 changed x")
		}
		// Rotating by m then −m restores x; norms are preserved.
		model.RoPE(x, m, hd, 10000)
		if d := math.Abs(norm(x) - norm(q)); d > 1e-4 {
			t.Fatalf("norm changed by %g", d)
		}
		model.RoPE(x, -m, hd, 10000)
		if d := maxAbsDiff(x, q); d > 1e-4 {
			t.Fatalf("RoPE(−m)∘RoPE(m) differs from identity by %g", d)
		}
		// Scores depend only on the relative position.
		if d := math.Abs(rotDot(q, k, m, n, hd) - rotDot(q, k, m+shift, n+shift, hd)); d > 1e-3 {
			t.Fatalf("score changed by %g under a common shift", d)
		}
	}
}

func TestRoPEPanics(t *testing.T) {
	for _, tc := range []struct {
		n, hd int
	}{{8, 3}, {6, 4}, {4, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RoPE(len %d, headDim %d) did not panic", tc.n, tc.hd)
				}
			}()
			model.RoPE(make([]float32, tc.n), 1, tc.hd, 10000)
		}()
	}
}

func norm(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

func rotDot(q, k []float32, m, n, hd int) float64 {
	a, b := append([]float32(nil), q...), append([]float32(nil), k...)
	model.RoPE(a, m, hd, 10000)
	model.RoPE(b, n, hd, 10000)
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}
