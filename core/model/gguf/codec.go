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

	// quant encodes blocks; decoding is a switch on typ (dequantize).
	quant func(dst []byte, x []float32)
}

func init() {
	for i := range tensorTypes {
		if c := tensorTypes[i].codec; c != nil {
			c.typ, c.elems, c.bytes = TensorType(i), int(tensorTypes[i].blockElems), int(tensorTypes[i].blockBytes)
		}
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
// the block size and len(src) = Type().RowBytes(len(dst)). It keeps no
// reference to dst, which may live on the caller's stack.
func (c *Codec) Dequantize(dst []float32, src []byte) {
	c.check(len(src), len(dst))
	c.dequantize(dst, src)
}

// dequantize calls the type's dequantizer. It is a switch rather than a
// func field so that callers can keep dst on their stack: a slice passed
// through a func value escapes.
func (c *Codec) dequantize(dst []float32, src []byte) {
	switch c.typ {
	case TypeF32:
		dequantF32(dst, src)
	case TypeF16:
		dequantF16(dst, src)
	case TypeBF16:
		dequantBF16(dst, src)
	case TypeQ8_0:
		dequantQ8_0(dst, src)
	case TypeQ4_0:
		dequantQ4_0(dst, src)
	case TypeQ4_1:
		dequantQ4_1(dst, src)
	case TypeQ5_0:
		dequantQ5_0(dst, src)
	case TypeQ5_1:
		dequantQ5_1(dst, src)
	case TypeQ4_K:
		dequantQ4_K(dst, src)
	case TypeQ5_K:
		dequantQ5_K(dst, src)
	case TypeQ6_K:
		dequantQ6_K(dst, src)
	default:
		panic("gguf: " + c.typ.String() + " has no dequantizer")
	}
}

// dotChunk is the number of values Dot dequantizes at a time: a whole
// number of blocks of every type (the K-quants' super-blocks hold 256).
const dotChunk = 256

// Dot returns Σ_j w[j]·x[j], where w is row dequantized, without
// allocating: it dequantizes dotChunk values at a time into a buffer on
// the stack (exactly Dequantize's values) and sums each chunk's products
// in four lanes, lane l adding w[j]·x[j] for the j ≡ l (mod 4) of the
// chunk's whole groups of four, in increasing j, then the chunk's last
// len mod 4 products to lane 0; a chunk's sum is (l0 + l1) + (l2 + l3), and
// the chunks' sums are added in order from 0. Every product and sum is
// rounded to float32, none fused. len(x) must be a multiple of the block
// size and len(row) = Type().RowBytes(len(x)).
func (c *Codec) Dot(row []byte, x []float32) float32 {
	c.check(len(row), len(x))
	return c.dot(row, x)
}

// MulVec sets dst[i] = Dot(row i, x) for the len(dst) rows stored one
// after the other in rows, which must hold exactly len(dst) rows of len(x)
// values. It allocates nothing.
func (c *Codec) MulVec(dst []float32, rows []byte, x []float32) {
	rb := len(x) / c.elems * c.bytes
	if len(rows) != len(dst)*rb {
		c.badLength(len(rows), len(dst)*len(x))
	}
	if len(dst) == 0 {
		return
	}
	c.check(rb, len(x))
	for i := range dst {
		dst[i] = c.dot(rows[i*rb:(i+1)*rb], x)
	}
}

// dot is Dot without the length check.
func (c *Codec) dot(row []byte, x []float32) float32 {
	var buf [dotChunk]float32
	var s float32
	for len(x) > 0 {
		n := min(len(x), dotChunk)
		nb := n / c.elems * c.bytes
		w := buf[:n]
		c.dequantize(w, row[:nb])
		s += dotF32(w, x[:n])
		row, x = row[nb:], x[n:]
	}
	return s
}

// dotF32 returns Σ_j a[j]·b[j] over len(a) = len(b) values in Dot's order.
func dotF32(a, b []float32) float32 {
	b = b[:len(a)]
	var l0, l1, l2, l3 float32
	j := 0
	for ; j+4 <= len(a); j += 4 {
		l0 += float32(a[j] * b[j])
		l1 += float32(a[j+1] * b[j+1])
		l2 += float32(a[j+2] * b[j+2])
		l3 += float32(a[j+3] * b[j+3])
	}
	for ; j < len(a); j++ {
		l0 += float32(a[j] * b[j])
	}
	return (l0 + l1) + (l2 + l3)
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
	codecF32  = Codec{quant: quantF32}
	codecF16  = Codec{quant: quantF16}
	codecBF16 = Codec{quant: quantBF16}
)

func dequantF32(dst []float32, src []byte) {
	src = src[:4*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

func quantF32(dst []byte, x []float32) {
	dst = dst[:4*len(x)]
	for i, v := range x {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
	}
}

// F16 (IEEE half) and BF16 store each value in 16 little-endian bits;
// they differ only in the conversions (halfToFloat, bf16ToFloat and their
// inverses). The matrix products widen them in package kernels
// (MatVecF16, MatVecBF16); these serve a row at a time.

func quantF16(dst []byte, x []float32)  { quant16(dst, x, floatToHalf) }
func quantBF16(dst []byte, x []float32) { quant16(dst, x, floatToBF16) }

func dequantF16(dst []float32, src []byte) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = halfToFloat(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

func dequantBF16(dst []float32, src []byte) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = bf16ToFloat(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

// quant16 stores conv(x[i]) at dst[2i:].
func quant16(dst []byte, x []float32, conv func(float32) uint16) {
	dst = dst[:2*len(x)]
	for i, v := range x {
		binary.LittleEndian.PutUint16(dst[2*i:], conv(v))
	}
}
