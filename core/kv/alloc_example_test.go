package kv_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/kvscope/kvscope/core/kv"
)

// An allocator composes with any scorer. Here H2O scores four heads: two
// whose queries pick out a few keys (their attention is concentrated) and
// two whose queries are almost flat (their attention is spread). Under
// AdaKV the heads pool the layer's scored budget, each keeping at least
// its windows and ⌈0.2·Heavy⌉ scored tokens (8 in all); the spread heads,
// whose old tokens keep accumulating attention, outbid the concentrated
// heads, whose attention beyond a few keys is near zero, and take more of
// the pool. The layer's total is 4 × (2 + 4 + 10) = 64 tokens either way.
func ExampleAlloc() {
	const heads, dim = 4, 8
	for _, alloc := range []kv.Alloc{kv.Uniform, kv.AdaKV} {
		r := rand.New(rand.NewPCG(1, 2))
		l, err := kv.NewLayer(kv.Config{Policy: kv.H2O, Alloc: alloc, Sink: 2, Recent: 4, Heavy: 10,
			Heads: heads, KVHeads: heads, Dim: dim, MaxTokens: 200})
		if err != nil {
			fmt.Println(err)
			return
		}
		q, k, v, out := make([]float32, heads*dim), make([]float32, heads*dim), make([]float32, heads*dim), make([]float32, heads*dim)
		for pos := range 200 {
			for i := range k {
				k[i], v[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
				sharp := float32(3) // heads 0 and 1: sharp queries
				if i/dim >= 2 {
					sharp = 0.05 // heads 2 and 3: nearly flat
				}
				q[i] = sharp * float32(r.NormFloat64())
			}
			if err := l.Step(pos, q, k, v, out); err != nil {
				fmt.Println(err)
				return
			}
		}
		budgets := make([]int, heads)
		total := 0
		for g := range budgets {
			budgets[g] = l.HeadBudget(g)
			total += l.Len(g)
		}
		fmt.Printf("%-7s per-head budgets %v, %d tokens in the layer\n", alloc, budgets, total)
	}
	// Output:
	// uniform per-head budgets [16 16 16 16], 64 tokens in the layer
	// adakv   per-head budgets [14 14 18 18], 64 tokens in the layer
}
