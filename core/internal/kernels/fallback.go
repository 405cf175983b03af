package kernels

import (
	"math"
	"runtime"
)

// The Go path. Each function follows the order its exported counterpart
// states, step for step as kernels.wat does; the explicit float32
// conversions round each product before it is added, which also keeps the
// compiler from fusing a multiply and an add (the Go spec lets it fuse
// otherwise, and does on some ports).

// pairRows makes dotsGo take two rows at a time natively, where the eight
// lane sums and the shared x values fit the registers; under WebAssembly
// (V8 then spills them) one row at a time is faster.
const pairRows = runtime.GOARCH != "wasm"

// dotGo is DotF32: per chunk of 16, lane sums s_l += (p_l + p_{4+l}) +
// (p_{8+l} + p_{12+l}); then (s0+s2) + (s1+s3); then the tail in order.
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 16 && len(b) >= 16 {
		a16, b16 := (*[16]float32)(a), (*[16]float32)(b)
		s0 += (float32(a16[0]*b16[0]) + float32(a16[4]*b16[4])) + (float32(a16[8]*b16[8]) + float32(a16[12]*b16[12]))
		s1 += (float32(a16[1]*b16[1]) + float32(a16[5]*b16[5])) + (float32(a16[9]*b16[9]) + float32(a16[13]*b16[13]))
		s2 += (float32(a16[2]*b16[2]) + float32(a16[6]*b16[6])) + (float32(a16[10]*b16[10]) + float32(a16[14]*b16[14]))
		s3 += (float32(a16[3]*b16[3]) + float32(a16[7]*b16[7])) + (float32(a16[11]*b16[11]) + float32(a16[15]*b16[15]))
		a, b = a[16:], b[16:]
	}
	r := (s0 + s2) + (s1 + s3)
	for i, v := range a {
		r += float32(v * b[i])
	}
	return r
}

// dotsGo sets dst[t] = dotGo(rows[t·stride:][:len(x)], x) for every t: the
// rows of a matrix (stride len(x)) or the keys of an attention head.
func dotsGo(dst, x, rows []float32, stride int) {
	n := len(x)
	t := 0
	if pairRows {
		for ; t+2 <= len(dst); t += 2 {
			a, c, b := rows[t*stride:t*stride+n], rows[(t+1)*stride:(t+1)*stride+n], x
			var s0, s1, s2, s3, u0, u1, u2, u3 float32
			for len(a) >= 16 && len(c) >= 16 && len(b) >= 16 {
				a16, c16, b16 := (*[16]float32)(a), (*[16]float32)(c), (*[16]float32)(b)
				x0, x4, x8, x12 := b16[0], b16[4], b16[8], b16[12]
				s0 += (float32(a16[0]*x0) + float32(a16[4]*x4)) + (float32(a16[8]*x8) + float32(a16[12]*x12))
				u0 += (float32(c16[0]*x0) + float32(c16[4]*x4)) + (float32(c16[8]*x8) + float32(c16[12]*x12))
				x1, x5, x9, x13 := b16[1], b16[5], b16[9], b16[13]
				s1 += (float32(a16[1]*x1) + float32(a16[5]*x5)) + (float32(a16[9]*x9) + float32(a16[13]*x13))
				u1 += (float32(c16[1]*x1) + float32(c16[5]*x5)) + (float32(c16[9]*x9) + float32(c16[13]*x13))
				x2, x6, x10, x14 := b16[2], b16[6], b16[10], b16[14]
				s2 += (float32(a16[2]*x2) + float32(a16[6]*x6)) + (float32(a16[10]*x10) + float32(a16[14]*x14))
				u2 += (float32(c16[2]*x2) + float32(c16[6]*x6)) + (float32(c16[10]*x10) + float32(c16[14]*x14))
				x3, x7, x11, x15 := b16[3], b16[7], b16[11], b16[15]
				s3 += (float32(a16[3]*x3) + float32(a16[7]*x7)) + (float32(a16[11]*x11) + float32(a16[15]*x15))
				u3 += (float32(c16[3]*x3) + float32(c16[7]*x7)) + (float32(c16[11]*x11) + float32(c16[15]*x15))
				a, c, b = a[16:], c[16:], b[16:]
			}
			r, v := (s0+s2)+(s1+s3), (u0+u2)+(u1+u3)
			for i, xi := range b {
				r += float32(a[i] * xi)
				v += float32(c[i] * xi)
			}
			dst[t], dst[t+1] = r, v
		}
	}
	for ; t < len(dst); t++ {
		dst[t] = dotGo(rows[t*stride:t*stride+n], x)
	}
}

// f16 widens an IEEE half-precision value exactly, as kernels.wat's $f16
// does: the magnitude bits moved to a float32's place and scaled by 2^112
// (right for subnormal halves too), infinities and NaNs given the all-ones
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

// matVecQuantGo is MatVecQ8_0 (blockBytes 34) and MatVecQ4_0 (18): a Q4_0
// block's quants are unpacked to bytes first, then both dot the same way.
func matVecQuantGo(dst []float32, blocks []byte, x []float32, blockBytes int) {
	nb := len(x) / BlockValues
	rb := nb * blockBytes
	var unpacked [32]byte
	for i := range dst {
		row, xs := blocks[i*rb:(i+1)*rb], x
		var a0, a1, a2, a3 float32
		for len(row) >= blockBytes && len(xs) >= 32 {
			d := f16(uint16(row[0]) | uint16(row[1])<<8)
			q := &unpacked
			if blockBytes == BlockBytesQ8_0 {
				q = (*[32]byte)(row[2:])
			} else {
				for j, v := range (*[16]byte)(row[2:]) {
					unpacked[j] = v&15 - 8
					unpacked[j+16] = v>>4 - 8
				}
			}
			xb := (*[32]float32)(xs)
			// Lane sums t_l = ((p0+p1)+(p2+p3)) + ((p4+p5)+(p6+p7)) with
			// p_k = q[4k+l]·x[4k+l].
			t0 := ((float32(float32(int8(q[0]))*xb[0]) + float32(float32(int8(q[4]))*xb[4])) +
				(float32(float32(int8(q[8]))*xb[8]) + float32(float32(int8(q[12]))*xb[12]))) +
				((float32(float32(int8(q[16]))*xb[16]) + float32(float32(int8(q[20]))*xb[20])) +
					(float32(float32(int8(q[24]))*xb[24]) + float32(float32(int8(q[28]))*xb[28])))
			t1 := ((float32(float32(int8(q[1]))*xb[1]) + float32(float32(int8(q[5]))*xb[5])) +
				(float32(float32(int8(q[9]))*xb[9]) + float32(float32(int8(q[13]))*xb[13]))) +
				((float32(float32(int8(q[17]))*xb[17]) + float32(float32(int8(q[21]))*xb[21])) +
					(float32(float32(int8(q[25]))*xb[25]) + float32(float32(int8(q[29]))*xb[29])))
			t2 := ((float32(float32(int8(q[2]))*xb[2]) + float32(float32(int8(q[6]))*xb[6])) +
				(float32(float32(int8(q[10]))*xb[10]) + float32(float32(int8(q[14]))*xb[14]))) +
				((float32(float32(int8(q[18]))*xb[18]) + float32(float32(int8(q[22]))*xb[22])) +
					(float32(float32(int8(q[26]))*xb[26]) + float32(float32(int8(q[30]))*xb[30])))
			t3 := ((float32(float32(int8(q[3]))*xb[3]) + float32(float32(int8(q[7]))*xb[7])) +
				(float32(float32(int8(q[11]))*xb[11]) + float32(float32(int8(q[15]))*xb[15]))) +
				((float32(float32(int8(q[19]))*xb[19]) + float32(float32(int8(q[23]))*xb[23])) +
					(float32(float32(int8(q[27]))*xb[27]) + float32(float32(int8(q[31]))*xb[31])))
			a0 += float32(d * t0)
			a1 += float32(d * t1)
			a2 += float32(d * t2)
			a3 += float32(d * t3)
			row, xs = row[blockBytes:], xs[32:]
		}
		dst[i] = (a0 + a2) + (a1 + a3)
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

func matVecF32Go(dst, w, x []float32) { dotsGo(dst, x, w, len(x)) }

func scoresGo(att, q, keys []float32, stride int) { dotsGo(att, q, keys, stride) }

func matVecQ8_0Go(dst []float32, blocks []byte, x []float32) {
	matVecQuantGo(dst, blocks, x, BlockBytesQ8_0)
}

func matVecQ4_0Go(dst []float32, blocks []byte, x []float32) {
	matVecQuantGo(dst, blocks, x, BlockBytesQ4_0)
}
