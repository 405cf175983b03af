package fastmath

import "math"

// MassKL returns, over the cached positions ps (index i holds position
// ps[i]), the reference mass Σ_i w[ps[i]] and the divergence
// Σ_i c[i]·ln(c[i]/w[ps[i]]) over the terms where both weights are
// positive, each summed in float64 in order of i. c is the compressed
// attention (len(ps) values), w the reference row (indexed by position).
//
// The logarithm is Log's arithmetic written into the loop, so every term
// has Log's bits: Log is too large to inline, and a call per term costs
// more than its arithmetic under WebAssembly, where this loop runs once
// per cached token, query head and step.
func MassKL(c, w []float32, ps []int32) (mass, kl float64) {
	c = c[:len(ps)]
	for i, p := range ps {
		wf := float64(w[p])
		mass += wf
		wc := float64(c[i])
		if !(wc > 0 && wf > 0) {
			continue
		}
		x := wc / wf
		b := math.Float64bits(x)
		e := int64(b>>52&0x7ff) - 1023
		m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
		if m > math.Sqrt2 {
			m *= 0.5
			e++
		}
		s := (m - 1) / (m + 1)
		s2 := s * s
		lp := s * (2 + s2*(2.0/3+s2*(2.0/5+s2*(2.0/7+s2*(2.0/9+s2*(2.0/11))))))
		kl += wc * (float64(e)*math.Ln2 + lp)
	}
	return mass, kl
}
