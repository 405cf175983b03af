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
