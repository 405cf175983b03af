package kernels_test

import (
	"fmt"

	"github.com/kvscope/kvscope/core/internal/kernels"
)

func ExampleMatVecF32() {
	w := []float32{
		1, 2, 3,
		4, 5, 6,
	}
	x := []float32{1, 0.5, -1}
	dst := make([]float32, 2)
	kernels.MatVecF32(dst, w, x)
	fmt.Println(dst) // the same on either path
	// Output: [-1 0.5]
}
