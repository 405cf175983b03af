package model

import (
	"math"

	"github.com/kvscope/kvscope/core/internal/fastmath"
)

// rmsNorm sets dst = x / sqrt(mean(x²) + eps) ⊙ w.
func rmsNorm(dst, x, w []float32, eps float32) {
	var ss float32
	for _, v := range x {
		ss += v * v
	}
	scale := float32(1 / math.Sqrt(float64(ss/float32(len(x))+eps)))
	for i, v := range x {
		dst[i] = w[i] * (scale * v)
	}
}

// Softmax replaces x by softmax(x) in place, subtracting the maximum first for
// stability. It does nothing for an empty slice.
func Softmax(x []float32) { fastmath.Softmax(x, 1) }

// gelu returns GELU's tanh approximation, 0.5·x·(1 + tanh(√(2/π)·(x +
// 0.044715·x³))), as Gemma's feed-forward network uses it.
func gelu(x float32) float32 {
	const c = 0.7978845608028654 // √(2/π)
	u := float64(x)
	return float32(0.5 * u * (1 + math.Tanh(c*(u+0.044715*u*u*u))))
}

// silu returns x·σ(x) = x / (1 + e^−x), using fastmath.ExpNeg on the side where the
// exponent is not positive.
func silu(x float32) float32 {
	if x >= 0 {
		return x / (1 + fastmath.ExpNeg(-x))
	}
	e := fastmath.ExpNeg(x) // e^x; x/(1+e^−x) = x·e^x/(e^x+1)
	return x * e / (e + 1)
}
