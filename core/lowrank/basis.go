package lowrank

import "fmt"

// Basis is a rank-r basis of d-dimensional vectors: r orthonormal rows of
// length d, stored row-major, with the singular values of the data it was
// fitted on. Fit and FitRandomized build one; the zero Basis has rank 0 and
// must not be used to project.
type Basis struct {
	rows     []float32 // r×d, row-major, orthonormal rows
	r, d     int
	values   []float64 // singular values known to the fit, descending
	captured float64   // squared Frobenius norm of the sample projected on the basis
	total    float64   // squared Frobenius norm of the sample
}

// Rank returns r, the number of coefficients per vector.
func (b Basis) Rank() int { return b.r }

// Dim returns d, the dimension of the vectors the basis projects.
func (b Basis) Dim() int { return b.d }

// Rows returns the r×d row-major basis itself (not a copy): row i is
// Rows()[i*d : (i+1)*d]. Callers must not modify it.
func (b Basis) Rows() []float32 { return b.rows }

// Values returns the singular values of the fitted sample in descending
// order (not a copy). After Fit it holds all min(n, d) of them; after
// FitRandomized only the estimates of the leading r+oversample ones.
func (b Basis) Values() []float64 { return b.values }

// Energy returns the share of the sample's squared Frobenius norm that the
// basis captures, ‖X Bᵀ‖²_F / ‖X‖²_F, in [0, 1]. For Fit this is the sum of
// the top r squared singular values over the sum of all of them. A sample of
// zeros loses nothing, so its Energy is 1.
func (b Basis) Energy() float64 {
	if b.total == 0 {
		return 1
	}
	e := b.captured / b.total
	return min(max(e, 0), 1)
}

// Project sets dst[i] to the dot product of row i of the basis with x, the
// coefficients of x on the basis. It allocates nothing and costs r·d
// multiply-adds. It panics if len(dst) != Rank() or len(x) != Dim().
func (b Basis) Project(dst, x []float32) {
	if len(dst) != b.r || len(x) != b.d {
		panic(fmt.Sprintf("lowrank: Project lengths dst %d, x %d; want %d, %d", len(dst), len(x), b.r, b.d))
	}
	for i := range dst {
		row := b.rows[i*b.d : (i+1)*b.d]
		var s float64
		for j, v := range row {
			s += float64(v) * float64(x[j])
		}
		dst[i] = float32(s)
	}
}

// Reconstruct sets dst to Σᵢ c[i]·row i, the d-dimensional vector whose
// coefficients are c: the orthogonal projection of x onto the span of the
// basis when c came from Project(c, x). It allocates nothing and costs r·d
// multiply-adds. It panics if len(dst) != Dim() or len(c) != Rank().
func (b Basis) Reconstruct(dst, c []float32) {
	if len(dst) != b.d || len(c) != b.r {
		panic(fmt.Sprintf("lowrank: Reconstruct lengths dst %d, c %d; want %d, %d", len(dst), len(c), b.d, b.r))
	}
	clear(dst)
	for i, ci := range c {
		row := b.rows[i*b.d : (i+1)*b.d]
		for j, v := range row {
			dst[j] += ci * v
		}
	}
}
