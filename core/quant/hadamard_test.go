package quant

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sylvester returns the n×n Hadamard matrix H_n (n a power of two) by
// Sylvester's construction, H_2n = [[H, H], [H, −H]].
func sylvester(n int) [][]float64 {
	h := [][]float64{{1}}
	for len(h) < n {
		m := len(h)
		g := make([][]float64, 2*m)
		for i := range g {
			g[i] = make([]float64, 2*m)
			for j := range g[i] {
				v := h[i%m][j%m]
				if i >= m && j >= m {
					v = -v
				}
				g[i][j] = v
			}
		}
		h = g
	}
	return h
}

// The fast transform is the Sylvester matrix divided by √n, block by block
// over the binary expansion of the length.
func TestHadamardMatchesMatrix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 8, 12, 32, 33, 40, 96, 128} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		got := slices.Clone(x)
		Hadamard(got)
		off := 0
		for _, b := range HadamardBlocks(n) {
			h := sylvester(b)
			for i := range b {
				var want float64
				for j := range b {
					want += h[i][j] * float64(x[off+j])
				}
				want /= math.Sqrt(float64(b))
				if math.Abs(want-float64(got[off+i])) > 1e-5 {
					t.Fatalf("n=%d: entry %d = %g, want %g", n, off+i, got[off+i], want)
				}
			}
			off += b
		}
		if off != n {
			t.Fatalf("n=%d: blocks %v cover %d", n, HadamardBlocks(n), off)
		}
	}
}

func TestHadamardBlocks(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{{0, nil}, {1, []int{1}}, {32, []int{32}}, {33, []int{32, 1}}, {40, []int{32, 8}}, {96, []int{64, 32}}, {127, []int{64, 32, 16, 8, 4, 2, 1}}} {
		if got := HadamardBlocks(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("HadamardBlocks(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// The rotation is its own inverse and keeps dot products, and it spreads
// a single outlier channel evenly over the block.
func TestHadamardInvolutionAndDots(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{4, 32, 48, 128} {
		q, k := make([]float32, n), make([]float32, n)
		for i := range q {
			q[i], k[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
		k[1] += 50
		dot := func(a, b []float32) (s float64) {
			for i := range a {
				s += float64(a[i]) * float64(b[i])
			}
			return s
		}
		want := dot(q, k)
		hq, hk := slices.Clone(q), slices.Clone(k)
		Hadamard(hq)
		Hadamard(hk)
		if got := dot(hq, hk); math.Abs(got-want) > 1e-4*math.Abs(want)+1e-3 {
			t.Errorf("n=%d: (Hq)·(Hk) = %g, q·k = %g", n, got, want)
		}
		Hadamard(hk)
		if e := MaxAbsError(k, hk); e > 1e-4 {
			t.Errorf("n=%d: H(H(k)) differs from k by %g", n, e)
		}
		e := make([]float32, n)
		e[1] = 1
		Hadamard(e)
		b := HadamardBlocks(n)[0]
		for i := range b {
			if math.Abs(math.Abs(float64(e[i]))-1/math.Sqrt(float64(b))) > 1e-6 {
				t.Fatalf("n=%d: H·e₁ entry %d = %g, want ±1/√%d", n, i, e[i], b)
			}
		}
	}
}

func TestRandomMatrices(t *testing.T) {
	for _, d := range []int{1, 7, 32} {
		m, err := RandomOrthogonal(9, d)
		if err != nil {
			t.Fatal(err)
		}
		checkOrthonormal(t, m, d, d)
		again, _ := RandomOrthogonal(9, d)
		other, _ := RandomOrthogonal(10, d)
		if !slices.Equal(m, again) || (d > 1 && slices.Equal(m, other)) {
			t.Errorf("d=%d: the matrix does not follow the seed", d)
		}
	}
	g, err := Gaussian(5, 64, 32)
	if err != nil {
		t.Fatal(err)
	}
	var s, s2 float64
	for _, v := range g {
		s += float64(v)
		s2 += float64(v) * float64(v)
	}
	n := float64(len(g))
	if math.Abs(s/n) > 0.1 || math.Abs(s2/n-1) > 0.1 {
		t.Errorf("Gaussian: mean %g, variance %g", s/n, s2/n)
	}
	g2, _ := Gaussian(5, 64, 32)
	if !slices.Equal(g, g2) {
		t.Error("Gaussian does not follow the seed")
	}
	for _, bad := range [][2]int{{0, 3}, {3, 0}, {1 << 17, 1}} {
		if _, err := Gaussian(1, bad[0], bad[1]); err == nil {
			t.Errorf("Gaussian(%d×%d) returned no error", bad[0], bad[1])
		}
	}
	if _, err := RandomOrthogonal(1, 0); err == nil {
		t.Error("RandomOrthogonal(0) returned no error")
	}
}

// QJL's estimator is unbiased over the sketch: averaged over many Gaussian
// matrices, √(π/2)/m·‖k‖·⟨S·q, sign(S·k)⟩ approaches q·k.
func TestQJLScaleUnbiased(t *testing.T) {
	const d, m, trials = 16, 16, 2000
	r := rand.New(rand.NewPCG(7, 8))
	q, k := make([]float64, d), make([]float64, d)
	var qk, kn float64
	for i := range q {
		q[i], k[i] = r.NormFloat64(), r.NormFloat64()+1
		qk += q[i] * k[i]
		kn += k[i] * k[i]
	}
	kn = math.Sqrt(kn)
	var sum float64
	for tr := range trials {
		s, _ := Gaussian(uint64(tr), m, d)
		var est float64
		for i := range m {
			var sq, sk float64
			for j := range d {
				sq += float64(s[i*d+j]) * q[j]
				sk += float64(s[i*d+j]) * k[j]
			}
			if sk >= 0 {
				est += sq
			} else {
				est -= sq
			}
		}
		sum += QJLScale(m) * kn * est
	}
	mean := sum / trials
	if math.Abs(mean-qk) > 0.05*math.Abs(qk)+0.1 {
		t.Errorf("mean QJL estimate %.4f, q·k %.4f", mean, qk)
	}
}

// Orthonormal's m < d rows are orthonormal, continue r's stream (the next
// draw differs from a fresh generator's) and refuse a short dst or m > d.
func TestOrthonormalRows(t *testing.T) {
	const m, d = 5, 12
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([]float32, m*d)
	Orthonormal(rows, m, d, r)
	checkOrthonormal(t, rows, m, d)
	if fresh := rand.New(rand.NewPCG(3, 4)); r.Uint64() == fresh.Uint64() {
		t.Error("Orthonormal drew nothing from r")
	}
	for _, bad := range []func(){
		func() { Orthonormal(make([]float32, m*d-1), m, d, r) },
		func() { Orthonormal(make([]float32, d*d), d+1, d, r) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("bad shape accepted")
				}
			}()
			bad()
		}()
	}
}

// checkOrthonormal fails t unless the m rows of d values are orthonormal
// within 10⁻⁶.
func checkOrthonormal(t *testing.T, rows []float32, m, d int) {
	t.Helper()
	if i, j, p, found := FirstNonOrthonormal(rows[:m*d], d, 1e-6); found {
		t.Fatalf("%d×%d: rows %d·%d = %g: not orthonormal within 1e-6", m, d, i, j, p)
	}
}
