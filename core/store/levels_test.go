package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/quant"
)

// The fused codebook kernels decode exactly what packAny packs, at every
// width and length (partial bytes included).
func TestLevelKernelsMatchUnpack(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for bits := 1; bits <= 8; bits++ {
		cb := make([]float32, 1<<bits)
		for i := range cb {
			cb[i] = float32(r.NormFloat64())
		}
		for _, n := range []int{1, 3, 7, 8, 13, 32, 33} {
			codes := make([]uint8, n)
			q := make([]float32, n)
			for i := range codes {
				codes[i] = uint8(r.IntN(1 << bits))
				q[i] = float32(r.NormFloat64())
			}
			row := make([]byte, packedBits(n, bits))
			packAny(row, codes, bits)
			back := make([]uint8, n)
			unpackAny(back, row, bits)
			var want float64
			acc := make([]float32, n)
			quant.AddLevels(acc, 2, row, bits, cb)
			for i, c := range codes {
				if back[i] != c {
					t.Fatalf("%d bits, n=%d: code %d unpacks to %d, want %d", bits, n, i, back[i], c)
				}
				want += float64(q[i]) * float64(cb[c])
				if acc[i] != 2*cb[c] {
					t.Fatalf("%d bits, n=%d: addLevels[%d] = %g, want %g", bits, n, i, acc[i], 2*cb[c])
				}
			}
			if got := quant.DotLevels(q, row, bits, cb); math.Abs(float64(got)-want) > 1e-5*(1+math.Abs(want)) {
				t.Fatalf("%d bits, n=%d: dotLevels %g, want %g", bits, n, got, want)
			}
		}
	}
}

// BenchmarkLevels times the fused codebook kernels on a 128-dimensional
// row at each width.
func BenchmarkLevels(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	const n = 128
	q, acc := make([]float32, n), make([]float32, n)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	for _, bits := range []int{1, 2, 3, 4, 5, 8} {
		cb := make([]float32, 1<<bits)
		codes := make([]uint8, n)
		for i := range codes {
			codes[i] = uint8(r.IntN(1 << bits))
		}
		row := make([]byte, packedBits(n, bits))
		packAny(row, codes, bits)
		b.Run(fmt.Sprintf("dot/b%d", bits), func(b *testing.B) {
			for b.Loop() {
				sinkLevels += quant.DotLevels(q, row, bits, cb)
			}
		})
		b.Run(fmt.Sprintf("add/b%d", bits), func(b *testing.B) {
			for b.Loop() {
				quant.AddLevels(acc, 0.5, row, bits, cb)
			}
		})
	}
}

var sinkLevels float32
