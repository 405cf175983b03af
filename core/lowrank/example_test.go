package lowrank_test

import (
	"fmt"

	"github.com/kvscope/kvscope/core/lowrank"
)

// Keys that live in a 2-dimensional subspace of a 4-dimensional head are
// stored exactly as 2 coefficients each, and q·k survives the projection.
func ExampleFit() {
	keys := []float32{
		1, 2, 0, 0,
		2, 4, 1, 1,
		0, 0, 3, 3,
		-1, -2, 2, 2,
		3, 6, -1, -1,
	}
	b, err := lowrank.Fit(keys, 5, 4, 2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("energy captured at rank %d: %.3f\n", b.Rank(), b.Energy())

	q := []float32{1, 1, 1, 0}
	k := keys[4:8]
	cq, ck := make([]float32, 2), make([]float32, 2)
	b.Project(cq, q)
	b.Project(ck, k)
	var full, reduced float32
	for j := range q {
		full += q[j] * k[j]
	}
	for j := range cq {
		reduced += cq[j] * ck[j]
	}
	fmt.Printf("q·k = %.3f, (Bq)·(Bk) = %.3f\n", full, reduced)
	// Output:
	// energy captured at rank 2: 1.000
	// q·k = 7.000, (Bq)·(Bk) = 7.000
}

// Factoring a head's whole key matrix pays only once it holds more tokens
// than r·d/(d−r): at r = 32 of 64 dimensions, more than 64.
func ExampleApproximate() {
	for _, n := range []int{32, 64, 256} {
		keys := make([]float32, n*64)
		for i := range keys {
			keys[i] = float32(i%7) - float32(i%5)
		}
		a, err := lowrank.Approximate(keys, n, 64, 32)
		if err != nil {
			panic(err)
		}
		fmt.Printf("n=%3d: %5d numbers as factors, %5d dense, saves memory: %v\n", n, a.Params(), a.Dense(), a.Saves())
	}
	// Output:
	// n= 32:  3072 numbers as factors,  2048 dense, saves memory: false
	// n= 64:  4096 numbers as factors,  4096 dense, saves memory: false
	// n=256: 10240 numbers as factors, 16384 dense, saves memory: true
}
