package quant

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// MaxCodebookBits is the widest codebook LloydMax computes.
const MaxCodebookBits = 8

// LloydMax returns the 2^bits levels of the Lloyd–Max quantizer of the
// standard normal distribution N(0, 1), ascending: the levels that minimise
// the mean squared error E[(X − x̂)²] when every X is replaced by its
// nearest level. TurboQuant (arXiv 2504.19874) quantizes each coordinate of
// a randomly rotated unit vector of d dimensions, which is close to
// N(0, 1/d), with these levels scaled by 1/√d.
//
// The levels come from Lloyd's iterations on the Gaussian itself, in
// float64: thresholds halfway between neighbouring levels, then each level
// moved to the mean of the Gaussian between its thresholds,
// (φ(a) − φ(b))/(Φ(b) − Φ(a)); the fixed point is found by Newton's method
// from the high-resolution (Panter–Dite) levels √3·Φ⁻¹((i + ½)/2^bits),
// until every level is within 1e-14 of its cell's mean.
// The result is deterministic and symmetric about 0: 1 bit gives
// ±√(2/π) ≈ ±0.7979, 2 bits ±0.4528 and ±1.5104 (Max, 1960).
//
// It returns an error unless 1 ≤ bits ≤ MaxCodebookBits. The levels of each
// width are computed once per process (a few milliseconds at 8 bits)
// and copied into the returned slice.
func LloydMax(bits int) ([]float64, error) {
	if bits < 1 || bits > MaxCodebookBits {
		return nil, fmt.Errorf("quant: Lloyd–Max codebook of %d bits (want 1..%d)", bits, MaxCodebookBits)
	}
	lloydOnce[bits].Do(func() { lloydLevels[bits] = lloyd(1 << bits) })
	return slices.Clone(lloydLevels[bits]), nil
}

var (
	lloydOnce   [MaxCodebookBits + 1]sync.Once
	lloydLevels [MaxCodebookBits + 1][]float64
)

// lloyd runs Lloyd's iterations for n levels of N(0, 1). Only the upper
// half is iterated (n is even and the optimum is symmetric); the lower half
// is its mirror image, so the result is exactly symmetric.
func lloyd(n int) []float64 {
	h := n / 2
	up := make([]float64, h) // levels above 0, ascending
	for i := range up {
		// Panter–Dite: the optimal density of levels goes as the
		// density to the power 1/3, N(0, 3) for the Gaussian.
		up[i] = math.Sqrt(3) * normQuantile((float64(h+i)+0.5)/float64(n))
	}
	// Newton's method on the Lloyd condition F_i = m_i − c_i = 0, where
	// m_i is the mean of level i's cell [a_i, b_i], the thresholds being
	// halfway between neighbours (a_0 = 0 by symmetry, the last b = +Inf).
	// The Jacobian is tridiagonal: ∂m/∂a = φ(a)(m − a)/P and
	// ∂m/∂b = φ(b)(b − m)/P, P the cell's probability, each threshold
	// moving by half of either neighbour's move. Plain Lloyd iterations
	// converge linearly at a rate that approaches 1 as the levels multiply
	// (seconds for 8 bits); Newton from the Panter–Dite start takes a few
	// steps, each halved while it would disorder the levels.
	f := make([]float64, h)
	lo, di, hi := make([]float64, h), make([]float64, h), make([]float64, h)
	next := make([]float64, h)
	resid := func(c []float64) float64 {
		var worst float64
		for i := range c {
			a, b := 0.0, math.Inf(1)
			if i > 0 {
				a = (c[i-1] + c[i]) / 2
			}
			if i < h-1 {
				b = (c[i] + c[i+1]) / 2
			}
			m := condMean(a, b)
			f[i] = m - c[i]
			worst = max(worst, math.Abs(f[i]))
			p := upperTail(a) - upperTail(b)
			da := normPDF(a) * (m - a) / p
			db := normPDF(b) * (b - m) / p
			lo[i], di[i], hi[i] = 0, -1, 0
			if i > 0 {
				lo[i] = da / 2
				di[i] += da / 2
			}
			if i < h-1 {
				hi[i] = db / 2
				di[i] += db / 2
			}
		}
		return worst
	}
	worst := resid(up)
	for iter := 0; iter < 100 && worst > 1e-14; iter++ {
		// Solve J·δ = −F (Thomas algorithm; J is diagonally dominant).
		delta := solveTridiagonal(lo, di, hi, f)
		step := 1.0
		for {
			ok := true
			for i := range up {
				next[i] = up[i] - step*delta[i]
				if next[i] <= 0 || i > 0 && next[i] <= next[i-1] {
					ok = false
				}
			}
			if ok || step < 1e-6 {
				break
			}
			step /= 2
		}
		copy(up, next)
		worst = resid(up)
	}
	out := make([]float64, n)
	for i, c := range up {
		out[h+i], out[h-1-i] = c, -c
	}
	return out
}

// condMean returns E[X | a < X < b] for X ~ N(0, 1) and 0 ≤ a < b ≤ +Inf,
// with the upper-tail probability Q computed from erfc so that far tails
// keep their precision.
func condMean(a, b float64) float64 {
	p := upperTail(a) - upperTail(b)
	if p <= 0 {
		return (a + b) / 2 // unreachable for the intervals Lloyd visits
	}
	return (normPDF(a) - normPDF(b)) / p
}

func normPDF(x float64) float64 {
	if math.IsInf(x, 0) {
		return 0
	}
	return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
}

// upperTail is Q(x) = P(X > x) for X ~ N(0, 1).
func upperTail(x float64) float64 { return math.Erfc(x/math.Sqrt2) / 2 }

// normQuantile is Φ⁻¹(p) for 0 < p < 1.
func normQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// solveTridiagonal returns x with lo[i]·x[i−1] + di[i]·x[i] + hi[i]·x[i+1]
// = r[i] (Thomas algorithm, no pivoting: the Lloyd Jacobian is diagonally
// dominant).
func solveTridiagonal(lo, di, hi, r []float64) []float64 {
	n := len(di)
	c := make([]float64, n)
	x := make([]float64, n)
	for i := range n {
		den := di[i]
		if i > 0 {
			den -= lo[i] * c[i-1]
		}
		c[i] = hi[i] / den
		x[i] = r[i]
		if i > 0 {
			x[i] -= lo[i] * x[i-1]
		}
		x[i] /= den
	}
	for i := n - 2; i >= 0; i-- {
		x[i] -= c[i] * x[i+1]
	}
	return x
}
