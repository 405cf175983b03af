package quant

import (
	"math"
	"testing"
)

// The codebooks match the published Lloyd–Max levels of the standard
// normal distribution (Max, 1960) and are symmetric and ascending.
func TestLloydMaxKnownLevels(t *testing.T) {
	for _, tc := range []struct {
		bits int
		want []float64 // the non-negative levels, ascending
	}{
		{1, []float64{0.7979}},
		{2, []float64{0.4528, 1.5104}},
		{3, []float64{0.2451, 0.7560, 1.3440, 2.1520}},
	} {
		c, err := LloydMax(tc.bits)
		if err != nil {
			t.Fatal(err)
		}
		if len(c) != 1<<tc.bits {
			t.Fatalf("%d bits: %d levels", tc.bits, len(c))
		}
		h := len(c) / 2
		for i, w := range tc.want {
			if math.Abs(c[h+i]-w) > 1e-4 {
				t.Errorf("%d bits: level %d is %.5f, want %.4f", tc.bits, h+i, c[h+i], w)
			}
		}
	}
	if c, _ := LloydMax(1); math.Abs(c[1]-math.Sqrt(2/math.Pi)) > 1e-9 {
		t.Errorf("1-bit level %.15f, want √(2/π) = %.15f", c[1], math.Sqrt(2/math.Pi))
	}
	for bits := 1; bits <= MaxCodebookBits; bits++ {
		c, err := LloydMax(bits)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c {
			if c[i] != -c[len(c)-1-i] {
				t.Fatalf("%d bits: level %d (%g) is not the mirror of %g", bits, i, c[i], c[len(c)-1-i])
			}
			if i > 0 && !(c[i] > c[i-1]) {
				t.Fatalf("%d bits: levels not ascending at %d", bits, i)
			}
		}
	}
}

// Each level is the centroid of its cell (the Lloyd condition), checked by
// numerical integration independent of the iteration's closed form, and the
// mean squared error falls with every bit, close to the known distortions
// 0.3634, 0.1175, 0.03454 of 1, 2 and 3 bits.
func TestLloydMaxIsOptimal(t *testing.T) {
	wantMSE := map[int]float64{1: 0.3634, 2: 0.1175, 3: 0.03454}
	prev := 1.0
	for bits := 1; bits <= 4; bits++ {
		c, _ := LloydMax(bits)
		var mse float64
		num := make([]float64, len(c))
		den := make([]float64, len(c))
		const step = 1e-4
		for x := -12.0; x <= 12; x += step {
			p := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) * step
			// nearest level
			best := 0
			for i := range c {
				if math.Abs(x-c[i]) < math.Abs(x-c[best]) {
					best = i
				}
			}
			mse += (x - c[best]) * (x - c[best]) * p
			num[best] += x * p
			den[best] += p
		}
		for i := range c {
			if m := num[i] / den[i]; math.Abs(m-c[i]) > 1e-3 {
				t.Errorf("%d bits: level %d = %.5f but its cell's mean is %.5f", bits, i, c[i], m)
			}
		}
		if w, ok := wantMSE[bits]; ok && math.Abs(mse-w) > 2e-4 {
			t.Errorf("%d bits: MSE %.5f, want %.5f", bits, mse, w)
		}
		if mse >= prev {
			t.Errorf("%d bits: MSE %.5f does not fall below %.5f", bits, mse, prev)
		}
		prev = mse
	}
}

func TestLloydMaxRefusesWidths(t *testing.T) {
	for _, b := range []int{-1, 0, 9} {
		if _, err := LloydMax(b); err == nil {
			t.Errorf("LloydMax(%d) returned no error", b)
		}
	}
}
