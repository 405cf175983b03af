//go:build !(js && wasm)

package kernels

func simdDotsU8(dst, q []float32, codes []byte, rows []int)      { panic("unreachable") }
func simdAffineU8(dst, a, b []float32, codes []byte, rows []int) { panic("unreachable") }
