package lowrank

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kvscope/kvscope/core/internal/fastmath"
)

// gaussian returns an m×n row-major matrix of standard normal draws.
func gaussian(m, n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	a := make([]float64, m*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	return a
}

// orthonormalColumns returns an m×k row-major matrix with orthonormal
// columns, the Q factor of a Gaussian matrix (gonum's QR).
func orthonormalColumns(m, k int, seed uint64) *mat.Dense {
	var qr mat.QR
	qr.Factorize(mat.NewDense(m, k, gaussian(m, k, seed)))
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, m, 0, k))
}

// withValues returns the m×n matrix U diag(s) Vᵀ for random orthonormal U
// and V, so its singular values are exactly s (padded with zeros).
func withValues(m, n int, s []float64, seed uint64) []float64 {
	k := len(s)
	u := orthonormalColumns(m, k, seed)
	v := orthonormalColumns(n, k, seed+1)
	u.Apply(func(_, j int, x float64) float64 { return x * s[j] }, u)
	var a mat.Dense
	a.Mul(u, v.T())
	return a.RawMatrix().Data
}

// scaled returns a copy of a with every entry multiplied by f.
func scaled(a []float64, f float64) []float64 {
	b := slices.Clone(a)
	for i := range b {
		b[i] *= f
	}
	return b
}

// svdCases are the shapes and spectra thinSVD is held to gonum on.
func svdCases() []struct {
	name string
	m, n int
	a    []float64
} {
	graded := gaussian(30, 8, 7) // column j scaled by 10⁻ʲ
	for i := range 30 {
		for j := range 8 {
			graded[i*8+j] *= math.Pow(10, -float64(j))
		}
	}
	sim := dense(lowRankPlusNoise(256, 32, 8, 0.1, 1))
	return []struct {
		name string
		m, n int
		a    []float64
	}{
		{"tall", 40, 7, gaussian(40, 7, 1)},
		{"wide", 7, 40, gaussian(7, 40, 2)},
		{"square", 20, 20, gaussian(20, 20, 3)},
		{"rank-deficient tall", 30, 12, withValues(30, 12, []float64{5, 3, 2, 1}, 4)},
		{"rank-deficient wide", 9, 25, withValues(9, 25, []float64{4, 1e-3, 1e-6}, 5)},
		{"repeated values", 24, 10, withValues(24, 10, []float64{3, 3, 3, 1, 1, 0.5, 0.25, 0.25, 0.25, 0.25}, 6)},
		{"repeated values wide", 6, 15, withValues(6, 15, []float64{2, 2, 1, 1, 1, 1}, 7)},
		{"identity", 5, 5, []float64{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1}},
		{"zeros", 5, 3, make([]float64, 15)},
		{"zero column", 4, 3, []float64{1, 0, 2, 3, 0, 4, 5, 0, 6, 7, 0, 8}},
		{"1×1", 1, 1, []float64{-2.5}},
		{"one row", 1, 9, gaussian(1, 9, 8)},
		{"one column", 9, 1, gaussian(9, 1, 9)},
		{"huge", 12, 5, scaled(gaussian(12, 5, 10), 1e150)},
		{"tiny", 12, 5, scaled(gaussian(12, 5, 11), 1e-150)},
		{"subnormal", 3, 2, []float64{5e-324, 0, 0, 1e-320, 2e-323, 0}},
		{"graded columns", 30, 8, graded},
		{"simulator calibration", 256, 32, sim},
	}
}

// TestThinSVDMatchesGonum holds thinSVD to gonum's mat.SVD (LAPACK's
// Dgesvd): the same singular values, the same singular subspaces wherever
// they are determined, orthonormal factors and an exact reconstruction.
func TestThinSVDMatchesGonum(t *testing.T) {
	for _, tc := range svdCases() {
		t.Run(tc.name, func(t *testing.T) {
			m, n, k := tc.m, tc.n, min(tc.m, tc.n)
			a := slices.Clone(tc.a)
			f, err := thinSVD(a, m, n, true)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a, tc.a) {
				t.Fatal("thinSVD modified its input")
			}
			if len(f.values) != k || len(f.u) != k*m || len(f.vt) != k*n {
				t.Fatalf("lengths values %d u %d vt %d; want %d, %d, %d", len(f.values), len(f.u), len(f.vt), k, k*m, k*n)
			}
			checkFactors(t, tc.a, m, n, f, 1e-13)

			var svd mat.SVD
			if !svd.Factorize(mat.NewDense(m, n, slices.Clone(tc.a)), mat.SVDThin) {
				t.Fatal("gonum's SVD did not converge")
			}
			want := svd.Values(nil)
			var gu, gv mat.Dense
			svd.UTo(&gu)
			svd.VTo(&gv)
			top := want[0]
			for i, s := range f.values {
				// Both methods are norm-wise backward stable, so values
				// agree to a tiny multiple of the largest one.
				if d := math.Abs(s - want[i]); d > 1e-10*want[i]+1e-13*top {
					t.Errorf("σ%d = %.17g; gonum %.17g (difference %.3g)", i, s, want[i], d)
				}
			}
			// Compare singular subspaces cluster by cluster: values closer
			// than 1e-6·σ₀ share a cluster, whose spanned subspace (its
			// projector) is determined when it lies above the noise.
			for lo := 0; lo < k; {
				hi := lo + 1
				for hi < k && want[hi-1]-want[hi] <= 1e-6*top {
					hi++
				}
				if want[hi-1] > 1e-8*top {
					checkSubspace(t, "U", f.u, m, lo, hi, &gu)
					checkSubspace(t, "V", f.vt, n, lo, hi, &gv)
				}
				lo = hi
			}
		})
	}
}

// checkFactors fails t unless f is a thin SVD of the m×n matrix a: values
// descending and non-negative, orthonormal rows of u and vt, and
// ‖A − U Σ Vᵀ‖_F ≤ tol·‖A‖_F.
func checkFactors(t *testing.T, a []float64, m, n int, f svdFactors, tol float64) {
	t.Helper()
	k := min(m, n)
	for i, s := range f.values {
		if !(s >= 0) || (i > 0 && s > f.values[i-1]) {
			t.Fatalf("values %v are not descending and non-negative", f.values)
		}
	}
	for _, side := range []struct {
		name string
		rows []float64
		dim  int
	}{{"U", f.u, m}, {"V", f.vt, n}} {
		for p := range k {
			for q := range k {
				got := fastmath.Dot4(side.rows[p*side.dim:(p+1)*side.dim], side.rows[q*side.dim:(q+1)*side.dim])
				want := 0.0
				if p == q {
					want = 1
				}
				if math.Abs(got-want) > 1e-13*float64(max(m, n)) {
					t.Fatalf("%s vectors %d·%d = %g; want %g", side.name, p, q, got, want)
				}
			}
		}
	}
	var errSq, normSq float64
	for i := range m {
		for j := range n {
			var y float64
			for c := range k {
				y += f.u[c*m+i] * f.values[c] * f.vt[c*n+j]
			}
			// Compare in units of the largest singular value so that huge
			// and tiny matrices neither overflow nor underflow here.
			s := f.values[0]
			if s == 0 {
				s = 1
			}
			e := (a[i*n+j] - y) / s
			errSq += e * e
			normSq += (a[i*n+j] / s) * (a[i*n+j] / s)
		}
	}
	if math.Sqrt(errSq) > tol*float64(max(m, n))*math.Sqrt(normSq) {
		t.Fatalf("‖A − U Σ Vᵀ‖ = %g·σ₀ for ‖A‖ = %g·σ₀", math.Sqrt(errSq), math.Sqrt(normSq))
	}
}

// checkSubspace fails t unless the span of rows lo…hi−1 of vecs (vectors of
// length dim) equals the span of columns lo…hi−1 of gonum's factor g,
// comparing the orthogonal projectors entry by entry.
func checkSubspace(t *testing.T, name string, vecs []float64, dim, lo, hi int, g *mat.Dense) {
	t.Helper()
	for p := range dim {
		for q := range dim {
			var mine, theirs float64
			for c := lo; c < hi; c++ {
				mine += vecs[c*dim+p] * vecs[c*dim+q]
				theirs += g.At(p, c) * g.At(q, c)
			}
			if math.Abs(mine-theirs) > 1e-8 {
				t.Fatalf("%s subspace of σ%d…σ%d: projector entry (%d, %d) = %g; gonum %g", name, lo, hi-1, p, q, mine, theirs)
			}
		}
	}
}

// Fit needs only V, which thinSVD computes without accumulating rotations;
// asking for U too must not change a bit of the values or of V.
func TestThinSVDWithoutUIsTheSame(t *testing.T) {
	for _, tc := range svdCases() {
		with, err := thinSVD(tc.a, tc.m, tc.n, true)
		if err != nil {
			t.Fatal(err)
		}
		without, err := thinSVD(tc.a, tc.m, tc.n, false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(with.values, without.values) || !slices.Equal(with.vt, without.vt) {
			t.Errorf("%s: values or V depend on whether U is wanted", tc.name)
		}
		if tc.m >= tc.n && without.u != nil {
			t.Errorf("%s: U computed though not wanted", tc.name)
		}
	}
}

// The sweep bound is real: one sweep does not orthogonalize a random
// matrix, and the error that reports it is a lowrank error.
func TestJacobiSweepBound(t *testing.T) {
	const n = 8
	if jacobi(gaussian(n, n, 12), nil, n, 1) {
		t.Error("one Jacobi sweep converged on a random 8×8 matrix")
	}
	if !jacobi(gaussian(n, n, 12), nil, n, maxSweeps) {
		t.Error("Jacobi did not converge on a random 8×8 matrix")
	}
	if !strings.HasPrefix(errNoConvergence.Error(), "lowrank: ") {
		t.Errorf("error %q lacks the package prefix", errNoConvergence)
	}
}

// FuzzThinSVD checks the invariants of the SVD on small matrices built from
// the fuzzer's bytes: non-negative descending values, orthonormal U and V,
// U Σ Vᵀ = A, and V independent of whether U is wanted.
func FuzzThinSVD(f *testing.F) {
	f.Add(uint8(3), uint8(2), int8(0), []byte{1, 2, 3, 4, 5, 6})
	f.Add(uint8(1), uint8(1), int8(-40), []byte{7})
	f.Add(uint8(2), uint8(6), int8(100), []byte{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2})
	f.Add(uint8(6), uint8(6), int8(0), []byte{0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 0, 0, 3})
	f.Add(uint8(9), uint8(4), int8(-120), []byte{5, 5, 5, 5, 128, 127, 1, 0})
	f.Fuzz(func(t *testing.T, mb, nb uint8, exp int8, data []byte) {
		m, n := 1+int(mb)%12, 1+int(nb)%12
		// Entries are small integers (repeats and zeros are common) times
		// 2^exp, with data reused cyclically.
		a := make([]float64, m*n)
		if len(data) > 0 {
			for i := range a {
				a[i] = math.Ldexp(float64(int8(data[i%len(data)])), int(exp))
			}
		}
		got, err := thinSVD(a, m, n, true)
		if err != nil {
			t.Fatalf("%d×%d: %v", m, n, err)
		}
		checkFactors(t, a, m, n, got, 1e-13)
		without, err := thinSVD(a, m, n, false)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.values, without.values) || !slices.Equal(got.vt, without.vt) {
			t.Fatal("values or V depend on whether U is wanted")
		}
	})
}

func BenchmarkThinSVD(b *testing.B) {
	for _, s := range simSizes {
		a := dense(lowRankPlusNoise(s.n, s.d, s.r, 0.1, 1))
		for _, wantU := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d,d=%d,U=%v", s.n, s.d, wantU), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := thinSVD(a, s.n, s.d, wantU); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
