package lowrank

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/internal/fastmath"
)

// maxPowerIters bounds the power iterations FitRandomized accepts.
const maxPowerIters = 64

// FitRandomized returns a rank-r basis for the rows of the n×d row-major
// sample x by the randomized SVD of Halko, Martinsson and Tropp: it sketches
// the row space with l = min(r+oversample, n, d) Gaussian test vectors,
// sharpens the sketch with powerIters power iterations (each re-
// orthonormalized), and takes the top r right singular vectors of the small
// l×d projection. Oversampling of 5–10 and one or two power iterations
// usually capture nearly the energy of Fit at a cost of O(n·d·l) per pass
// instead of O(n·d·min(n, d)). The same seed and input give the same basis.
//
// Values holds the l singular value estimates (each at most the true one);
// Energy is measured exactly on x for the returned basis. Row signs follow
// the same rule as Fit.
//
// FitRandomized returns an error for the inputs Fit rejects, and for
// oversample < 0 or powerIters outside [0, 64].
func FitRandomized(x []float32, n, d, r, oversample, powerIters int, seed uint64) (Basis, error) {
	if err := checkMatrix(x, n, d, r); err != nil {
		return Basis{}, err
	}
	if oversample < 0 {
		return Basis{}, fmt.Errorf("lowrank: oversample %d; want ≥ 0", oversample)
	}
	if powerIters < 0 || powerIters > maxPowerIters {
		return Basis{}, fmt.Errorf("lowrank: power iterations %d out of range [0, %d]", powerIters, maxPowerIters)
	}
	l := min(r+min(oversample, min(n, d)), n, d)
	rng := rand.New(rand.NewPCG(seed, 0x6c6f7772616e6b)) // "lowrank"
	a := dense(x)

	// Row form throughout: sketches are l×n or l×d row-major matrices whose
	// rows are the test vectors, so orthonormalizing works on contiguous rows.
	omega := make([]float64, l*d)
	fillNormal(omega, rng)
	q := make([]float64, l*n) // rows span an estimate of the column space of a
	z := make([]float64, l*d) // rows span an estimate of the row space of a
	mulTransposed(q, omega, a, l, n, d)
	if err := orthonormalRows(q, l, n, rng); err != nil {
		return Basis{}, err
	}
	for range powerIters {
		mul(z, q, a, l, n, d)
		if err := orthonormalRows(z, l, d, rng); err != nil {
			return Basis{}, err
		}
		mulTransposed(q, z, a, l, n, d)
		if err := orthonormalRows(q, l, n, rng); err != nil {
			return Basis{}, err
		}
	}
	mul(z, q, a, l, n, d) // B = Qᵀ A, l×d

	f, err := thinSVD(z, l, d, false)
	if err != nil {
		return Basis{}, err
	}
	rows := basisRows(f.vt, r, d)
	b := Basis{rows: rows, r: r, d: d, values: f.values}
	b.captured, b.total = energy(x, n, d, rows, r)
	return b, nil
}

// fillNormal fills row with standard normal draws.
func fillNormal(row []float64, rng *rand.Rand) {
	for j := range row {
		row[j] = rng.NormFloat64()
	}
}

// mulTransposed sets the p×n row-major dst to s·aᵀ for the p×k matrix s and
// the n×k matrix a (both row-major): dst[i][t] is row i of s dotted with
// row t of a.
func mulTransposed(dst, s, a []float64, p, n, k int) {
	for i := range p {
		si := s[i*k : (i+1)*k]
		out := dst[i*n : (i+1)*n]
		for t := range out {
			out[t] = fastmath.Dot4(si, a[t*k:(t+1)*k])
		}
	}
}

// mul sets the p×k row-major dst to s·a for the p×n matrix s and the n×k
// matrix a (both row-major): row i of dst is Σ_t s[i][t]·(row t of a).
func mul(dst, s, a []float64, p, n, k int) {
	clear(dst[:p*k])
	for i := range p {
		out := dst[i*k : (i+1)*k]
		for t, c := range s[i*n : (i+1)*n] {
			axpy(c, a[t*k:(t+1)*k], out)
		}
	}
}

// orthonormalRows makes the rows of the rows×cols row-major matrix m
// orthonormal by classical Gram–Schmidt with reorthogonalization. A row
// that is (numerically) in the span of the rows before it is replaced by a
// random row, so the result always has full row rank; m must have no more
// rows than columns.
func orthonormalRows(m []float64, rows, cols int, rng *rand.Rand) error {
	for i := range rows {
		row := m[i*cols : (i+1)*cols]
		for attempt := 0; ; attempt++ {
			before := math.Sqrt(fastmath.Dot4(row, row))
			for range 2 {
				for k := range i {
					prev := m[k*cols : (k+1)*cols]
					axpy(-fastmath.Dot4(prev, row), prev, row)
				}
			}
			after := math.Sqrt(fastmath.Dot4(row, row))
			if before > 0 && after > 1e-10*before {
				for j := range row {
					row[j] /= after
				}
				break
			}
			if attempt > 16 {
				return errors.New("lowrank: cannot complete an orthonormal sketch")
			}
			fillNormal(row, rng)
		}
	}
	return nil
}

// energy returns ‖X Bᵀ‖²_F and ‖X‖²_F for the n×d sample x and the r×d
// basis rows.
func energy(x []float32, n, d int, rows []float32, r int) (captured, total float64) {
	for i := range n {
		xi := x[i*d : (i+1)*d]
		for _, v := range xi {
			total += float64(v) * float64(v)
		}
		for k := range r {
			row := rows[k*d : (k+1)*d]
			var p float64
			for j, v := range row {
				p += float64(v) * float64(xi[j])
			}
			captured += p * p
		}
	}
	return captured, total
}
