//go:build !amd64 || purego

package kernels

// Other ports (and amd64 with the build tag purego) have no assembly path:
// off the SIMD module, the kernels run on the Go path.
const sse2 = false

func hostDotF32(a, b []float32) float32 { return dotGo(a, b) }
func hostMatVecF32(dst, w, x []float32) { matVecF32Go(dst, w, x) }
func hostMatMatF32(dst, w, x []float32, rows, cols, stride int) {
	matMatF32Go(dst, w, x, rows, cols, stride)
}
func hostScoresF32(att, q, keys []float32, stride int)         { scoresGo(att, q, keys, stride) }
func hostWeightedSumF32(out, att, vals []float32, stride int)  { weightedSumGo(out, att, vals, stride) }
func hostMatVecQ8_0(dst []float32, blocks []byte, x []float32) { matVecQ8_0Go(dst, blocks, x) }
