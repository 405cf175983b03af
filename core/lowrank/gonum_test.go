package lowrank

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// orthRows runs orthonormalRows on the rows of a gonum matrix, so that
// TestOrthRows can state its cases as mat.Dense literals.
func orthRows(m *mat.Dense, rng *rand.Rand) error {
	raw := m.RawMatrix()
	if raw.Stride != raw.Cols {
		panic("lowrank: orthRows needs a contiguous matrix")
	}
	return orthonormalRows(raw.Data, raw.Rows, raw.Cols, rng)
}

// The sketch products of FitRandomized are plain loops; gonum's Mul is
// their oracle.
func TestProductsMatchGonum(t *testing.T) {
	for _, tc := range []struct{ p, n, k int }{{1, 1, 1}, {3, 7, 5}, {8, 40, 13}, {5, 2, 9}} {
		s := gaussian(tc.p, tc.k, 31)
		a := gaussian(tc.n, tc.k, 32)
		got := make([]float64, tc.p*tc.n)
		mulTransposed(got, s, a, tc.p, tc.n, tc.k)
		var want mat.Dense
		want.Mul(mat.NewDense(tc.p, tc.k, s), mat.NewDense(tc.n, tc.k, a).T())
		for i, v := range want.RawMatrix().Data {
			if math.Abs(got[i]-v) > 1e-12*(1+math.Abs(v)) {
				t.Fatalf("%+v: s·aᵀ entry %d = %v; gonum %v", tc, i, got[i], v)
			}
		}

		s = gaussian(tc.p, tc.n, 33)
		got = make([]float64, tc.p*tc.k)
		for i := range got {
			got[i] = math.NaN() // mul must overwrite, not accumulate
		}
		mul(got, s, a, tc.p, tc.n, tc.k)
		want.Reset()
		want.Mul(mat.NewDense(tc.p, tc.n, s), mat.NewDense(tc.n, tc.k, a))
		for i, v := range want.RawMatrix().Data {
			if math.Abs(got[i]-v) > 1e-12*(1+math.Abs(v)) {
				t.Fatalf("%+v: s·a entry %d = %v; gonum %v", tc, i, got[i], v)
			}
		}
	}
}
