package model

import (
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// BenchmarkMatVec times one matrix-vector product stored as float32 and as
// each type with a codec, the rows quantized from Gaussian values: 768×288
// (a stories15M feed-forward matrix) for the types with blocks of 32 or
// less, 768×256 for the K-quants, whose rows are whole blocks of 256. It
// reports multiply-accumulates per second.
func BenchmarkMatVec(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []gguf.TensorType{gguf.TypeF32, gguf.TypeQ8_0, gguf.TypeQ4_0,
		gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1,
		gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K} {
		rows, cols := 768, 288
		if typ.BlockElems() == 256 {
			cols = 256
		}
		x := make([]float32, cols)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		dst := make([]float32, rows)
		f := make([]float32, rows*cols)
		for i := range f {
			f[i] = float32(rng.NormFloat64())
		}
		m := Matrix{Rows: rows, Cols: cols, Type: gguf.TypeF32, F: f}
		if typ != gguf.TypeF32 {
			c, err := typ.Codec()
			if err != nil {
				b.Fatal(err)
			}
			q := make([]byte, typ.RowBytes(rows*cols))
			c.Quantize(q, f)
			if m, err = NewQuantMatrix(typ, rows, cols, q); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(typ.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.MulVec(dst, x)
			}
			b.ReportMetric(float64(rows*cols)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}
