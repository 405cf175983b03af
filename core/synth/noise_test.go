package synth

import (
	"math"
	"math/rand/v2"
	"testing"
)

// tailPow is tail as first written, with math.Pow for every df: the
// reference the df = 4 shortcut must reproduce draw for draw.
func tailPow(r *rand.Rand, df float64) float64 {
	for {
		u := 2*r.Float64() - 1
		w := 2*r.Float64() - 1
		w = u*u + w*w
		if w > 1 || w == 0 {
			continue
		}
		return u * math.Sqrt((math.Pow(w, -2/df)-1)/w*(df-2))
	}
}

func TestTailMatchesPow(t *testing.T) {
	for _, df := range []float64{2.01, 3, 4, 7.5, 30} {
		a, b := rand.New(rand.NewPCG(3, uint64(df*100))), rand.New(rand.NewPCG(3, uint64(df*100)))
		for i := range 20000 {
			if got, want := tail(a, df), tailPow(b, df); got != want {
				t.Fatalf("df %g draw %d: tail = %v, math.Pow form gives %v", df, i, got, want)
			}
		}
	}
}
