package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestLog(t *testing.T) {
	check := func(x float64) {
		t.Helper()
		want := math.Log(x)
		if got := Log(x); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Fatalf("Log(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, x := range []float64{1, 2, 0.5, math.Sqrt2, math.Nextafter(math.Sqrt2, 3), math.E, 10, 1e-45, 1e-300,
		0x1p-1022, math.MaxFloat64, 1 + 1e-12, 1 - 1e-12, 3.4e38} {
		check(x)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		check(math.Exp(r.Float64()*1400 - 700))
		check(0.5 + r.Float64()) // around 1, where the absolute error matters
	}
}
