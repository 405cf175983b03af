// Package fastmath holds the kernels kvscope's softmaxes and dot products
// share.
package fastmath

import "math"

// ExpNeg returns e^x for x ≤ 0 in float32, within 3e-7 relative error of
// math.Exp on [−87.3, 0]; it returns 0 below −87.3 (where e^x underflows
// float32's normal range) and NaN for NaN. Softmax arguments are ≤ 0 once
// the maximum is subtracted, which is all callers need. It allocates
// nothing and is a few multiply-adds, several times cheaper than math.Exp.
func ExpNeg(x float32) float32 {
	if x < -87.3 {
		return 0
	}
	// x = n·ln2 + r with |r| ≤ ln2/2; e^x = 2^n · e^r. A NaN x yields a NaN r,
	// hence a NaN result.
	n := float32(math.Floor(float64(x*1.44269504088896341 + 0.5)))
	r := x - n*0.693359375 + n*2.12194440e-4 // ln2 split in two for accuracy
	// Degree-6 Taylor polynomial for e^r on |r| ≤ 0.35.
	p := ((((((1.0/720)*r+1.0/120)*r+1.0/24)*r+1.0/6)*r+0.5)*r+1)*r + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// Softmax replaces x by softmax(scale·x) in place, subtracting the maximum
// first for stability; scale must be positive. The exponentials are
// ExpNeg's; the weights are normalized by one reciprocal. It does nothing
// for an empty slice and allocates nothing.
func Softmax(x []float32, scale float32) {
	if len(x) == 0 {
		return
	}
	m := x[0]
	for _, v := range x[1:] {
		if v > m { // not the builtin max: its NaN handling is a call under wasm
			m = v
		}
	}
	var s float32
	for i, v := range x {
		e := ExpNeg((v - m) * scale)
		x[i] = e
		s += e
	}
	inv := 1 / s
	for i := range x {
		x[i] *= inv
	}
}
