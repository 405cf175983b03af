package store

import (
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

// inRangeDef is inRange's definition: every value a number within ±limit.
func inRangeDef(x []float32, limit float32) bool {
	for _, v := range x {
		if !(v >= -limit && v <= limit) {
			return false
		}
	}
	return true
}

func TestInRange(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	below := math.Nextafter32(quant.MaxFP16, 0)
	above := math.Nextafter32(quant.MaxFP16, inf)
	for _, tc := range []struct {
		x     []float32
		limit float32
		want  bool
	}{
		{nil, 1, true},
		{[]float32{0, float32(math.Copysign(0, -1)), 1, -1}, 1, true},
		{[]float32{1, 2, 3, 4, 5}, 5, true},
		{[]float32{1, 2, 3, 4, 5}, 4.99, false},
		{[]float32{1, 2, 3, 4, -5}, 4.99, false},
		{[]float32{quant.MaxFP16, -quant.MaxFP16, below, -below}, quant.MaxFP16, true},
		{[]float32{0, 0, 0, 0, above}, quant.MaxFP16, false},
		{[]float32{0, -above}, quant.MaxFP16, false},
		{[]float32{math.MaxFloat32, -math.MaxFloat32}, math.MaxFloat32, true},
		{[]float32{0, 0, inf, 0}, math.MaxFloat32, false},
		{[]float32{-inf}, math.MaxFloat32, false},
		{[]float32{0, 0, 0, nan}, math.MaxFloat32, false},
		{[]float32{float32(math.Copysign(float64(nan), -1))}, 1, false},
	} {
		if got := inRange(tc.x, tc.limit); got != tc.want || got != inRangeDef(tc.x, tc.limit) {
			t.Errorf("inRange(%v, %g) = %v, want %v", tc.x, tc.limit, got, tc.want)
		}
	}
}

func FuzzInRange(f *testing.F) {
	f.Add(uint32(0x3f800000), uint32(0x7f800000), uint32(0xff800001), uint32(0x477fe000), uint8(3))
	f.Add(uint32(0x477fe000), uint32(0x477fe001), uint32(0x80000000), uint32(0x477fe000), uint8(7))
	f.Fuzz(func(t *testing.T, a, b, c, limit uint32, n uint8) {
		lim := math.Float32frombits(limit &^ (1 << 31))
		if lim == 0 || math.IsInf(float64(lim), 0) || math.IsNaN(float64(lim)) {
			t.Skip()
		}
		x := make([]float32, int(n%9))
		for i := range x {
			x[i] = math.Float32frombits([]uint32{a, b, c}[i%3] ^ uint32(i)<<(i%3))
		}
		if got, want := inRange(x, lim), inRangeDef(x, lim); got != want {
			t.Fatalf("inRange(%v, %g) = %v, want %v", x, lim, got, want)
		}
	})
}
