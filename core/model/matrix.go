package model

import (
	"encoding/binary"

	"github.com/kvscope/kvscope/core/model/gguf"
	"github.com/x448/float16"
)

// Matrix is a row-major weight matrix of Rows rows of Cols values, as the
// forward pass reads it: float32 (Type gguf.TypeF32, values in F), or
// blocks of 32 values along a row as the GGUF file stores them (gguf.TypeQ8_0
// or gguf.TypeQ4_0): one scale per block in Scale (widened from F16 once)
// and the quants in Q — Q8_0 one int8 per value; Q4_0 16 bytes per block,
// byte j holding quant j in its low nibble and quant j+16 in its high one,
// value = scale·(quant − 8).
type Matrix struct {
	Rows, Cols int
	Type       gguf.TensorType
	F          []float32
	Q          []byte
	Scale      []float32
}

// newQuantMatrix splits raw Q8_0 or Q4_0 blocks into scales and quants.
func newQuantMatrix(typ gguf.TensorType, rows, cols int, raw []byte) Matrix {
	nb := rows * cols / 32
	m := Matrix{Rows: rows, Cols: cols, Type: typ, Scale: make([]float32, nb)}
	bs := 34
	if typ == gguf.TypeQ4_0 {
		bs = 18
	}
	m.Q = make([]byte, nb*(bs-2))
	for b := range nb {
		blk := raw[b*bs : (b+1)*bs]
		m.Scale[b] = float16.Frombits(binary.LittleEndian.Uint16(blk)).Float32()
		copy(m.Q[b*(bs-2):], blk[2:])
	}
	return m
}

// Bytes returns the memory the matrix holds: 4 per float32 value; per
// block of 32, a float32 scale plus 32 (Q8_0) or 16 (Q4_0) bytes.
func (m *Matrix) Bytes() int64 { return 4*int64(len(m.F)) + int64(len(m.Q)) + 4*int64(len(m.Scale)) }

// sharesWith reports whether m and o hold the same storage (tied weights).
func (m *Matrix) sharesWith(o *Matrix) bool {
	switch {
	case len(m.F) > 0 && len(o.F) > 0:
		return &m.F[0] == &o.F[0]
	case len(m.Q) > 0 && len(o.Q) > 0:
		return &m.Q[0] == &o.Q[0]
	}
	return false
}

// MulVec sets dst[i] = Σ_j m[i][j]·x[j] for the len(dst) = Rows rows; x
// has Cols values. Quantized rows are dotted block by block with float32
// accumulation, scaled once per block. It allocates nothing.
func (m *Matrix) MulVec(dst, x []float32) {
	switch m.Type {
	case gguf.TypeQ8_0:
		matVecQ8(dst, m.Q, m.Scale, x)
	case gguf.TypeQ4_0:
		matVecQ4(dst, m.Q, m.Scale, x)
	default:
		matVec(dst, m.F, x)
	}
}

// Row writes row i of m, dequantized, into dst (Cols values).
func (m *Matrix) Row(i int, dst []float32) {
	c := m.Cols
	dst = dst[:c]
	switch m.Type {
	case gguf.TypeQ8_0:
		q := m.Q[i*c : (i+1)*c]
		for j := range dst {
			dst[j] = m.Scale[(i*c+j)/32] * float32(int8(q[j]))
		}
	case gguf.TypeQ4_0:
		nb := c / 32
		for b := range nb {
			d := m.Scale[i*nb+b]
			q := m.Q[(i*nb+b)*16 : (i*nb+b+1)*16]
			for j, v := range q {
				dst[32*b+j] = d * float32(int(v&15)-8)
				dst[32*b+j+16] = d * float32(int(v>>4)-8)
			}
		}
	default:
		copy(dst, m.F[i*c:(i+1)*c])
	}
}

// Float32 returns the whole matrix as float32, Rows×Cols row-major: F itself
// for a float32 matrix, else a new dequantized copy.
func (m *Matrix) Float32() []float32 {
	if m.Type != gguf.TypeQ8_0 && m.Type != gguf.TypeQ4_0 {
		return m.F
	}
	x := make([]float32, m.Rows*m.Cols)
	for i := range m.Rows {
		m.Row(i, x[i*m.Cols:])
	}
	return x
}

// matVecQ8 is matVec over Q8_0 rows: per block of 32, Σ q·x in float32
// (four accumulators), times the block's scale.
func matVecQ8(dst []float32, q []byte, scale, x []float32) {
	n := len(x)
	nb := n / 32
	for i := range dst {
		row := q[i*n : (i+1)*n]
		sc := scale[i*nb : (i+1)*nb]
		var s float32
		for b, d := range sc {
			qb := row[b*32 : b*32+32 : b*32+32]
			xb := x[b*32 : b*32+32 : b*32+32]
			var a0, a1, a2, a3 float32
			for j := 0; j < 32; j += 4 {
				a0 += float32(int8(qb[j])) * xb[j]
				a1 += float32(int8(qb[j+1])) * xb[j+1]
				a2 += float32(int8(qb[j+2])) * xb[j+2]
				a3 += float32(int8(qb[j+3])) * xb[j+3]
			}
			s += d * ((a0 + a1) + (a2 + a3))
		}
		dst[i] = s
	}
}

// matVecQ4 is matVec over Q4_0 rows: per block, Σ (q−8)·x in float32,
// times the block's scale.
func matVecQ4(dst []float32, q []byte, scale, x []float32) {
	n := len(x)
	nb := n / 32
	for i := range dst {
		row := q[i*nb*16 : (i+1)*nb*16]
		sc := scale[i*nb : (i+1)*nb]
		var s float32
		for b, d := range sc {
			qb := row[b*16 : b*16+16 : b*16+16]
			xb := x[b*32 : b*32+32 : b*32+32]
			var a0, a1 float32
			for j := 0; j < 16; j += 2 {
				v0, v1 := qb[j], qb[j+1]
				a0 += float32(int(v0&15)-8)*xb[j] + float32(int(v0>>4)-8)*xb[j+16]
				a1 += float32(int(v1&15)-8)*xb[j+1] + float32(int(v1>>4)-8)*xb[j+17]
			}
			s += d * (a0 + a1)
		}
		dst[i] = s
	}
}
