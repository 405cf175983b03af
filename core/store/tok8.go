package store

import (
	"fmt"

	ikernels "github.com/kvscope/kvscope/core/internal/kernels"
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
// len(slots). qsum[0] is set. ikernels.DotsU8 takes every slot's code row
// (SIMD in the page) in quant.DotPacked's order; a sealed slot's dot is
// then Scale·s + Min·Σq, a residual or sink slot's its own.
func (c *tokenCodec) dotsTok8(q []float32, slots []int, dst []float32) {
	state := c.s.state
	var qsum float32
	for _, v := range q {
		qsum += v
	}
	c.qsum[0] = qsum
	dst = dst[:len(slots)]
	ikernels.DotsU8(dst, q, c.codes, slots)
	for i, s := range slots {
		if state[s] != slotSealed {
			dst[i] = c.s.unsealedDot(q, s)
			continue
		}
		p := c.par[s]
		var t float32
		t += p.Scale*dst[i] + p.Min*qsum
		dst[i] = t
	}
}

// weightedTok8 is WeightedSum for the tok8 layout; dst has Dim values and
// is cleared, len(w) == len(slots). Each run of sealed slots goes to
// ikernels.AffineU8 with factors w·Scale and w·Min, so dst[j] sees the
// same additions in the same order as addAffine one token at a time; a
// residual or sink slot adds its half-precision row between runs.
func (c *tokenCodec) weightedTok8(w []float32, slots []int, dst []float32) {
	state := c.s.state
	w = w[:len(slots)]
	fa, fb := c.fa[:len(slots)], c.fb[:len(slots)]
	run := 0 // the first slot of the pending run of sealed slots
	for i, s := range slots {
		if state[s] == slotSealed {
			p := c.par[s]
			fa[i], fb[i] = w[i]*p.Scale, w[i]*p.Min
			continue
		}
		ikernels.AffineU8(dst, fa[run:i], fb[run:i], c.codes, slots[run:i])
		run = i + 1
		if state[s] == slotFree {
			panic(fmt.Sprintf("store: WeightedSum over free slot %d", s))
		}
		for j, h := range c.s.resRow(s) {
			dst[j] += w[i] * fp16(h)
		}
	}
	ikernels.AffineU8(dst, fa[run:], fb[run:], c.codes, slots[run:])
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
