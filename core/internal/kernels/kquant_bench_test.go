package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvscope/kvscope/core/model/gguf"
)

// The K-quant kernels at Qwen2.5-0.5B's and Llama-3.2-1B's shapes (rows ×
// columns; columns whole super-blocks): a 4864-row matrix over the 896
// columns would not be K-quantized (896 is not a multiple of 256), so the
// Qwen shapes are its feed-forward down projection, 896×4864, and its
// transpose-sized 4864×1024 stand-in; Llama-3.2-1B's attention 2048×2048
// and feed-forward 8192×2048. "codec" is the kernel these replace,
// gguf.Codec.MulVec.
var kBenchShapes = []struct{ rows, cols int }{{896, 4864}, {4864, 1024}, {2048, 2048}, {8192, 2048}}

func BenchmarkMatVecQ4_K(b *testing.B) {
	benchK(b, kBenchShapes, 1, gguf.TypeQ4_K, randQ4_K, MatVecQ4_K, func(dst []float32, blocks []byte, x []float32) {
		xs := make([]float32, len(x)/BlockValues)
		blockSums(xs, x)
		matVecQ4_KGo(dst, blocks, x, xs)
	})
}

func BenchmarkMatVecQ5_K(b *testing.B) {
	benchK(b, kBenchShapes, 1, gguf.TypeQ5_K, randQ5_K, MatVecQ5_K, func(dst []float32, blocks []byte, x []float32) {
		xs := make([]float32, len(x)/BlockValues)
		blockSums(xs, x)
		matVecQ5_KGo(dst, blocks, x, xs)
	})
}

func BenchmarkMatVecQ6_K(b *testing.B) {
	benchK(b, kBenchShapes, 1, gguf.TypeQ6_K, randQ6_K, MatVecQ6_K, matVecQ6_KGo)
}

// benchK times exported, the Go path and the codec over the shapes, the
// blocks drawn by gen from a stream seeded with seed.
func benchK(b *testing.B, shapes []struct{ rows, cols int }, seed uint64, typ gguf.TensorType, gen func(*rand.Rand, int, int) []byte, exported, goPath func([]float32, []byte, []float32)) {
	c, err := typ.Codec()
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, seed))
	for _, sh := range shapes {
		blocks, x, dst := gen(rng, sh.rows, sh.cols), benchFloats(sh.cols, 2), make([]float32, sh.rows)
		for _, path := range append(benchPaths(false), "codec") {
			f := exported
			switch path {
			case "go":
				f = goPath
			case "codec":
				f = func(dst []float32, blocks []byte, x []float32) { c.MulVec(dst, blocks, x) }
			}
			b.Run(fmt.Sprintf("%dx%d/%s", sh.rows, sh.cols, path), func(b *testing.B) {
				for b.Loop() {
					f(dst, blocks, x)
				}
				reportFLOPs(b, sh.rows*sh.cols)
			})
		}
	}
}

// BenchmarkMatVecQ5_0 times Q5_0 at Qwen2.5-0.5B's shapes, whose Q4_K_M
// file stores most matrices as Q5_0: the attention's 896×896 and the
// feed-forward's 4864×896.
func BenchmarkMatVecQ5_0(b *testing.B) {
	benchK(b, []struct{ rows, cols int }{{896, 896}, {4864, 896}}, 2, gguf.TypeQ5_0, randQ5_0, MatVecQ5_0, matVecQ5_0Go)
}
