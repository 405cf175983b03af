//go:build !(js && wasm)

package kernels

// Outside the browser the Go path is the only one.
const simd128 = false

func simdDotF32(a, b []float32) float32                         { panic("unreachable") }
func simdMatVecF32(dst, w, x []float32)                         { panic("unreachable") }
func simdMatMatF32(dst, w, x []float32, rows, cols, stride int) { panic("unreachable") }
func simdMatVecQ8_0(dst []float32, blocks []byte, x []float32)  { panic("unreachable") }
func simdMatVecQ4_0(dst []float32, blocks []byte, x []float32)  { panic("unreachable") }
func simdScoresF32(att, q, keys []float32, stride int)          { panic("unreachable") }
func simdWeightedSumF32(out, att, vals []float32, stride int)   { panic("unreachable") }
