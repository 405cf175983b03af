package gguf

import "encoding/binary"

// Leaf kernels of the fused dot products. The quant kernels decode a block's
// quants into bytes on the stack (eight at a time, as uint64 words) and hand
// them to these, which stay small enough for the compiler to keep every
// accumulator in a register.

const (
	lowNibbles = 0x0f0f0f0f0f0f0f0f
	lowBits    = 0x0101010101010101
	lowPairs   = 0x0303030303030303
)

// More byte-to-float32 tables (see i8f).
var (
	m16f   [256]float32 // float32(b − 16), for the 5-bit symmetric quants
	m32f   [256]float32 // float32(b − 32), for Q6_K
	spread [256]uint64  // byte i of spread[b] is bit i of b
)

func init() {
	for b := range 256 {
		m16f[b], m32f[b] = float32(b-16), float32(b-32)
		for i := range 8 {
			spread[b] |= uint64(b>>i&1) << (8 * i)
		}
	}
}

// dotTab32 returns Σ_j t[q[j]]·x[j].
func dotTab32(t *[256]float32, q *[32]byte, x *[32]float32) float32 {
	var a0, a1, a2, a3 float32
	for j := 0; j < 25; j += 8 {
		a0 += t[q[j]]*x[j] + t[q[j+4]]*x[j+4]
		a1 += t[q[j+1]]*x[j+1] + t[q[j+5]]*x[j+5]
		a2 += t[q[j+2]]*x[j+2] + t[q[j+6]]*x[j+6]
		a3 += t[q[j+3]]*x[j+3] + t[q[j+7]]*x[j+7]
	}
	return (a0 + a1) + (a2 + a3)
}

// dotTabScaled16 returns Σ_g sc[g]·Σ_{j<16} t[q[16g+j]]·x[16g+j] over the
// eight groups of 16, sc holding int8 scales.
func dotTabScaled16(t *[256]float32, q *[128]byte, sc *[8]byte, x *[128]float32) float32 {
	var s float32
	for g := range 8 {
		qg, xg := (*[16]byte)(q[16*g:]), (*[16]float32)(x[16*g:])
		var a0, a1, a2, a3 float32
		for j := 0; j < 9; j += 8 {
			a0 += t[qg[j]]*xg[j] + t[qg[j+4]]*xg[j+4]
			a1 += t[qg[j+1]]*xg[j+1] + t[qg[j+5]]*xg[j+5]
			a2 += t[qg[j+2]]*xg[j+2] + t[qg[j+6]]*xg[j+6]
			a3 += t[qg[j+3]]*xg[j+3] + t[qg[j+7]]*xg[j+7]
		}
		s += i8f[sc[g]] * ((a0 + a1) + (a2 + a3))
	}
	return s
}

// dotNibbles returns Σ_j lo[q[j]]·xl[j] and Σ_j hi[q[j]]·xh[j]: the low
// nibbles of q against xl, the high ones against xh.
func dotNibbles(lo, hi *[256]float32, q *[32]byte, xl, xh *[32]float32) (float32, float32) {
	var a0, a1, a2, a3 float32
	for j := 0; j < 29; j += 4 {
		v0, v1, v2, v3 := q[j], q[j+1], q[j+2], q[j+3]
		a0 += lo[v0]*xl[j] + lo[v1]*xl[j+1]
		a1 += hi[v0]*xh[j] + hi[v1]*xh[j+1]
		a2 += lo[v2]*xl[j+2] + lo[v3]*xl[j+3]
		a3 += hi[v2]*xh[j+2] + hi[v3]*xh[j+3]
	}
	return a0 + a2, a1 + a3
}

// dotNibbles16 returns Σ_j lo[q[j]]·xl[j] + hi[q[j]]·xh[j] over 16 bytes.
func dotNibbles16(lo, hi *[256]float32, q *[16]byte, xl, xh *[16]float32) float32 {
	var a0, a1, a2, a3 float32
	for j := 0; j < 13; j += 4 {
		v0, v1, v2, v3 := q[j], q[j+1], q[j+2], q[j+3]
		a0 += lo[v0]*xl[j] + lo[v1]*xl[j+1]
		a1 += hi[v0]*xh[j] + hi[v1]*xh[j+1]
		a2 += lo[v2]*xl[j+2] + lo[v3]*xl[j+3]
		a3 += hi[v2]*xh[j+2] + hi[v3]*xh[j+3]
	}
	return (a0 + a1) + (a2 + a3)
}

// sum32 returns Σ_j x[j].
func sum32(x *[32]float32) float32 {
	var a0, a1, a2, a3 float32
	for j := 0; j < 25; j += 8 {
		a0 += x[j] + x[j+4]
		a1 += x[j+1] + x[j+5]
		a2 += x[j+2] + x[j+6]
		a3 += x[j+3] + x[j+7]
	}
	return (a0 + a1) + (a2 + a3)
}

// put8 stores w little-endian at b[0:8].
func put8(b []byte, w uint64) { binary.LittleEndian.PutUint64(b, w) }

// get8 loads the little-endian word at b[0:8].
func get8(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// unpack5 sets q to the 32 five-bit quants of a Q5_0 or Q5_1 block: the
// nibbles of qs (value j low, j+16 high) with bit j of qh as bit 4.
func unpack5(q *[32]byte, qs []byte, qh uint32) {
	w0, w1 := get8(qs[0:8]), get8(qs[8:16])
	put8(q[0:8], w0&lowNibbles|spread[byte(qh)]<<4)
	put8(q[8:16], w1&lowNibbles|spread[byte(qh>>8)]<<4)
	put8(q[16:24], w0>>4&lowNibbles|spread[byte(qh>>16)]<<4)
	put8(q[24:32], w1>>4&lowNibbles|spread[byte(qh>>24)]<<4)
}
