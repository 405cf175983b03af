package lowrank

import (
	"fmt"
	"math"
)

// checkMatrix validates an n×d row-major sample and a target rank r.
func checkMatrix(x []float32, n, d, r int) error {
	if n <= 0 || d <= 0 {
		return fmt.Errorf("lowrank: matrix shape %d×%d; want positive dimensions", n, d)
	}
	if n > math.MaxInt/d || len(x) != n*d {
		return fmt.Errorf("lowrank: %d values for a %d×%d matrix", len(x), n, d)
	}
	if r <= 0 || r > min(n, d) {
		return fmt.Errorf("lowrank: rank %d out of range [1, %d] for a %d×%d matrix", r, min(n, d), n, d)
	}
	for i, v := range x {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("lowrank: value %d (row %d, column %d) is %v", i, i/d, i%d, v)
		}
	}
	return nil
}

// dense returns the n·d row-major float32 sample as float64s.
func dense(x []float32) []float64 {
	data := make([]float64, len(x))
	for i, v := range x {
		data[i] = float64(v)
	}
	return data
}

// exactSVD checks the n×d row-major sample x and the rank r as checkMatrix
// does, then returns the exact thin SVD of x (with the left vectors if
// wantU): the first step of Fit and of Approximate.
func exactSVD(x []float32, n, d, r int, wantU bool) (svdFactors, error) {
	if err := checkMatrix(x, n, d, r); err != nil {
		return svdFactors{}, err
	}
	return thinSVD(dense(x), n, d, wantU)
}

// Fit returns the rank-r basis that best represents the rows of the n×d
// row-major sample x: its top r right singular vectors, from an exact thin
// SVD, so that projecting every row onto it loses the least squared norm
// (Eckart–Young). Row signs are fixed so that each row's largest-magnitude
// entry is positive, which makes the result reproducible. Values holds all
// min(n, d) singular values. The cost is O(n·d·min(n, d)).
//
// Fit returns an error if n or d is not positive, len(x) != n·d, r is
// outside [1, min(n, d)], x holds NaN or ±Inf, or the SVD fails to converge.
func Fit(x []float32, n, d, r int) (Basis, error) {
	f, err := exactSVD(x, n, d, r, false)
	if err != nil {
		return Basis{}, err
	}
	rows := basisRows(f.vt, r, d)
	var captured, total float64
	for i, s := range f.values {
		total += s * s
		if i < r {
			captured += s * s
		}
	}
	return Basis{rows: rows, r: r, d: d, values: f.values, captured: captured, total: total}, nil
}

// basisRows returns the first r rows of the d-column row-major vt as
// float32, each with flipSign's sign.
func basisRows(vt []float64, r, d int) []float32 {
	rows := make([]float32, r*d)
	for i, v := range vt[:r*d] {
		rows[i] = float32(v)
	}
	for i := range r {
		flipSign(rows[i*d : (i+1)*d])
	}
	return rows
}

// flipSign negates row when its largest-magnitude entry is negative and
// reports whether it did.
func flipSign(row []float32) bool {
	best, at := float32(0), 0
	for j, v := range row {
		if a := float32(math.Abs(float64(v))); a > best {
			best, at = a, j
		}
	}
	if row[at] >= 0 {
		return false
	}
	for j := range row {
		row[j] = -row[j]
	}
	return true
}
