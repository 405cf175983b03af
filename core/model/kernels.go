package model

import (
	"math"

	"github.com/kvscope/kvscope/core/internal/fastmath"
)

// matVec sets dst[i] = Σ_j w[i*len(x)+j]·x[j] for a row-major w of len(dst)
// rows. It works on blocks of four rows by four columns, so each x[j] is loaded
// once per four rows and loop overhead (costly under WebAssembly) is amortised.
func matVec(dst, w, x []float32) {
	n := len(x)
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		r0 := w[i*n : i*n+n][:len(x)]
		r1 := w[(i+1)*n : (i+1)*n+n][:len(x)]
		r2 := w[(i+2)*n : (i+2)*n+n][:len(x)]
		r3 := w[(i+3)*n : (i+3)*n+n][:len(x)]
		var s0, s1, s2, s3 float32
		j := 0
		for ; j+4 <= len(x); j += 4 {
			x0, x1, x2, x3 := x[j], x[j+1], x[j+2], x[j+3]
			s0 += r0[j]*x0 + r0[j+1]*x1 + r0[j+2]*x2 + r0[j+3]*x3
			s1 += r1[j]*x0 + r1[j+1]*x1 + r1[j+2]*x2 + r1[j+3]*x3
			s2 += r2[j]*x0 + r2[j+1]*x1 + r2[j+2]*x2 + r2[j+3]*x3
			s3 += r3[j]*x0 + r3[j+1]*x1 + r3[j+2]*x2 + r3[j+3]*x3
		}
		for ; j < len(x); j++ {
			s0 += r0[j] * x[j]
			s1 += r1[j] * x[j]
			s2 += r2[j] * x[j]
			s3 += r3[j] * x[j]
		}
		dst[i], dst[i+1], dst[i+2], dst[i+3] = s0, s1, s2, s3
	}
	for ; i < len(dst); i++ {
		dst[i] = dot(w[i*n:i*n+n], x)
	}
}

// scoresStrided sets att[t] = Σ_i q[i]·keys[t*stride+i] for every t: one query
// head against len(att) keys stored stride floats apart. It walks the keys once
// per four elements of q, holding those in locals, which is about twice as fast
// as one dot product per key when len(q) is small.
func scoresStrided(att, q, keys []float32, stride int) {
	clear(att)
	c := 0
	for ; c+4 <= len(q); c += 4 {
		q0, q1, q2, q3 := q[c], q[c+1], q[c+2], q[c+3]
		ks := keys[c:]
		for t := range att {
			k := ks[t*stride : t*stride+4 : t*stride+4]
			att[t] += q0*k[0] + q1*k[1] + q2*k[2] + q3*k[3]
		}
	}
	for ; c < len(q); c++ {
		qc, ks := q[c], keys[c:]
		for t := range att {
			att[t] += qc * ks[t*stride]
		}
	}
}

// weightedSumStrided sets out[i] = Σ_t att[t]·vals[t*stride+i]: the attention
// output of one head over len(att) values stored stride floats apart.
func weightedSumStrided(out, att, vals []float32, stride int) {
	c := 0
	for ; c+4 <= len(out); c += 4 {
		var o0, o1, o2, o3 float32
		vs := vals[c:]
		for t, a := range att {
			v := vs[t*stride : t*stride+4 : t*stride+4]
			o0 += a * v[0]
			o1 += a * v[1]
			o2 += a * v[2]
			o3 += a * v[3]
		}
		out[c], out[c+1], out[c+2], out[c+3] = o0, o1, o2, o3
	}
	for ; c < len(out); c++ {
		var o float32
		vs := vals[c:]
		for t, a := range att {
			o += a * vs[t*stride]
		}
		out[c] = o
	}
}

// dot returns Σ a[i]·b[i] over len(a) elements (b must be at least as long).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 8 {
		a8, b8 := a[:8:8], b[:8:8]
		s0 += a8[0]*b8[0] + a8[4]*b8[4]
		s1 += a8[1]*b8[1] + a8[5]*b8[5]
		s2 += a8[2]*b8[2] + a8[6]*b8[6]
		s3 += a8[3]*b8[3] + a8[7]*b8[7]
		a, b = a[8:], b[8:]
	}
	for i := range a {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy sets y[i] += a·x[i] over len(y) elements (x must be at least as long).
func axpy(y []float32, a float32, x []float32) {
	x = x[:len(y)]
	for len(y) >= 8 {
		y8, x8 := y[:8:8], x[:8:8]
		y8[0] += a * x8[0]
		y8[1] += a * x8[1]
		y8[2] += a * x8[2]
		y8[3] += a * x8[3]
		y8[4] += a * x8[4]
		y8[5] += a * x8[5]
		y8[6] += a * x8[6]
		y8[7] += a * x8[7]
		y, x = y[8:], x[8:]
	}
	for i := range y {
		y[i] += a * x[i]
	}
}

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
