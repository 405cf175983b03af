package store

import "fmt"

// This file holds the kernels of the common per-token layout (tok8: 8-bit
// codes, one group per token, no basis) for Dots and WeightedSum. They
// compute exactly what the general paths compute, term for term and in the
// same order, without the per-slot dispatch and calls: with head
// dimensions of 32 or less the per-slot overhead is as large as the
// arithmetic.

// dotsTok8 is Dots for the tok8 layout; q has Dim values, len(dst) ==
// len(slots). qsum[0] is set.
func (s *Store) dotsTok8(q []float32, slots []int, dst []float32) {
	var qsum float32
	for _, v := range q {
		qsum += v
	}
	s.qsum[0] = qsum
	d := len(q)
	dst = dst[:len(slots)]
	i := 0
	// Two sealed tokens per pass: their eight partial sums are independent
	// chains (one per token alone waits on its four), and they share the
	// loads of q. A code converts to float32 in one instruction (the
	// table codeF32 holds the same values: a load more, per value).
	for ; i+1 < len(slots); i += 2 {
		sa, sb := slots[i], slots[i+1]
		if s.state[sa] != slotSealed || s.state[sb] != slotSealed {
			dst[i] = s.tok8Dot(q, qsum, sa)
			dst[i+1] = s.tok8Dot(q, qsum, sb)
			continue
		}
		ra, rb := s.codes[sa*d:][:d], s.codes[sb*d:][:d]
		var a0, a1, a2, a3, b0, b1, b2, b3 float32
		j := 0
		for ; j+8 <= d; j += 8 {
			q8, x, y := q[j:j+8:j+8], ra[j:j+8:j+8], rb[j:j+8:j+8]
			a0 += q8[0] * float32(x[0])
			b0 += q8[0] * float32(y[0])
			a1 += q8[1] * float32(x[1])
			b1 += q8[1] * float32(y[1])
			a2 += q8[2] * float32(x[2])
			b2 += q8[2] * float32(y[2])
			a3 += q8[3] * float32(x[3])
			b3 += q8[3] * float32(y[3])
			a0 += q8[4] * float32(x[4])
			b0 += q8[4] * float32(y[4])
			a1 += q8[5] * float32(x[5])
			b1 += q8[5] * float32(y[5])
			a2 += q8[6] * float32(x[6])
			b2 += q8[6] * float32(y[6])
			a3 += q8[7] * float32(x[7])
			b3 += q8[7] * float32(y[7])
		}
		for ; j < d-3; j += 4 {
			q4, x, y := q[j:j+4:j+4], ra[j:j+4:j+4], rb[j:j+4:j+4]
			a0 += q4[0] * float32(x[0])
			b0 += q4[0] * float32(y[0])
			a1 += q4[1] * float32(x[1])
			b1 += q4[1] * float32(y[1])
			a2 += q4[2] * float32(x[2])
			b2 += q4[2] * float32(y[2])
			a3 += q4[3] * float32(x[3])
			b3 += q4[3] * float32(y[3])
		}
		for ; j < d; j++ {
			a0 += q[j] * float32(ra[j])
			b0 += q[j] * float32(rb[j])
		}
		pa, pb := s.tokPar[sa], s.tokPar[sb]
		var ta, tb float32
		ta += pa.Scale*((a0+a1)+(a2+a3)) + pa.Min*qsum
		tb += pb.Scale*((b0+b1)+(b2+b3)) + pb.Min*qsum
		dst[i], dst[i+1] = ta, tb
	}
	if i < len(slots) {
		dst[i] = s.tok8Dot(q, qsum, slots[i])
	}
}

// tok8Dot is dotsTok8 for one slot (sealed or not); qsum is Σ q.
func (s *Store) tok8Dot(q []float32, qsum float32, slot int) float32 {
	if s.state[slot] != slotSealed {
		return s.unsealedDot(q, slot)
	}
	// quant.DotPacked's 8-bit kernel: four partial sums over j mod 4.
	d := len(q)
	row := s.codes[slot*d:][:d]
	var s0, s1, s2, s3 float32
	j := 0
	for ; j < d-3; j += 4 {
		q4, r4 := q[j:j+4:j+4], row[j:j+4:j+4]
		s0 += q4[0] * float32(r4[0])
		s1 += q4[1] * float32(r4[1])
		s2 += q4[2] * float32(r4[2])
		s3 += q4[3] * float32(r4[3])
	}
	for ; j < d; j++ {
		s0 += q[j] * float32(row[j])
	}
	p := s.tokPar[slot]
	var t float32
	t += p.Scale*((s0+s1)+(s2+s3)) + p.Min*qsum
	return t
}

// weightedTok8 is WeightedSum for the tok8 layout; dst has Dim values and
// is cleared, len(w) == len(slots). Four (or two) sealed tokens per pass
// share each dst[j] load and store; dst[j] sees the same additions in the
// same order as addAffine one token at a time.
func (s *Store) weightedTok8(w []float32, slots []int, dst []float32) {
	d := len(dst)
	w = w[:len(slots)]
	i := 0
	for i < len(slots) {
		s0 := slots[i]
		if i+3 < len(slots) && s.state[s0] == slotSealed && s.state[slots[i+1]] == slotSealed &&
			s.state[slots[i+2]] == slotSealed && s.state[slots[i+3]] == slotSealed {
			s1, s2, s3 := slots[i+1], slots[i+2], slots[i+3]
			p0, p1, p2, p3 := s.tokPar[s0], s.tokPar[s1], s.tokPar[s2], s.tokPar[s3]
			a0, b0 := w[i]*p0.Scale, w[i]*p0.Min
			a1, b1 := w[i+1]*p1.Scale, w[i+1]*p1.Min
			a2, b2 := w[i+2]*p2.Scale, w[i+2]*p2.Min
			a3, b3 := w[i+3]*p3.Scale, w[i+3]*p3.Min
			c0, c1, c2, c3 := s.codes[s0*d:][:d], s.codes[s1*d:][:d], s.codes[s2*d:][:d], s.codes[s3*d:][:d]
			for j := range dst {
				o := dst[j] + (a0*float32(c0[j]) + b0)
				o = o + (a1*float32(c1[j]) + b1)
				o = o + (a2*float32(c2[j]) + b2)
				dst[j] = o + (a3*float32(c3[j]) + b3)
			}
			i += 4
			continue
		}
		if i+1 < len(slots) && s.state[s0] == slotSealed && s.state[slots[i+1]] == slotSealed {
			s1 := slots[i+1]
			p0, p1 := s.tokPar[s0], s.tokPar[s1]
			a0, b0 := w[i]*p0.Scale, w[i]*p0.Min
			a1, b1 := w[i+1]*p1.Scale, w[i+1]*p1.Min
			c0, c1 := s.codes[s0*d:][:d], s.codes[s1*d:][:d]
			for j := range dst {
				o := dst[j] + (a0*float32(c0[j]) + b0)
				dst[j] = o + (a1*float32(c1[j]) + b1)
			}
			i += 2
			continue
		}
		switch s.state[s0] {
		case slotFree:
			panic(fmt.Sprintf("store: WeightedSum over free slot %d", s0))
		case slotResidual, slotSink:
			for j, h := range s.resRow(s0) {
				dst[j] += w[i] * fp16(h)
			}
		default:
			p := s.tokPar[s0]
			addAffine(dst, w[i]*p.Scale, w[i]*p.Min, s.codes[s0*d:(s0+1)*d])
		}
		i++
	}
}
