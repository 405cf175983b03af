package store_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/store"
)

// A 4-bit per-token store: each key keeps its own FP16 scale and zero point
// (here 3/15 rounded up to 0.20007 and −1), 0.5 lands 0.0995 away on the
// level 0.401, and scores are computed from the codes.
func Example() {
	s, err := store.New(store.Config{Bits: 4}, 4, 8)
	if err != nil {
		panic(err)
	}
	slot, _ := s.Append([]float32{-1, 0, 0.5, 2})
	xhat := make([]float32, 4)
	s.Read(slot, xhat)
	scores := make([]float32, 1)
	s.Dots([]float32{1, 1, 1, 1}, []int{slot}, scores)
	fmt.Printf("%v: %.3f\n", s.Kind(slot), xhat)
	fmt.Printf("q·x̂ = %.3f\n", scores[0])
	fmt.Printf("%+v\n", s.Memory()) // 4 codes × 4 bits = 2 bytes, one (scale, zero) pair = 4 bytes
	// Output:
	// quantized: [-1.000 0.000 0.401 2.001]
	// q·x̂ = 1.402
	// {Payload:2 Meta:4 Residual:0 Factors:0 Holes:0}
}

// KIVI at 2 bits for one head of dim 128 after 300 tokens: keys per channel
// in blocks of 32 tokens, values per token in groups of 32 channels, both
// behind an FP16 residual of the newest 128 tokens.
func ExampleStore_Memory() {
	const dim, n = 128, 300
	keys, _ := store.New(store.Config{Bits: 2, Granularity: store.PerChannel, GroupSize: 32, Residual: 128}, dim, n)
	values, _ := store.New(store.Config{Bits: 2, Granularity: store.PerGroup, GroupSize: 32, Residual: 128}, dim, n)
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, dim)
	for range n {
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		if _, err := keys.Append(x); err != nil {
			panic(err)
		}
		if _, err := values.Append(x); err != nil {
			panic(err)
		}
	}
	// Keys: 300 − 128 = 172 tokens are old enough; 5 full blocks (160
	// tokens) are quantized, 12 wait with the residual in FP16 (140 tokens).
	// Payload 160 × 32 bytes; Meta 5 blocks × 128 channels × 4 bytes;
	// Residual 140 × 128 × 2 bytes.
	// Values: 172 tokens quantized, each 32 bytes of codes and 4 groups × 4
	// bytes of params; the newest 128 in FP16.
	fmt.Printf("keys   %+v total %d\n", keys.Memory(), keys.Memory().Total())
	fmt.Printf("values %+v total %d\n", values.Memory(), values.Memory().Total())
	fmt.Printf("FP16 cache: %d bytes each\n", n*dim*2)
	// Output:
	// keys   {Payload:5120 Meta:2560 Residual:35840 Factors:0 Holes:0} total 43520
	// values {Payload:5504 Meta:2752 Residual:32768 Factors:0 Holes:0} total 41024
	// FP16 cache: 76800 bytes each
}
