package store

import (
	"fmt"

	"github.com/kvscope/kvscope/core/quant"
)

// This file holds the per-token codec's kernels (token.go) for Dots and
// WeightedSum: tok8 (8-bit codes, one group per token, no basis) and tok2
// (the same at 2 bits, KIVI's values: WeightedSum only). They
// compute exactly what the general paths compute, term for term and in the
// same order, without the per-slot dispatch and calls: with head
// dimensions of 32 or less the per-slot overhead is as large as the
// arithmetic.

// dotsTok8 is Dots for the tok8 layout; q has Dim values, len(dst) ==
// len(slots). qsum[0] is set.
func (c *tokenCodec) dotsTok8(q []float32, slots []int, dst []float32) {
	state := c.s.state
	var qsum float32
	for _, v := range q {
		qsum += v
	}
	c.qsum[0] = qsum
	d := len(q)
	dst = dst[:len(slots)]
	i := 0
	// Two sealed tokens per pass: their eight partial sums are independent
	// chains (one per token alone waits on its four), and they share the
	// loads of q. A code converts to float32 in one instruction (the
	// table codeF32 holds the same values: a load more, per value).
	for ; i+1 < len(slots); i += 2 {
		sa, sb := slots[i], slots[i+1]
		if state[sa] != slotSealed || state[sb] != slotSealed {
			dst[i] = c.tok8Dot(q, qsum, sa)
			dst[i+1] = c.tok8Dot(q, qsum, sb)
			continue
		}
		ra, rb := c.codes[sa*d:][:d], c.codes[sb*d:][:d]
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
		pa, pb := c.par[sa], c.par[sb]
		var ta, tb float32
		ta += pa.Scale*((a0+a1)+(a2+a3)) + pa.Min*qsum
		tb += pb.Scale*((b0+b1)+(b2+b3)) + pb.Min*qsum
		dst[i], dst[i+1] = ta, tb
	}
	if i < len(slots) {
		dst[i] = c.tok8Dot(q, qsum, slots[i])
	}
}

// tok8Dot is dotsTok8 for one slot (sealed or not); qsum is Σ q.
func (c *tokenCodec) tok8Dot(q []float32, qsum float32, slot int) float32 {
	if c.s.state[slot] != slotSealed {
		return c.s.unsealedDot(q, slot)
	}
	d := len(q)
	s := quant.DotPacked(q, c.codes[slot*d:][:d], 8)
	p := c.par[slot]
	var t float32
	t += p.Scale*s + p.Min*qsum
	return t
}

// weightedTok8 is WeightedSum for the tok8 layout; dst has Dim values and
// is cleared, len(w) == len(slots). Four (or two) sealed tokens per pass
// share each dst[j] load and store; dst[j] sees the same additions in the
// same order as addAffine one token at a time.
func (c *tokenCodec) weightedTok8(w []float32, slots []int, dst []float32) {
	state := c.s.state
	d := len(dst)
	w = w[:len(slots)]
	i := 0
	for i < len(slots) {
		s0 := slots[i]
		if i+3 < len(slots) && state[s0] == slotSealed && state[slots[i+1]] == slotSealed &&
			state[slots[i+2]] == slotSealed && state[slots[i+3]] == slotSealed {
			s1, s2, s3 := slots[i+1], slots[i+2], slots[i+3]
			p0, p1, p2, p3 := c.par[s0], c.par[s1], c.par[s2], c.par[s3]
			a0, b0 := w[i]*p0.Scale, w[i]*p0.Min
			a1, b1 := w[i+1]*p1.Scale, w[i+1]*p1.Min
			a2, b2 := w[i+2]*p2.Scale, w[i+2]*p2.Min
			a3, b3 := w[i+3]*p3.Scale, w[i+3]*p3.Min
			c0, c1, c2, c3 := c.codes[s0*d:][:d], c.codes[s1*d:][:d], c.codes[s2*d:][:d], c.codes[s3*d:][:d]
			for j := range dst {
				o := dst[j] + (a0*float32(c0[j]) + b0)
				o = o + (a1*float32(c1[j]) + b1)
				o = o + (a2*float32(c2[j]) + b2)
				dst[j] = o + (a3*float32(c3[j]) + b3)
			}
			i += 4
			continue
		}
		if i+1 < len(slots) && state[s0] == slotSealed && state[slots[i+1]] == slotSealed {
			s1 := slots[i+1]
			p0, p1 := c.par[s0], c.par[s1]
			a0, b0 := w[i]*p0.Scale, w[i]*p0.Min
			a1, b1 := w[i+1]*p1.Scale, w[i+1]*p1.Min
			c0, c1 := c.codes[s0*d:][:d], c.codes[s1*d:][:d]
			for j := range dst {
				o := dst[j] + (a0*float32(c0[j]) + b0)
				dst[j] = o + (a1*float32(c1[j]) + b1)
			}
			i += 2
			continue
		}
		switch state[s0] {
		case slotFree:
			panic(fmt.Sprintf("store: WeightedSum over free slot %d", s0))
		case slotResidual, slotSink:
			for j, h := range c.s.resRow(s0) {
				dst[j] += w[i] * fp16(h)
			}
		default:
			p := c.par[s0]
			addAffine(dst, w[i]*p.Scale, w[i]*p.Min, c.codes[s0*d:(s0+1)*d])
		}
		i++
	}
}

// weightedTok2 is WeightedSum for the tok2 layout; dst has Dim values and
// is cleared, len(w) == len(slots). Each sealed token adds
// (w·Scale)·code + w·Min to dst[j] as addAffine does after quant.Unpack,
// decoding the codes from the packed row directly.
func (c *tokenCodec) weightedTok2(w []float32, slots []int, dst []float32) {
	state := c.s.state
	d, rb := len(dst), c.rowBytes
	w = w[:len(slots)]
	for i, slot := range slots {
		wi := w[i]
		if state[slot] != slotSealed {
			if state[slot] == slotFree {
				panic(fmt.Sprintf("store: WeightedSum over free slot %d", slot))
			}
			for j, h := range c.s.resRow(slot) {
				dst[j] += wi * quant.FP16ToFloat32(h)
			}
			continue
		}
		p := c.par[slot]
		a, m := wi*p.Scale, wi*p.Min
		row := c.codes[slot*rb:][:rb]
		j := 0
		for ; j+3 < d; j += 4 {
			c := row[j/4]
			dst[j] += a*float32(c&3) + m
			dst[j+1] += a*float32(c>>2&3) + m
			dst[j+2] += a*float32(c>>4&3) + m
			dst[j+3] += a*float32(c>>6) + m
		}
		if j < d {
			c := row[j/4]
			for k := 0; j < d; j, k = j+1, k+2 {
				dst[j] += a*float32(c>>k&3) + m
			}
		}
	}
}
