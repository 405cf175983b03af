//go:build !amd64 || purego

package kernels

// Other ports (and amd64 with the build tag purego) have no assembly path.
const sse2 = false

func sse2DotF32(a, b []float32) float32                         { panic("unreachable") }
func sse2MatVecF32(dst, w, x []float32)                         { panic("unreachable") }
func sse2MatMatF32(dst, w, x []float32, rows, cols, stride int) { panic("unreachable") }
func sse2ScoresF32(att, q, keys []float32, stride int)          { panic("unreachable") }
func sse2WeightedSumF32(out, att, vals []float32, stride int)   { panic("unreachable") }
func sse2MatVecQ8_0(dst []float32, blocks []byte, x []float32)  { panic("unreachable") }
