package model

import (
	"fmt"

	"github.com/kvscope/kvscope/core/internal/kernels"
	"github.com/kvscope/kvscope/core/model/gguf"
)

// Matrix is a row-major weight matrix of Rows rows of Cols values, as the
// forward pass reads it: float32 values in F (Type gguf.TypeF32), or, for
// any other type with a gguf.Codec (F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0,
// Q5_1, Q4_K, Q5_K, Q6_K), the rows exactly as the GGUF file stores them in
// Q: Rows·Type.RowBytes(Cols) bytes, which alias the file's bytes when it
// was loaded with LoadBytes and must then not be modified. The kernels
// dequantize as they go, with the type's gguf.Codec.
type Matrix struct {
	Rows, Cols int
	Type       gguf.TensorType
	F          []float32
	Q          []byte
}

// NewQuantMatrix returns a rows×cols matrix of type typ stored in q (kept,
// not copied). It returns an error if typ has no gguf.Codec or q is not
// exactly rows rows of cols values.
func NewQuantMatrix(typ gguf.TensorType, rows, cols int, q []byte) (Matrix, error) {
	if _, err := typ.Codec(); err != nil {
		return Matrix{}, fmt.Errorf("model: %w", err)
	}
	if rb := typ.RowBytes(cols); rows < 0 || rb < 0 || len(q) != rows*rb {
		return Matrix{}, fmt.Errorf("model: %d bytes are not %d rows of %d %v values (rows of %d bytes)", len(q), rows, cols, typ, rb)
	}
	return Matrix{Rows: rows, Cols: cols, Type: typ, Q: q}, nil
}

// codec returns the kernels of a stored (not float32) matrix.
func (m *Matrix) codec() (c *gguf.Codec, rowBytes int) {
	c, err := m.Type.Codec()
	if err != nil {
		panic("model: matrix of " + err.Error())
	}
	return c, m.Type.RowBytes(m.Cols)
}

// Bytes returns the memory the matrix holds: 4 per float32 value, or the
// stored blocks' bytes (whether they alias the file or not).
func (m *Matrix) Bytes() int64 { return 4*int64(len(m.F)) + int64(len(m.Q)) }

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

// KernelPath names the path the matrix and attention kernels run on:
// "wasm simd128" when the page wired kvscope's WebAssembly SIMD module in
// (static/kernels.js), "amd64 sse2" natively on amd64 (the F32 kernels in
// assembly, the others in Go), else "go".
func KernelPath() string { return kernels.Path() }

// MulVec sets dst[i] = Σ_j m[i][j]·x[j] for the first len(dst) ≤ Rows
// rows; x has Cols values. F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K
// and Q6_K rows go through package kernels — WebAssembly SIMD in the
// browser when the page wired the module in, the same sums in Go
// otherwise, bit for bit. Q4_1 and Q5_1 are dequantized dequantChunk
// values at a time (gguf.Codec.Dequantize, exactly as ggml) and each chunk
// dotted with kernels.DotF32, the chunks' sums added in order, as
// kernels.MatVecF16 orders its sums. It allocates nothing.
func (m *Matrix) MulVec(dst, x []float32) {
	if m.Type == gguf.TypeF32 {
		kernels.MatVecF32(dst, m.F[:len(dst)*m.Cols], x)
		return
	}
	c, rb := m.codec()
	if k := quantKernels[m.Type]; k != nil {
		k(dst, m.Q[:len(dst)*rb], x)
		return
	}
	x = x[:m.Cols]
	var buf [dequantChunk]float32
	for i := range dst {
		row := m.Q[i*rb : (i+1)*rb]
		var s float32
		for j := 0; j < len(x); j += dequantChunk {
			w := buf[:min(dequantChunk, len(x)-j)]
			c.Dequantize(w, row[m.Type.RowBytes(j):m.Type.RowBytes(j+len(w))])
			s += kernels.DotF32(w, x[j:])
		}
		dst[i] = s
	}
}

// dequantChunk is how many values of a row MulVec dequantizes at a time:
// a whole number of blocks of every type (the K-quants' hold 256), and
// kernels.H16Chunk, so that every type without a kernel of its own is
// summed in one order.
const dequantChunk = kernels.H16Chunk

// quantKernels are package kernels' products over stored blocks, by type.
var quantKernels = map[gguf.TensorType]func(dst []float32, blocks []byte, x []float32){
	gguf.TypeQ8_0: kernels.MatVecQ8_0,
	gguf.TypeQ4_0: kernels.MatVecQ4_0,
	gguf.TypeQ5_0: kernels.MatVecQ5_0,
	gguf.TypeQ4_K: kernels.MatVecQ4_K,
	gguf.TypeQ5_K: kernels.MatVecQ5_K,
	gguf.TypeQ6_K: kernels.MatVecQ6_K,
	gguf.TypeF16:  kernels.MatVecF16,
	gguf.TypeBF16: kernels.MatVecBF16,
}

// Row writes row i of m, dequantized exactly as ggml does, into dst (Cols
// values).
func (m *Matrix) Row(i int, dst []float32) {
	dst = dst[:m.Cols]
	if m.Type == gguf.TypeF32 {
		copy(dst, m.F[i*m.Cols:(i+1)*m.Cols])
		return
	}
	c, rb := m.codec()
	c.Dequantize(dst, m.Q[i*rb:(i+1)*rb])
}

// Float32 returns the whole matrix as float32, Rows×Cols row-major: F itself
// for a float32 matrix, else a new dequantized copy.
func (m *Matrix) Float32() []float32 {
	if m.Type == gguf.TypeF32 {
		return m.F
	}
	c, _ := m.codec()
	x := make([]float32, m.Rows*m.Cols)
	c.Dequantize(x, m.Q)
	return x
}
