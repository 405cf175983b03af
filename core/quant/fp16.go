package quant

import (
	"math"

	"github.com/x448/float16"
)

// MaxFP16 is the largest finite FP16 value. Values beyond ±MaxFP16 cannot be
// held in FP16 storage.
const MaxFP16 = 65504

// RoundFP16 returns x rounded to the nearest FP16 value (ties to even), as a
// float32. Values beyond ±MaxFP16 (after rounding) become ±Inf; NaN stays NaN.
func RoundFP16(x float32) float32 { return float16.Fromfloat32(x).Float32() }

// ToFP16 sets dst[i] to the FP16 bits of src[i], rounded to nearest even.
// It panics if the lengths differ.
func ToFP16(dst []uint16, src []float32) {
	if len(dst) != len(src) {
		panic("quant: ToFP16 length mismatch")
	}
	for i, x := range src {
		dst[i] = float16.Fromfloat32(x).Bits()
	}
}

// FromFP16 sets dst[i] to the float32 value of the FP16 bits src[i]; the
// conversion is exact. It panics if the lengths differ.
func FromFP16(dst []float32, src []uint16) {
	if len(dst) != len(src) {
		panic("quant: FromFP16 length mismatch")
	}
	for i, h := range src {
		dst[i] = FP16ToFloat32(h)
	}
}

// FP16ToFloat32 returns the float32 value of the FP16 bits h; the
// conversion is exact (NaNs stay NaNs). It is small enough to inline into
// dot-product loops.
func FP16ToFloat32(h uint16) float32 {
	// Move exponent and mantissa into place and rebias the exponent (15 → 127).
	o := uint32(h&0x7fff)<<13 + (127-15)<<23
	switch h & 0x7c00 {
	case 0x7c00: // Inf or NaN: the exponent must be all ones
		o += (128 - 16) << 23
	case 0: // zero or subnormal: 2^-14·(1 + m/1024) − 2^-14 is exact
		o = math.Float32bits(math.Float32frombits(o+1<<23) - math.Float32frombits(113<<23))
	}
	return math.Float32frombits(o | uint32(h&0x8000)<<16)
}

// fp16Down returns the largest FP16 value that is ≤ x, for finite x with
// |x| ≤ MaxFP16.
func fp16Down(x float32) float32 {
	h := float16.Fromfloat32(x)
	if v := h.Float32(); v > x {
		return stepFP16(h, -1)
	}
	return h.Float32() + 0 // + 0 turns −0 into +0
}

// fp16Up returns the smallest FP16 value that is ≥ x, for finite x with
// |x| ≤ MaxFP16. The result is +Inf if x exceeds MaxFP16 after rounding up.
func fp16Up(x float32) float32 {
	h := float16.Fromfloat32(x)
	if v := h.Float32(); v < x {
		return stepFP16(h, +1)
	}
	return h.Float32() + 0 // + 0 turns −0 into +0
}

// stepFP16 returns the FP16 neighbour of h in direction dir (+1 up, −1 down).
func stepFP16(h float16.Float16, dir int) float32 {
	b := h.Bits()
	neg := b&0x8000 != 0
	mag := b & 0x7fff
	switch {
	case mag == 0 && dir > 0:
		b = 0x0001 // smallest positive subnormal
	case mag == 0:
		b = 0x8001 // smallest negative subnormal
	case neg == (dir < 0):
		b++ // away from zero
	default:
		b-- // towards zero
	}
	v := float16.Frombits(b).Float32()
	if v == 0 {
		return 0 // never return −0
	}
	return v
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float32) bool {
	return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
}
