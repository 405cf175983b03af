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

// TestTailMatchesPow holds tail, which draws its uniforms from the PCG
// directly, to the rand.Rand form with math.Pow, draw for draw, and, for
// df = 0, to NormFloat64; Gaussian draws interleave with Student-t ones
// on one source, as the generator's step stream does.
func TestTailMatchesPow(t *testing.T) {
	for _, df := range []float64{2.01, 3, 4, 7.5, 30} {
		pa := rand.NewPCG(3, uint64(df*100))
		a, b := rand.New(pa), rand.New(rand.NewPCG(3, uint64(df*100)))
		for i := range 20000 {
			if got, want := tail(pa, a, df), tailPow(b, df); got != want {
				t.Fatalf("df %g draw %d: tail = %v, math.Pow form gives %v", df, i, got, want)
			}
			if i%7 == 0 {
				if got, want := tail(pa, a, 0), b.NormFloat64(); got != want {
					t.Fatalf("df 0 after draw %d: tail = %v, NormFloat64 gives %v", i, got, want)
				}
			}
		}
	}
}
