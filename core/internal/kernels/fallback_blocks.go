package kernels

import "encoding/binary"

// The Go path of the legacy and K-quant kernels, step for step as
// kernels.wat's matvec_q8_0, matvec_q4_0, matvec_q5_0, matvec_q4_k,
// matvec_q5_k and matvec_q6_k (see MatVecQ8_0, MatVecQ4_K and MatVecQ6_K
// for the orders). Every format comes down to the same leaf, lanes, over
// a run of byte codes and a table giving each code's value: float32
// through a table is faster in Go than an integer conversion and gives
// the same exact values. The formats differ only in where a run's codes
// are (unpacked onto the stack when they are split across bytes), which
// table reads them, and how the runs' sums are scaled.

// Value tables, indexed by a code byte: a code is always below 256, so
// indexing needs no bounds check.
var (
	nibLo, nibHi [256]float32 // the low and high nibble
	m8           [256]float32 // b − 8, Q4_0's quants
	i8           [256]float32 // the byte as an int8, Q8_0's quants
	m32          [256]float32 // b − 32, Q6_K's quants
	m16          [256]float32 // b − 16, Q5_0's quants
	u5           [256]float32 // b, Q5_K's quants
	spread       [256]uint64  // byte i of spread[b] is bit i of b
)

func init() {
	for b := range 256 {
		nibLo[b], nibHi[b] = float32(b&15), float32(b>>4)
		i8[b], m32[b], m16[b], m8[b], u5[b] = float32(int8(b)), float32(b-32), float32(b-16), float32(b-8), float32(b)
		for i := range 8 {
			spread[b] |= uint64(b>>i&1) << (8 * i)
		}
	}
}

// lanes returns four lane sums after one chunk of four codes:
// a_l + t[q[l]]·x[l]. The kernels call it once per chunk, in increasing
// order; it is small enough for the compiler to inline, which keeps the
// sums in registers.
func lanes(t *[256]float32, q *[4]byte, x *[4]float32, a0, a1, a2, a3 float32) (float32, float32, float32, float32) {
	return a0 + float32(t[q[0]]*x[0]), a1 + float32(t[q[1]]*x[1]), a2 + float32(t[q[2]]*x[2]), a3 + float32(t[q[3]]*x[3])
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

const (
	lowNibbles = 0x0f0f0f0f0f0f0f0f
	lowPairs   = 0x0303030303030303
	lowBits    = 0x0101010101010101
)

// matVecLegacyGo is the Go path of MatVecQ8_0, MatVecQ4_0 and MatVecQ5_0,
// told apart by their block sizes: per block of 32, the lanes over the 32
// quants in x's order, then s += d·((a0+a1) + (a2+a3)).
func matVecLegacyGo(dst []float32, blocks []byte, x []float32, blockBytes int) {
	nb := len(x) / BlockValues
	var q [32]byte
	for i := range dst {
		row := blocks[i*nb*blockBytes : (i+1)*nb*blockBytes]
		var s float32
		for b := range nb {
			blk, xb := row[b*blockBytes:(b+1)*blockBytes], (*[32]float32)(x[b*BlockValues:])
			codes, t := &q, &i8
			if blockBytes == BlockBytesQ8_0 {
				codes = (*[32]byte)(blk[2:])
			} else { // quant j in byte j's low nibble, j+16 in its high one
				var qh uint32
				t = &m8
				if blockBytes == BlockBytesQ5_0 { // bit j of qh: quant j's fifth bit
					qh, t = binary.LittleEndian.Uint32(blk[2:]), &m16
				}
				w0, w1 := binary.LittleEndian.Uint64(blk[blockBytes-16:]), binary.LittleEndian.Uint64(blk[blockBytes-8:])
				binary.LittleEndian.PutUint64(q[0:], w0&lowNibbles|spread[qh&0xff]<<4)
				binary.LittleEndian.PutUint64(q[8:], w1&lowNibbles|spread[qh>>8&0xff]<<4)
				binary.LittleEndian.PutUint64(q[16:], w0>>4&lowNibbles|spread[qh>>16&0xff]<<4)
				binary.LittleEndian.PutUint64(q[24:], w1>>4&lowNibbles|spread[qh>>24]<<4)
			}
			var a0, a1, a2, a3 float32
			for k := 0; k <= 28; k += 4 {
				a0, a1, a2, a3 = lanes(t, (*[4]byte)(codes[k:]), (*[4]float32)(xb[k:]), a0, a1, a2, a3)
			}
			s += float32(f16(binary.LittleEndian.Uint16(blk)) * ((a0 + a1) + (a2 + a3)))
		}
		dst[i] = s
	}
}

func matVecQ8_0Go(dst []float32, blocks []byte, x []float32) {
	matVecLegacyGo(dst, blocks, x, BlockBytesQ8_0)
}

func matVecQ4_0Go(dst []float32, blocks []byte, x []float32) {
	matVecLegacyGo(dst, blocks, x, BlockBytesQ4_0)
}

func matVecQ5_0Go(dst []float32, blocks []byte, x []float32) {
	matVecLegacyGo(dst, blocks, x, BlockBytesQ5_0)
}

// matVecKGo is the Go path of MatVecQ4_K, MatVecQ5_K and MatVecQ6_K, told
// apart by their block sizes; xs holds x's sub-block sums (blockSums) for
// Q4_K and Q5_K. Per super-block, kBlock gives the lanes' terms e_l and
// c_l += e_l; finally s = (c0+c1) + (c2+c3).
func matVecKGo(dst []float32, blocks []byte, x, xs []float32, blockBytes int) {
	nb := len(x) / KBlockValues
	for i := range dst {
		row := blocks[i*nb*blockBytes : (i+1)*nb*blockBytes]
		var c0, c1, c2, c3 float32
		for b := range nb {
			e0, e1, e2, e3 := kBlock(row[b*blockBytes:(b+1)*blockBytes], (*[KBlockValues]float32)(x[b*KBlockValues:]), xs[min(8*b, len(xs)):], blockBytes)
			c0 += e0
			c1 += e1
			c2 += e2
			c3 += e3
		}
		dst[i] = (c0 + c1) + (c2 + c3)
	}
}

func matVecQ6_KGo(dst []float32, blocks []byte, x []float32) {
	matVecKGo(dst, blocks, x, nil, BlockBytesQ6_K)
}

// kBlock returns one K-quant super-block's terms of the four lane sums:
// Q6_K's from q6KBlock, Q4_K's and Q5_K's from minKBlock with xs, the
// block's eight sub-block sums of x.
func kBlock(blk []byte, x *[KBlockValues]float32, xs []float32, blockBytes int) (e0, e1, e2, e3 float32) {
	if blockBytes == BlockBytesQ6_K {
		return q6KBlock((*[BlockBytesQ6_K]byte)(blk), x)
	}
	return minKBlock(blk, x, (*[8]float32)(xs), blockBytes == BlockBytesQ5_K)
}

// scaled returns the lane sums v_l + s·a_l, a sub-block's lanes a scaled
// into its super-block's v.
func scaled(s, v0, v1, v2, v3, a0, a1, a2, a3 float32) (float32, float32, float32, float32) {
	return v0 + float32(s*a0), v1 + float32(s*a1), v2 + float32(s*a2), v3 + float32(s*a3)
}

// minKBlock returns a Q4_K or Q5_K (q5) super-block's terms of the four
// lane sums: per sub-block j of 32 values, its lanes a_l from +0, then
// v_l += sc_j·a_l; finally e_l = d·v_l − dmin·(m_l·xs_l + m_{l+4}·xs_{l+4}).
func minKBlock(blk []byte, x *[KBlockValues]float32, xs *[8]float32, q5 bool) (e0, e1, e2, e3 float32) {
	var sc, mn [8]float32
	scalesMinsQ4_K((*[12]byte)(blk[4:16]), &sc, &mn)
	var q [32]byte
	var v0, v1, v2, v3 float32
	for j := range 8 {
		codes, t := (*[32]byte)(blk[16+32*(j/2):]), &nibLo // run c of 32 bytes: sub-block 2c low nibbles, 2c+1 high
		if j&1 == 1 {
			t = &nibHi
		}
		if q5 {
			unpackQ5_K(&q, blk, j)
			codes, t = &q, &u5
		}
		xj := (*[32]float32)(x[32*j:])
		var a0, a1, a2, a3 float32
		for k := 0; k <= 28; k += 4 {
			a0, a1, a2, a3 = lanes(t, (*[4]byte)(codes[k:]), (*[4]float32)(xj[k:]), a0, a1, a2, a3)
		}
		v0, v1, v2, v3 = scaled(sc[j], v0, v1, v2, v3, a0, a1, a2, a3)
	}
	d, dmin := f16(binary.LittleEndian.Uint16(blk[0:])), f16(binary.LittleEndian.Uint16(blk[2:]))
	t0 := float32(mn[0]*xs[0]) + float32(mn[4]*xs[4])
	t1 := float32(mn[1]*xs[1]) + float32(mn[5]*xs[5])
	t2 := float32(mn[2]*xs[2]) + float32(mn[6]*xs[6])
	t3 := float32(mn[3]*xs[3]) + float32(mn[7]*xs[7])
	return float32(d*v0) - float32(dmin*t0), float32(d*v1) - float32(dmin*t1),
		float32(d*v2) - float32(dmin*t2), float32(d*v3) - float32(dmin*t3)
}

// q6KBlock returns a Q6_K super-block's terms of the four lane sums: per
// sub-block g of 16 values, its lanes a_l from +0, then v_l += sc_g·a_l;
// finally e_l = d·v_l.
func q6KBlock(blk *[BlockBytesQ6_K]byte, x *[KBlockValues]float32) (e0, e1, e2, e3 float32) {
	var q [128]byte
	var v0, v1, v2, v3 float32
	for g := range 16 {
		if g%8 == 0 {
			unpackQ6_K(&q, blk[:], g/8)
		}
		codes, xg := (*[16]byte)(q[16*(g%8):]), (*[16]float32)(x[16*g:])
		var a0, a1, a2, a3 float32
		for k := 0; k <= 12; k += 4 {
			a0, a1, a2, a3 = lanes(&m32, (*[4]byte)(codes[k:]), (*[4]float32)(xg[k:]), a0, a1, a2, a3)
		}
		v0, v1, v2, v3 = scaled(float32(int8(blk[192+g])), v0, v1, v2, v3, a0, a1, a2, a3)
	}
	d := f16(binary.LittleEndian.Uint16(blk[208:]))
	return float32(d * v0), float32(d * v1), float32(d * v2), float32(d * v3)
}

// unpackQ5_K sets q to sub-block j's quants of a Q5_K block, nibble
// + 16·(bit j of qh[l]), eight at a time.
func unpackQ5_K(q *[32]byte, blk []byte, j int) {
	qs := blk[48+32*(j/2):]
	shift := uint(4 * (j & 1))
	for k := 0; k < 32; k += 8 {
		w, h := binary.LittleEndian.Uint64(qs[k:]), binary.LittleEndian.Uint64(blk[16+k:])
		binary.LittleEndian.PutUint64(q[k:], w>>shift&lowNibbles|h>>uint(j)&lowBits<<4)
	}
}

// unpackQ6_K sets q to half h's 128 quants of a Q6_K block plus 32, in
// value order, eight at a time.
func unpackQ6_K(q *[128]byte, blk []byte, h int) {
	ql, qh := blk[64*h:64*h+64], blk[128+32*h:128+32*h+32]
	for l := 0; l < 32; l += 8 {
		w0, w1, hb := binary.LittleEndian.Uint64(ql[l:]), binary.LittleEndian.Uint64(ql[l+32:]), binary.LittleEndian.Uint64(qh[l:])
		binary.LittleEndian.PutUint64(q[l:], w0&lowNibbles|hb&lowPairs<<4)
		binary.LittleEndian.PutUint64(q[l+32:], w1&lowNibbles|hb>>2&lowPairs<<4)
		binary.LittleEndian.PutUint64(q[l+64:], w0>>4&lowNibbles|hb>>4&lowPairs<<4)
		binary.LittleEndian.PutUint64(q[l+96:], w1>>4&lowNibbles|hb>>6&lowPairs<<4)
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
