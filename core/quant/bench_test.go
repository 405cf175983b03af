package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks at the per-head size of seed 000 (head dim 128).

var sinkF32 float32

func BenchmarkDotPacked(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n = 128
	q := make([]float32, n)
	codes := make([]uint8, n)
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	for _, bits := range []int{2, 3, 4, 5, 8} {
		for i := range codes {
			codes[i] = uint8(r.IntN(1 << bits))
		}
		packed := Pack(make([]byte, PackedLen(n, bits)), codes, bits)
		b.Run(fmt.Sprintf("b%d", bits), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkF32 += DotPacked(q, packed, bits)
			}
		})
	}
}

func BenchmarkPackUnpack(b *testing.B) {
	const n = 128
	codes := make([]uint8, n)
	out := make([]uint8, n)
	buf := make([]byte, n)
	for _, bits := range []int{2, 3, 4, 8} {
		b.Run(fmt.Sprintf("b%d", bits), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Unpack(out, Pack(buf, codes, bits), bits)
			}
		})
	}
}

func BenchmarkQuantize(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 128
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	codes := make([]uint8, n)
	b.ReportAllocs()
	for b.Loop() {
		p, _ := FitSlice(x, 4)
		Quantize(codes, x, p, 4)
	}
}
