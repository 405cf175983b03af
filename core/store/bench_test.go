package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkStep is seed 000's per-head workload: head dim 128, 64 cached
// tokens; each op appends a token, scores the query against all 64 kept
// tokens with Dots, and evicts one (the oldest non-sink, as a window would).
func BenchmarkStep(b *testing.B) {
	const dim, budget = 128, 64
	cases := []struct {
		name string
		cfg  Config
	}{
		{"f32", Config{Bits: 32}},
		{"f16", Config{Bits: 16}},
		{"b8/token", Config{Bits: 8}},
		{"b8/channel-block32", Config{Bits: 8, Granularity: PerChannel, GroupSize: 32}},
		{"b4/token", Config{Bits: 4}},
		{"b4/group32", Config{Bits: 4, Granularity: PerGroup, GroupSize: 32}},
		{"b3/token", Config{Bits: 3}},
		{"b2/token", Config{Bits: 2}},
		{"b2/kivi-keys", Config{Bits: 2, Granularity: PerChannel, GroupSize: 32, Residual: 32}},
		{"b2/kivi-values", Config{Bits: 2, Granularity: PerGroup, GroupSize: 32, Residual: 32}},
		{"b4/token/hadamard", Config{Bits: 4, Rotate: Hadamard}},
		{"b3/turbo", Config{Bits: 3, Quantizer: Turbo}},
		{"b3/turbo-prod", Config{Bits: 3, Quantizer: TurboProd}},
		{"b3/qjl", Config{Bits: 3, Quantizer: QJL}},
		{"b4/token/outliers1%", Config{Bits: 4, Outliers: 0.01}},
		{"b2/token/sinks4", Config{Bits: 2, Sinks: 4}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([][]float32, 256)
	for i := range xs {
		xs[i] = keyLike(r, dim)
	}
	q := keyLike(r, dim)
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			capacity := budget + c.cfg.Residual + max(c.cfg.GroupSize, 1)
			s, err := New(c.cfg, dim, capacity)
			if err != nil {
				b.Fatal(err)
			}
			window := make([]int, 0, budget+1)
			for _, x := range xs[:budget] {
				slot, _ := s.Append(x)
				window = append(window, slot)
			}
			dst := make([]float32, budget+1)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				slot, err := s.Append(xs[i%len(xs)])
				if err != nil {
					b.Fatal(err)
				}
				window = append(window, slot)
				s.Dots(q, window, dst[:len(window)])
				if err := s.Evict(window[4]); err != nil { // keep 4 sinks
					b.Fatal(err)
				}
				window = append(window[:4], window[5:]...)
				i++
			}
		})
	}
}

// BenchmarkDots scores 64 tokens at dim 128, per width.
func BenchmarkDots(b *testing.B) {
	const dim, n = 128, 64
	r := rand.New(rand.NewPCG(3, 4))
	for _, bits := range []int{32, 16, 8, 4, 3, 2} {
		b.Run(fmt.Sprintf("b%d", bits), func(b *testing.B) {
			s, _ := New(Config{Bits: bits}, dim, n)
			slots := make([]int, n)
			for i := range slots {
				slots[i], _ = s.Append(keyLike(r, dim))
			}
			q := keyLike(r, dim)
			dst := make([]float32, n)
			b.ReportAllocs()
			for b.Loop() {
				s.Dots(q, slots, dst)
			}
		})
	}
}
