package store

import (
	"github.com/kvscope/kvscope/core/quant"
	"math"
	"math/rand/v2"
	"testing"
)

// WeightedSum must equal reading every slot and summing, for every
// storage mode, with residual and sealed tokens mixed and slots freed.
func TestWeightedSumMatchesRead(t *testing.T) {
	const dim = 16
	r := rand.New(rand.NewPCG(3, 4))
	basis := make([]float32, 4*dim)
	for i := range 4 {
		basis[i*dim+i*3] = 1
	}
	cal := placeholderCalibration(dim)
	for _, cfg := range []Config{
		{Bits: 32}, {Bits: 16}, {Bits: 8}, {Bits: 4, Residual: 3}, {Bits: 3, Granularity: PerGroup, GroupSize: 4},
		{Bits: 2, Granularity: PerChannel, GroupSize: 4, Residual: 2}, {Bits: 8, Granularity: PerChannel, Calib: cal},
		{Bits: 4, Basis: basis}, {Bits: 32, Basis: basis, Residual: 2},
	} {
		s, err := New(cfg, dim, 40)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		var live []int
		x := make([]float32, dim)
		for step := range 120 {
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			slot, err := s.Append(x)
			if err != nil {
				t.Fatal(err)
			}
			live = append(live, slot)
			if len(live) > 30 {
				k := r.IntN(len(live) - 5)
				if err := s.Evict(live[k]); err != nil {
					t.Fatal(err)
				}
				live = append(live[:k], live[k+1:]...)
			}
			w := make([]float32, len(live))
			for i := range w {
				w[i] = r.Float32()
			}
			got, want, row := make([]float32, dim), make([]float64, dim), make([]float32, dim)
			s.WeightedSum(w, live, got)
			for i, slot := range live {
				s.Read(slot, row)
				for j, v := range row {
					want[j] += float64(w[i]) * float64(v)
				}
			}
			for j := range got {
				if d := math.Abs(float64(got[j]) - want[j]); d > 1e-3*(1+math.Abs(want[j])) {
					t.Fatalf("%+v step %d dim %d: WeightedSum %v, read-and-sum %v", cfg, step, j, got[j], want[j])
				}
			}
		}
		w := make([]float32, len(live))
		out := make([]float32, dim)
		if n := testing.AllocsPerRun(20, func() { s.WeightedSum(w, live, out) }); n != 0 {
			t.Errorf("%+v: %v allocations", cfg, n)
		}
	}
}

func placeholderCalibration(dim int) *quant.Calibration {
	c := &quant.Calibration{Lo: make([]float32, dim), Hi: make([]float32, dim)}
	for i := range c.Lo {
		c.Lo[i], c.Hi[i] = -3, 3
	}
	return c
}
