//go:build amd64 && !purego

package kernels

import "unsafe"

// The amd64 path of the F32 kernels (DotF32, MatVecF32, MatMatF32,
// ScoresF32): dotsGo in SSE2 assembly (dot_amd64.s), which every amd64
// processor has, computing the same bits as the Go path in the same row
// order. Go's compiler keeps only a few of dotGo's eight scalar sums in
// registers; the assembly keeps a row's eight lanes in two XMM registers
// and four rows' in eight, sharing each load of x. WeightedSumF32 has its
// own (wsum_amd64.s), and so has MatVecQ8_0 (q8_amd64.s); the other
// kernels stay on the Go path. The build tag purego turns this path off.
const sse2 = true

// dotsSSE2 sets dst[t] = dotGo(rows[t·stride:][:n], x[:n]) for every t
// below count, bit for bit. It reads n values of x and of each row and
// writes count values of dst; the caller has checked that they exist.
//
//go:noescape
func dotsSSE2(dst, x, rows *float32, count, n, stride int)

func hostDotF32(a, b []float32) float32 {
	var s float32
	dotsSSE2(&s, unsafe.SliceData(b), unsafe.SliceData(a), 1, len(a), len(a))
	return s
}

func hostMatVecF32(dst, w, x []float32) {
	dotsSSE2(unsafe.SliceData(dst), unsafe.SliceData(x), unsafe.SliceData(w), len(dst), len(x), len(x))
}

// hostMatMatF32 takes four rows at a time against every vector of x, as
// matMatF32Go does.
func hostMatMatF32(dst, w, x []float32, rows, cols, stride int) {
	count := len(x) / cols
	for i := 0; i < rows; i += 4 {
		k := min(4, rows-i)
		for t := range count {
			dotsSSE2(&dst[t*stride+i], &x[t*cols], &w[i*cols], k, cols, cols)
		}
	}
}

func hostScoresF32(att, q, keys []float32, stride int) {
	dotsSSE2(unsafe.SliceData(att), unsafe.SliceData(q), unsafe.SliceData(keys), len(att), len(q), stride)
}
