package store

import "fmt"

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
	if s.kern != nil && s.kern.dotsAll(q, slots, dst) {
		return
	}
	qs := q
	if s.xf {
		qs = s.qs
		s.toStored(qs, q, false)
	}
	s.codec.Prepare(qs)
	for i, slot := range slots {
		switch s.state[slot] {
		case slotFree:
			panic(fmt.Sprintf("store: Dots over free slot %d", slot))
		case slotResidual, slotSink:
			dst[i] = dotFP16(q, s.resRow(slot))
		default:
			t := s.codec.Dot(qs, slot)
			if s.nout > 0 {
				t += s.outlierDot(qs, slot)
			}
			dst[i] = t
		}
	}
}

// dotFP16 returns Σ q_i·h_i for FP16 bits h.
func dotFP16(q []float32, h []uint16) float32 {
	var t float32
	for i, v := range h {
		t += q[i] * fp16(v)
	}
	return t
}

// unsealedDot returns q·x̂ for a slot that is not sealed: an FP16 residual
// row. It panics for a free slot, as Dots does.
func (s *Store) unsealedDot(q []float32, slot int) float32 {
	if s.state[slot] == slotFree {
		panic(fmt.Sprintf("store: Dots over free slot %d", slot))
	}
	return dotFP16(q, s.resRow(slot))
}
