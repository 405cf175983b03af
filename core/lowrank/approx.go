package lowrank

import "math"

// Approx is the rank-r truncated SVD of a whole n×d matrix, X ≈ U Σ Vᵀ, the
// way a cache could store one head's n cached keys (or values) as thin
// factors instead of n·d numbers.
type Approx struct {
	N, D, R int
	U       []float32 // n×r row-major, orthonormal columns
	S       []float64 // the r kept singular values, descending
	Vt      []float32 // r×d row-major, orthonormal rows
	Values  []float64 // all min(n, d) singular values, descending

	// Err is the Frobenius norm ‖X − U Σ Vᵀ‖ measured with the stored
	// float32 factors; by Eckart–Young it equals, up to rounding, the square
	// root of the sum of the discarded squared singular values. RelErr is
	// Err / ‖X‖ (0 when X is zero).
	Err, RelErr float64
}

// Approximate returns the rank-r truncated SVD of the n×d row-major matrix
// x, the best rank-r approximation in the Frobenius norm. Signs follow Fit's
// rule (each row of Vt has a positive largest-magnitude entry). The cost is
// O(n·d·min(n, d)).
//
// Approximate returns an error for the inputs Fit rejects.
func Approximate(x []float32, n, d, r int) (Approx, error) {
	f, err := exactSVD(x, n, d, r, true)
	if err != nil {
		return Approx{}, err
	}
	a := Approx{N: n, D: d, R: r, U: make([]float32, n*r), S: append([]float64(nil), f.values[:r]...),
		Vt: make([]float32, r*d), Values: f.values}
	for k := range r {
		row := a.Vt[k*d : (k+1)*d]
		for j, v := range f.vt[k*d : (k+1)*d] {
			row[j] = float32(v)
		}
		sign := 1.0
		if flipSign(row) {
			sign = -1
		}
		for i, v := range f.u[k*n : (k+1)*n] {
			a.U[i*r+k] = float32(sign * v)
		}
	}
	var errSq, normSq float64
	for i := range n {
		for j := range d {
			var y float64
			for k := range r {
				y += float64(a.U[i*r+k]) * a.S[k] * float64(a.Vt[k*d+j])
			}
			xv := float64(x[i*d+j])
			errSq += (xv - y) * (xv - y)
			normSq += xv * xv
		}
	}
	a.Err = math.Sqrt(errSq)
	if normSq > 0 {
		a.RelErr = a.Err / math.Sqrt(normSq)
	}
	return a, nil
}

// Reconstruct sets dst, an n×d row-major matrix, to U Σ Vᵀ. It panics if
// len(dst) != N·D.
func (a Approx) Reconstruct(dst []float32) {
	if len(dst) != a.N*a.D {
		panic("lowrank: Reconstruct destination length does not match N·D")
	}
	for i := range a.N {
		out := dst[i*a.D : (i+1)*a.D]
		clear(out)
		for k := range a.R {
			c := float32(float64(a.U[i*a.R+k]) * a.S[k])
			row := a.Vt[k*a.D : (k+1)*a.D]
			for j, v := range row {
				out[j] += c * v
			}
		}
	}
}

// Params returns the numbers the factors take with Σ folded into U,
// r·(n+d), against Dense() = n·d for the matrix itself.
func (a Approx) Params() int { return a.R * (a.N + a.D) }

// Dense returns n·d, the numbers the uncompressed matrix takes.
func (a Approx) Dense() int { return a.N * a.D }

// Saves reports whether the factors take fewer numbers than the matrix,
// r·(n+d) < n·d. It never holds when n ≤ r or d ≤ r: at r = 32 of d = 64,
// factoring pays only once n > 64 tokens.
func (a Approx) Saves() bool { return a.Params() < a.Dense() }

// Ratio returns Params() / Dense(), the share of memory the factors keep.
func (a Approx) Ratio() float64 { return float64(a.Params()) / float64(a.Dense()) }
