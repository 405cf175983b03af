package kernels

import (
	"fmt"
	"testing"
)

// The matrix shapes of SmolLM2-135M's decode step (rows × columns): the
// attention projections, the feed-forward down and up/gate projections,
// and the tied output matrix over the 49,152-token vocabulary.
var benchShapes = []struct{ rows, cols int }{{576, 576}, {576, 1536}, {1536, 576}, {49152, 576}}

// benchPaths are the paths to time: the exported functions (the SIMD path
// when the module is attached; natively on amd64, for the kernels that
// have it, asm, the assembly) and the Go path directly.
func benchPaths(asm bool) []string {
	if simd128 {
		return []string{"simd", "go"}
	}
	if asm && sse2 {
		return []string{"asm", "go"}
	}
	return []string{"go"}
}

func reportFLOPs(b *testing.B, macs int) {
	b.ReportMetric(2*float64(macs)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// benchFloats is n deterministic values in [−1, 1), cheap to make even at
// the output matrix's 28 million.
func benchFloats(n, seed int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32((i*7919+seed*104729)%2001-1000) / 1000
	}
	return s
}

// benchBlocks is rows×cols values in blocks of blockBytes with a small
// normal scale and varied quants.
func benchBlocks(rows, cols, blockBytes int) []byte {
	nb := rows * cols / BlockValues
	blocks := make([]byte, nb*blockBytes)
	for b := range nb {
		blk := blocks[b*blockBytes : (b+1)*blockBytes]
		blk[0], blk[1] = 0x1f, 0x20 // 0x201f ≈ 0.0085
		for j := 2; j < blockBytes; j++ {
			blk[j] = byte(b*31 + j*17)
		}
	}
	return blocks
}

func BenchmarkMatVecF32(b *testing.B) {
	for _, sh := range benchShapes {
		w, x, dst := benchFloats(sh.rows*sh.cols, 1), benchFloats(sh.cols, 2), make([]float32, sh.rows)
		for _, path := range benchPaths(true) {
			f := MatVecF32
			if path == "go" {
				f = matVecF32Go
			}
			b.Run(fmt.Sprintf("%dx%d/%s", sh.rows, sh.cols, path), func(b *testing.B) {
				for b.Loop() {
					f(dst, w, x)
				}
				reportFLOPs(b, sh.rows*sh.cols)
			})
		}
	}
}

// BenchmarkMatMatF32 multiplies the 1536×576 matrix by a prompt's 64
// positions; it reports FLOP/s over the whole product.
func BenchmarkMatMatF32(b *testing.B) {
	const rows, cols, count = 1536, 576, 64
	w, x, dst := benchFloats(rows*cols, 1), benchFloats(count*cols, 2), make([]float32, count*rows)
	for _, path := range benchPaths(true) {
		f := MatMatF32
		if path == "go" {
			f = matMatF32Go
		}
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				f(dst, w, x, rows, cols, rows)
			}
			reportFLOPs(b, rows*cols*count)
		})
	}
}

func BenchmarkMatVecQ8_0(b *testing.B) {
	benchQuant(b, BlockBytesQ8_0, MatVecQ8_0, matVecQ8_0Go)
}

func BenchmarkMatVecQ4_0(b *testing.B) {
	benchQuant(b, BlockBytesQ4_0, MatVecQ4_0, matVecQ4_0Go)
}

// The 16-bit float products, timed like the blocks (64 bytes per 32
// values of varied bits).
func BenchmarkMatVecF16(b *testing.B)  { benchQuant(b, 64, MatVecF16, matVecF16Go) }
func BenchmarkMatVecBF16(b *testing.B) { benchQuant(b, 64, MatVecBF16, matVecBF16Go) }

func benchQuant(b *testing.B, blockBytes int, exported, goPath func([]float32, []byte, []float32)) {
	for _, sh := range benchShapes {
		blocks, x, dst := benchBlocks(sh.rows, sh.cols, blockBytes), benchFloats(sh.cols, 2), make([]float32, sh.rows)
		for _, path := range benchPaths(blockBytes == BlockBytesQ8_0) {
			f := exported
			if path == "go" {
				f = goPath
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

// Attention over 512 cached positions of one SmolLM2-135M head: head
// dimension 64, keys and values 192 floats apart (three KV heads).
const benchCtx, benchHead, benchStride = 512, 64, 192

func BenchmarkScoresF32(b *testing.B) {
	q, keys, att := benchFloats(benchHead, 1), benchFloats(benchCtx*benchStride, 2), make([]float32, benchCtx)
	for _, path := range benchPaths(true) {
		f := ScoresF32
		if path == "go" {
			f = scoresGo
		}
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				f(att, q, keys, benchStride)
			}
			reportFLOPs(b, benchCtx*benchHead)
		})
	}
}

func BenchmarkWeightedSumF32(b *testing.B) {
	att, vals, out := benchFloats(benchCtx, 1), benchFloats(benchCtx*benchStride, 2), make([]float32, benchHead)
	for _, path := range benchPaths(false) {
		f := WeightedSumF32
		if path == "go" {
			f = weightedSumGo
		}
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				f(out, att, vals, benchStride)
			}
			reportFLOPs(b, benchCtx*benchHead)
		})
	}
}
