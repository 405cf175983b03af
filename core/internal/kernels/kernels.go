package kernels

import "fmt"

// Block sizes of the raw GGUF blocks the Q8_0 and Q4_0 kernels read: each
// block holds 32 values of a row, as a little-endian IEEE half-precision
// scale d followed by the quants. Q8_0: 32 int8 quants, value d·q. Q4_0: 16
// bytes, byte j holding quant j in its low nibble and quant j+16 in its
// high one, value d·(q−8).
const (
	BlockValues    = 32
	BlockBytesQ8_0 = 34
	BlockBytesQ4_0 = 18
)

// Path names the implementation the kernels run on: "wasm simd128", "amd64
// sse2" (the F32 kernels in assembly, the others in Go) or "go".
func Path() string {
	if simd128 {
		return "wasm simd128"
	}
	if sse2 {
		return "amd64 sse2"
	}
	return "go"
}

// nothingToDo reports whether a kernel has no sums to compute: dst is
// empty, or each sum has no terms (terms = 0), which sets dst to zeros.
// Past it, the paths may assume both are non-empty.
func nothingToDo(dst []float32, terms int) bool {
	if len(dst) > 0 && terms == 0 {
		clear(dst)
	}
	return len(dst) == 0 || terms == 0
}

// DotF32 returns Σ a[j]·b[j] over the len(a) elements of a; b must be at
// least as long. The row order: with p_j = a[j]·b[j], eight lane sums a_l
// from +0, lane l adding p_j for the columns j ≡ l (mod 8) of the whole
// chunks of eight in increasing j; if len(a) mod 8 ≥ 4, lanes 0..3 add the
// next four products; then s = ((a0+a4) + (a2+a6)) + ((a1+a5) + (a3+a7)),
// and the last len(a) mod 4 products are added to s one by one.
func DotF32(a, b []float32) float32 {
	if len(b) < len(a) {
		panic(fmt.Sprintf("kernels: DotF32: len(b) = %d < len(a) = %d", len(b), len(a)))
	}
	if len(a) == 0 {
		return 0
	}
	if simd128 {
		return simdDotF32(a, b)
	}
	return hostDotF32(a, b)
}

// MatVecF32 sets dst[i] = DotF32(w[i·n:(i+1)·n], x) for every i below
// len(dst), with n = len(x): w is a row-major matrix of at least len(dst)
// rows of n values.
func MatVecF32(dst, w, x []float32) {
	if len(w) < len(dst)*len(x) {
		panic(fmt.Sprintf("kernels: MatVecF32: len(w) = %d < %d rows × %d", len(w), len(dst), len(x)))
	}
	if !nothingToDo(dst, len(x)) {
		if simd128 {
			simdMatVecF32(dst, w, x)
			return
		}
		hostMatVecF32(dst, w, x)
	}
}

// MatMatF32 sets dst[t·stride+i] = DotF32(w[i·cols:(i+1)·cols],
// x[t·cols:(t+1)·cols]) for every i below rows and t below len(x)/cols: a
// row-major matrix of at least rows rows of cols values times len(x)/cols
// vectors, the results of vector t stride values after those of vector
// t−1 (stride ≥ rows). cols must be positive and divide len(x). Each
// result equals MatVecF32's for its row and vector bit for bit; the
// kernel takes four rows against every vector in turn, so the rows are
// read from memory once for all the vectors, and calls the SIMD module
// once for the whole product.
func MatMatF32(dst, w, x []float32, rows, cols, stride int) {
	if cols <= 0 || len(x)%cols != 0 {
		panic(fmt.Sprintf("kernels: MatMatF32: len(x) = %d is not a multiple of %d columns", len(x), cols))
	}
	if len(w) < rows*cols {
		panic(fmt.Sprintf("kernels: MatMatF32: len(w) = %d < %d rows × %d", len(w), rows, cols))
	}
	count := len(x) / cols
	if rows <= 0 || count == 0 {
		return
	}
	checkStrided("MatMatF32", count, rows, len(dst), stride)
	if simd128 {
		simdMatMatF32(dst, w, x, rows, cols, stride)
		return
	}
	hostMatMatF32(dst, w, x, rows, cols, stride)
}

// MatVecQ8_0 sets dst[i] to row i of a Q8_0 matrix times x. blocks holds at
// least len(dst) rows of len(x)/32 blocks of BlockBytesQ8_0 bytes, as a
// GGUF file stores them; len(x) must be a multiple of 32. Order per row: s
// from +0; per block, four lane sums from +0, a_l += q[4k+l]·x[4k+l] for
// k = 0..7 in order (x relative to the block), then s += d·((a0+a1) +
// (a2+a3)).
func MatVecQ8_0(dst []float32, blocks []byte, x []float32) {
	matVecBlocks("MatVecQ8_0", dst, blocks, x, BlockValues, BlockBytesQ8_0, simdMatVecQ8_0, hostMatVecQ8_0)
}

// MatVecQ4_0 is MatVecQ8_0 over Q4_0 blocks of BlockBytesQ4_0 bytes, with
// q the block's 32 quants minus 8, in the same order.
func MatVecQ4_0(dst []float32, blocks []byte, x []float32) {
	matVecBlocks("MatVecQ4_0", dst, blocks, x, BlockValues, BlockBytesQ4_0, simdMatVecQ4_0, matVecQ4_0Go)
}

// matVecBlocks checks a product over stored blocks (checkBlocks) and
// runs it, unless dst is empty: on simd when the SIMD module is attached,
// else on host.
func matVecBlocks(name string, dst []float32, blocks []byte, x []float32, values, blockBytes int, simd, host func(dst []float32, blocks []byte, x []float32)) {
	checkBlocks(name, len(dst), len(blocks), len(x), values, blockBytes)
	if len(dst) == 0 {
		return
	}
	if simd128 {
		simd(dst, blocks, x)
		return
	}
	host(dst, blocks, x)
}

// checkBlocks panics unless x's n values are whole blocks of values and
// nbytes holds rows rows of those blocks of blockBytes bytes.
func checkBlocks(name string, rows, nbytes, n, values, blockBytes int) {
	if n%values != 0 {
		panic(fmt.Sprintf("kernels: %s: len(x) = %d is not a multiple of %d", name, n, values))
	}
	if need := rows * (n / values) * blockBytes; nbytes < need {
		panic(fmt.Sprintf("kernels: %s: %d bytes of blocks < %d for %d rows × %d", name, nbytes, need, rows, n))
	}
}

// ScoresF32 sets att[t] = DotF32(q, keys[t·stride:]) for every t below
// len(att): one query head against len(att) keys of len(q) values stored
// stride values apart (stride ≥ len(q)); keys holds at least
// (len(att)−1)·stride + len(q) values.
func ScoresF32(att, q, keys []float32, stride int) {
	attention(false, att, q, keys, stride)
}

// WeightedSumF32 sets out[i] = Σ_t att[t]·vals[t·stride+i] for every i below
// len(out), each sum taken from +0 in increasing t: the attention output of
// one head over len(att) values of len(out) floats stored stride apart
// (stride ≥ len(out)); vals holds at least (len(att)−1)·stride + len(out)
// values.
func WeightedSumF32(out, att, vals []float32, stride int) {
	attention(true, out, att, vals, stride)
}

// attention checks and runs ScoresF32(dst, a, rows, stride), or
// WeightedSumF32(dst, a, rows, stride) when weighted: the two kernels over
// an attention head's len(a) or len(dst) rows stored stride apart. Calls
// stay direct, so that no argument escapes.
func attention(weighted bool, dst, a, rows []float32, stride int) {
	name, count, n, terms := "ScoresF32", len(dst), len(a), len(a)
	if weighted {
		name, count, n, terms = "WeightedSumF32", len(a), len(dst), len(a)
	}
	checkStrided(name, count, n, len(rows), stride)
	switch {
	case nothingToDo(dst, terms):
	case simd128 && weighted:
		simdWeightedSumF32(dst, a, rows, stride)
	case simd128:
		simdScoresF32(dst, a, rows, stride)
	case weighted:
		hostWeightedSumF32(dst, a, rows, stride)
	default:
		hostScoresF32(dst, a, rows, stride)
	}
}

// checkStrided panics unless stride ≥ n and have values hold count rows
// of n values stride apart.
func checkStrided(name string, count, n, have, stride int) {
	if stride < n {
		panic(fmt.Sprintf("kernels: %s: stride %d < %d values", name, stride, n))
	}
	if count > 0 && have < (count-1)*stride+n {
		panic(fmt.Sprintf("kernels: %s: %d values < %d for %d rows of %d, stride %d", name, have, (count-1)*stride+n, count, n, stride))
	}
}

// The K-quants' super-blocks: 256 values of a row in BlockBytesQ4_K or
// BlockBytesQ6_K bytes, as ggml's block_q4_K and block_q6_K.
//
//   - Q4_K: half-precision d and dmin, 12 bytes packing eight 6-bit scales
//     sc_j and mins m_j (ggml's get_scale_min_k4), then 128 bytes whose
//     run c of 32 holds sub-block 2c's quants in its low nibbles and
//     sub-block 2c+1's in its high ones; value d·sc_j·q − dmin·m_j.
//   - Q6_K: ql[128], qh[64], 16 int8 scales, half-precision d at byte 208;
//     sixteen sub-blocks g of 16 values, value d·sc_g·(q − 32) with q's
//     low four bits in ql and high two in qh as dequantize_row_q6_K reads
//     them.
const (
	KBlockValues   = 256
	BlockBytesQ4_K = 144
	BlockBytesQ6_K = 210
)

// stackSums is the most sub-block sums MatVecQ4_K keeps on the stack (rows
// of up to 32,768 values); longer rows allocate theirs.
const stackSums = 1024

// MatVecQ4_K sets dst[i] to row i of a Q4_K matrix times x. blocks holds
// at least len(dst) rows of len(x)/256 blocks of BlockBytesQ4_K bytes;
// len(x) must be a multiple of 256. With xs_k = Σ x[32k:32k+32] (computed
// once per call, in Go, for both paths), the order per row: four lane sums
// c_l from +0; per block, v_l from +0; per sub-block j = 0..7, a_l from
// +0, a_l += q[4k+l]·x[32j+4k+l] for k = 0..7 (x relative to the block),
// then v_l += sc_j·a_l; t_l = m_l·xs_l + m_{l+4}·xs_{l+4} (the block's
// sums); c_l += d·v_l − dmin·t_l. Finally s = (c0+c1) + (c2+c3).
func MatVecQ4_K(dst []float32, blocks []byte, x []float32) {
	k := func(dst []float32, blocks []byte, x []float32) { matVecMinK(dst, blocks, x, BlockBytesQ4_K) }
	matVecBlocks("MatVecQ4_K", dst, blocks, x, KBlockValues, BlockBytesQ4_K, k, k)
}

// MatVecQ5_K is MatVecQ4_K over Q5_K blocks of BlockBytesQ5_K bytes:
// half-precision d and dmin, the 12 scale bytes as Q4_K's, 32 bytes qh,
// then 128 bytes of nibbles as Q4_K's; value l of sub-block j has the
// fifth bit j of qh[l], q = nibble + 16·bit. The same order.
func MatVecQ5_K(dst []float32, blocks []byte, x []float32) {
	k := func(dst []float32, blocks []byte, x []float32) { matVecMinK(dst, blocks, x, BlockBytesQ5_K) }
	matVecBlocks("MatVecQ5_K", dst, blocks, x, KBlockValues, BlockBytesQ5_K, k, k)
}

// BlockBytesQ5_K is the size of a Q5_K super-block (ggml's block_q5_K).
const BlockBytesQ5_K = 176

// matVecMinK runs the Q4_K or Q5_K kernel, told apart by their block
// sizes, with the sub-block sums of x.
func matVecMinK(dst []float32, blocks []byte, x []float32, blockBytes int) {
	var buf [stackSums]float32
	var xs []float32
	if k := len(x) / BlockValues; k <= len(buf) {
		xs = buf[:k]
	} else {
		xs = make([]float32, k)
	}
	blockSums(xs, x)
	switch {
	case !simd128:
		matVecKGo(dst, blocks, x, xs, blockBytes)
	case blockBytes == BlockBytesQ5_K:
		simdMatVecQ5_K(dst, blocks, x, xs)
	default:
		simdMatVecQ4_K(dst, blocks, x, xs)
	}
}

// MatVecQ6_K sets dst[i] to row i of a Q6_K matrix times x, blocks and x
// as MatVecQ4_K's with blocks of BlockBytesQ6_K bytes. Order per row: four
// lane sums c_l from +0; per block, v_l from +0; per sub-block g = 0..15,
// a_l from +0, a_l += q[4k+l]·x[16g+4k+l] for k = 0..3, then
// v_l += sc_g·a_l; c_l += d·v_l. Finally s = (c0+c1) + (c2+c3).
func MatVecQ6_K(dst []float32, blocks []byte, x []float32) {
	matVecBlocks("MatVecQ6_K", dst, blocks, x, KBlockValues, BlockBytesQ6_K, simdMatVecQ6_K, matVecQ6_KGo)
}

// BlockBytesQ5_0 is the size of a Q5_0 block of 32 values: a
// half-precision scale d, a little-endian 32-bit word qh, then 16 bytes,
// byte j holding quant j's low four bits in its low nibble and quant
// j+16's in its high one; quant j's fifth bit is bit j of qh. Value
// d·(q−16).
const BlockBytesQ5_0 = 22

// MatVecQ5_0 is MatVecQ8_0 over Q5_0 blocks of BlockBytesQ5_0 bytes, with
// q the block's 32 five-bit quants minus 16, in the same order.
func MatVecQ5_0(dst []float32, blocks []byte, x []float32) {
	matVecBlocks("MatVecQ5_0", dst, blocks, x, BlockValues, BlockBytesQ5_0, simdMatVecQ5_0, matVecQ5_0Go)
}
