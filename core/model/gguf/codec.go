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
	dot     func(row []byte, x []float32) float32
	quant   func(dst []byte, x []float32)
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
	return c.dot(row, x)
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
// (as ggml's GGML_FP16_TO_FP32). The magnitude bits shifted into a float32
// are the value scaled by 2^−112 for normal and subnormal halves alike;
// infinities and NaNs get the float32 all-ones exponent.
func halfToFloat(h uint16) float32 {
	m := uint32(h&0x7fff) << 13
	f := math.Float32frombits(m) * 0x1p112
	if h&0x7c00 == 0x7c00 {
		f = math.Float32frombits(m | 0x7f800000)
	}
	return math.Float32frombits(math.Float32bits(f) | uint32(h&0x8000)<<16)
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
	row = row[:4*len(x)]
	var s0, s1 float32
	i := 0
	for ; i+1 < len(x); i += 2 {
		s0 += math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:])) * x[i]
		s1 += math.Float32frombits(binary.LittleEndian.Uint32(row[4*i+4:])) * x[i+1]
	}
	for ; i < len(x); i++ {
		s0 += math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:])) * x[i]
	}
	return s0 + s1
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
	row = row[:2*len(x)]
	var s0, s1 float32
	i := 0
	for ; i+1 < len(x); i += 2 {
		s0 += halfToFloat(binary.LittleEndian.Uint16(row[2*i:])) * x[i]
		s1 += halfToFloat(binary.LittleEndian.Uint16(row[2*i+2:])) * x[i+1]
	}
	for ; i < len(x); i++ {
		s0 += halfToFloat(binary.LittleEndian.Uint16(row[2*i:])) * x[i]
	}
	return s0 + s1
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
	row = row[:2*len(x)]
	var s0, s1 float32
	i := 0
	for ; i+1 < len(x); i += 2 {
		s0 += bf16ToFloat(binary.LittleEndian.Uint16(row[2*i:])) * x[i]
		s1 += bf16ToFloat(binary.LittleEndian.Uint16(row[2*i+2:])) * x[i+1]
	}
	for ; i < len(x); i++ {
		s0 += bf16ToFloat(binary.LittleEndian.Uint16(row[2*i:])) * x[i]
	}
	return s0 + s1
}

func quantBF16(dst []byte, x []float32) {
	dst = dst[:2*len(x)]
	for i, v := range x {
		binary.LittleEndian.PutUint16(dst[2*i:], floatToBF16(v))
	}
}
