package splitmix_test

import (
	"fmt"

	"github.com/kvscope/kvscope/core/internal/splitmix"
)

// The first outputs of SplitMix64 started at state 0, as the reference
// implementation (prng.di.unimi.it/splitmix64.c) prints them.
func ExampleMix() {
	var s uint64
	for range 3 {
		s += splitmix.Gamma
		fmt.Printf("%#016x\n", splitmix.Mix(s))
	}
	// Output:
	// 0xe220a8397b1dcdaf
	// 0x6e789e6aa1b965f4
	// 0x06c45d188009454f
}
