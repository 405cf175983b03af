package gguf

import "math"

// The K-quants: super-blocks of 256 values (ggml-common.h block_q4_K,
// block_q5_K, block_q6_K).
//
//	Q4_K (144 bytes): d, dmin (halves), 12 scale bytes, 128 quant bytes.
//	  Eight sub-blocks of 32 values, each with a 6-bit scale sc and a
//	  6-bit min m packed in the 12 bytes (scaleMinK4). Quant byte run c
//	  (32 bytes, c < 4) holds sub-block 2c in its low nibbles and 2c+1 in
//	  its high ones. w = d·sc·q − dmin·m.
//	Q5_K (176 bytes): d, dmin, 12 scale bytes as Q4_K, 32 bytes qh, 128
//	  quant bytes as Q4_K. The fifth bit of value l of sub-block 2c is bit
//	  2c of qh[l], of sub-block 2c+1 bit 2c+1. w = d·sc·(q + 16·h) − dmin·m.
//	Q6_K (210 bytes): ql[128], qh[64], 16 int8 scales, then d at offset
//	  208. Each half n of 128 values uses ql[64n:], qh[32n:] and
//	  scales[8n:]; for l < 32, values l, l+32, l+64, l+96 of the half are
//	  the low nibble of ql[l], the low nibble of ql[l+32], the high nibble
//	  of ql[l], the high nibble of ql[l+32], each with two high bits from
//	  qh[l] (bits 0–1, 2–3, 4–5, 6–7), minus 32; their scales are
//	  scales[l/16 + 0, 2, 4, 6]. w = d·scale·q.
var (
	codecQ4_K = Codec{quant: quantQ4_K}
	codecQ5_K = Codec{quant: quantQ5_K}
	codecQ6_K = Codec{quant: quantQ6_K}
)

// scaleMinK4 returns the 6-bit scale and min of sub-block j (< 8) packed
// in the 12 scale bytes of a Q4_K or Q5_K block (ggml's get_scale_min_k4):
// sub-blocks 0–3 use the low 6 bits of q[j] and q[j+4]; sub-blocks 4–7 the
// nibbles of q[j+4] and, as their top two bits, the high bits of q[j−4]
// and q[j].
func scaleMinK4(j int, q *[12]byte) (sc, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&0xF | q[j-4]>>6<<4, q[j+4]>>4 | q[j]>>6<<4
}

// putScaleMinK4 packs the 6-bit scale and min of sub-block j, the inverse
// of scaleMinK4; q must start zeroed.
func putScaleMinK4(j int, q *[12]byte, sc, m uint8) {
	if j < 4 {
		q[j], q[j+4] = sc, m
		return
	}
	q[j+4] = sc&0xF | m&0xF<<4
	q[j-4] |= sc >> 4 << 6
	q[j] |= m >> 4 << 6
}

// kSubScales returns the multipliers of the eight sub-blocks of the Q4_K
// or Q5_K block b: value l of sub-block j is ds[j]·q[l] − dm[j], with
// ds[j] = d·sc and dm[j] = dmin·m.
func kSubScales(b []byte) (ds, dm [8]float32) {
	d, dmin := half(b[0:2]), half(b[2:4])
	sc := (*[12]byte)(b[4:16])
	for j := range 8 {
		s, m := scaleMinK4(j, sc)
		ds[j], dm[j] = d*float32(s), dmin*float32(m)
	}
	return ds, dm
}

// Q4_K and Q5_K dequantize alike but for Q5_K's fifth bits. One loop for
// both (the fifth bits zero for Q4_K) dequantized Q4_K 30–60% slower
// (BenchmarkDequantize), and model's Matrix.Row and MulMat run on it: each
// keeps its own loop.

func dequantQ4_K(dst []float32, src []byte) {
	for ; len(dst) >= 256; dst, src = dst[256:], src[144:] {
		b, y := (*[144]byte)(src), (*[256]float32)(dst)
		ds, dm := kSubScales(b[:])
		for c := range 4 {
			d1, mn1, d2, mn2 := ds[2*c], dm[2*c], ds[2*c+1], dm[2*c+1]
			lo, hi := (*[32]float32)(y[64*c:]), (*[32]float32)(y[64*c+32:])
			for l, v := range (*[32]byte)(b[16+32*c:]) {
				lo[l] = float32(d1*float32(v&15)) - mn1
				hi[l] = float32(d2*float32(v>>4)) - mn2
			}
		}
	}
}

func dequantQ5_K(dst []float32, src []byte) {
	for ; len(dst) >= 256; dst, src = dst[256:], src[176:] {
		b, y := (*[176]byte)(src), (*[256]float32)(dst)
		qh := (*[32]byte)(b[16:48])
		ds, dm := kSubScales(b[:])
		for c := range 4 {
			d1, mn1, d2, mn2 := ds[2*c], dm[2*c], ds[2*c+1], dm[2*c+1]
			lo, hi := (*[32]float32)(y[64*c:]), (*[32]float32)(y[64*c+32:])
			for l, v := range (*[32]byte)(b[48+32*c:]) {
				h := qh[l] >> (2 * c)
				lo[l] = float32(d1*float32(v&15|h<<4&16)) - mn1
				hi[l] = float32(d2*float32(v>>4|h<<3&16)) - mn2
			}
		}
	}
}

func quantQ4_K(dst []byte, x []float32) { quantK45(dst, x, false) }
func quantQ5_K(dst []byte, x []float32) { quantK45(dst, x, true) }

// quantK45 is quantize_row_q4_K_ref, or if five quantize_row_q5_K_ref
// (5-bit quants, their fifth bits in qh, and a search over other trial
// scales): per sub-block a scale and min from makeQKX2Quants, both
// quantized to 6 bits against the block's largest, then every quant
// recomputed from the stored scales.
func quantK45(dst []byte, x []float32, five bool) {
	bb, qs, nmax, rmin, nstep := 144, 16, 15, float32(-1), 20
	if five {
		bb, qs, nmax, rmin, nstep = 176, 48, 31, -0.5, 15
	}
	var L, laux [32]uint8
	var q [256]uint8
	var none [32]byte // Q4_K's fifth bits: all 0, and not stored
	for ; len(x) >= 256; dst, x = dst[bb:], x[256:] {
		b, xb := dst[:bb:bb], (*[256]float32)(x)
		scales, mins := kScalesMins(xb, nmax, rmin, 0.1, nstep, &L, &laux, q[:])
		packScalesK4(b, &scales, &mins)
		kRequant(xb, b, nmax, q[:])
		qh := &none
		if five {
			qh = (*[32]byte)(b[16:48])
			clear(qh[:])
		}
		for c := range 4 {
			for l := range 32 {
				lo, hi := q[64*c+l], q[64*c+32+l]
				b[qs+32*c+l] = lo&15 | hi&15<<4
				qh[l] |= lo>>4<<(2*c) | hi>>4<<(2*c+1)
			}
		}
	}
}

func dequantQ6_K(dst []float32, src []byte) {
	for ; len(dst) >= 256; dst, src = dst[256:], src[210:] {
		b := (*[210]byte)(src)
		d := half(b[208:210])
		for n := range 2 {
			ql := (*[64]byte)(b[64*n:])
			qh := (*[32]byte)(b[128+32*n:])
			sc := (*[8]byte)(b[192+8*n:])
			y := (*[128]float32)(dst[128*n:])
			for l := range 32 {
				is := l / 16
				h := qh[l]
				q1 := int8(ql[l]&15|h&3<<4) - 32
				q2 := int8(ql[l+32]&15|h>>2&3<<4) - 32
				q3 := int8(ql[l]>>4|h>>4&3<<4) - 32
				q4 := int8(ql[l+32]>>4|h>>6&3<<4) - 32
				y[l] = float32(d*float32(int8(sc[is]))) * float32(q1)
				y[l+32] = float32(d*float32(int8(sc[is+2]))) * float32(q2)
				y[l+64] = float32(d*float32(int8(sc[is+4]))) * float32(q3)
				y[l+96] = float32(d*float32(int8(sc[is+6]))) * float32(q4)
			}
		}
	}
}

// quantQ6_K is quantize_row_q6_K_ref: per sub-block of 16 a scale from
// makeQXQuants, the scales quantized to int8 against the largest, then
// every quant recomputed from the stored scales.
func quantQ6_K(dst []byte, x []float32) {
	var L [256]int8
	var scales [16]float32
	for ; len(x) >= 256; dst, x = dst[210:], x[256:] {
		b, xb := (*[210]byte)(dst), (*[256]float32)(x)
		var maxScale, maxAbs float32
		for ib := range 16 {
			s := makeQXQuants(32, xb[16*ib:16*ib+16], L[16*ib:16*ib+16])
			scales[ib] = s
			if a := abs32(s); a > maxAbs {
				maxAbs, maxScale = a, s
			}
		}
		if maxAbs < groupMaxEps {
			clear(b[:])
			continue
		}
		iscale := -128 / maxScale
		d := putHalf(b[208:210], 1/iscale)
		sc := (*[16]byte)(b[192:208])
		for ib := range 16 {
			sc[ib] = byte(int8(min(127, nearestInt(iscale*scales[ib]))))
		}
		for j := range 16 {
			dj := d * float32(int8(sc[j]))
			if dj == 0 {
				continue
			}
			for ii := range 16 {
				l := nearestInt(xb[16*j+ii] / dj)
				L[16*j+ii] = int8(max(-32, min(31, l)) + 32)
			}
		}
		for n := range 2 {
			ql := (*[64]byte)(b[64*n:])
			qh := (*[32]byte)(b[128+32*n:])
			v := (*[128]int8)(L[128*n:])
			for l := range 32 {
				q1, q2, q3, q4 := uint8(v[l]), uint8(v[l+32]), uint8(v[l+64]), uint8(v[l+96])
				ql[l] = q1&15 | q3&15<<4
				ql[l+32] = q2&15 | q4&15<<4
				qh[l] = q1>>4 | q2>>4<<2 | q3>>4<<4 | q4>>4<<6
			}
		}
	}
}

// The scale searches of ggml's reference K-quantizers (ggml-quants.c),
// ported operation for operation.

// groupMaxEps is ggml's GROUP_MAX_EPS: a group with no larger magnitude
// is all zero.
const groupMaxEps = 1e-15

// nearestInt rounds to the nearest integer, ties to even (ggml's
// nearest_int, exact for |f| < 2^22).
func nearestInt(f float32) int { return int(math.RoundToEven(float64(f))) }

// kScalesMins runs makeQKX2Quants on the eight sub-blocks of 32 of a Q4_K
// or Q5_K block, with ggml's weights √(mean x²) + |x|, and returns their
// scales and (negated) mins. L, laux and q are scratch.
func kScalesMins(x *[256]float32, nmax int, rmin, rdelta float32, nstep int, L, laux *[32]uint8, q []uint8) (scales, mins [8]float32) {
	var w [32]float32
	for j := range 8 {
		xs := x[32*j : 32*j+32]
		var sumX2 float32
		for _, v := range xs {
			sumX2 += v * v
		}
		av := float32(math.Sqrt(float64(sumX2 / 32)))
		for l, v := range xs {
			w[l] = av + abs32(v)
		}
		scales[j], mins[j] = makeQKX2Quants(nmax, xs, w[:], L[:], laux[:], rmin, rdelta, nstep, false)
		copy(q[32*j:], L[:])
	}
	return scales, mins
}

// packScalesK4 quantizes the eight scales and mins to 6 bits against the
// largest of each, packs them into b[4:16] and writes d and dmin to b[0:4].
func packScalesK4(b []byte, scales, mins *[8]float32) {
	var maxScale, maxMin float32
	for j := range 8 {
		if scales[j] > maxScale {
			maxScale = scales[j]
		}
		if mins[j] > maxMin {
			maxMin = mins[j]
		}
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxMin > 0 {
		invMin = 63 / maxMin
	}
	sc := (*[12]byte)(b[4:16])
	clear(sc[:])
	for j := range 8 {
		ls := min(63, uint8(nearestInt(invScale*scales[j])))
		lm := min(63, uint8(nearestInt(invMin*mins[j])))
		putScaleMinK4(j, sc, ls, lm)
	}
	putHalf(b[0:2], maxScale/63)
	putHalf(b[2:4], maxMin/63)
}

// kRequant recomputes the quants (0…nmax) of each sub-block of 32 from the
// scales and mins stored in the Q4_K or Q5_K block b; a sub-block whose
// scale is 0 keeps the quants already in q.
func kRequant(x *[256]float32, b []byte, nmax int, q []uint8) {
	ds, dm := kSubScales(b)
	for j := range 8 {
		if ds[j] == 0 {
			continue
		}
		for ii := range 32 {
			l := nearestInt((x[32*j+ii] + dm[j]) / ds[j])
			q[32*j+ii] = uint8(max(0, min(nmax, l)))
		}
	}
}

// makeQKX2Quants is ggml's make_qkx2_quants: the scale and min (returned
// negated, as the_min) of an affine quantization x ≈ scale·L + min with L
// in 0…nmax, minimizing the weighted squared (or absolute, useMad) error
// over nstep+1 trial scales around nmax/(max − min). L receives the
// quants; laux is scratch; both hold at least len(x) values.
func makeQKX2Quants(nmax int, x, weights []float32, L, laux []uint8, rmin, rdelta float32, nstep int, useMad bool) (float32, float32) {
	n := len(x)
	lo, hi := x[0], x[0]
	sumW := weights[0]
	sumX := sumW * x[0]
	for i := 1; i < n; i++ {
		if x[i] < lo {
			lo = x[i]
		}
		if x[i] > hi {
			hi = x[i]
		}
		w := weights[i]
		sumW += w
		sumX += w * x[i]
	}
	if lo > 0 {
		lo = 0
	}
	if hi == lo {
		clear(L[:n])
		return 0, -lo
	}
	errOf := func(diff float32) float32 {
		if useMad {
			return abs32(diff)
		}
		return diff * diff
	}
	iscale := float32(nmax) / (hi - lo)
	scale := 1 / iscale
	var bestErr float32
	for i := range n {
		l := nearestInt(iscale * (x[i] - lo))
		L[i] = uint8(max(0, min(nmax, l)))
		bestErr += weights[i] * errOf(scale*float32(L[i])+lo-x[i])
	}
	if nstep < 1 {
		return scale, -lo
	}
	for is := 0; is <= nstep; is++ {
		iscale = (rmin + rdelta*float32(is) + float32(nmax)) / (hi - lo)
		var sumL, sumL2, sumXL float32
		for i := range n {
			l := max(0, min(nmax, nearestInt(iscale*(x[i]-lo))))
			laux[i] = uint8(l)
			w := weights[i]
			fl := float32(l)
			sumL += w * fl
			sumL2 += w * fl * fl
			sumXL += w * fl * x[i]
		}
		D := sumW*sumL2 - sumL*sumL
		if D > 0 {
			thisScale := (sumW*sumXL - sumX*sumL) / D
			thisMin := (sumL2*sumX - sumL*sumXL) / D
			if thisMin > 0 {
				thisMin = 0
				thisScale = sumXL / sumL2
			}
			var cur float32
			for i := range n {
				cur += weights[i] * errOf(thisScale*float32(laux[i])+thisMin-x[i])
			}
			if cur < bestErr {
				copy(L[:n], laux[:n])
				bestErr, scale, lo = cur, thisScale, thisMin
			}
		}
	}
	return scale, -lo
}

// makeQXQuants is ggml's make_qx_quants with rmse_type 1 and no weights
// (as quantize_row_q6_K_ref calls it): the scale of a symmetric
// quantization x ≈ scale·(L − nmax), L in 0…2·nmax−1, minimizing the
// x²-weighted squared error over 19 trial scales around −nmax/x_max.
func makeQXQuants(nmax int, x []float32, L []int8) float32 {
	amax, mx := absMax(x)
	if amax < groupMaxEps {
		clear(L[:len(x)])
		return 0
	}
	clampL := func(l int) int { return max(-nmax, min(nmax-1, l)) }
	iscale := -float32(nmax) / mx
	var sumLX, sumL2 float32
	for i, v := range x {
		l := clampL(nearestInt(iscale * v))
		L[i] = int8(l + nmax)
		w, fl := v*v, float32(l)
		sumLX += w * v * fl
		sumL2 += w * fl * fl
	}
	var scale float32
	if sumL2 != 0 {
		scale = sumLX / sumL2
	}
	best := scale * sumLX
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(float32(nmax) + 0.1*float32(is)) / mx
		sumLX, sumL2 = 0, 0
		for _, v := range x {
			l := clampL(nearestInt(iscale * v))
			w, fl := v*v, float32(l)
			sumLX += w * v * fl
			sumL2 += w * fl * fl
		}
		if sumL2 > 0 && sumLX*sumLX > best*sumL2 {
			for i, v := range x {
				L[i] = int8(nmax + clampL(nearestInt(iscale*v)))
			}
			scale = sumLX / sumL2
			best = scale * sumLX
		}
	}
	return scale
}
