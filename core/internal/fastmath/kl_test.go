package fastmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// MassKL is the loop it replaces, bit for bit: the mass summed in order
// and each divergence term through Log.
func TestMassKLIsTheLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 64, 300} {
		w := make([]float32, 2*n+1)
		for i := range w {
			w[i] = float32(math.Exp(-r.Float64() * 30))
		}
		ps := make([]int32, n)
		c := make([]float32, n)
		for i := range ps {
			ps[i] = int32(r.IntN(len(w)))
			c[i] = float32(r.Float64())
			switch i % 7 {
			case 3:
				c[i] = 0 // no term
			case 5:
				w[ps[i]] = 0 // no term, no mass
			}
		}
		var mass, kl float64
		for i, p := range ps {
			wf := float64(w[p])
			mass += wf
			if wc := float64(c[i]); wc > 0 && wf > 0 {
				kl += wc * Log(wc/wf)
			}
		}
		gm, gk := MassKL(c, w, ps)
		if gm != mass || gk != kl {
			t.Errorf("n=%d: MassKL = %v, %v; the loop through Log gives %v, %v", n, gm, gk, mass, kl)
		}
	}
}
