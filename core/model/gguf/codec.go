package gguf

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/x448/float16"
)

// Codec holds the kernels of one tensor type: it dequantizes stored blocks
// to float32, dots a stored row with a float32 vector, and encodes float32
// values as blocks. A row is any whole number of blocks: n values of the
// type occupy Type().RowBytes(n) bytes. Any bit pattern decodes (to NaN or
// infinities where the format says so) without panicking; a length that
// does not match is a programming error and panics with a "gguf:" message.
//
// The layouts are ggml's (ggml-common.h); quant_legacy.go and quant_k.go
// describe them. Get a Codec with TensorType.Codec.
type Codec struct {
	// Set by init from tensorTypes, the one table of block sizes.
	typ          TensorType
	elems, bytes int

	dequant func(dst []float32, src []byte)
	// dot is nil for the types with a per-block min, whose kernels also
	// take the sums of x over each 32 values (the same for every row; see
	// dotSums).
	dot   func(row []byte, x []float32) float32
	quant func(dst []byte, x []float32)
}

func init() {
	for i := range tensorTypes {
		if c := tensorTypes[i].codec; c != nil {
			c.typ, c.elems, c.bytes = TensorType(i), int(tensorTypes[i].blockElems), int(tensorTypes[i].blockBytes)
		}
	}
	for b := range 256 {
		i8f[b] = float32(int8(b))
		u8f[b] = float32(b)
		lo4[b], hi4[b] = float32(b&15), float32(b>>4)
		lo4m8[b], hi4m8[b] = float32(b&15-8), float32(b>>4-8)
	}
}

// Codec returns the kernels of type t, or an error ("gguf: type Q2_K not
// supported") for a type the package cannot decode.
func (t TensorType) Codec() (*Codec, error) {
	if c := t.codec(); c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("gguf: type %v not supported", t)
}

// codec returns t's kernels, or nil.
func (t TensorType) codec() *Codec {
	if tr, ok := t.traits(); ok {
		return tr.codec
	}
	return nil
}

// Type returns the tensor type the codec encodes.
func (c *Codec) Type() TensorType { return c.typ }

// Dequantize sets dst to the values stored in src, computed exactly as
// ggml's dequantize_row_* does (each product and difference rounded to
// float32 in the same order, none fused). len(dst) must be a multiple of
// the block size and len(src) = Type().RowBytes(len(dst)).
func (c *Codec) Dequantize(dst []float32, src []byte) {
	c.check(len(src), len(dst))
	c.dequant(dst, src)
}

// Dot returns Σ_j w[j]·x[j], where w is row dequantized, without
// materializing w and without allocating: per block, sums of quant·x in
// float32, scaled once. It equals the dot product over Dequantize's values
// up to float32 rounding. len(x) must be a multiple of the block size and
// len(row) = Type().RowBytes(len(x)).
func (c *Codec) Dot(row []byte, x []float32) float32 {
	c.check(len(row), len(x))
	if c.dot != nil {
		return c.dot(row, x)
	}
	var buf [sumChunk / 32]float32
	var s float32
	for len(x) > 0 {
		n := min(len(x), sumChunk)
		xs := buf[:n/32]
		blockSums(xs, x[:n])
		nb := n / c.elems * c.bytes
		s += c.dotSums(row[:nb], x[:n], xs)
		row, x = row[nb:], x[n:]
	}
	return s
}

// MulVec sets dst[i] = Dot(row i, x) for the len(dst) rows stored one
// after the other in rows, which must hold exactly len(dst) rows of len(x)
// values. It allocates nothing; for the types with a per-block min (Q4_1,
// Q5_1, Q4_K, Q5_K) it sums x over each block once, not once per row.
func (c *Codec) MulVec(dst []float32, rows []byte, x []float32) {
	rb := len(x) / c.elems * c.bytes
	if len(rows) != len(dst)*rb {
		c.badLength(len(rows), len(dst)*len(x))
	}
	if len(dst) == 0 {
		return
	}
	c.check(rb, len(x))
	if c.dot != nil || len(x) > sumChunk {
		for i := range dst {
			dst[i] = c.Dot(rows[i*rb:(i+1)*rb], x)
		}
		return
	}
	var buf [sumChunk / 32]float32
	xs := buf[:len(x)/32]
	blockSums(xs, x)
	for i := range dst {
		dst[i] = c.dotSums(rows[i*rb:(i+1)*rb], x, xs)
	}
}

// Quantize encodes x into dst as ggml's quantize_row_*_ref does (the
// K-quants' scale search is ported from it; see quant_k.go). len(x) must
// be a multiple of the block size and len(dst) = Type().RowBytes(len(x)).
func (c *Codec) Quantize(dst []byte, x []float32) {
	c.check(len(dst), len(x))
	c.quant(dst, x)
}

// check panics unless nb bytes hold exactly n values.
func (c *Codec) check(nb, n int) {
	if n%c.elems != 0 || nb != n/c.elems*c.bytes {
		c.badLength(nb, n)
	}
}

func (c *Codec) badLength(nb, n int) {
	panic(fmt.Sprintf("gguf: %v: %d bytes for %d values (blocks of %d values in %d bytes)", c.typ, nb, n, c.elems, c.bytes))
}

// dotSums calls the kernel of a type with a per-block min, given xs[k] =
// Σ x[32k:32k+32]. It is a switch rather than a func field so that callers
// can keep xs on their stack: a slice passed through a func value escapes.
func (c *Codec) dotSums(row []byte, x, xs []float32) float32 {
	switch c.typ {
	case TypeQ4_1:
		return dotQ4_1(row, x, xs)
	case TypeQ5_1:
		return dotQ5_1(row, x, xs)
	case TypeQ4_K:
		return dotQ4_K(row, x, xs)
	case TypeQ5_K:
		return dotQ5_K(row, x, xs)
	}
	panic("gguf: " + c.typ.String() + " has no dot kernel")
}

// sumChunk is the most values whose block sums MulVec and Dot keep on the
// stack (512 sums, 2 KiB); longer rows are dotted in chunks of it, a whole
// number of blocks of every type.
const sumChunk = 16384

// blockSums sets xs[k] = Σ x[32k:32k+32] for the len(x)/32 blocks.
func blockSums(xs, x []float32) {
	for k := range xs {
		xs[k] = sum32((*[32]float32)(x[32*k:]))
	}
}

// Tables that turn a stored byte into float32 by a load rather than an
// integer conversion, which is slower in the dot kernels.
var (
	i8f      [256]float32 // float32(int8(b))
	u8f      [256]float32 // float32(b)
	lo4, hi4 [256]float32 // the low and high nibble of b
	lo4m8    [256]float32 // the low nibble of b, minus 8
	hi4m8    [256]float32 // the high nibble of b, minus 8
)

// halfToFloat returns the IEEE half-precision value with bits h, exactly
// (as ggml's GGML_FP16_TO_FP32). The sign and magnitude bits moved into a
// float32 (magnitude shifted up 13) are the value scaled by 2^−112, for
// normal and subnormal halves alike; infinities and NaNs get the float32
// all-ones exponent.
func halfToFloat(h uint16) float32 {
	u := uint32(h)
	b := u&0x8000<<16 | u&0x7fff<<13
	if u&0x7c00 == 0x7c00 {
		return math.Float32frombits(b | 0x7f800000)
	}
	return math.Float32frombits(b) * 0x1p112
}

// half reads the little-endian half at b[0:2].
func half(b []byte) float32 { return halfToFloat(binary.LittleEndian.Uint16(b)) }

// floatToHalf rounds f to the nearest half (ties to even), as
// GGML_FP32_TO_FP16.
func floatToHalf(f float32) uint16 { return float16.Fromfloat32(f).Bits() }

// putHalf writes f rounded to half precision at b[0:2] and returns the
// rounded value.
func putHalf(b []byte, f float32) float32 {
	h := floatToHalf(f)
	binary.LittleEndian.PutUint16(b, h)
	return halfToFloat(h)
}

// bf16ToFloat returns the bfloat16 value with bits h: the top half of a
// float32.
func bf16ToFloat(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// floatToBF16 rounds f to bfloat16 as ggml_compute_fp32_to_bf16: to
// nearest even, a NaN staying a (quiet) NaN.
func floatToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 64
	}
	return uint16((u + 0x7fff + (u>>16)&1) >> 16)
}

// The float types: one value per "block".
var (
	codecF32  = Codec{dequant: dequantF32, dot: dotF32, quant: quantF32}
	codecF16  = Codec{dequant: dequantF16, dot: dotF16, quant: quantF16}
	codecBF16 = Codec{dequant: dequantBF16, dot: dotBF16, quant: quantBF16}
)

func dequantF32(dst []float32, src []byte) {
	src = src[:4*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

func dotF32(row []byte, x []float32) float32 {
	var a0, a1, a2, a3 float32
	for ; len(x) >= 4; row, x = row[16:], x[4:] {
		r, xb := (*[16]byte)(row), (*[4]float32)(x)
		a0 += math.Float32frombits(binary.LittleEndian.Uint32(r[0:])) * xb[0]
		a1 += math.Float32frombits(binary.LittleEndian.Uint32(r[4:])) * xb[1]
		a2 += math.Float32frombits(binary.LittleEndian.Uint32(r[8:])) * xb[2]
		a3 += math.Float32frombits(binary.LittleEndian.Uint32(r[12:])) * xb[3]
	}
	for i := range x {
		a0 += math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:])) * x[i]
	}
	return (a0 + a1) + (a2 + a3)
}

func quantF32(dst []byte, x []float32) {
	dst = dst[:4*len(x)]
	for i, v := range x {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
	}
}

func dequantF16(dst []float32, src []byte) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = halfToFloat(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

func dotF16(row []byte, x []float32) float32 {
	var a0, a1, a2, a3 float32
	for ; len(x) >= 4; row, x = row[8:], x[4:] {
		r, xb := (*[8]byte)(row), (*[4]float32)(x)
		a0 += halfToFloat(uint16(r[0])|uint16(r[1])<<8) * xb[0]
		a1 += halfToFloat(uint16(r[2])|uint16(r[3])<<8) * xb[1]
		a2 += halfToFloat(uint16(r[4])|uint16(r[5])<<8) * xb[2]
		a3 += halfToFloat(uint16(r[6])|uint16(r[7])<<8) * xb[3]
	}
	for i := range x {
		a0 += half(row[2*i:]) * x[i]
	}
	return (a0 + a1) + (a2 + a3)
}

func quantF16(dst []byte, x []float32) {
	dst = dst[:2*len(x)]
	for i, v := range x {
		binary.LittleEndian.PutUint16(dst[2*i:], floatToHalf(v))
	}
}

func dequantBF16(dst []float32, src []byte) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = bf16ToFloat(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

func dotBF16(row []byte, x []float32) float32 {
	var a0, a1, a2, a3 float32
	for ; len(x) >= 4; row, x = row[8:], x[4:] {
		r, xb := (*[8]byte)(row), (*[4]float32)(x)
		a0 += math.Float32frombits(uint32(r[0])<<16|uint32(r[1])<<24) * xb[0]
		a1 += math.Float32frombits(uint32(r[2])<<16|uint32(r[3])<<24) * xb[1]
		a2 += math.Float32frombits(uint32(r[4])<<16|uint32(r[5])<<24) * xb[2]
		a3 += math.Float32frombits(uint32(r[6])<<16|uint32(r[7])<<24) * xb[3]
	}
	for i := range x {
		a0 += bf16ToFloat(binary.LittleEndian.Uint16(row[2*i:])) * x[i]
	}
	return (a0 + a1) + (a2 + a3)
}

func quantBF16(dst []byte, x []float32) {
	dst = dst[:2*len(x)]
	for i, v := range x {
		binary.LittleEndian.PutUint16(dst[2*i:], floatToBF16(v))
	}
}
