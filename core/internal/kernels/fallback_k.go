package kernels

import "encoding/binary"

// The Go path of the K-quant and Q5_0 kernels, step for step as
// kernels.wat's matvec_q4_k, matvec_q5_k, matvec_q6_k and matvec_q5_0
// (see MatVecQ4_K, MatVecQ5_K, MatVecQ6_K and MatVecQ5_0 for the order). Quants become float32
// through tables, which is faster in Go than an integer conversion and
// gives the same exact values.

var (
	nibLo, nibHi [256]float32 // the low and high nibble of a byte
	m32          [64]float32  // float32(b − 32), Q6_K's quants
	m16          [32]float32  // float32(b − 16), Q5_0's quants
	spread       [256]uint64  // byte i of spread[b] is bit i of b
	u5           [32]float32  // float32(b), Q5_K's quants
)

func init() {
	for b := range 256 {
		nibLo[b], nibHi[b] = float32(b&15), float32(b>>4)
	}
	for b := range 64 {
		m32[b] = float32(b - 32)
	}
	for b := range 32 {
		m16[b], u5[b] = float32(b-16), float32(b)
	}
	for b := range 256 {
		for i := range 8 {
			spread[b] |= uint64(b>>i&1) << (8 * i)
		}
	}
}

// blockSums sets xs[k] = Σ x[32k:32k+32] for the len(xs) sub-blocks: four
// lane sums a_l += x[4i+l], then (a0+a1) + (a2+a3). Both paths take these
// sums from this Go code, so their order is this function's alone.
func blockSums(xs, x []float32) {
	for k := range xs {
		xb := (*[32]float32)(x[32*k:])
		var a0, a1, a2, a3 float32
		for i := 0; i < 32; i += 4 {
			a0 += xb[i]
			a1 += xb[i+1]
			a2 += xb[i+2]
			a3 += xb[i+3]
		}
		xs[k] = (a0 + a1) + (a2 + a3)
	}
}

// scalesMinsQ4_K sets sc[j], mn[j] to the 6-bit scale and min of
// sub-block j packed in a Q4_K block's 12 scale bytes (ggml's
// get_scale_min_k4).
func scalesMinsQ4_K(q *[12]byte, sc, mn *[8]float32) {
	for j := range 4 {
		sc[j] = float32(q[j] & 63)
		mn[j] = float32(q[j+4] & 63)
		sc[j+4] = float32(q[j+8]&15 | q[j]>>6<<4)
		mn[j+4] = float32(q[j+8]>>4 | q[j+4]>>6<<4)
	}
}

func matVecQ4_KGo(dst []float32, blocks []byte, x, xs []float32) {
	nb := len(x) / KBlockValues
	rb := nb * BlockBytesQ4_K
	for i := range dst {
		row := blocks[i*rb : (i+1)*rb]
		var c0, c1, c2, c3 float32
		for b := range nb {
			blk := (*[BlockBytesQ4_K]byte)(row[b*BlockBytesQ4_K:])
			xb := (*[KBlockValues]float32)(x[b*KBlockValues:])
			xsb := (*[8]float32)(xs[b*8:])
			var sc, mn [8]float32
			scalesMinsQ4_K((*[12]byte)(blk[4:16]), &sc, &mn)
			var v0, v1, v2, v3 float32
			for j := range 8 {
				q := (*[32]byte)(blk[16+32*(j/2):])
				t := &nibLo
				if j&1 == 1 {
					t = &nibHi
				}
				xj := (*[32]float32)(xb[32*j:])
				var a0, a1, a2, a3 float32
				for k := 0; k < 32; k += 4 {
					a0 += float32(t[q[k]] * xj[k])
					a1 += float32(t[q[k+1]] * xj[k+1])
					a2 += float32(t[q[k+2]] * xj[k+2])
					a3 += float32(t[q[k+3]] * xj[k+3])
				}
				s := sc[j]
				v0 += float32(s * a0)
				v1 += float32(s * a1)
				v2 += float32(s * a2)
				v3 += float32(s * a3)
			}
			e0, e1, e2, e3 := minKBlock(blk[:4], &mn, xsb, v0, v1, v2, v3)
			c0 += e0
			c1 += e1
			c2 += e2
			c3 += e3
		}
		dst[i] = (c0 + c1) + (c2 + c3)
	}
}

// minKBlock returns a Q4_K or Q5_K super-block's terms of the four lane
// sums, e_l = d·v_l − dmin·(m_l·xs_l + m_{l+4}·xs_{l+4}), from the lane
// sums v of its scaled sub-blocks; hd is the block's head (d, dmin).
func minKBlock(hd []byte, mn, xs *[8]float32, v0, v1, v2, v3 float32) (e0, e1, e2, e3 float32) {
	d, dmin := f16(binary.LittleEndian.Uint16(hd[0:])), f16(binary.LittleEndian.Uint16(hd[2:]))
	t0 := float32(mn[0]*xs[0]) + float32(mn[4]*xs[4])
	t1 := float32(mn[1]*xs[1]) + float32(mn[5]*xs[5])
	t2 := float32(mn[2]*xs[2]) + float32(mn[6]*xs[6])
	t3 := float32(mn[3]*xs[3]) + float32(mn[7]*xs[7])
	return float32(d*v0) - float32(dmin*t0), float32(d*v1) - float32(dmin*t1),
		float32(d*v2) - float32(dmin*t2), float32(d*v3) - float32(dmin*t3)
}

const (
	lowNibbles = 0x0f0f0f0f0f0f0f0f
	lowPairs   = 0x0303030303030303
	lowBits    = 0x0101010101010101
)

func matVecQ6_KGo(dst []float32, blocks []byte, x []float32) {
	nb := len(x) / KBlockValues
	rb := nb * BlockBytesQ6_K
	var q [128]byte // a half's quants plus 32, in value order
	for i := range dst {
		row := blocks[i*rb : (i+1)*rb]
		var c0, c1, c2, c3 float32
		for b := range nb {
			blk := (*[BlockBytesQ6_K]byte)(row[b*BlockBytesQ6_K:])
			var v0, v1, v2, v3 float32
			for h := range 2 {
				ql, qh := blk[64*h:64*h+64], blk[128+32*h:128+32*h+32]
				for l := 0; l < 32; l += 8 {
					w0, w1, hb := binary.LittleEndian.Uint64(ql[l:]), binary.LittleEndian.Uint64(ql[l+32:]), binary.LittleEndian.Uint64(qh[l:])
					binary.LittleEndian.PutUint64(q[l:], w0&lowNibbles|hb&lowPairs<<4)
					binary.LittleEndian.PutUint64(q[l+32:], w1&lowNibbles|hb>>2&lowPairs<<4)
					binary.LittleEndian.PutUint64(q[l+64:], w0>>4&lowNibbles|hb>>4&lowPairs<<4)
					binary.LittleEndian.PutUint64(q[l+96:], w1>>4&lowNibbles|hb>>6&lowPairs<<4)
				}
				xh := x[b*KBlockValues+128*h:]
				for g := range 8 {
					qg, xg := (*[16]byte)(q[16*g:]), (*[16]float32)(xh[16*g:])
					var a0, a1, a2, a3 float32
					for k := 0; k < 16; k += 4 {
						a0 += float32(m32[qg[k]&63] * xg[k])
						a1 += float32(m32[qg[k+1]&63] * xg[k+1])
						a2 += float32(m32[qg[k+2]&63] * xg[k+2])
						a3 += float32(m32[qg[k+3]&63] * xg[k+3])
					}
					s := float32(int8(blk[192+8*h+g]))
					v0 += float32(s * a0)
					v1 += float32(s * a1)
					v2 += float32(s * a2)
					v3 += float32(s * a3)
				}
			}
			d := f16(binary.LittleEndian.Uint16(blk[208:]))
			c0 += float32(d * v0)
			c1 += float32(d * v1)
			c2 += float32(d * v2)
			c3 += float32(d * v3)
		}
		dst[i] = (c0 + c1) + (c2 + c3)
	}
}

// matVecQ5_0Go follows MatVecQ8_0's order with Q5_0's quants, unpacked
// eight at a time into bytes q+16.
func matVecQ5_0Go(dst []float32, blocks []byte, x []float32) {
	nb := len(x) / BlockValues
	rb := nb * BlockBytesQ5_0
	var q [32]byte
	for i := range dst {
		row := blocks[i*rb : (i+1)*rb]
		var s float32
		for b := range nb {
			blk := (*[BlockBytesQ5_0]byte)(row[b*BlockBytesQ5_0:])
			xb := (*[32]float32)(x[b*32:])
			qh := binary.LittleEndian.Uint32(blk[2:])
			w0, w1 := binary.LittleEndian.Uint64(blk[6:]), binary.LittleEndian.Uint64(blk[14:])
			binary.LittleEndian.PutUint64(q[0:], w0&lowNibbles|spread[qh&0xff]<<4)
			binary.LittleEndian.PutUint64(q[8:], w1&lowNibbles|spread[qh>>8&0xff]<<4)
			binary.LittleEndian.PutUint64(q[16:], w0>>4&lowNibbles|spread[qh>>16&0xff]<<4)
			binary.LittleEndian.PutUint64(q[24:], w1>>4&lowNibbles|spread[qh>>24]<<4)
			var a0, a1, a2, a3 float32
			for j := 0; j < 32; j += 4 {
				a0 += float32(m16[q[j]&31] * xb[j])
				a1 += float32(m16[q[j+1]&31] * xb[j+1])
				a2 += float32(m16[q[j+2]&31] * xb[j+2])
				a3 += float32(m16[q[j+3]&31] * xb[j+3])
			}
			s += float32(f16(binary.LittleEndian.Uint16(blk[0:])) * ((a0 + a1) + (a2 + a3)))
		}
		dst[i] = s
	}
}

// matVecQ5_KGo is matVecQ4_KGo with Q5_K's fifth bits: sub-block j's
// quants, nibble + 16·(bit j of qh[l]), unpacked eight at a time.
func matVecQ5_KGo(dst []float32, blocks []byte, x, xs []float32) {
	nb := len(x) / KBlockValues
	rb := nb * BlockBytesQ5_K
	var q [32]byte
	for i := range dst {
		row := blocks[i*rb : (i+1)*rb]
		var c0, c1, c2, c3 float32
		for b := range nb {
			blk := (*[BlockBytesQ5_K]byte)(row[b*BlockBytesQ5_K:])
			xb := (*[KBlockValues]float32)(x[b*KBlockValues:])
			xsb := (*[8]float32)(xs[b*8:])
			var sc, mn [8]float32
			scalesMinsQ4_K((*[12]byte)(blk[4:16]), &sc, &mn)
			var v0, v1, v2, v3 float32
			for j := range 8 {
				qs := blk[48+32*(j/2):]
				shift := uint(4 * (j & 1))
				for k := 0; k < 32; k += 8 {
					w, h := binary.LittleEndian.Uint64(qs[k:]), binary.LittleEndian.Uint64(blk[16+k:])
					binary.LittleEndian.PutUint64(q[k:], w>>shift&lowNibbles|h>>uint(j)&lowBits<<4)
				}
				xj := (*[32]float32)(xb[32*j:])
				var a0, a1, a2, a3 float32
				for k := 0; k < 32; k += 4 {
					a0 += float32(u5[q[k]&31] * xj[k])
					a1 += float32(u5[q[k+1]&31] * xj[k+1])
					a2 += float32(u5[q[k+2]&31] * xj[k+2])
					a3 += float32(u5[q[k+3]&31] * xj[k+3])
				}
				s := sc[j]
				v0 += float32(s * a0)
				v1 += float32(s * a1)
				v2 += float32(s * a2)
				v3 += float32(s * a3)
			}
			e0, e1, e2, e3 := minKBlock(blk[:4], &mn, xsb, v0, v1, v2, v3)
			c0 += e0
			c1 += e1
			c2 += e2
			c3 += e3
		}
		dst[i] = (c0 + c1) + (c2 + c3)
	}
}
