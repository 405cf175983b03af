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
	acc := dst
	if s.basis != nil {
		acc = s.coef
		clear(acc)
	}
	sd := s.sdim
	for i, slot := range slots {
		wi := w[i]
		switch s.state[slot] {
		case slotFree:
			panic(fmt.Sprintf("store: WeightedSum over free slot %d", slot))
		case slotResidual:
			// Residual rows hold the full vector; add them to dst directly.
			for j, h := range s.resRow(slot) {
				dst[j] += wi * quant.FP16ToFloat32(h)
			}
			continue
		}
		switch s.mode {
		case modeF32:
			for j, v := range s.f32[slot*sd : (slot+1)*sd] {
				acc[j] += wi * v
			}
			continue
		case modeF16:
			for j, h := range s.f16[slot*sd : (slot+1)*sd] {
				acc[j] += wi * quant.FP16ToFloat32(h)
			}
			continue
		}
		quant.Unpack(s.cbuf, s.codeRow(slot), s.cfg.Bits)
		switch s.mode {
		case modeToken:
			par := s.tokPar[slot*s.groups : (slot+1)*s.groups]
			for g, p := range par {
				a, b := wi*p.Scale, wi*p.Min
				codes := s.cbuf[g*s.gsize : (g+1)*s.gsize]
				out := acc[g*s.gsize : (g+1)*s.gsize]
				for j, c := range codes {
					out[j] += a*float32(c) + b
				}
			}
		case modeFixed:
			n := len(s.chPar)
			for j, c := range s.cbuf {
				p := s.chPar[j%n]
				acc[j] += wi * (p.Scale*float32(c) + p.Min)
			}
		case modeChannel:
			b := int(s.block[slot])
			par := s.chPar[b*sd : (b+1)*sd]
			for j, c := range s.cbuf {
				acc[j] += wi * (par[j].Scale*float32(c) + par[j].Min)
			}
		}
	}
	if s.basis != nil {
		// Residual tokens were added to dst already; add Bᵀ·acc.
		for r, c := range acc {
			if c == 0 {
				continue
			}
			for k, b := range s.basis[r*s.dim : (r+1)*s.dim] {
				dst[k] += c * b
			}
		}
	}
}
