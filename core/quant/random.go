package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The random matrices of TurboQuant and QJL are drawn from a seed, so that a
// store holds (and counts) a matrix that the seed alone reproduces.

// RandomOrthogonal returns a d×d row-major matrix with orthonormal rows,
// uniformly distributed over the orthogonal group (Haar): Orthonormal's
// rows drawn from a PCG generator seeded with seed. The same seed gives the
// same matrix. It returns an error for d < 1 or d > 4096. It costs O(d³)
// and allocates the result and O(d²) scratch.
func RandomOrthogonal(seed uint64, d int) ([]float32, error) {
	if d < 1 || d > 4096 {
		return nil, fmt.Errorf("quant: random orthogonal matrix of dimension %d (want 1..4096)", d)
	}
	out := make([]float32, d*d)
	Orthonormal(out, d, d, rand.New(rand.NewPCG(seed, 0x6f7274686f))) // "ortho"
	return out, nil
}

// Orthonormal sets dst (m×d values, row-major, 1 ≤ m ≤ d) to m orthonormal
// rows drawn from r: each row d independent N(0, 1) values, made
// orthogonal to the rows before it by two passes of modified Gram–Schmidt
// in float64 (which keep the rows orthogonal to float64 precision) and
// normalized, then rounded to float32; a draw whose remainder has a norm
// of 10⁻⁶ or less is drawn again. The rows span a uniformly distributed
// m-dimensional subspace (for m = d, a Haar-distributed orthogonal matrix).
// It panics if len(dst) < m·d or m > d. It costs O(m²·d) and allocates
// O(m·d) scratch.
func Orthonormal(dst []float32, m, d int, r *rand.Rand) {
	if m > d || len(dst) < m*d {
		panic(fmt.Sprintf("quant: %d orthonormal rows of %d values into %d", m, d, len(dst)))
	}
	rows := make([]float64, m*d)
	for i := range m {
		v := rows[i*d : (i+1)*d]
		for {
			for k := range v {
				v[k] = r.NormFloat64()
			}
			for range 2 {
				for j := range i {
					u := rows[j*d : (j+1)*d]
					var p float64
					for k := range v {
						p += v[k] * u[k]
					}
					for k := range v {
						v[k] -= p * u[k]
					}
				}
			}
			var n float64
			for _, x := range v {
				n += x * x
			}
			if n = math.Sqrt(n); n > 1e-6 {
				for k := range v {
					v[k] /= n
				}
				break
			}
		}
	}
	for i, x := range rows {
		dst[i] = float32(x)
	}
}

// Gaussian returns an m×d row-major matrix of independent N(0, 1) values
// drawn from a PCG generator seeded with seed: QJL's sketch matrix S. The
// same seed gives the same matrix. It returns an error unless m and d are
// in 1..1<<16 and m·d ≤ 1<<24.
func Gaussian(seed uint64, m, d int) ([]float32, error) {
	if m < 1 || d < 1 || m > 1<<16 || d > 1<<16 || m*d > 1<<24 {
		return nil, fmt.Errorf("quant: Gaussian matrix of %d×%d (want 1..65536 each, at most 2^24 values)", m, d)
	}
	r := rand.New(rand.NewPCG(seed, 0x736b65746368)) // "sketch"
	out := make([]float32, m*d)
	for i := range out {
		out[i] = float32(r.NormFloat64())
	}
	return out, nil
}

// QJLScale returns √(π/2)/m, the factor of QJL's inner-product estimator
// (arXiv 2406.03482): for a vector s of d independent N(0, 1) values,
// E[(s·q)·sign(s·k)] = √(2/π)·q·k/‖k‖, so with m such rows
// q·k ≈ √(π/2)/m · ‖k‖ · Σ_i (S·q)_i·sign((S·k)_i), without bias over S.
func QJLScale(m int) float64 { return math.Sqrt(math.Pi/2) / float64(m) }

// FirstNonOrthonormal checks that the len(rows)/dim rows of rows (row-major,
// dim values each) are orthonormal within tol: each pair's dot product, in
// float64, within tol of 1 for a row with itself and of 0 otherwise. It
// returns the first pair that is not (i ≤ j, rows in order) with its dot
// product, and found false when every pair is. It costs O(rows²·dim).
func FirstNonOrthonormal(rows []float32, dim int, tol float64) (i, j int, dot float64, found bool) {
	n := len(rows) / dim
	for i = range n {
		for j = i; j < n; j++ {
			dot = 0
			for k := range dim {
				dot += float64(rows[i*dim+k]) * float64(rows[j*dim+k])
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(dot-want) > tol {
				return i, j, dot, true
			}
		}
	}
	return 0, 0, 0, false
}
