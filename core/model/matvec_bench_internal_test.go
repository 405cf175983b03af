package model

import (
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// BenchmarkMatVec times one 768×288 matrix-vector product (a stories15M
// feed-forward matrix) stored as float32, Q8_0 and Q4_0.
func BenchmarkMatVec(b *testing.B) {
	const rows, cols = 768, 288
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, cols)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	dst := make([]float32, rows)
	f := make([]float32, rows*cols)
	for i := range f {
		f[i] = float32(rng.NormFloat64())
	}
	nb := rows * cols / 32
	q8 := Matrix{Rows: rows, Cols: cols, Type: gguf.TypeQ8_0, Q: make([]byte, rows*cols), Scale: make([]float32, nb)}
	q4 := Matrix{Rows: rows, Cols: cols, Type: gguf.TypeQ4_0, Q: make([]byte, rows*cols/2), Scale: make([]float32, nb)}
	for i := range q8.Q {
		q8.Q[i] = byte(rng.Uint32())
	}
	for i := range q4.Q {
		q4.Q[i] = byte(rng.Uint32())
	}
	for i := range nb {
		q8.Scale[i], q4.Scale[i] = 0.01, 0.1
	}
	for _, tc := range []struct {
		name string
		m    Matrix
	}{{"F32", Matrix{Rows: rows, Cols: cols, Type: gguf.TypeF32, F: f}}, {"Q8_0", q8}, {"Q4_0", q4}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				tc.m.MulVec(dst, x)
			}
			b.ReportMetric(float64(rows*cols)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}
