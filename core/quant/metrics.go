package quant

import "math"

// RelFrobenius returns ‖x − x̂‖/‖x‖ (Euclidean norms, accumulated in
// float64). When ‖x‖ is 0 it returns 0 if x̂ is also all zeros and +Inf
// otherwise. It panics if the lengths differ.
func RelFrobenius(x, xhat []float32) float64 {
	num, den := sqErr(x, xhat)
	switch {
	case den > 0:
		return math.Sqrt(num / den)
	case num == 0:
		return 0
	}
	return math.Inf(1)
}

// MaxAbsError returns max |x[i] − x̂[i]|, 0 for empty slices. It panics if
// the lengths differ.
func MaxAbsError(x, xhat []float32) float64 {
	if len(x) != len(xhat) {
		panic("quant: MaxAbsError length mismatch")
	}
	var m float64
	for i := range x {
		m = max(m, math.Abs(float64(x[i])-float64(xhat[i])))
	}
	return m
}

// SNR returns the signal-to-noise ratio 10·log10(‖x‖²/‖x − x̂‖²) in
// decibels: +Inf when the reconstruction is exact, −Inf when x is all
// zeros but x̂ is not. It panics if the lengths differ.
func SNR(x, xhat []float32) float64 {
	num, den := sqErr(x, xhat)
	if num == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(den/num)
}

// sqErr returns ‖x − x̂‖² and ‖x‖².
func sqErr(x, xhat []float32) (num, den float64) {
	if len(x) != len(xhat) {
		panic("quant: metric length mismatch")
	}
	for i := range x {
		d := float64(x[i]) - float64(xhat[i])
		num += d * d
		den += float64(x[i]) * float64(x[i])
	}
	return num, den
}
