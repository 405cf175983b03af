//go:build amd64 && !purego

package kernels

import "unsafe"

// q8RowsSSE2 sets dst[i] to row i of a Q8_0 matrix of rows rows and nb
// blocks a row times x, matVecQ8_0Go's order bit for bit (q8_amd64.s).
// half holds the 65,536 half-precision values widened by f16. The caller
// has checked the lengths.
//
//go:noescape
func q8RowsSSE2(dst *float32, blocks *byte, x *float32, rows, nb int, half *float32)

func hostMatVecQ8_0(dst []float32, blocks []byte, x []float32) {
	q8RowsSSE2(unsafe.SliceData(dst), unsafe.SliceData(blocks), unsafe.SliceData(x), len(dst), len(x)/BlockValues, &halfTable()[0])
}
