package quant_test

import (
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

func TestFirstNonOrthonormal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  []float32
		dim   int
		i, j  int
		dot   float64
		found bool
	}{
		{"identity", []float32{1, 0, 0, 0, 1, 0}, 3, 0, 0, 0, false},
		{"long first row", []float32{2, 0, 0, 1}, 2, 0, 0, 4, true},
		{"second row long", []float32{1, 0, 0, 3}, 2, 1, 1, 9, true},
		{"rows not perpendicular", []float32{1, 0, 0.6, 0.8}, 2, 0, 1, float64(float32(0.6)), true},
		{"no rows", nil, 4, 0, 0, 0, false},
	} {
		i, j, dot, found := quant.FirstNonOrthonormal(tc.rows, tc.dim, 1e-6)
		if i != tc.i || j != tc.j || dot != tc.dot || found != tc.found {
			t.Errorf("%s: got (%d, %d, %g, %v), want (%d, %d, %g, %v)", tc.name, i, j, dot, found, tc.i, tc.j, tc.dot, tc.found)
		}
	}
	rows, err := quant.RandomOrthogonal(7, 16)
	if err != nil {
		t.Fatal(err)
	}
	if i, j, dot, found := quant.FirstNonOrthonormal(rows, 16, 1e-5); found {
		t.Errorf("RandomOrthogonal(7, 16): rows %d·%d = %g", i, j, dot)
	}
}
