package quant

import (
	"math"
	"math/bits"
)

// Hadamard rotates x in place by the normalised Walsh–Hadamard matrix
// H/√n (QuaRot, SpinQuant): H is symmetric and H·H = n·I, so H/√n is an
// orthogonal matrix that is its own inverse. Applying Hadamard twice gives
// x back (up to float32 rounding), and for two vectors rotated alike
// (Hq)·(Hk) = q·k: a key rotated before quantization and a query rotated at
// attention time give the same logit, while a large constant on one
// channel (an outlier channel) is spread evenly over all n channels.
//
// The fast transform (n/2 butterflies in each of log₂ n passes) costs
// O(n log n) and allocates nothing.
//
// For a length that is not a power of two, x is cut into consecutive blocks
// whose sizes are the powers of two of the length's binary expansion,
// largest first (96 = 64 + 32, 40 = 32 + 8, 33 = 32 + 1), and each block is
// rotated by its own normalised Hadamard matrix: the block-diagonal matrix
// is still symmetric and orthogonal, so the dot products and the
// involution hold, but an outlier is spread only over the channels of its
// block (and a block of one channel is left as it is). HadamardBlocks
// reports the sizes.
func Hadamard(x []float32) {
	for len(x) > 0 {
		n := 1 << (bits.Len(uint(len(x))) - 1)
		fwht(x[:n])
		x = x[n:]
	}
}

// HadamardBlocks returns the block sizes Hadamard uses for a vector of n
// values, largest first: the powers of two of n's binary expansion. It
// returns nil for n ≤ 0.
func HadamardBlocks(n int) []int {
	var b []int
	for n > 0 {
		p := 1 << (bits.Len(uint(n)) - 1)
		b = append(b, p)
		n -= p
	}
	return b
}

// fwht applies H/√n to x, len(x) = n a power of two.
func fwht(x []float32) {
	n := len(x)
	if n < 2 {
		return
	}
	for h := 1; h < n; h <<= 1 {
		for i := 0; i < n; i += 2 * h {
			a, b := x[i:i+h], x[i+h:i+2*h]
			b = b[:len(a)]
			for j, u := range a {
				v := b[j]
				a[j], b[j] = u+v, u-v
			}
		}
	}
	s := float32(1 / math.Sqrt(float64(n)))
	for i := range x {
		x[i] *= s
	}
}
