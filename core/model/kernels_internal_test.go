package model

import (
	"math"
	"math/rand/v2"
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

// FuzzKernels holds the unrolled kernels equal to plain loops.
func FuzzKernels(f *testing.F) {
	f.Add(uint64(1), 8)
	f.Add(uint64(2), 0)
	f.Add(uint64(3), 13)
	f.Fuzz(func(t *testing.T, seed uint64, n int) {
		n %= 300
		if n < 0 {
			n = -n
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		a, b, y := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i], y[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		var want float64
		for i := range a {
			want += float64(a[i]) * float64(b[i])
		}
		if got := dot(a, b); math.Abs(float64(got)-want) > 1e-4*float64(n+1) {
			t.Fatalf("dot = %v, want %v", got, want)
		}
		c := float32(rng.NormFloat64())
		yy := append([]float32(nil), y...)
		axpy(yy, c, a)
		for i := range y {
			if want := y[i] + c*a[i]; math.Abs(float64(yy[i]-want)) > 1e-6*(1+math.Abs(float64(want))) {
				t.Fatalf("axpy[%d] = %v, want %v", i, yy[i], want)
			}
		}
		// matVec over rows×n, and the strided attention kernels over rows
		// positions of a head of n elements stored with a stride ≥ n.
		rows := int(seed%11) + 1
		w := make([]float32, rows*n)
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		mv := make([]float32, rows)
		matVec(mv, w, a)
		stride := n + int(seed%5)
		mem := make([]float32, rows*stride+n)
		for i := range mem {
			mem[i] = float32(rng.NormFloat64())
		}
		att := make([]float32, rows)
		scoresStrided(att, a, mem, stride)
		for r := 0; r < rows; r++ {
			var want, wantS float64
			for j := 0; j < n; j++ {
				want += float64(w[r*n+j]) * float64(a[j])
				wantS += float64(a[j]) * float64(mem[r*stride+j])
			}
			if math.Abs(float64(mv[r])-want) > 1e-4*float64(n+1) {
				t.Fatalf("matVec row %d = %v, want %v", r, mv[r], want)
			}
			if math.Abs(float64(att[r])-wantS) > 1e-4*float64(n+1) {
				t.Fatalf("scoresStrided[%d] = %v, want %v", r, att[r], wantS)
			}
		}
		ws := make([]float32, n)
		weightedSumStrided(ws, att, mem, stride)
		for j := 0; j < n; j++ {
			var want, mag float64
			for r := 0; r < rows; r++ {
				want += float64(att[r]) * float64(mem[r*stride+j])
				mag += math.Abs(float64(att[r]))
			}
			if math.Abs(float64(ws[j])-want) > 1e-5*(mag+1)*float64(rows) {
				t.Fatalf("weightedSumStrided[%d] = %v, want %v", j, ws[j], want)
			}
		}

		s := append([]float32(nil), a...)
		Softmax(s)
		var sum float64
		for i := range s {
			sum += float64(s[i])
			ref := 0.0
			for j := range a {
				ref += math.Exp(float64(a[j] - a[i]))
			}
			if d := math.Abs(float64(s[i]) - 1/ref); d > 1e-6 {
				t.Fatalf("softmax[%d] = %v, want %v", i, s[i], 1/ref)
			}
		}
		if n > 0 && math.Abs(sum-1) > 1e-5 {
			t.Fatalf("softmax sums to %v", sum)
		}
	})
}
