//go:build js && wasm

package kernels

import "unsafe"

// The K-quant kernels of kernels.wat (see simd_wasm.go).

//go:wasmimport kvscope_kernels matvec_q4_k
//go:noescape
func wasmMatVecQ4_K(dst, blocks, x, xs unsafe.Pointer, rows, n int32)

//go:wasmimport kvscope_kernels matvec_q6_k
//go:noescape
func wasmMatVecQ6_K(dst, blocks, x unsafe.Pointer, rows, n int32)

func simdMatVecQ4_K(dst []float32, blocks []byte, x, xs []float32) {
	wasmMatVecQ4_K(ptr(dst), ptr(blocks), ptr(x), ptr(xs), int32(len(dst)), int32(len(x)))
}

func simdMatVecQ6_K(dst []float32, blocks []byte, x []float32) {
	wasmMatVecQ6_K(ptr(dst), ptr(blocks), ptr(x), int32(len(dst)), int32(len(x)))
}

//go:wasmimport kvscope_kernels matvec_q5_0
//go:noescape
func wasmMatVecQ5_0(dst, blocks, x unsafe.Pointer, rows, n int32)

func simdMatVecQ5_0(dst []float32, blocks []byte, x []float32) {
	wasmMatVecQ5_0(ptr(dst), ptr(blocks), ptr(x), int32(len(dst)), int32(len(x)))
}

//go:wasmimport kvscope_kernels matvec_q5_k
//go:noescape
func wasmMatVecQ5_K(dst, blocks, x, xs unsafe.Pointer, rows, n int32)

func simdMatVecQ5_K(dst []float32, blocks []byte, x, xs []float32) {
	wasmMatVecQ5_K(ptr(dst), ptr(blocks), ptr(x), ptr(xs), int32(len(dst)), int32(len(x)))
}

//go:wasmimport kvscope_kernels matvec_h16
//go:noescape
func wasmMatVecH16(dst, rows, x unsafe.Pointer, count, n, bf int32)

func simdMatVecF16(dst []float32, rows []byte, x []float32) {
	wasmMatVecH16(ptr(dst), ptr(rows), ptr(x), int32(len(dst)), int32(len(x)), 0)
}

func simdMatVecBF16(dst []float32, rows []byte, x []float32) {
	wasmMatVecH16(ptr(dst), ptr(rows), ptr(x), int32(len(dst)), int32(len(x)), 1)
}
