package gguf

import (
	"encoding/binary"
	"math"
)

// The legacy quants: blocks of 32 values, one or two half-precision
// parameters each (ggml-common.h block_q4_0 … block_q8_0).
//
//	Q8_0 (34 bytes): d, then 32 int8 quants q;              w = d·q.
//	Q4_0 (18 bytes): d, then 16 bytes; byte j holds quant j in its low
//	                 nibble and quant j+16 in its high one;  w = d·(q − 8).
//	Q4_1 (20 bytes): d, m, then 16 nibble bytes as Q4_0;    w = d·q + m.
//	Q5_0 (22 bytes): d, a little-endian uint32 qh, then 16 nibble bytes as
//	                 Q4_0; bit j of qh is the fifth bit of quant j (j < 32);
//	                                                         w = d·(q − 16).
//	Q5_1 (24 bytes): d, m, qh, then 16 nibble bytes;        w = d·q + m.
var (
	codecQ8_0 = Codec{quant: quantQ8_0}
	codecQ4_0 = Codec{quant: quantQ4_0}
	codecQ4_1 = Codec{quant: quantQ4_1}
	codecQ5_0 = Codec{quant: quantQ5_0}
	codecQ5_1 = Codec{quant: quantQ5_1}
)

func dequantQ8_0(dst []float32, src []byte) {
	for ; len(dst) >= 32; dst, src = dst[32:], src[34:] {
		b, y := (*[34]byte)(src), (*[32]float32)(dst)
		d := half(b[0:2])
		for j := range 32 {
			y[j] = float32(int8(b[2+j])) * d
		}
	}
}

// quantQ8_0 is quantize_row_q8_0_ref: d = max |x| / 127, q = round(x/d).
func quantQ8_0(dst []byte, x []float32) {
	for ; len(x) >= 32; dst, x = dst[34:], x[32:] {
		b, xb := (*[34]byte)(dst), (*[32]float32)(x)
		var amax float32
		for _, v := range xb {
			amax = max(amax, abs32(v))
		}
		d := amax / 127
		id := inv(d)
		putHalf(b[0:2], d)
		for j, v := range xb {
			b[2+j] = byte(int8(roundAway(v * id)))
		}
	}
}

func dequantQ4_0(dst []float32, src []byte) {
	for ; len(dst) >= 32; dst, src = dst[32:], src[18:] {
		b, y := (*[18]byte)(src), (*[32]float32)(dst)
		d := half(b[0:2])
		for j := range 16 {
			v := b[2+j]
			y[j] = float32(int(v&15)-8) * d
			y[j+16] = float32(int(v>>4)-8) * d
		}
	}
}

func dequantQ4_1(dst []float32, src []byte) {
	for ; len(dst) >= 32; dst, src = dst[32:], src[20:] {
		b, y := (*[20]byte)(src), (*[32]float32)(dst)
		d, m := half(b[0:2]), half(b[2:4])
		for j := range 16 {
			v := b[4+j]
			y[j] = float32(float32(v&15)*d) + m
			y[j+16] = float32(float32(v>>4)*d) + m
		}
	}
}

func dequantQ5_0(dst []float32, src []byte) {
	for ; len(dst) >= 32; dst, src = dst[32:], src[22:] {
		b, y := (*[22]byte)(src), (*[32]float32)(dst)
		d := half(b[0:2])
		qh := binary.LittleEndian.Uint32(b[2:6])
		for j := range 16 {
			v := b[6+j]
			y[j] = float32(int32(uint32(v&15)|(qh>>j)<<4&0x10)-16) * d
			y[j+16] = float32(int32(uint32(v>>4)|(qh>>(j+12))&0x10)-16) * d
		}
	}
}

func dequantQ5_1(dst []float32, src []byte) {
	for ; len(dst) >= 32; dst, src = dst[32:], src[24:] {
		b, y := (*[24]byte)(src), (*[32]float32)(dst)
		d, m := half(b[0:2]), half(b[2:4])
		qh := binary.LittleEndian.Uint32(b[4:8])
		for j := range 16 {
			v := b[8+j]
			y[j] = float32(float32(uint32(v&15)|(qh>>j)<<4&0x10)*d) + m
			y[j+16] = float32(float32(uint32(v>>4)|(qh>>(j+12))&0x10)*d) + m
		}
	}
}

func quantQ4_0(dst []byte, x []float32) { quantNibbles(dst, x, 4, false) }
func quantQ4_1(dst []byte, x []float32) { quantNibbles(dst, x, 4, true) }
func quantQ5_0(dst []byte, x []float32) { quantNibbles(dst, x, 5, false) }
func quantQ5_1(dst []byte, x []float32) { quantNibbles(dst, x, 5, true) }

// quantNibbles is quantize_row_q4_0_ref, _q4_1_ref, _q5_0_ref or _q5_1_ref,
// by the quants' bits and whether the type stores a min. With
// nmax = 2^bits − 1 and mid = 2^(bits−1):
//
//	no min (Q4_0, Q5_0): d = −x_max/mid for the value x_max of largest
//	    magnitude, q = min(nmax, ⌊x/d + mid + 0.5⌋);
//	a min (Q4_1, Q5_1):  d = (max − min)/nmax, m = min,
//	    q = min(nmax, ⌊(x − min)/d + 0.5⌋).
//
// (The Q5_1 reference has no min(nmax, …): (x − min)/d + 0.5 < 32
// whenever 1/d is finite, so it never binds.) The fifth bits of 5-bit
// quants are gathered in qh.
func quantNibbles(dst []byte, x []float32, bits int, withMin bool) {
	nmax, mid := 1<<bits-1, 1<<(bits-1)
	qs := 2 // the nibble bytes' offset: after d, then m, then qh
	if withMin {
		qs += 2
	}
	if bits == 5 {
		qs += 4
	}
	bb := qs + 16
	for ; len(x) >= 32; dst, x = dst[bb:], x[32:] {
		b, xb := dst[:bb:bb], (*[32]float32)(x)
		var d, lo, bias float32
		if withMin {
			var hi float32
			lo, hi = minMax(xb[:])
			d, bias = (hi-lo)/float32(nmax), 0.5
			putHalf(b[2:4], lo)
		} else {
			_, mx := absMax(xb[:])
			d, bias = mx/-float32(mid), float32(mid)+0.5
		}
		id := inv(d)
		putHalf(b[0:2], d)
		var qh uint32
		for j := range 16 {
			q0 := uint8(min(int8(nmax), int8(float32((xb[j]-lo)*id)+bias)))
			q1 := uint8(min(int8(nmax), int8(float32((xb[j+16]-lo)*id)+bias)))
			b[qs+j] = q0&15 | q1&15<<4
			qh |= uint32(q0>>4&1)<<j | uint32(q1>>4&1)<<(j+16)
		}
		if bits == 5 {
			binary.LittleEndian.PutUint32(b[qs-4:qs], qh)
		}
	}
}

// Helpers of the quantizers. Their products are converted to float32
// before a sum (float32(a*b) + c), which keeps the compiler from fusing
// them into one rounding on machines with FMA: the reference rounds twice.

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// inv returns 1/d, or 0 for d = 0 (ggml's "id = d ? 1.0f/d : 0.0f").
func inv(d float32) float32 {
	if d == 0 {
		return 0
	}
	return 1 / d
}

// roundAway rounds half away from zero, as C's roundf.
func roundAway(v float32) float32 { return float32(math.Round(float64(v))) }

// absMax returns the largest magnitude in x and the value that has it (the
// first such), as the legacy reference quantizers search.
func absMax(x []float32) (amax, mx float32) {
	for _, v := range x {
		if a := abs32(v); amax < a {
			amax, mx = a, v
		}
	}
	return amax, mx
}

// minMax returns the smallest and largest values of x.
func minMax(x []float32) (lo, hi float32) {
	lo, hi = math.MaxFloat32, -math.MaxFloat32
	for _, v := range x {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}
