package store

import (
	"fmt"

	"github.com/kvscope/kvscope/core/quant"
)

// WeightedSum sets dst (Dim values) to Σ_i w[i]·x̂[slots[i]]: the attention
// output over the stored values, computed from the codes. Each token's
// scale and zero point are folded into its weight (w·(s·c + m) = (w·s)·c +
// w·m), so no token is dequantized on its own; with a basis the sum is
// taken over the coefficients and reconstructed once. It equals reading
// every slot and summing up to float32 rounding. It panics if len(dst) is
// not Dim, len(w) differs from len(slots), or a slot holds no token. It
// allocates nothing and costs O(len(slots)·stored dimension + Rank·Dim).
func (s *Store) WeightedSum(w []float32, slots []int, dst []float32) {
	if len(dst) != s.dim || len(w) != len(slots) {
		panic(fmt.Sprintf("store: WeightedSum into %d values (want %d) with %d weights for %d slots",
			len(dst), s.dim, len(w), len(slots)))
	}
	clear(dst)
	if s.kern != nil && s.kern.sumAll(w, slots, dst) {
		return
	}
	acc := dst
	if s.xf {
		acc = s.coef
		clear(acc)
	}
	s.codec.BeginSum()
	for i, slot := range slots {
		wi := w[i]
		switch s.state[slot] {
		case slotFree:
			panic(fmt.Sprintf("store: WeightedSum over free slot %d", slot))
		case slotResidual, slotSink:
			// Residual rows hold the full vector; add them to dst directly.
			for j, h := range s.resRow(slot) {
				dst[j] += wi * quant.FP16ToFloat32(h)
			}
			continue
		}
		s.codec.Add(acc, wi, slot)
		if s.nout > 0 {
			s.addOutliers(acc, wi, slot)
		}
	}
	s.codec.EndSum(acc)
	if s.xf {
		// Residual tokens were added to dst already; add the stored
		// coordinates taken back to the input's (Bᵀ·acc with a basis).
		s.back(dst, acc, true)
	}
}
