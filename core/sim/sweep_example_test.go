package sim_test

import (
	"context"
	"fmt"

	"github.com/kvscope/kvscope/core/sim"
)

// A sweep runs every policy of a grid at each budget over one recorded
// stream and hands back a row per configuration as it completes: what the
// cache stores and how much attention it keeps.
func ExampleSweep() {
	base := sim.DefaultConfig()
	base.Tokens = 128
	g := sim.Grid{Policies: []string{"window", "streaming", "h2o"}, Budgets: []int{16, 64}, Sink: 4}
	err := sim.Sweep(context.Background(), base, g, nil, func(r sim.Row) error {
		fmt.Printf("%-9s budget %3d: sink %d recent %2d heavy %2d, %6d bytes (%4.1fx), mass %.2f\n",
			r.Policy, r.Budget, r.Sink, r.Recent, r.Heavy, r.Bytes, r.Ratio, r.Mass)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// window    budget  16: sink 0 recent 16 heavy  0,   9728 bytes (13.5x), mass 0.42
	// streaming budget  16: sink 4 recent 12 heavy  0,   9728 bytes (13.5x), mass 0.61
	// h2o       budget  16: sink 4 recent  6 heavy  6,  10752 bytes (12.2x), mass 0.84
	// window    budget  64: sink 0 recent 64 heavy  0,  38912 bytes ( 3.4x), mass 0.77
	// streaming budget  64: sink 4 recent 60 heavy  0,  38912 bytes ( 3.4x), mass 0.87
	// h2o       budget  64: sink 4 recent 30 heavy 30,  43008 bytes ( 3.0x), mass 0.99
}
