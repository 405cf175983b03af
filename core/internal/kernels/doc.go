// Package kernels holds the forward pass's inner loops — dot products,
// matrix-vector products over float32 rows, over F16 and BF16 rows and
// over raw GGUF Q8_0, Q4_0, Q5_0, Q4_K, Q5_K and Q6_K blocks, attention
// scores and weighted sums,
// dots and weighted sums over rows of byte codes —
// on paths that compute the same bits:
//
//   - "wasm simd128": a WebAssembly SIMD module (kernels.wat, assembled to
//     static/kernels.wasm) that the Go program calls on its own linear
//     memory. Go's WebAssembly port emits no SIMD instructions, so this path
//     exists only under GOOS=js GOARCH=wasm, and only when the host gave the
//     module to the Go program's imports (static/kernels.js does).
//   - "amd64 sse2": natively on amd64, the F32 kernels (DotF32, MatVecF32,
//     MatMatF32, ScoresF32, WeightedSumF32) and MatVecQ8_0 in SSE2
//     assembly (dot_amd64.s, wsum_amd64.s, q8_amd64.s), the others in Go.
//     The build tag purego leaves it out.
//   - "go": plain Go (fallback.go, fallback_blocks.go), used on other
//     ports and whenever the module is absent.
//
// The paths follow one summation order per function, stated in each doc
// comment, with every product and sum rounded to float32 (no fused
// multiply-add), so their results are equal bit for bit, not merely close:
// a page on any path decodes the same tokens. The F32 row order sums each
// row in eight independent lanes, two f32x4 sums in the module, two XMM
// registers in the assembly and eight scalar sums in Go, so no path is
// bound by the latency of one running sum, and a row's result never
// depends on how rows are grouped.
//
// Preconditions on lengths are checked before any memory is touched (the
// SIMD and assembly paths read memory through raw addresses); a violation
// is a programming error and panics, as an out-of-range slice index would.
// The functions allocate nothing. dst and out must not overlap the inputs.
//
// # Why hand-written WebAssembly
//
// Go's WebAssembly port emits no SIMD instructions, so without this module
// the products that dominate a decode step run one float at a time in the
// browser. The module is written in the WebAssembly text format
// (kernels.wat, about 15 KB assembled by wabt's wat2wasm, which make build
// installs from Debian when it is missing) because hand-written text gives
// exact control of every operation and its order: that is what lets the
// SIMD path return the Go path's bits. The module imports the Go program's
// linear memory ("go" "mem"), so it works on Go's slices in place; the Go
// side declares its functions with //go:wasmimport (simd_wasm.go), and
// static/kernels.js fills those imports before go.run, in the page and in
// its workers. Without them the program cannot be instantiated, so every
// host of a program that links this package uses kernels.js (go test
// under Node does through testdata/exec_node.js; KVSCOPE_KERNELS=none
// there keeps the Go path). The page's model facts and
// window.kvscope.state().kernels name the path in use (model.KernelPath).
//
// The users are core/model's matrix-vector products (model.Matrix over
// F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K and Q6_K rows; Q4_1 and
// Q5_1 rows are dequantized by their gguf.Codec and dotted by DotF32),
// FullCache's attention scores and weighted sums, the simulator's
// reference attention (core/sim's Stream), and core/store's 8-bit
// per-token codes (DotsU8 and AffineU8, the page's default storage); the
// store's other encodings run in Go.
package kernels
