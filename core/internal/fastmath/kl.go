package fastmath

// MassKL returns, over the cached positions ps (index i holds position
// ps[i]), the reference mass Σ_i w[ps[i]] and the divergence
// Σ_i c[i]·ln(c[i]/w[ps[i]]) over the terms where both weights are
// positive, each summed in float64 in order of i. c is the compressed
// attention (len(ps) values), w the reference row (indexed by position).
//
// The logarithm is Log's two halves, split and logOf, inlined into the
// loop, so every term has Log's bits without a call: Log is too large to
// inline, and a call per term costs more than its arithmetic under
// WebAssembly, where this loop runs once per cached token, query head and
// step.
func MassKL(c, w []float32, ps []int32) (mass, kl float64) {
	c = c[:len(ps)]
	for i, p := range ps {
		wf := float64(w[p])
		mass += wf
		wc := float64(c[i])
		if !(wc > 0 && wf > 0) {
			continue
		}
		kl += wc * logOf(split(wc/wf))
	}
	return mass, kl
}
