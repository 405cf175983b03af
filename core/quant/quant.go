// Package quant holds the quantization primitives of kvscope: asymmetric
// uniform quantization with FP16 parameters, dense bit packing of the codes,
// FP16 conversion, calibration of fixed parameters from sample vectors, and
// error metrics.
//
// A vector quantized to b bits with Params p is stored as codes
// q = clamp(round((x − p.Min)/p.Scale), 0, 2^b − 1) and reconstructed as
// x̂ = q·p.Scale + p.Min. Both parameters are FP16 values, so the 4 bytes
// that memory accounting charges for a (scale, zero point) pair are exactly
// what reconstruction uses. Every x inside the fitted range reconstructs
// within p.Scale/2 (plus the float32 rounding of x̂ itself).
package quant

import (
	"errors"
	"fmt"
	"math"
)

// MinBits and MaxBits bound the code width accepted by Fit and the packing
// and dot-product kernels.
const (
	MinBits = 2
	MaxBits = 8
)

// ErrNonFinite is returned (wrapped) for NaN or ±Inf inputs.
var ErrNonFinite = errors.New("quant: value is NaN or Inf")

// ValidBits returns an error unless MinBits ≤ bits ≤ MaxBits.
func ValidBits(bits int) error {
	if bits < MinBits || bits > MaxBits {
		return fmt.Errorf("quant: unsupported bit width %d (want %d..%d)", bits, MinBits, MaxBits)
	}
	return nil
}

// Params are the asymmetric quantization parameters of one group of values:
// x̂ = code·Scale + Min. Min is the zero point in value units. Params made by
// Fit hold FP16-representable values (4 bytes when stored).
type Params struct {
	Scale float32 // step between levels; 0 when the range is a single FP16 value
	Min   float32 // value of code 0
}

// Fit returns the parameters of b-bit codes covering [lo, hi].
//
// Min is lo rounded down to FP16 and Scale is (hi − Min)/(2^b − 1) rounded
// up to FP16, so the levels Min, Min+Scale, …, Min+(2^b−1)·Scale are FP16
// parameters that still cover [lo, hi]: every x in [lo, hi] is within
// Scale/2 of a level. When lo == hi and lo is an FP16 value, Scale is 0 and
// reconstruction is exact.
//
// Fit returns an error if bits is unsupported, if lo or hi is NaN or Inf,
// if lo > hi, or if either lies beyond ±MaxFP16.
func Fit(lo, hi float32, bits int) (Params, error) {
	if err := ValidBits(bits); err != nil {
		return Params{}, err
	}
	if !finite(lo) || !finite(hi) {
		return Params{}, fmt.Errorf("%w: range [%g, %g]", ErrNonFinite, lo, hi)
	}
	if lo > hi {
		return Params{}, fmt.Errorf("quant: empty range [%g, %g]", lo, hi)
	}
	if lo < -MaxFP16 || hi > MaxFP16 {
		return Params{}, fmt.Errorf("quant: range [%g, %g] exceeds FP16 (±%d)", lo, hi, MaxFP16)
	}
	return fit(lo, hi, bits), nil
}

// fit is Fit without validation; lo ≤ hi, both finite and within ±MaxFP16,
// MinBits ≤ bits ≤ MaxBits. The scale never overflows FP16 there: the
// widest range, 2·MaxFP16, divided by 2^MinBits − 1 = 3, is below MaxFP16.
func fit(lo, hi float32, bits int) Params {
	m := fp16Down(lo)
	span := float64(hi) - float64(m)
	if span == 0 {
		return Params{Min: m}
	}
	s := fp16Up(float32(span / float64(levels(bits)-1)))
	// float32(·) may have rounded the quotient down; make sure the top level
	// still reaches hi.
	for float64(m)+float64(levels(bits)-1)*float64(s) < float64(hi) {
		s = fp16Up(math.Nextafter32(s, math.MaxFloat32))
	}
	return Params{Scale: s, Min: m}
}

// FitSlice returns Fit(min(x), max(x), bits). It returns an error for an
// empty x, any NaN or Inf element, unsupported bits, or values beyond
// ±MaxFP16.
func FitSlice(x []float32, bits int) (Params, error) {
	if len(x) == 0 {
		return Params{}, errors.New("quant: FitSlice of an empty slice")
	}
	lo, hi := x[0], x[0]
	for _, v := range x {
		if !finite(v) {
			return Params{}, fmt.Errorf("%w: %g", ErrNonFinite, v)
		}
		if v < lo { // comparisons: the float min and max builtins are calls under WebAssembly
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return Fit(lo, hi, bits)
}

// levels returns 2^bits.
func levels(bits int) int { return 1 << bits }

// Code returns the b-bit code of x: round((x − Min)/Scale) clamped to
// [0, 2^b − 1], or 0 when Scale is 0. NaN maps to 0. bits is not checked;
// use a width accepted by ValidBits.
func (p Params) Code(x float32, bits int) uint8 {
	if p.Scale == 0 {
		return 0
	}
	return code(x, float64(p.Min), 1/float64(p.Scale), float64(levels(bits)-1))
}

// code is Code with the reciprocal scale and the top code precomputed. The
// reciprocal is computed in float64, so the rounding decision differs from
// an exact division only within 1e-15 of a half step. Rounding is
// math.Round's (half away from zero) without its bit manipulation: see
// RoundHalfUp.
func code(x float32, lo, inv, top float64) uint8 {
	t := (float64(x) - lo) * inv
	if t > 0 && t < top {
		return uint8(RoundHalfUp(t))
	}
	if t >= top {
		return uint8(top)
	}
	return 0 // t ≤ 0 or NaN
}

// roundBias is the largest float64 below 1/2. Adding 1/2 itself would
// round 0.5−2⁻⁵⁴ up to 1 before the truncation.
const roundBias = 0.5 - 1.0/(1<<54)

// RoundHalfUp returns math.Round(t) as an int32 for 0 ≤ t < 2^31, the range
// of code computations, at the cost of one addition and one conversion:
// ⌊t + roundBias⌋ equals math.Round(t) there, ties included. The result is
// unspecified for other t.
func RoundHalfUp(t float64) int32 { return int32(t + roundBias) }

// RoundCode returns RoundHalfUp(t) as an int64 for 0 ≤ t < 2^31. For
// every other t, NaN and ±Inf included, the result lies outside
// [1, 2^31): a finite t below 0 truncates to at most 0, one at or above
// 2^31 to at least 2^31, and Go converts NaN and floats beyond the int64
// range to the minimum int64 or saturates them, depending on the port
// (TestRoundCodeOutside checks the running one). So a result r with
// 1 ≤ r < 2^31 proves 0 < t < 2^31 and r = math.Round(t): one unsigned
// comparison, uint64(r−1) < top−1, screens a code for the open range
// (0, top) with the conversion's result alone.
func RoundCode(t float64) int64 { return int64(t + roundBias) }

// Value returns the reconstruction of code c: c·Scale + Min.
func (p Params) Value(c uint8) float32 { return float32(c)*p.Scale + p.Min }

// MaxError returns Scale/2, the worst-case reconstruction error of a value
// inside the fitted range (up to the float32 rounding of the result).
func (p Params) MaxError() float32 { return p.Scale / 2 }

// Quantize sets dst[i] = p.Code(x[i], bits). It panics if the lengths differ
// or bits is unsupported.
func Quantize(dst []uint8, x []float32, p Params, bits int) {
	if len(dst) != len(x) {
		panic("quant: Quantize length mismatch")
	}
	if ValidBits(bits) != nil {
		panic(fmt.Sprintf("quant: Quantize with unsupported bit width %d", bits))
	}
	if p.Scale == 0 {
		clear(dst)
		return
	}
	lo, inv, top := float64(p.Min), 1/float64(p.Scale), float64(levels(bits)-1)
	for i, v := range x {
		dst[i] = code(v, lo, inv, top)
	}
}

// Dequantize sets dst[i] = p.Value(codes[i]). It panics if the lengths differ.
func Dequantize(dst []float32, codes []uint8, p Params) {
	if len(dst) != len(codes) {
		panic("quant: Dequantize length mismatch")
	}
	for i, c := range codes {
		dst[i] = p.Value(c)
	}
}
