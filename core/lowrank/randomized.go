package lowrank

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
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
	a := dense(x, n, d)

	// Row form throughout: sketches are l×n or l×d matrices whose rows are
	// the test vectors, so orthonormalizing works on contiguous rows.
	omega := mat.NewDense(l, d, nil)
	for i := range l {
		fillNormal(omega.RawRowView(i), rng)
	}
	q := mat.NewDense(l, n, nil) // rows span an estimate of the column space of a
	z := mat.NewDense(l, d, nil) // rows span an estimate of the row space of a
	q.Mul(omega, a.T())
	if err := orthRows(q, rng); err != nil {
		return Basis{}, err
	}
	for range powerIters {
		z.Mul(q, a)
		if err := orthRows(z, rng); err != nil {
			return Basis{}, err
		}
		q.Mul(z, a.T())
		if err := orthRows(q, rng); err != nil {
			return Basis{}, err
		}
	}
	z.Mul(q, a) // B = Qᵀ A, l×d

	var svd mat.SVD
	if !svd.Factorize(z, mat.SVDThinV) {
		return Basis{}, errors.New("lowrank: SVD did not converge")
	}
	values := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v) // d×l
	rows := make([]float32, r*d)
	for i := range r {
		for j := range d {
			rows[i*d+j] = float32(v.At(j, i))
		}
		flipSign(rows[i*d : (i+1)*d])
	}
	b := Basis{rows: rows, r: r, d: d, values: values}
	b.captured, b.total = energy(x, n, d, rows, r)
	return b, nil
}

// fillNormal fills row with standard normal draws.
func fillNormal(row []float64, rng *rand.Rand) {
	for j := range row {
		row[j] = rng.NormFloat64()
	}
}

// orthRows makes the rows of m orthonormal by classical Gram–Schmidt with
// reorthogonalization. A row that is (numerically) in the span of the rows
// before it is replaced by a random row, so the result always has full row
// rank; m must have no more rows than columns.
func orthRows(m *mat.Dense, rng *rand.Rand) error {
	rows, _ := m.Dims()
	for i := 0; i < rows; i++ {
		row := m.RawRowView(i)
		for attempt := 0; ; attempt++ {
			before := floats.Norm(row, 2)
			for range 2 {
				for k := range i {
					prev := m.RawRowView(k)
					floats.AddScaled(row, -floats.Dot(prev, row), prev)
				}
			}
			after := floats.Norm(row, 2)
			if before > 0 && after > 1e-10*before {
				floats.Scale(1/after, row)
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
