package lowrank

import (
	"math"
	"strings"
	"testing"
)

func TestInvalidInput(t *testing.T) {
	good := lowRankPlusNoise(8, 4, 2, 0.1, 1)
	nan := append([]float32(nil), good...)
	nan[5] = float32(math.NaN())
	inf := append([]float32(nil), good...)
	inf[7] = float32(math.Inf(-1))
	tests := []struct {
		name    string
		x       []float32
		n, d, r int
		want    string
	}{
		{"rank zero", good, 8, 4, 0, "rank 0"},
		{"negative rank", good, 8, 4, -1, "rank -1"},
		{"rank above min", good, 8, 4, 5, "rank 5"},
		{"rank above rows", good[:12], 3, 4, 4, "rank 4"},
		{"short data", good[:31], 8, 4, 2, "31 values"},
		{"long data", append(good, 0), 8, 4, 2, "33 values"},
		{"zero rows", nil, 0, 4, 1, "shape"},
		{"negative dim", good, 8, -4, 1, "shape"},
		{"NaN", nan, 8, 4, 2, "NaN"},
		{"Inf", inf, 8, 4, 2, "Inf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errFit := Fit(tc.x, tc.n, tc.d, tc.r)
			_, errRand := FitRandomized(tc.x, tc.n, tc.d, tc.r, 4, 1, 1)
			_, errApprox := Approximate(tc.x, tc.n, tc.d, tc.r)
			for name, err := range map[string]error{"Fit": errFit, "FitRandomized": errRand, "Approximate": errApprox} {
				if err == nil {
					t.Fatalf("%s: no error", name)
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "lowrank: ") || !strings.Contains(msg, tc.want) {
					t.Errorf("%s: error %q; want prefix \"lowrank: \" and %q", name, msg, tc.want)
				}
			}
		})
	}
}

func TestFitOrthonormalAndSigned(t *testing.T) {
	tests := []struct{ n, d, r int }{
		{128, 64, 32}, {16, 64, 16}, {64, 64, 64}, {5, 3, 1}, {1, 8, 1}, {40, 8, 8},
	}
	for _, tc := range tests {
		x := lowRankPlusNoise(tc.n, tc.d, min(tc.n, tc.d, 6), 0.05, 2)
		b, err := Fit(x, tc.n, tc.d, tc.r)
		if err != nil {
			t.Fatal(err)
		}
		if b.Rank() != tc.r || b.Dim() != tc.d || len(b.Rows()) != tc.r*tc.d {
			t.Fatalf("%v: rank %d dim %d rows %d", tc, b.Rank(), b.Dim(), len(b.Rows()))
		}
		if len(b.Values()) != min(tc.n, tc.d) {
			t.Fatalf("%v: %d singular values; want %d", tc, len(b.Values()), min(tc.n, tc.d))
		}
		checkOrthonormal(t, b.Rows(), tc.r, tc.d, 1e-5)
		for i := range tc.r {
			row := b.Rows()[i*tc.d : (i+1)*tc.d]
			best := float32(0)
			for _, v := range row {
				if math.Abs(float64(v)) > math.Abs(float64(best)) {
					best = v
				}
			}
			if best < 0 {
				t.Errorf("%v: row %d has a negative largest entry %g", tc, i, best)
			}
		}
	}
}

func TestFitFullRankIsExact(t *testing.T) {
	const n, d = 50, 12
	x := lowRankPlusNoise(n, d, 12, 0.3, 3)
	b, err := Fit(x, n, d, d)
	if err != nil {
		t.Fatal(err)
	}
	if e := b.Energy(); math.Abs(e-1) > 1e-12 {
		t.Errorf("Energy at full rank = %v; want 1", e)
	}
	c := make([]float32, d)
	y := make([]float32, d)
	for i := range n {
		xi := x[i*d : (i+1)*d]
		b.Project(c, xi)
		b.Reconstruct(y, c)
		for j := range d {
			if math.Abs(float64(y[j]-xi[j])) > 1e-5*(1+math.Abs(float64(xi[j]))) {
				t.Fatalf("row %d column %d: reconstructed %g; want %g", i, j, y[j], xi[j])
			}
		}
	}
}

// The energy Fit reports must be what projecting the sample actually keeps,
// and must equal the top-r share of the squared singular values.
func TestFitEnergy(t *testing.T) {
	const n, d = 200, 32
	x := lowRankPlusNoise(n, d, 8, 0.2, 4)
	var prev float64
	for r := 1; r <= d; r++ {
		b, err := Fit(x, n, d, r)
		if err != nil {
			t.Fatal(err)
		}
		captured, total := energy(x, n, d, b.Rows(), r)
		var top, all float64
		for i, s := range b.Values() {
			all += s * s
			if i < r {
				top += s * s
			}
		}
		if got, want := b.Energy(), captured/total; math.Abs(got-want) > 1e-5 {
			t.Errorf("r=%d: Energy %v; projection keeps %v", r, got, want)
		}
		if got, want := b.Energy(), top/all; math.Abs(got-want) > 1e-12 {
			t.Errorf("r=%d: Energy %v; singular values give %v", r, got, want)
		}
		if b.Energy() < prev {
			t.Errorf("r=%d: Energy %v fell below rank %d's %v", r, b.Energy(), r-1, prev)
		}
		prev = b.Energy()
	}
}

// Data of exact rank k is captured completely at r = k, and dot products of
// vectors in the span survive projection: q·k = (Bq)·(Bk).
func TestFitExactRank(t *testing.T) {
	const n, d, k = 60, 16, 3
	x := lowRankPlusNoise(n, d, k, 0, 5)
	b, err := Fit(x, n, d, k)
	if err != nil {
		t.Fatal(err)
	}
	if e := b.Energy(); math.Abs(e-1) > 1e-6 {
		t.Errorf("Energy = %v; want 1", e)
	}
	if s := b.Values()[k]; s > 1e-4*b.Values()[0] {
		t.Errorf("singular value %d = %g; want ≈ 0", k, s)
	}
	cq, ck := make([]float32, k), make([]float32, k)
	for i := 1; i < n; i++ {
		q, key := x[:d], x[i*d:(i+1)*d]
		var full, reduced float64
		for j := range d {
			full += float64(q[j]) * float64(key[j])
		}
		b.Project(cq, q)
		b.Project(ck, key)
		for j := range k {
			reduced += float64(cq[j]) * float64(ck[j])
		}
		if math.Abs(full-reduced) > 1e-4*(1+math.Abs(full)) {
			t.Fatalf("token %d: q·k = %v, reduced %v", i, full, reduced)
		}
	}
}

func TestZeroSample(t *testing.T) {
	const n, d, r = 10, 6, 3
	x := make([]float32, n*d)
	for name, fit := range map[string]func() (Basis, error){
		"Fit":           func() (Basis, error) { return Fit(x, n, d, r) },
		"FitRandomized": func() (Basis, error) { return FitRandomized(x, n, d, r, 2, 1, 9) },
	} {
		b, err := fit()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkOrthonormal(t, b.Rows(), r, d, 1e-6)
		if b.Energy() != 1 {
			t.Errorf("%s: Energy of zeros = %v; want 1", name, b.Energy())
		}
	}
}

func TestProjectReconstructLengths(t *testing.T) {
	b, err := Fit(lowRankPlusNoise(8, 4, 2, 0.1, 1), 8, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    func()
	}{
		{"Project short dst", func() { b.Project(make([]float32, 1), make([]float32, 4)) }},
		{"Project long x", func() { b.Project(make([]float32, 2), make([]float32, 5)) }},
		{"Reconstruct short dst", func() { b.Reconstruct(make([]float32, 3), make([]float32, 2)) }},
		{"Reconstruct long c", func() { b.Reconstruct(make([]float32, 4), make([]float32, 3)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if msg, ok := recover().(string); !ok || !strings.HasPrefix(msg, "lowrank: ") {
					t.Errorf("recovered %v; want a lowrank panic", msg)
				}
			}()
			tc.f()
		})
	}
}

func TestProjectAllocatesNothing(t *testing.T) {
	const n, d, r = 64, 64, 32
	x := lowRankPlusNoise(n, d, 8, 0.1, 6)
	b, err := Fit(x, n, d, r)
	if err != nil {
		t.Fatal(err)
	}
	c, y := make([]float32, r), make([]float32, d)
	if a := testing.AllocsPerRun(100, func() {
		b.Project(c, x[:d])
		b.Reconstruct(y, c)
	}); a != 0 {
		t.Errorf("Project+Reconstruct allocate %v times per run; want 0", a)
	}
}
