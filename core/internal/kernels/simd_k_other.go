//go:build !(js && wasm)

package kernels

func simdMatVecQ4_K(dst []float32, blocks []byte, x, xs []float32) { panic("unreachable") }
func simdMatVecQ6_K(dst []float32, blocks []byte, x []float32)     { panic("unreachable") }
func simdMatVecQ5_0(dst []float32, blocks []byte, x []float32)     { panic("unreachable") }
func simdMatVecQ5_K(dst []float32, blocks []byte, x, xs []float32) { panic("unreachable") }
func simdMatVecF16(dst []float32, rows []byte, x []float32)        { panic("unreachable") }
func simdMatVecBF16(dst []float32, rows []byte, x []float32)       { panic("unreachable") }
