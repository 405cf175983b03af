package quant

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// For any length and finite values, the rotation is its own inverse and
// keeps the norm (it is orthogonal), up to float32 rounding.
func FuzzHadamard(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(make([]byte, 4*33))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := min(len(data)/4, 300)
		x := make([]float32, n)
		for i := range x {
			v := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			if !finite(v) || math.Abs(float64(v)) > 1e6 {
				v = 0
			}
			x[i] = v
		}
		y := slices.Clone(x)
		Hadamard(y)
		var nx, ny float64
		for i := range x {
			nx += float64(x[i]) * float64(x[i])
			ny += float64(y[i]) * float64(y[i])
		}
		if math.Abs(nx-ny) > 1e-5*nx+1e-30 {
			t.Fatalf("norm² %g became %g", nx, ny)
		}
		Hadamard(y)
		tol := 1e-5 * math.Sqrt(nx)
		for i := range x {
			if math.Abs(float64(x[i])-float64(y[i])) > tol+1e-30 {
				t.Fatalf("H·H·x differs from x at %d: %g vs %g", i, y[i], x[i])
			}
		}
	})
}
