package store

import (
	"fmt"
	"math"
)

// Rotation is a fixed orthogonal transform of the stored coordinates,
// applied before quantization and to the query at attention time.
type Rotation uint8

// Rotations.
const (
	NoRotation Rotation = iota // stored as is
	// Hadamard is the normalised Walsh–Hadamard matrix H/√n over the
	// stored dimension n (quant.Hadamard): O(n log n) per vector, no
	// memory (the matrix is defined by n alone). A stored dimension that
	// is not a power of two is rotated block-diagonally over the powers of
	// two of its binary expansion (96 = 64 + 32): still orthogonal, but an
	// outlier spreads only over its block.
	Hadamard
)

// rotationNames are the Rotations' names, in Rotation order.
var rotationNames = []string{"none", "hadamard"}

// String returns the name ParseRotation accepts.
func (r Rotation) String() string { return nameOf(rotationNames, r, "Rotation") }

// ParseRotation returns the Rotation named "none" (or "") or "hadamard".
func ParseRotation(s string) (Rotation, error) {
	if s == "" {
		return NoRotation, nil
	}
	return parseName[Rotation](rotationNames, s, "rotation")
}

// Quantizer is how a sealed vector of Bits ≤ 8 is coded: one Codec, in
// its own file, described by its QuantizerDef (codec.go). Register adds
// one.
type Quantizer uint8

// The built-in quantizers.
const (
	// Uniform codes each value as an integer of Bits bits with an FP16
	// scale and zero point per token, group, channel or tensor
	// (Granularity).
	Uniform Quantizer = iota
	// Turbo is TurboQuant-MSE (arXiv 2504.19874): per token the FP16 norm
	// ‖x‖ is stored, x/‖x‖ is rotated by one random orthogonal matrix Π
	// drawn from Seed (a dense d×d product: O(d²) per token, and the matrix,
	// d² FP16 values, is held and counted once per store), and each rotated
	// coordinate, close to N(0, 1/d), is coded as the nearest of the 2^Bits
	// Lloyd–Max levels of N(0, 1) scaled by 1/√d (quant.LloydMax; the
	// codebook, FP16, is counted once per store). No scale or zero point.
	// Reconstruction is ‖x‖·Πᵀ·ĉ; it shrinks q·x on average (the levels
	// are cell means), a bias TurboProd removes. A norm beyond FP16 range
	// (a vector of values near ±quant.MaxFP16) is clamped to it.
	Turbo
	// TurboProd is TurboQuant-prod: Turbo at Bits−1 bits, then a 1-bit QJL
	// sketch of the residual r = Πx − ‖x‖·ĉ with m = StoredDim Gaussian rows
	// drawn from Seed, plus ‖r‖ in FP16. The estimate
	// q·x̂ = ‖x‖·(Πq)·ĉ + √(π/2)/m·‖r‖·⟨S·Πq, sign(S·r)⟩ is unbiased over S.
	// Bits bits per coordinate in all, plus two FP16 norms per token.
	TurboProd
	// QJL (arXiv 2406.03482) stores sign(S·x) for a Gaussian m×d matrix S
	// drawn from Seed, m = Bits·StoredDim (Bits sign bits per coordinate),
	// and ‖x‖ in FP16; q·x ≈ √(π/2)/m·‖x‖·⟨S·q, sign(S·x)⟩, unbiased over
	// S. The estimate is linear in q, so Read returns the vector
	// √(π/2)/m·‖x‖·Sᵀ·sign(S·x) whose dot with q it is, and WeightedSum
	// sums those. S (m·d FP16 values) is held and counted once per store.
	QJL

	numQuantizers // the built-in ones; Register adds more
)

// validateOptions checks Rotate, Quantizer, Outliers and Sinks for a stored
// dimension of stored values.
func (c Config) validateOptions(stored int) error {
	full := c.Bits == 32 || c.Bits == 16
	if c.Rotate > Hadamard {
		return fmt.Errorf("store: unknown rotation %d", c.Rotate)
	}
	d := c.Quantizer.def()
	if d == nil {
		return fmt.Errorf("store: unknown quantizer %d", c.Quantizer)
	}
	if c.Quantizer != Uniform {
		switch {
		case full:
			return fmt.Errorf("store: quantizer %v with Bits %d (needs Bits ≤ 8)", c.Quantizer, c.Bits)
		case c.Basis != nil:
			return fmt.Errorf("store: quantizer %v with a low-rank basis (uniform only)", c.Quantizer)
		case c.Calib != nil:
			return fmt.Errorf("store: quantizer %v has no ranges to calibrate (Calib must be nil)", c.Quantizer)
		}
	}
	if d.Validate != nil {
		if err := d.Validate(c, stored); err != nil {
			return err
		}
	}
	if math.IsNaN(c.Outliers) || c.Outliers < 0 || c.Outliers > 0.5 {
		return fmt.Errorf("store: Outliers %g must be in [0, 0.5]", c.Outliers)
	}
	if c.Outliers > 0 {
		switch {
		case full:
			return fmt.Errorf("store: Outliers with Bits %d keeps nothing apart (needs Bits ≤ 8)", c.Bits)
		case c.Quantizer != Uniform:
			return fmt.Errorf("store: Outliers with quantizer %v (uniform only)", c.Quantizer)
		case c.Granularity == PerChannel && c.Calib == nil:
			return fmt.Errorf("store: Outliers with online per-channel blocks (calibrated channel, tensor, token or group only)")
		}
	}
	if c.Sinks < 0 {
		return fmt.Errorf("store: Sinks %d < 0", c.Sinks)
	}
	if full && c.Sinks > 0 && c.Basis == nil {
		return fmt.Errorf("store: Sinks %d with Bits %d compresses nothing (needs Bits ≤ 8 or a Basis)", c.Sinks, c.Bits)
	}
	return nil
}

// outlierCount is the number of values per sealed token kept in FP16.
func (c Config) outlierCount(stored int) int {
	if c.Outliers <= 0 {
		return 0
	}
	return min(stored, int(math.Ceil(c.Outliers*float64(stored))))
}
