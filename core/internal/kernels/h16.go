package kernels

import (
	"encoding/binary"
	"math"
	"sync"
)

// The 16-bit float matrices: F16 (IEEE half precision) and BF16 (a
// float32's top half), one little-endian value per two bytes, as GGUF
// stores them.

// H16Chunk is how many values of a row MatVecF16 and MatVecBF16 widen at
// a time.
const H16Chunk = 256

// MatVecF16 sets dst[i] to row i of an F16 matrix times x. rows holds at
// least len(dst) rows of len(x) values, two bytes each. Order per row: s
// from +0; per chunk of H16Chunk values (the last one shorter), the
// values widened to float32 exactly, their DotF32 with x's same chunk
// added to s.
func MatVecF16(dst []float32, rows []byte, x []float32) {
	matVecBlocks("MatVecF16", dst, rows, x, 1, 2, simdMatVecF16, matVecF16Go)
}

// MatVecBF16 is MatVecF16 over BF16 values, in the same order.
func MatVecBF16(dst []float32, rows []byte, x []float32) {
	matVecBlocks("MatVecBF16", dst, rows, x, 1, 2, simdMatVecBF16, matVecBF16Go)
}

func matVecF16Go(dst []float32, rows []byte, x []float32)  { matVecH16Go(dst, rows, x, false) }
func matVecBF16Go(dst []float32, rows []byte, x []float32) { matVecH16Go(dst, rows, x, true) }

// matVecH16Go widens each chunk of a row onto the stack, BF16 (bf) or
// F16 (through halfTable), and dots it on the host path (hostDotF32),
// which has DotF32's order.
func matVecH16Go(dst []float32, rows []byte, x []float32, bf bool) {
	var halves *[1 << 16]float32
	if !bf {
		halves = halfTable()
	}
	n := len(x)
	var buf [H16Chunk]float32
	for i := range dst {
		row := rows[2*n*i : 2*n*(i+1)]
		var s float32
		for c := 0; c < n; c += H16Chunk {
			w := buf[:min(H16Chunk, n-c)]
			widenH16(w, row[2*c:], halves)
			s += hostDotF32(w, x[c:])
		}
		dst[i] = s
	}
}

// widenH16 sets w[j] to the 16-bit value at h[2j:]: F16 through halves,
// or BF16 when halves is nil; four values from each 64-bit load.
func widenH16(w []float32, h []byte, halves *[1 << 16]float32) {
	for ; len(w) >= 4; w, h = w[4:], h[8:] {
		d, u := (*[4]float32)(w), binary.LittleEndian.Uint64(h)
		if halves == nil {
			d[0], d[1], d[2], d[3] = math.Float32frombits(uint32(u)<<16), math.Float32frombits(uint32(u>>16)<<16),
				math.Float32frombits(uint32(u>>32)<<16), math.Float32frombits(uint32(u>>48)<<16)
		} else {
			d[0], d[1], d[2], d[3] = halves[uint16(u)], halves[uint16(u>>16)], halves[uint16(u>>32)], halves[uint16(u>>48)]
		}
	}
	for j := range w {
		if v := binary.LittleEndian.Uint16(h[2*j:]); halves == nil {
			w[j] = math.Float32frombits(uint32(v) << 16)
		} else {
			w[j] = halves[v]
		}
	}
}

// halfTable is f16 of every half-precision bit pattern, built on first use
// (256 KiB): the F16 products widen through it, and on amd64 the Q8_0
// assembly reads a block's scale from it.
var halfTable = sync.OnceValue(func() *[1 << 16]float32 {
	t := new([1 << 16]float32)
	for h := range t {
		t[h] = f16(uint16(h))
	}
	return t
})
