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
	for i, slot := range slots {
		if s.state[slot] != slotSealed {
			dst[i] = s.unsealedDot(q, slot)
			continue
		}
		// quant.DotPacked's 8-bit kernel: four partial sums over j mod 4.
		row := s.codes[slot*d:][:d]
		var s0, s1, s2, s3 float32
		j := 0
		for ; j < d-3; j += 4 {
			s0 += q[j] * codeF32[row[j]]
			s1 += q[j+1] * codeF32[row[j+1]]
			s2 += q[j+2] * codeF32[row[j+2]]
			s3 += q[j+3] * codeF32[row[j+3]]
		}
		for ; j < d; j++ {
			s0 += q[j] * codeF32[row[j]]
		}
		p := s.tokPar[slot]
		var t float32
		t += p.Scale*((s0+s1)+(s2+s3)) + p.Min*qsum
		dst[i] = t
	}
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
				o := dst[j] + (a0*codeF32[c0[j]] + b0)
				o = o + (a1*codeF32[c1[j]] + b1)
				o = o + (a2*codeF32[c2[j]] + b2)
				dst[j] = o + (a3*codeF32[c3[j]] + b3)
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
				o := dst[j] + (a0*codeF32[c0[j]] + b0)
				dst[j] = o + (a1*codeF32[c1[j]] + b1)
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
