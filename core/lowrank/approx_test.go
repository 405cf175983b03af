package lowrank

import (
	"math"
	"testing"
)

func TestApproxEckartYoung(t *testing.T) {
	tests := []struct{ n, d int }{{64, 32}, {20, 48}, {33, 33}}
	for _, tc := range tests {
		x := lowRankPlusNoise(tc.n, tc.d, 10, 0.3, 21)
		var norm float64
		for _, v := range x {
			norm += float64(v) * float64(v)
		}
		norm = math.Sqrt(norm)
		for r := 1; r <= min(tc.n, tc.d); r++ {
			a, err := Approximate(x, tc.n, tc.d, r)
			if err != nil {
				t.Fatal(err)
			}
			var tail float64
			for _, s := range a.Values[r:] {
				tail += s * s
			}
			want := math.Sqrt(tail)
			if math.Abs(a.Err-want) > 1e-5*norm {
				t.Errorf("%v r=%d: Err %v; Eckart–Young says %v", tc, r, a.Err, want)
			}
			if math.Abs(a.RelErr-a.Err/norm) > 1e-9 {
				t.Errorf("%v r=%d: RelErr %v; want %v", tc, r, a.RelErr, a.Err/norm)
			}
			// Err must be the error of what Reconstruct produces.
			y := make([]float32, tc.n*tc.d)
			a.Reconstruct(y)
			var e float64
			for i := range y {
				e += (float64(y[i]) - float64(x[i])) * (float64(y[i]) - float64(x[i]))
			}
			if math.Abs(math.Sqrt(e)-a.Err) > 1e-5*norm {
				t.Errorf("%v r=%d: Reconstruct error %v; Err says %v", tc, r, math.Sqrt(e), a.Err)
			}
		}
	}
}

func TestApproxFactors(t *testing.T) {
	const n, d, r = 70, 24, 6
	x := lowRankPlusNoise(n, d, 12, 0.1, 22)
	a, err := Approximate(x, n, d, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.U) != n*r || len(a.Vt) != r*d || len(a.S) != r || len(a.Values) != d {
		t.Fatalf("lengths U %d Vt %d S %d Values %d", len(a.U), len(a.Vt), len(a.S), len(a.Values))
	}
	checkOrthonormal(t, a.Vt, r, d, 1e-5)
	ut := make([]float32, r*n) // Uᵀ, so its rows are U's columns
	for i := range n {
		for k := range r {
			ut[k*n+i] = a.U[i*r+k]
		}
	}
	checkOrthonormal(t, ut, r, n, 1e-5)
	b, err := Fit(x, n, d, r)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range b.Rows() {
		if math.Abs(float64(v-a.Vt[i])) > 1e-4 {
			t.Fatalf("Vt[%d] = %v; Fit's basis has %v", i, a.Vt[i], v)
		}
	}
}

func TestApproxMemory(t *testing.T) {
	tests := []struct {
		n, d, r, params int
		saves           bool
	}{
		{128, 64, 32, 6144, true},
		{64, 64, 32, 4096, false}, // break-even at n = d = 2r
		{65, 64, 32, 4128, true},
		{16, 64, 16, 1280, false}, // n ≤ r never saves
		{512, 128, 32, 20480, true},
	}
	for _, tc := range tests {
		a, err := Approximate(lowRankPlusNoise(tc.n, tc.d, 4, 0.1, 23), tc.n, tc.d, tc.r)
		if err != nil {
			t.Fatal(err)
		}
		if a.Params() != tc.params || a.Dense() != tc.n*tc.d || a.Saves() != tc.saves {
			t.Errorf("%+v: Params %d Dense %d Saves %v", tc, a.Params(), a.Dense(), a.Saves())
		}
		if want := float64(tc.params) / float64(tc.n*tc.d); a.Ratio() != want {
			t.Errorf("%+v: Ratio %v; want %v", tc, a.Ratio(), want)
		}
	}
}
