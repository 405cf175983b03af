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
	if s.tok8 {
		s.weightedTok8(w, slots, dst)
		return
	}
	if s.tok2 {
		s.weightedTok2(w, slots, dst)
		return
	}
	acc := dst
	if s.xf {
		acc = s.coef
		clear(acc)
	}
	if s.sk != nil {
		clear(s.sq)
	}
	sd := s.sdim
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
		case modeTurbo, modeQJL:
			s.addCodebook(acc, wi, slot)
			continue
		}
		cb := s.unpacked(slot)
		switch s.mode {
		case modeToken:
			par := s.tokPar[slot*s.groups : (slot+1)*s.groups]
			for g, p := range par {
				addAffine(acc[g*s.gsize:(g+1)*s.gsize], wi*p.Scale, wi*p.Min, cb[g*s.gsize:(g+1)*s.gsize])
			}
		case modeFixed:
			addChannels(acc, wi, s.chPar, cb)
		case modeChannel:
			b := int(s.block[slot])
			addChannels(acc, wi, s.chPar[b*sd:(b+1)*sd], cb)
		}
		if s.nout > 0 {
			s.addOutliers(acc, wi, slot)
		}
	}
	if s.sk != nil {
		s.addSketch(acc)
	}
	if s.xf {
		// Residual tokens were added to dst already; add the stored
		// coordinates taken back to the input's (Bᵀ·acc with a basis).
		s.back(dst, acc, true)
	}
}

// addAffine adds a·codes[j] + b to out[j] for every j < len(out); codes
// has at least len(out) entries. Four channels per iteration amortize the
// loop overhead; each out[j] sees the same arithmetic as one at a time.
func addAffine(out []float32, a, b float32, codes []uint8) {
	codes = codes[:len(out)]
	j := 0
	for ; j < len(out)-3; j += 4 {
		out[j] += a*codeF32[codes[j]] + b
		out[j+1] += a*codeF32[codes[j+1]] + b
		out[j+2] += a*codeF32[codes[j+2]] + b
		out[j+3] += a*codeF32[codes[j+3]] + b
	}
	for ; j < len(out); j++ {
		out[j] += a*codeF32[codes[j]] + b
	}
}

// addChannels adds wi·(par[j].Scale·codes[j] + par[j].Min) to acc[j] for
// every channel j < len(acc); par and codes have at least len(acc) entries.
func addChannels(acc []float32, wi float32, par []quant.Params, codes []uint8) {
	par, codes = par[:len(acc)], codes[:len(acc)]
	j := 0
	for ; j < len(acc)-3; j += 4 {
		acc[j] += wi * (par[j].Scale*codeF32[codes[j]] + par[j].Min)
		acc[j+1] += wi * (par[j+1].Scale*codeF32[codes[j+1]] + par[j+1].Min)
		acc[j+2] += wi * (par[j+2].Scale*codeF32[codes[j+2]] + par[j+2].Min)
		acc[j+3] += wi * (par[j+3].Scale*codeF32[codes[j+3]] + par[j+3].Min)
	}
	for ; j < len(acc); j++ {
		acc[j] += wi * (par[j].Scale*codeF32[codes[j]] + par[j].Min)
	}
}

// codeF32[c] is float32(c): one load instead of a conversion.
var codeF32 = func() (t [256]float32) {
	for c := range t {
		t[c] = float32(c)
	}
	return t
}()
