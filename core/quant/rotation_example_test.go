package quant_test

import (
	"fmt"

	"github.com/kvscope/kvscope/core/quant"
)

// A key with one outlier channel: its per-token range is set by the
// outlier, so 4-bit codes are coarse for everything else. After the
// normalised Hadamard rotation the outlier is spread over all eight
// channels (each gets ±8/√8 ≈ 2.83 of it), the range falls from 8.5 to
// 6.5 (by more at larger head dims), and the dot
// product with a query rotated alike is unchanged.
func ExampleHadamard() {
	k := []float32{0.5, 8, -0.25, 0.75, 0.125, -0.5, 0.25, 0.5}
	q := []float32{1, 0, 1, 0, 1, 0, 1, 0}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	fmt.Printf("q·k %.3f\n", dot(q, k))
	quant.Hadamard(k)
	quant.Hadamard(q)
	fmt.Printf("Hk  %.3f\n", k)
	fmt.Printf("(Hq)·(Hk) %.3f\n", dot(q, k))
	quant.Hadamard(k) // its own inverse
	fmt.Printf("HHk %.3f\n", k)
	// Output:
	// q·k 0.625
	// Hk  [3.315 -2.873 2.431 -1.989 3.049 -3.138 3.226 -2.607]
	// (Hq)·(Hk) 0.625
	// HHk [0.500 8.000 -0.250 0.750 0.125 -0.500 0.250 0.500]
}

// The Lloyd–Max levels of the standard normal distribution: TurboQuant
// codes each coordinate of a randomly rotated unit vector with these,
// scaled by 1/√d.
func ExampleLloydMax() {
	for bits := 1; bits <= 3; bits++ {
		c, _ := quant.LloydMax(bits)
		fmt.Printf("%d bits: %.4f\n", bits, c)
	}
	// Output:
	// 1 bits: [-0.7979 0.7979]
	// 2 bits: [-1.5104 -0.4528 0.4528 1.5104]
	// 3 bits: [-2.1519 -1.3439 -0.7560 -0.2451 0.2451 0.7560 1.3439 2.1519]
}
