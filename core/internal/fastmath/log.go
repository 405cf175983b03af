package fastmath

import "math"

// Log returns ln x for positive normal x (x ≥ 2^-1022, finite) within
// 1e-10 relative error of math.Log (absolute 1e-10 near x = 1). The result
// is unspecified for zero, subnormal, negative, infinite or NaN x.
// It is a division and a few multiply-adds, with no call: math.Log's frexp
// and special cases cost more than the arithmetic under WebAssembly.
func Log(x float64) float64 {
	return logOf(split(x))
}

// split returns m in [√2/2, √2] and e with x = m·2^e, for positive normal
// finite x. With logOf it is Log in two halves, each small enough to
// inline: a loop that takes the logarithm per element (MassKL) writes
// logOf(split(x)) and gets Log's bits without a call.
func split(x float64) (m float64, e int64) {
	b := math.Float64bits(x)
	e = int64(b>>52&0x7ff) - 1023
	m = math.Float64frombits(b&(1<<52-1) | 1023<<52) // x = m·2^e, m in [1, 2)
	if m > math.Sqrt2 {
		m *= 0.5
		e++
	}
	return m, e
}

// logOf returns ln(m·2^e) for m in [√2/2, √2], as split leaves it.
func logOf(m float64, e int64) float64 {
	// ln m = 2·atanh(s) with s = (m−1)/(m+1), |s| ≤ 0.1716: the series to
	// s^11 leaves under 2e-11.
	s := (m - 1) / (m + 1)
	s2 := s * s
	p := s * (2 + s2*(2.0/3+s2*(2.0/5+s2*(2.0/7+s2*(2.0/9+s2*(2.0/11))))))
	return float64(e)*math.Ln2 + p
}

// LogSumExp returns log Σ exp(x[i]) for a non-empty x, computed stably:
// the maximum m subtracted in float32, the exponentials summed in float64,
// then m added back. It is how kvscope turns logits into log-probabilities
// (log p(t) = x[t] − LogSumExp(x)) everywhere: perplexities, next-token KL
// and the model sweep's curves agree bit for bit.
func LogSumExp(x []float32) float64 {
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	var s float64
	for _, v := range x {
		s += math.Exp(float64(v - m))
	}
	return float64(m) + math.Log(s)
}
