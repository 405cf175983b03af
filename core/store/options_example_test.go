package store_test

import (
	"fmt"

	"github.com/kvscope/kvscope/core/store"
)

// What each 3-bit quantizer holds for 10 keys of head dim 32: uniform
// codes need a scale and zero point per token; TurboQuant-MSE a norm per
// token plus, once per store, its codebook and its 32×32 random rotation;
// TurboQuant-prod 2-bit codes, 32 sign bits and two norms per token plus
// the rotation and the sketch matrix; QJL 96 sign bits and a norm per
// token plus its 96×32 sketch matrix.
func ExampleItems() {
	for _, q := range []store.Quantizer{store.Uniform, store.Turbo, store.TurboProd, store.QJL} {
		s, err := store.New(store.Config{Bits: 3, Quantizer: q, Seed: 1}, 32, 10)
		if err != nil {
			panic(err)
		}
		x := make([]float32, 32)
		for i := range 10 {
			x[i] = 1
			if _, err := s.Append(x); err != nil {
				panic(err)
			}
		}
		it := s.Items()
		fmt.Printf("%-10s codes %3d, scales %2d, sketches %2d, norms %2d, codebook %2d, matrices %4d: %4d bytes\n",
			q, it.Payload, it.Meta, it.Sketch, it.Norms, it.Codebook, it.Rotation, it.Total())
	}
	// Output:
	// uniform    codes 120, scales 40, sketches  0, norms  0, codebook  0, matrices    0:  160 bytes
	// turbo      codes 120, scales  0, sketches  0, norms 20, codebook 16, matrices 2048: 2204 bytes
	// turbo-prod codes  80, scales  0, sketches 40, norms 40, codebook  8, matrices 4096: 4264 bytes
	// qjl        codes   0, scales  0, sketches 120, norms 20, codebook  0, matrices 6144: 6284 bytes
}
