//go:build js && wasm

package kernels

import "unsafe"

// abiVersion is the kernels.wat interface this code calls (its abi_version).
const abiVersion = 5

// simd128 is true when the host provided kernels.wasm of this interface's
// version: static/kernels.js makes present return the module's abi_version
// once it is attached, and 0 when it is absent (not given, not compiled —
// a browser without SIMD — or missing a function).
var simd128 = present() == abiVersion

// The module's functions, imported from "kvscope_kernels" (static/kernels.js
// forwards each to the export of the same name). Addresses are Go's own:
// the module runs on Go's linear memory. None of them keeps a pointer past
// the call or calls back into Go, so the arguments do not escape.

//go:wasmimport kvscope_kernels present
func present() int32

//go:wasmimport kvscope_kernels dot_f32
//go:noescape
func wasmDotF32(a, b unsafe.Pointer, n int32) float32

//go:wasmimport kvscope_kernels matvec_f32
//go:noescape
func wasmMatVecF32(dst, w, x unsafe.Pointer, rows, n int32)

//go:wasmimport kvscope_kernels matmat_f32
//go:noescape
func wasmMatMatF32(dst, w, x unsafe.Pointer, rows, n, count, stride int32)

//go:wasmimport kvscope_kernels matvec_q8_0
//go:noescape
func wasmMatVecQ8_0(dst, blocks, x unsafe.Pointer, rows, n int32)

//go:wasmimport kvscope_kernels matvec_q4_0
//go:noescape
func wasmMatVecQ4_0(dst, blocks, x unsafe.Pointer, rows, n int32)

//go:wasmimport kvscope_kernels scores_f32
//go:noescape
func wasmScoresF32(att, q, keys unsafe.Pointer, count, n, stride int32)

//go:wasmimport kvscope_kernels wsum_f32
//go:noescape
func wasmWeightedSumF32(out, att, vals unsafe.Pointer, count, n, stride int32)

// The callers have checked the lengths and that none is zero; a wasm32
// memory holds under 2³² bytes, so every count fits an int32.

func ptr[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }

func simdDotF32(a, b []float32) float32 {
	return wasmDotF32(ptr(a), ptr(b), int32(len(a)))
}

func simdMatVecF32(dst, w, x []float32) {
	wasmMatVecF32(ptr(dst), ptr(w), ptr(x), int32(len(dst)), int32(len(x)))
}

func simdMatMatF32(dst, w, x []float32, rows, cols, stride int) {
	wasmMatMatF32(ptr(dst), ptr(w), ptr(x), int32(rows), int32(cols), int32(len(x)/cols), int32(stride))
}

func simdMatVecQ8_0(dst []float32, blocks []byte, x []float32) {
	wasmMatVecQ8_0(ptr(dst), ptr(blocks), ptr(x), int32(len(dst)), int32(len(x)))
}

func simdMatVecQ4_0(dst []float32, blocks []byte, x []float32) {
	wasmMatVecQ4_0(ptr(dst), ptr(blocks), ptr(x), int32(len(dst)), int32(len(x)))
}

func simdScoresF32(att, q, keys []float32, stride int) {
	wasmScoresF32(ptr(att), ptr(q), ptr(keys), int32(len(att)), int32(len(q)), int32(stride))
}

func simdWeightedSumF32(out, att, vals []float32, stride int) {
	wasmWeightedSumF32(ptr(out), ptr(att), ptr(vals), int32(len(att)), int32(len(out)), int32(stride))
}
