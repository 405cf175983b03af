package model

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/kernels"
	"github.com/kvscope/kvscope/core/model/gguf"
)

// quantMatrix returns a rows×cols matrix of Gaussian values stored as typ.
func quantMatrix(t testing.TB, typ gguf.TensorType, rows, cols int, rng *rand.Rand) Matrix {
	t.Helper()
	f := make([]float32, rows*cols)
	for i := range f {
		f[i] = float32(rng.NormFloat64())
	}
	if typ == gguf.TypeF32 {
		return Matrix{Rows: rows, Cols: cols, Type: typ, F: f}
	}
	c, err := typ.Codec()
	if err != nil {
		t.Fatal(err)
	}
	q := make([]byte, typ.RowBytes(rows*cols))
	c.Quantize(q, f)
	m, err := NewQuantMatrix(typ, rows, cols, q)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var matrixTypes = []gguf.TensorType{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0, gguf.TypeQ4_0,
	gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K}

// MulVec over 1 to 9 rows (odd counts and a remainder past blocks of four)
// equals the float64 product of Row's values within 1e-5 of Σ|w·x|, and
// for F16, BF16 and the types without a kernel exactly Row's chunks of 256 dotted by
// kernels.DotF32 and added in order; Float32 is the rows one after the
// other; Bytes is what the blocks weigh.
func TestMatrixKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, typ := range matrixTypes {
		cols := 512
		for rows := 1; rows <= 9; rows++ {
			m := quantMatrix(t, typ, rows, cols, rng)
			x := make([]float32, cols)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			dst := make([]float32, rows)
			m.MulVec(dst, x)
			all := m.Float32()
			row := make([]float32, cols)
			for i := range rows {
				m.Row(i, row)
				var ref, mag float64
				for j, w := range row {
					if w != all[i*cols+j] {
						t.Fatalf("%v: Float32()[%d][%d] = %v, Row %v", typ, i, j, all[i*cols+j], w)
					}
					ref += float64(w) * float64(x[j])
					mag += math.Abs(float64(w) * float64(x[j]))
				}
				if d := math.Abs(float64(dst[i]) - ref); d > 1e-5*mag {
					t.Fatalf("%v, %d rows: row %d: MulVec %v, dequantized dot %v", typ, rows, i, dst[i], ref)
				}
			}
			if rows > 2 && typ != gguf.TypeF32 { // stored rows are dotted one by one: a prefix gives the same values
				part := make([]float32, rows-2)
				m.MulVec(part, x)
				for i := range part {
					if part[i] != dst[i] {
						t.Fatalf("%v: MulVec of %d rows: row %d %v, of all rows %v", typ, len(part), i, part[i], dst[i])
					}
				}
			}
			if typ == gguf.TypeF16 || typ == gguf.TypeBF16 || quantKernels[typ] == nil && typ != gguf.TypeF32 { // the dequantized path and the 16-bit kernels: their order, bit for bit
				for i := range rows {
					m.Row(i, row)
					var s float32
					for j := 0; j < cols; j += 256 {
						s += kernels.DotF32(row[j:min(j+256, cols)], x[j:])
					}
					if s != dst[i] {
						t.Fatalf("%v: row %d: MulVec %v, Row's chunks of 256 through kernels.DotF32 %v", typ, i, dst[i], s)
					}
				}
			}
			want := int64(rows * typ.RowBytes(cols))
			if m.Bytes() != want {
				t.Fatalf("%v: %d bytes, want %d", typ, m.Bytes(), want)
			}
		}
	}
}

// MulVec allocates nothing, whatever the type.
func TestMulVecAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, typ := range matrixTypes {
		m := quantMatrix(t, typ, 7, 1024, rng)
		x, dst := make([]float32, 1024), make([]float32, 7)
		if n := testing.AllocsPerRun(20, func() { m.MulVec(dst, x) }); n != 0 {
			t.Errorf("%v: %v allocations", typ, n)
		}
	}
}

// NewQuantMatrix refuses a type without a codec and storage that is not
// exactly rows of whole blocks.
func TestNewQuantMatrixErrors(t *testing.T) {
	for _, tc := range []struct {
		typ        gguf.TensorType
		rows, cols int
		n          int
		want       string
	}{
		{gguf.TypeQ2_K, 1, 256, 84, "type Q2_K not supported"},
		{gguf.TypeQ4_K, 2, 256, 144, "not 2 rows of 256 Q4_K values (rows of 144 bytes)"},
		{gguf.TypeQ4_K, 1, 100, 144, "rows of -1 bytes"},
		{gguf.TypeQ8_0, -1, 32, 0, "-1 rows"},
	} {
		_, err := NewQuantMatrix(tc.typ, tc.rows, tc.cols, make([]byte, tc.n))
		if err == nil || !strings.HasPrefix(err.Error(), "model: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %d×%d in %d bytes: err = %v, want one containing %q", tc.typ, tc.rows, tc.cols, tc.n, err, tc.want)
		}
	}
}
