package kernels

import "math"

// The Go path. Each function follows the order its exported counterpart
// states, step for step as kernels.wat does; the explicit float32
// conversions round each product before it is added, which also keeps the
// compiler from fusing a multiply and an add (the Go spec lets it fuse
// otherwise, and does on some ports). On amd64 and wasm they compile to
// nothing.

// dotGo is DotF32's row order: eight lane sums from +0, lane l taking
// the products p_j = a[j]·b[j] of the columns j ≡ l (mod 8) in increasing
// j over the whole chunks of eight; if four or more columns remain, lanes
// 0..3 take the next four; then s = ((a0+a4) + (a2+a6)) + ((a1+a5) +
// (a3+a7)) and the last len(a) mod 4 products are added one by one. The
// lanes are eight independent sums, so the loop is bound by loads rather
// than by the latency of one running sum.
func dotGo(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var a0, a1, a2, a3, a4, a5, a6, a7 float32
	j := 0
	for ; j+8 <= n; j += 8 {
		r, x := (*[8]float32)(a[j:]), (*[8]float32)(b[j:])
		a0 += float32(r[0] * x[0])
		a1 += float32(r[1] * x[1])
		a2 += float32(r[2] * x[2])
		a3 += float32(r[3] * x[3])
		a4 += float32(r[4] * x[4])
		a5 += float32(r[5] * x[5])
		a6 += float32(r[6] * x[6])
		a7 += float32(r[7] * x[7])
	}
	if j+4 <= n {
		r, x := (*[4]float32)(a[j:]), (*[4]float32)(b[j:])
		a0 += float32(r[0] * x[0])
		a1 += float32(r[1] * x[1])
		a2 += float32(r[2] * x[2])
		a3 += float32(r[3] * x[3])
		j += 4
	}
	s := ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))
	for ; j < n; j++ {
		s += float32(a[j] * b[j])
	}
	return s
}

// dotsGo sets dst[t] = dotGo(rows[t·stride:][:len(x)], x) for every t, the
// rows of a matrix (stride len(x)) or the keys of an attention head: four
// rows at a time through dots4Go, the rest through dotGo. Each row's
// result depends on that row and x only, so the SIMD path may group rows
// otherwise and the prompt's MulMat may take slices of rows without
// changing a bit.
func dotsGo(dst, x, rows []float32, stride int) {
	n := len(x)
	t := 0
	for ; t+4 <= len(dst); t += 4 {
		dots4Go((*[4]float32)(dst[t:]), x, rows[t*stride:t*stride+n], rows[(t+1)*stride:(t+1)*stride+n],
			rows[(t+2)*stride:(t+2)*stride+n], rows[(t+3)*stride:(t+3)*stride+n])
	}
	for ; t < len(dst); t++ {
		dst[t] = dotGo(rows[t*stride:t*stride+n], x)
	}
}

// dots4Go sets dst[k] = dotGo(r_k, x) for four rows of len(x) values. It
// takes the eight lanes one at a time, each over all four rows: a lane is
// an independent sum, so its order within the row is dotGo's whatever
// the lanes' order. Four running sums and one x value per column stay in
// registers (Go's register allocator spills with eight sums a row), and
// each x value is loaded once per four rows, as dotGo cannot.
func dots4Go(dst *[4]float32, x, r0, r1, r2, r3 []float32) {
	n := len(x)
	c8 := n &^ 7
	var lanes [4][8]float32
	x8 := x[:c8]
	q0, q1, q2, q3 := r0[:len(x8)], r1[:len(x8)], r2[:len(x8)], r3[:len(x8)]
	for l := range 8 {
		var s0, s1, s2, s3 float32
		for j := l; j < len(x8); j += 8 {
			xv := x8[j]
			s0 += float32(q0[j] * xv)
			s1 += float32(q1[j] * xv)
			s2 += float32(q2[j] * xv)
			s3 += float32(q3[j] * xv)
		}
		lanes[0][l], lanes[1][l], lanes[2][l], lanes[3][l] = s0, s1, s2, s3
	}
	rs := [4][]float32{r0[:n], r1[:n], r2[:n], r3[:n]}
	if n&4 != 0 {
		x4 := (*[4]float32)(x[c8:])
		for k, r := range rs {
			r4 := (*[4]float32)(r[c8:])
			for l := range 4 {
				lanes[k][l] += float32(r4[l] * x4[l])
			}
		}
	}
	for k, r := range rs {
		a := &lanes[k]
		s := ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]))
		for j := n &^ 3; j < n; j++ {
			s += float32(r[j] * x[j])
		}
		dst[k] = s
	}
}

func matVecF32Go(dst, w, x []float32) { dotsGo(dst, x, w, len(x)) }

// matMatF32Go takes four rows at a time against every vector of x, as
// kernels.wat does, so the rows stay in cache while the vectors stream.
func matMatF32Go(dst, w, x []float32, rows, cols, stride int) {
	count := len(x) / cols
	for i := 0; i < rows; i += 4 {
		k := min(4, rows-i)
		for t := range count {
			dotsGo(dst[t*stride+i:t*stride+i+k], x[t*cols:(t+1)*cols], w[i*cols:(i+k)*cols], cols)
		}
	}
}

func scoresGo(att, q, keys []float32, stride int) { dotsGo(att, q, keys, stride) }

// f16 widens an IEEE half-precision value exactly, as kernels.wat does:
// the magnitude bits moved to a float32's place and scaled by 2^112 (right
// for subnormal halves too), infinities and NaNs given the all-ones
// exponent, then the sign bit.
func f16(h uint16) float32 {
	m := uint32(h&0x7fff) << 13
	var v float32
	if h&0x7c00 == 0x7c00 {
		v = math.Float32frombits(m | 0x7f800000)
	} else {
		v = math.Float32frombits(m) * 0x1p112
	}
	return math.Float32frombits(math.Float32bits(v) | uint32(h&0x8000)<<16)
}

// weightedSumGo takes four outputs at a time, each summed in increasing t.
func weightedSumGo(out, att, vals []float32, stride int) {
	c := 0
	for ; c+4 <= len(out); c += 4 {
		var o0, o1, o2, o3 float32
		vs := vals[c:]
		for t, a := range att {
			v := (*[4]float32)(vs[t*stride:])
			o0 += float32(a * v[0])
			o1 += float32(a * v[1])
			o2 += float32(a * v[2])
			o3 += float32(a * v[3])
		}
		out[c], out[c+1], out[c+2], out[c+3] = o0, o1, o2, o3
	}
	for ; c < len(out); c++ {
		var o float32
		vs := vals[c:]
		for t, a := range att {
			o += float32(a * vs[t*stride])
		}
		out[c] = o
	}
}
