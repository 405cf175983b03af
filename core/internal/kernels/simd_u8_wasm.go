//go:build js && wasm

package kernels

import "unsafe"

// The byte-code kernels of kernels.wat (see simd_wasm.go). rows is passed
// as Go ints: int64 in Go's WebAssembly port, which the module reads.

//go:wasmimport kvscope_kernels dots_u8
//go:noescape
func wasmDotsU8(dst, q, codes, rows unsafe.Pointer, count, n int32)

//go:wasmimport kvscope_kernels affine_u8
//go:noescape
func wasmAffineU8(dst, a, b, codes, rows unsafe.Pointer, count, n int32)

func simdDotsU8(dst, q []float32, codes []byte, rows []int) {
	wasmDotsU8(ptr(dst), ptr(q), ptr(codes), ptr(rows), int32(len(rows)), int32(len(q)))
}

func simdAffineU8(dst, a, b []float32, codes []byte, rows []int) {
	wasmAffineU8(ptr(dst), ptr(a), ptr(b), ptr(codes), ptr(rows), int32(len(rows)), int32(len(dst)))
}
