package store

import (
	"fmt"

	"github.com/kvscope/kvscope/core/quant"
)

// Dots sets dst[i] = q·x̂ for the token in slots[i], where x̂ is what Read
// returns, computed from the stored codes without dequantizing them. Scale
// and zero point are folded into the query once per call instead of into
// every stored value:
//
//   - per token / per group: q·x̂ = s·Σ q_i c_i + m·Σ q_i, with Σ q_i over
//     each group computed once per call;
//   - per channel (calibrated, or per sealed block): q'_i = q_i·s_i and
//     Σ q_i m_i once per call and block, then q·x̂ = Σ q'_i c_i + Σ q_i m_i;
//   - low rank: the query is projected once, q_r = B·q, and dotted with the
//     stored coefficients (the same rules apply to quantized coefficients);
//     a Hadamard or random rotation likewise rotates the query once;
//   - codebooks (Turbo): ‖x‖·Σ q_i·level(c_i); sketches (TurboProd, QJL):
//     S·q once per call, then √(π/2)/m·‖r‖·Σ ±(S·q)_i per token;
//   - FP16 outliers: Σ over a token's outliers of q_i·(value − decoded);
//   - FP16 residual tokens are dotted in full dimension.
//
// It equals dequantize-then-dot up to float32 rounding. It panics if len(q)
// is not Dim, len(dst) differs from len(slots), or a slot holds no token. It
// allocates nothing; its cost is O(Rank·Dim) for the projection plus, per
// token, O(stored dimension) (O(Dim) for residual tokens).
func (s *Store) Dots(q []float32, slots []int, dst []float32) {
	if len(q) != s.dim || len(dst) != len(slots) {
		panic(fmt.Sprintf("store: Dots with %d query values (want %d) and %d slots for %d results",
			len(q), s.dim, len(slots), len(dst)))
	}
	if s.tok8 {
		s.dotsTok8(q, slots, dst)
		return
	}
	if s.chanDots {
		s.dotsChannel(q, slots, dst)
		return
	}
	qs := q
	if s.xf {
		qs = s.qs
		if s.rot != nil {
			for r := range qs {
				qs[r] = dot4(s.rot[r*s.dim:(r+1)*s.dim], q)
			}
		} else if s.mat != nil {
			for r := range qs {
				var d float32
				for k, b := range s.mat[r*s.dim : (r+1)*s.dim] {
					d += b * q[k]
				}
				qs[r] = d
			}
		} else {
			copy(qs, q)
		}
		if s.had {
			quant.Hadamard(qs)
		}
	}
	s.prepare(qs)
	for i, slot := range slots {
		switch s.state[slot] {
		case slotFree:
			panic(fmt.Sprintf("store: Dots over free slot %d", slot))
		case slotResidual, slotSink:
			dst[i] = dotFP16(q, s.resRow(slot))
		default:
			t := s.dotSealed(qs, slot)
			if s.nout > 0 {
				t += s.outlierDot(qs, slot)
			}
			dst[i] = t
		}
	}
}

// prepare computes the per-call query folds of the mode.
func (s *Store) prepare(qs []float32) {
	switch s.mode {
	case modeToken:
		for g := range s.groups {
			var t float32
			for _, v := range qs[g*s.gsize : (g+1)*s.gsize] {
				t += v
			}
			s.qsum[g] = t
		}
	case modeFixed:
		var c float32
		par := s.chPar[:len(qs)]
		for j, v := range qs {
			s.qch[j] = v * par[j].Scale
			c += v * par[j].Min
		}
		s.qconst[0] = c
	case modeChannel:
		s.call++
		if s.call == 0 { // wrapped: invalidate every stamp
			clear(s.stamp)
			s.call = 1
		}
	case modeTurbo, modeQJL:
		s.prepareSketch(qs)
	}
}

// dotSealed returns qs·x̂ for a sealed slot, in stored coordinates.
func (s *Store) dotSealed(qs []float32, slot int) float32 {
	sd := s.sdim
	switch s.mode {
	case modeF32:
		var t float32
		for j, v := range s.f32[slot*sd : (slot+1)*sd] {
			t += qs[j] * v
		}
		return t
	case modeF16:
		return dotFP16(qs, s.f16[slot*sd:(slot+1)*sd])
	case modeTurbo, modeQJL:
		return s.dotCodebook(qs, slot)
	case modeFixed:
		return quant.DotPacked(s.qch, s.codeRow(slot), s.cfg.Bits) + s.qconst[0]
	case modeChannel:
		b := int(s.block[slot])
		return quant.DotPacked(s.blockQuery(b, qs), s.codeRow(slot), s.cfg.Bits) + s.qconst[b]
	}
	// modeToken
	par := s.tokPar[slot*s.groups : (slot+1)*s.groups]
	row := s.codeRow(slot)
	var t float32
	if s.aligned {
		gb := s.gbytes
		for g, p := range par {
			c := quant.DotPacked(qs[g*s.gsize:(g+1)*s.gsize], row[g*gb:(g+1)*gb], s.cfg.Bits)
			t += p.Scale*c + p.Min*s.qsum[g]
		}
		return t
	}
	quant.Unpack(s.cbuf, row, s.cfg.Bits)
	for g, p := range par {
		c := quant.DotCodes(qs[g*s.gsize:(g+1)*s.gsize], s.cbuf[g*s.gsize:(g+1)*s.gsize])
		t += p.Scale*c + p.Min*s.qsum[g]
	}
	return t
}

// dotFP16 returns Σ q_i·h_i for FP16 bits h.
func dotFP16(q []float32, h []uint16) float32 {
	var t float32
	for i, v := range h {
		t += q[i] * fp16(v)
	}
	return t
}

// blockQuery returns the query folded with sealed block b's per-channel
// scales, q'_j = q_j·s_j, and sets qconst[b] = Σ q_j·m_j; both are made on
// the block's first use in a call (prepare starts a call) and reused after.
func (s *Store) blockQuery(b int, qs []float32) []float32 {
	sd := s.sdim
	qb := s.qch[b*sd : (b+1)*sd]
	if s.stamp[b] != s.call {
		var c float32
		for j, p := range s.chPar[b*sd : (b+1)*sd] {
			qb[j] = qs[j] * p.Scale
			c += qs[j] * p.Min
		}
		s.qconst[b] = c
		s.stamp[b] = s.call
	}
	return qb
}

// unsealedDot returns q·x̂ for a slot that is not sealed: an FP16 residual
// row. It panics for a free slot, as Dots does.
func (s *Store) unsealedDot(q []float32, slot int) float32 {
	if s.state[slot] == slotFree {
		panic(fmt.Sprintf("store: Dots over free slot %d", slot))
	}
	return dotFP16(q, s.resRow(slot))
}
