package store

import (
	"math"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/quant"
)

// keyLike returns a key-like vector: Gaussian channels, channel 1 with a
// large offset (an outlier channel) and a per-token offset.
func keyLike(r *rand.Rand, dim int) []float32 {
	x := make([]float32, dim)
	off := r.NormFloat64() * 0.5
	for i := range x {
		x[i] = float32(r.NormFloat64() + off)
	}
	if dim > 1 {
		x[1] += 8
	}
	return x
}

// orthonormal returns rank×dim row-major orthonormal rows drawn from r.
func orthonormal(r *rand.Rand, rank, dim int) []float32 {
	out := make([]float32, rank*dim)
	quant.Orthonormal(out, rank, dim, r)
	return out
}

// dot64 returns Σ a_i b_i in float64.
func dot64(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// norm1 returns Σ |a_i|.
func norm1(a []float32) float64 {
	var s float64
	for _, v := range a {
		s += math.Abs(float64(v))
	}
	return s
}

// normInf returns max |a_i|.
func normInf(a []float32) float64 {
	var s float64
	for _, v := range a {
		s = max(s, math.Abs(float64(v)))
	}
	return s
}

// fp16Vec returns x rounded through FP16.
func fp16Vec(x []float32) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = quant.RoundFP16(v)
	}
	return out
}
