package model

import (
	"fmt"
	"math"
)

// RoPE rotates x in place to absolute position pos. x holds one or more heads of
// headDim elements each; within a head, each adjacent pair (x[2i], x[2i+1]) is
// rotated by the angle pos·base^(−2i/headDim). Rotating by pos and then by −pos
// restores x up to rounding. It costs headDim/2 sine/cosine evaluations plus
// len(x) multiply-adds and allocates nothing.
//
// RoPE panics if headDim is not positive and even or len(x) is not a multiple of
// headDim (programmer errors).
func RoPE(x []float32, pos, headDim int, base float32) {
	if headDim <= 0 || headDim%2 != 0 || len(x)%headDim != 0 {
		panic(fmt.Sprintf("model: RoPE: len(x) %d, headDim %d: want an even headDim dividing len(x)", len(x), headDim))
	}
	for i := 0; i < headDim/2; i++ {
		freq := math.Pow(float64(base), -float64(2*i)/float64(headDim))
		sin, cos := math.Sincos(float64(pos) * freq)
		c, s := float32(cos), float32(sin)
		for h := 0; h < len(x); h += headDim {
			a, b := x[h+2*i], x[h+2*i+1]
			x[h+2*i] = a*c - b*s
			x[h+2*i+1] = a*s + b*c
		}
	}
}

// KVHead returns the key/value head that query head h reads under grouped-query
// attention with the given head counts: h / (heads/kvHeads). heads must be a
// positive multiple of kvHeads.
func KVHead(h, heads, kvHeads int) int {
	return h / (heads / kvHeads)
}
