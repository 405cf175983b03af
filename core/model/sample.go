package model

import (
	"math"
	"math/rand/v2"
)

// Argmax returns the index of the largest element (the first on ties), or -1
// for an empty slice.
func Argmax(x []float32) int {
	best := -1
	for i, v := range x {
		if best < 0 || v > x[best] {
			best = i
		}
	}
	return best
}

// Sampler picks next tokens from logits: greedily (Argmax) when its temperature
// is ≤ 0, else from softmax(logits/temperature) with a PCG generator seeded at
// construction, so a seed fixes the whole sequence.
type Sampler struct {
	temperature float32
	rng         *rand.Rand
	probs       []float32
}

// NewSampler returns a sampler with the given temperature and seed.
func NewSampler(temperature float32, seed uint64) *Sampler {
	return &Sampler{temperature: temperature, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Sample returns a token id drawn from logits, which it does not modify. It
// returns -1 for empty logits and allocates only when the vocabulary grows.
func (s *Sampler) Sample(logits []float32) int {
	if s.temperature <= 0 || len(logits) == 0 {
		return Argmax(logits)
	}
	if cap(s.probs) < len(logits) {
		s.probs = make([]float32, len(logits))
	}
	p := s.probs[:len(logits)]
	inv := 1 / s.temperature
	for i, v := range logits {
		p[i] = v * inv
	}
	Softmax(p)
	u := float32(s.rng.Float64())
	var cdf float32
	for i, v := range p {
		cdf += v
		if u < cdf {
			return i
		}
	}
	// Rounding left the total just below u: take the last token with mass.
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] > 0 || math.IsNaN(float64(p[i])) {
			return i
		}
	}
	return len(p) - 1
}
