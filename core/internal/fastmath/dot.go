package fastmath

// Dot returns Σ a[i]·b[i] over len(a) elements (b at least as long) in one
// running float32 sum, term by term in order: callers that compute a dot
// elsewhere in the same order (several rows at once, say) get the same
// bits.
func Dot(a, b []float32) float32 {
	var s float32
	b = b[:len(a)]
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// Dot4 returns Σ a[i]·b[i] over len(a) elements (b at least as long) in
// four partial sums, i mod 4 for the first len(a)/4·4 terms, the rest
// added to the first, then (s0+s1)+(s2+s3): the additions of one sum wait
// on each other, the four sums do not. The order is fixed, so the result
// is deterministic. It serves float32 rows (the store's random matrices)
// and float64 ones (the low-rank factorizations) alike.
func Dot4[T float32 | float64](a, b []T) T {
	b = b[:len(a)]
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(a); i += 4 {
		a4, b4 := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += a4[0] * b4[0]
		s1 += a4[1] * b4[1]
		s2 += a4[2] * b4[2]
		s3 += a4[3] * b4[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
