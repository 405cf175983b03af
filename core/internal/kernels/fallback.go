package kernels

import "math"

// The Go path. Each function follows the order its exported counterpart
// states, step for step as kernels.wat does; the explicit float32
// conversions round each product before it is added, which also keeps the
// compiler from fusing a multiply and an add (the Go spec lets it fuse
// otherwise, and does on some ports). On amd64 and wasm they compile to
// nothing.

// dotGo is DotF32's row order: per chunk of four, s += ((p0+p1)+p2)+p3;
// then the tail one by one.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s float32
	j := 0
	for ; j+4 <= len(a); j += 4 {
		s += ((float32(a[j]*b[j]) + float32(a[j+1]*b[j+1])) + float32(a[j+2]*b[j+2])) + float32(a[j+3]*b[j+3])
	}
	for ; j < len(a); j++ {
		s += float32(a[j] * b[j])
	}
	return s
}

// dotsGo sets dst[t] = dotGo(rows[t·stride:][:len(x)], x) for every t, the
// rows of a matrix (stride len(x)) or the keys of an attention head. It
// takes four rows at a time, so each x value is loaded once per four rows
// and loop overhead is amortised; the rows' four running sums and the
// chunk's four x values stay in registers.
func dotsGo(dst, x, rows []float32, stride int) {
	n := len(x)
	t := 0
	for ; t+4 <= len(dst); t += 4 {
		r0 := rows[t*stride : t*stride+n][:len(x)]
		r1 := rows[(t+1)*stride : (t+1)*stride+n][:len(x)]
		r2 := rows[(t+2)*stride : (t+2)*stride+n][:len(x)]
		r3 := rows[(t+3)*stride : (t+3)*stride+n][:len(x)]
		var s0, s1, s2, s3 float32
		j := 0
		for ; j+4 <= len(x); j += 4 {
			x0, x1, x2, x3 := x[j], x[j+1], x[j+2], x[j+3]
			s0 += ((float32(r0[j]*x0) + float32(r0[j+1]*x1)) + float32(r0[j+2]*x2)) + float32(r0[j+3]*x3)
			s1 += ((float32(r1[j]*x0) + float32(r1[j+1]*x1)) + float32(r1[j+2]*x2)) + float32(r1[j+3]*x3)
			s2 += ((float32(r2[j]*x0) + float32(r2[j+1]*x1)) + float32(r2[j+2]*x2)) + float32(r2[j+3]*x3)
			s3 += ((float32(r3[j]*x0) + float32(r3[j+1]*x1)) + float32(r3[j+2]*x2)) + float32(r3[j+3]*x3)
		}
		for ; j < len(x); j++ {
			s0 += float32(r0[j] * x[j])
			s1 += float32(r1[j] * x[j])
			s2 += float32(r2[j] * x[j])
			s3 += float32(r3[j] * x[j])
		}
		dst[t], dst[t+1], dst[t+2], dst[t+3] = s0, s1, s2, s3
	}
	for ; t < len(dst); t++ {
		dst[t] = dotGo(rows[t*stride:t*stride+n], x)
	}
}

func matVecF32Go(dst, w, x []float32) { dotsGo(dst, x, w, len(x)) }

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

// matVecQ8_0Go and matVecQ4_0Go follow MatVecQ8_0's order: per block,
// lane sums a_l += q[4k+l]·x[4k+l] in increasing k, then
// s += d·((a0+a1) + (a2+a3)). They differ only in how a quant is read.

func matVecQ8_0Go(dst []float32, blocks []byte, x []float32) {
	nb := len(x) / BlockValues
	rb := nb * BlockBytesQ8_0
	for i := range dst {
		row := blocks[i*rb : (i+1)*rb]
		var s float32
		for b := range nb {
			blk := (*[BlockBytesQ8_0]byte)(row[b*BlockBytesQ8_0:])
			xb := (*[32]float32)(x[b*32:])
			q := blk[2:]
			var a0, a1, a2, a3 float32
			for j := 0; j < 32; j += 4 {
				a0 += float32(float32(int8(q[j])) * xb[j])
				a1 += float32(float32(int8(q[j+1])) * xb[j+1])
				a2 += float32(float32(int8(q[j+2])) * xb[j+2])
				a3 += float32(float32(int8(q[j+3])) * xb[j+3])
			}
			s += float32(f16(uint16(blk[0])|uint16(blk[1])<<8) * ((a0 + a1) + (a2 + a3)))
		}
		dst[i] = s
	}
}

func matVecQ4_0Go(dst []float32, blocks []byte, x []float32) {
	nb := len(x) / BlockValues
	rb := nb * BlockBytesQ4_0
	for i := range dst {
		row := blocks[i*rb : (i+1)*rb]
		var s float32
		for b := range nb {
			blk := (*[BlockBytesQ4_0]byte)(row[b*BlockBytesQ4_0:])
			xb := (*[32]float32)(x[b*32:])
			q := blk[2:] // quant j is byte j's low nibble, quant j+16 its high one
			var a0, a1, a2, a3 float32
			for j := 0; j < 16; j += 4 {
				a0 += float32(float32(int(q[j]&15)-8) * xb[j])
				a1 += float32(float32(int(q[j+1]&15)-8) * xb[j+1])
				a2 += float32(float32(int(q[j+2]&15)-8) * xb[j+2])
				a3 += float32(float32(int(q[j+3]&15)-8) * xb[j+3])
			}
			for j := 0; j < 16; j += 4 {
				a0 += float32(float32(int(q[j]>>4)-8) * xb[16+j])
				a1 += float32(float32(int(q[j+1]>>4)-8) * xb[16+j+1])
				a2 += float32(float32(int(q[j+2]>>4)-8) * xb[16+j+2])
				a3 += float32(float32(int(q[j+3]>>4)-8) * xb[16+j+3])
			}
			s += float32(f16(uint16(blk[0])|uint16(blk[1])<<8) * ((a0 + a1) + (a2 + a3)))
		}
		dst[i] = s
	}
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
