package lowrank

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"github.com/kvscope/kvscope/core/internal/fastmath"
)

// maxSweeps bounds the Jacobi sweeps of thinSVD. A sweep visits every pair
// of columns once; convergence is ultimately quadratic, and the simulator's
// calibration samples (256 tokens of 32 to 128 dimensions) take 8 to 10
// sweeps after the pivoted QR.
const maxSweeps = 60

// errNoConvergence is what Fit, FitRandomized and Approximate return when
// the Jacobi iteration has not converged within maxSweeps sweeps.
var errNoConvergence = errors.New("lowrank: SVD did not converge")

// epsilon is the unit roundoff of float64, 2⁻⁵³.
const epsilon = 0x1p-53

// svdFactors is a thin singular value decomposition A = U Σ Vᵀ of an m×n
// matrix with k = min(m, n): singular vectors are stored as contiguous rows.
type svdFactors struct {
	values []float64 // the k singular values, descending and non-negative
	u      []float64 // k×m row-major: row i is the left singular vector of values[i]; nil unless asked for (or m < n)
	vt     []float64 // k×n row-major: row i is the right singular vector of values[i]
}

// thinSVD returns the thin SVD of the m×n row-major matrix a, which it
// does not modify; a must be finite and m, n positive. The rows of u and vt
// are orthonormal and A = Σᵢ values[i]·u[i]ᵀ·vt[i] holds to rounding even
// when A is rank-deficient (singular vectors of zero singular values are an
// orthonormal completion). Signs are not normalized. With wantU false, u
// is nil when m ≥ n (it is free to compute when m < n and then returned).
//
// The method is the preconditioned one-sided Jacobi SVD of Drmač and
// Veselić ("New fast and accurate Jacobi SVD algorithm", SIAM J. Matrix
// Anal. Appl. 29, 2008), without their refinements: the tall matrix (Aᵀ
// when m < n) is scaled by a power of two, factored by Householder QR with
// column pivoting A·P = Q·R, and Hestenes' one-sided Jacobi rotations
// orthogonalize the columns of Rᵀ: Rᵀ·J = Ũ·Σ, so A = (Q·J)·Σ·(P·Ũ)ᵀ. The
// right vectors come free as the normalized columns; the left ones need J
// accumulated and Q applied. The cost is O(m·n·k) for the QR plus
// O(k³) per sweep; the result is deterministic. It returns errNoConvergence
// if the Jacobi sweeps do not converge within maxSweeps.
func thinSVD(a []float64, m, n int, wantU bool) (svdFactors, error) {
	if m >= n {
		c := make([]float64, m*n) // column-major A: column j is c[j*m:(j+1)*m]
		for i := range m {
			row := a[i*n : (i+1)*n]
			for j, v := range row {
				c[j*m+i] = v
			}
		}
		values, left, right, err := tallSVD(c, m, n, wantU)
		return svdFactors{values: values, u: left, vt: right}, err
	}
	// The rows of A are the columns of the tall n×m matrix Aᵀ = L Σ Rᵀ, so
	// A = R Σ Lᵀ: U = R and V = L.
	values, left, right, err := tallSVD(slices.Clone(a), n, m, true)
	return svdFactors{values: values, u: right, vt: left}, err
}

// tallSVD factors the m×n matrix A, m ≥ n ≥ 1, stored column-major in c
// (which it overwrites), as A = L Σ Rᵀ. It returns the n singular values in
// descending order, the left vectors as n rows of length m (nil unless
// wantLeft) and the right vectors as n rows of length n.
func tallSVD(c []float64, m, n int, wantLeft bool) (values, left, right []float64, err error) {
	values = make([]float64, n)
	right = make([]float64, n*n)
	if wantLeft {
		left = make([]float64, n*m)
	}
	var amax float64
	for _, v := range c {
		amax = max(amax, math.Abs(v))
	}
	if amax == 0 {
		for i := range n {
			right[i*n+i] = 1
			if wantLeft {
				left[i*m+i] = 1
			}
		}
		return values, left, right, nil
	}
	// Scale so the largest magnitude lies in [1/2, 1): sums of squares can
	// then neither overflow nor (for the entries that matter) underflow.
	_, exp := math.Frexp(amax)
	if exp > -1000 && exp < 1000 {
		s := math.Ldexp(1, -exp)
		for i := range c {
			c[i] *= s
		}
	} else {
		for i := range c {
			c[i] = math.Ldexp(c[i], -exp)
		}
	}

	perm, tau := pivotedQR(c, m, n)

	// g holds Rᵀ column-major: column i of Rᵀ is row i of R.
	g := make([]float64, n*n)
	for i := range n {
		for j := i; j < n; j++ {
			g[i*n+j] = c[j*m+i]
		}
	}
	var jac []float64 // J column-major, accumulated only for the left vectors
	if wantLeft {
		jac = make([]float64, n*n)
		for i := range n {
			jac[i*n+i] = 1
		}
	}
	if !jacobi(g, jac, n, maxSweeps) {
		return nil, nil, nil, errNoConvergence
	}

	// Singular values are the column norms; sort them descending (ties keep
	// column order, so the result is deterministic).
	norms := make([]float64, n)
	order := make([]int, n)
	for i := range n {
		norms[i] = math.Sqrt(fastmath.Dot4(g[i*n:(i+1)*n], g[i*n:(i+1)*n]))
		order[i] = i
	}
	slices.SortStableFunc(order, func(p, q int) int { return cmp.Compare(norms[q], norms[p]) })

	// Right vectors: V = P·Ũ, row perm[k] of V is row k of Ũ. A column too
	// small to normalize reliably (below 2⁻⁵⁰⁰ of the largest entry) counts
	// as an exact zero and gets an orthonormal completion instead.
	const tiny = 0x1p-500
	known := n
	for out, i := range order {
		s := norms[i]
		if s <= tiny {
			known = min(known, out)
			continue
		}
		values[out] = math.Ldexp(s, exp)
		col := g[i*n : (i+1)*n]
		dst := right[out*n : (out+1)*n]
		for k, v := range col {
			dst[perm[k]] = v / s
		}
	}
	completeRows(right, n, known)

	if wantLeft {
		// Left vectors: L = Q·J, applying the reflectors H_{n-1}, …, H_0
		// stored below the diagonal of c to the columns of J padded to m.
		for out, i := range order {
			copy(left[out*m:out*m+n], jac[i*n:(i+1)*n])
		}
		for k := n - 1; k >= 0; k-- {
			if tau[k] == 0 {
				continue
			}
			v := c[k*m+k+1 : (k+1)*m]
			for out := range n {
				col := left[out*m+k : (out+1)*m]
				reflect(tau[k], v, col)
			}
		}
	}
	return values, left, right, nil
}

// pivotedQR overwrites the column-major m×n matrix c, m ≥ n, with its
// Householder QR with column pivoting (Businger and Golub), A·P = Q·R, in
// the layout of LAPACK's dgeqp3: R on and above the diagonal, reflector
// k's vector (with an implicit leading 1) below it in column k. It returns
// the permutation (column k of A·P is column perm[k] of A) and the
// reflectors' scalars.
func pivotedQR(c []float64, m, n int) (perm []int, tau []float64) {
	perm = make([]int, n)
	tau = make([]float64, n)
	partial := make([]float64, n) // norms of the trailing parts c[j][k:]
	last := make([]float64, n)    // partial[j] when last computed exactly
	for j := range n {
		perm[j] = j
		col := c[j*m : (j+1)*m]
		partial[j] = math.Sqrt(fastmath.Dot4(col, col))
		last[j] = partial[j]
	}
	tol := math.Sqrt(epsilon)
	for k := range n {
		p := k
		for j := k + 1; j < n; j++ {
			if partial[j] > partial[p] {
				p = j
			}
		}
		if p != k {
			swapFloats(c[k*m:(k+1)*m], c[p*m:(p+1)*m])
			perm[k], perm[p] = perm[p], perm[k]
			partial[k], partial[p] = partial[p], partial[k]
			last[k], last[p] = last[p], last[k]
		}
		x := c[k*m+k : (k+1)*m]
		tau[k] = householder(x)
		if tau[k] != 0 {
			v := x[1:]
			for j := k + 1; j < n; j++ {
				col := c[j*m+k : (j+1)*m]
				reflect(tau[k], v, col)
			}
		}
		// Downdate the partial norms, recomputing those that cancelled
		// (LAPACK Working Note 176).
		for j := k + 1; j < n; j++ {
			if partial[j] == 0 {
				continue
			}
			r := math.Abs(c[j*m+k]) / partial[j]
			t := max(0, (1+r)*(1-r))
			if q := partial[j] / last[j]; t*q*q <= tol {
				rest := c[j*m+k+1 : (j+1)*m]
				partial[j] = math.Sqrt(fastmath.Dot4(rest, rest))
				last[j] = partial[j]
			} else {
				partial[j] *= math.Sqrt(t)
			}
		}
	}
	return perm, tau
}

// householder turns x into the reflector that maps it onto a multiple of
// the first unit vector, as LAPACK's dlarfg: it returns τ and leaves β in
// x[0] and v[1:] in x[1:], so that (I − τ v vᵀ) x = β e₁ with v[0] = 1.
// τ = 0 (and x unchanged) when x[1:] is zero.
func householder(x []float64) float64 {
	tail := x[1:]
	xnorm := math.Sqrt(fastmath.Dot4(tail, tail))
	if xnorm == 0 {
		return 0
	}
	alpha := x[0]
	beta := -math.Copysign(math.Hypot(alpha, xnorm), alpha)
	scale := 1 / (alpha - beta)
	for i := range tail {
		tail[i] *= scale
	}
	x[0] = beta
	return (beta - alpha) / beta
}

// reflect applies the reflector (I − τ v vᵀ) of householder to col, with
// v[0] = 1 implied and v[1:] given as v: col[0] and col[1:len(v)+1] change.
func reflect(tau float64, v, col []float64) {
	w := tau * (col[0] + fastmath.Dot4(v, col[1:]))
	col[0] -= w
	axpy(-w, v, col[1:])
}

// jacobi orthogonalizes the n columns of the column-major n×n matrix g by
// cyclic one-sided Jacobi rotations (Hestenes), applying each rotation to
// the columns of jac too when jac is not nil. A pair is rotated when the
// cosine of its angle exceeds tol = √n·ε. Rounding keeps computed cosines
// near that level (a dot product of length n may err by n·ε), so, as
// LAPACK's dgesvj, jacobi stops after a sweep in which every cosine was
// below √n·tol = n·ε (at least 8ε): the columns are then orthogonal to
// working accuracy even if rounding would keep the rotations going. It
// reports whether it stopped so within the given number of sweeps.
func jacobi(g, jac []float64, n, sweeps int) bool {
	tol := math.Sqrt(float64(n)) * epsilon
	stop := float64(max(n, 8)) * epsilon
	sq := make([]float64, n) // squared column norms
	for range sweeps {
		for i := range n {
			col := g[i*n : (i+1)*n]
			sq[i] = fastmath.Dot4(col, col)
		}
		var maxCos float64 // the largest cosine of the sweep's rotated pairs
		for i := 0; i < n-1; i++ {
			gi := g[i*n : (i+1)*n]
			for j := i + 1; j < n; j++ {
				a, b := sq[i], sq[j]
				if a == 0 || b == 0 {
					continue
				}
				gj := g[j*n : (j+1)*n]
				c := fastmath.Dot4(gi, gj)
				cos := math.Abs(c) / math.Sqrt(a) / math.Sqrt(b)
				if cos <= tol {
					continue
				}
				// Zero gi·gj with [gi gj] ← [gi gj]·[[cs sn] [−sn cs]]:
				// t = tan θ is the smaller root of t² + 2ζt − 1 = 0.
				zeta := (b - a) / (2 * c)
				t := 1 / (math.Abs(zeta) + math.Hypot(1, zeta))
				if zeta < 0 {
					t = -t
				}
				cs := 1 / math.Sqrt(1+t*t)
				sn := cs * t
				maxCos = max(maxCos, cos)
				rotate(gi, gj, cs, sn)
				if jac != nil {
					rotate(jac[i*n:(i+1)*n], jac[j*n:(j+1)*n], cs, sn)
				}
				// The squared norms move by ∓t·c; the smaller one shrinks,
				// so recompute it when it may have cancelled.
				if sq[i] = a - t*c; sq[i] < a/2 {
					sq[i] = fastmath.Dot4(gi, gi)
				}
				if sq[j] = b + t*c; sq[j] < b/2 {
					sq[j] = fastmath.Dot4(gj, gj)
				}
			}
		}
		if maxCos < stop {
			return true
		}
	}
	return false
}

// completeRows fills rows known…n−1 of the n×n row-major matrix q, whose
// first known rows are orthonormal, with an orthonormal completion: the
// trailing columns of the Q factor of the Householder QR of the known rows
// (as columns). It does nothing when known = n.
func completeRows(q []float64, n, known int) {
	if known >= n {
		return
	}
	w := slices.Clone(q[:known*n]) // the known vectors, each a column of length n
	tau := make([]float64, known)
	for k := range known {
		x := w[k*n+k : (k+1)*n]
		tau[k] = householder(x)
		if tau[k] == 0 {
			continue
		}
		v := x[1:]
		for j := k + 1; j < known; j++ {
			col := w[j*n+k : (j+1)*n]
			reflect(tau[k], v, col)
		}
	}
	for out := known; out < n; out++ {
		row := q[out*n : (out+1)*n]
		clear(row)
		row[out] = 1
		for k := known - 1; k >= 0; k-- {
			if tau[k] == 0 {
				continue
			}
			v := w[k*n+k+1 : (k+1)*n]
			col := row[k:]
			reflect(tau[k], v, col)
		}
	}
}

// axpy sets y[i] += a·x[i]; len(y) must be at least len(x).
func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// rotate sets (x, y) ← (cs·x − sn·y, sn·x + cs·y) elementwise; len(y) must
// be at least len(x).
func rotate(x, y []float64, cs, sn float64) {
	y = y[:len(x)]
	for i, xi := range x {
		yi := y[i]
		x[i] = cs*xi - sn*yi
		y[i] = sn*xi + cs*yi
	}
}

// swapFloats exchanges the contents of x and y, which have equal lengths.
func swapFloats(x, y []float64) {
	y = y[:len(x)]
	for i := range x {
		x[i], y[i] = y[i], x[i]
	}
}
