package store

import (
	"fmt"
	"math"

	"github.com/kvscope/kvscope/core/quant"
)

// Granularity is the set of values that share one (scale, zero point) pair.
// The zero value is PerToken.
type Granularity uint8

// Granularities.
const (
	PerToken   Granularity = iota // one pair per token: each token's codes and params are its own
	PerGroup                      // one pair per GroupSize consecutive channels of a token
	PerChannel                    // one pair per channel: calibrated, or online per block of GroupSize tokens (KIVI keys)
	PerTensor                     // one pair for everything: needs a calibration
)

// granularityNames are the Granularities' names, in Granularity order.
var granularityNames = []string{"token", "group", "channel", "tensor"}

// String returns the name ParseGranularity accepts.
func (g Granularity) String() string { return nameOf(granularityNames, g, "Granularity") }

// ParseGranularity returns the Granularity named "token", "group",
// "channel" or "tensor", or an error for any other name.
func ParseGranularity(s string) (Granularity, error) {
	return parseName[Granularity](granularityNames, s, "granularity")
}

// Config says how a Store holds its vectors.
//
// A token enters the store as Dim float32 values. With a Basis it is first
// reduced to its Rank coefficients c = B·x; the stored vector (x, or c) has
// StoredDim values and is kept as float32 (Bits 32), FP16 (Bits 16), or
// integer codes of 2 to 8 bits with FP16 params at the given Granularity.
// The newest Residual tokens are held as FP16 full vectors first.
type Config struct {
	// Bits is 32 (float32 as is), 16 (FP16) or 2..8 (integer codes).
	Bits int
	// Granularity of the params; ignored for Bits 32 and 16.
	Granularity Granularity
	// GroupSize is, for PerGroup, the channels per group within a token (it
	// must divide StoredDim); for online PerChannel (no Calib), the tokens per
	// block, KIVI's G. Ignored otherwise.
	GroupSize int
	// Residual is the number of newest tokens kept as FP16 full vectors
	// before they are compressed (KIVI's R); 0 compresses on Append, except
	// that online PerChannel always waits for a full block of GroupSize
	// tokens, held in FP16 meanwhile. Residual needs Bits ≤ 8 or a Basis.
	Residual int
	// Calib, if set, fixes the params from a calibration pass over stored
	// vectors (coefficients when Basis is set): one range for PerTensor
	// (required there), StoredDim ranges for PerChannel (optional there). Not
	// allowed with other granularities or Bits 32 and 16.
	Calib *quant.Calibration
	// Basis, if set, is a Rank×Dim row-major matrix with orthonormal rows:
	// tokens are stored as c = B·x and reconstructed as x̂ = Bᵀ·ĉ. The store
	// keeps it rounded to FP16 (the bytes Memory.Factors reports) and uses
	// that rounded copy for both directions.
	Basis []float32

	// The options below are in storeopts.go.

	// Rotate, if Hadamard, rotates every stored vector by the normalised
	// Walsh–Hadamard matrix before it is coded (QuaRot, SpinQuant); Dots
	// rotates the query alike, so q·x is unchanged while an outlier
	// channel is spread over all channels. It applies to the stored
	// coordinates: after the Basis projection, before any Quantizer.
	Rotate Rotation
	// Quantizer is how sealed vectors are coded when Bits ≤ 8: Uniform
	// (the zero value: integer codes with FP16 scale and zero point at
	// Granularity), Turbo, TurboProd or QJL (no scales: Granularity and
	// GroupSize are ignored; Basis and Calib are not allowed).
	Quantizer Quantizer
	// Seed draws the random rotation of Turbo and TurboProd and the
	// Gaussian sketch of TurboProd and QJL: the same seed, the same matrices.
	Seed uint64
	// Outliers is the share of each sealed token's stored values kept
	// exactly in FP16 with their indices, the largest in magnitude
	// (KVQuant's dense-and-sparse split): ⌈Outliers·StoredDim⌉ per token,
	// left out of the ranges the rest is quantized with. 0 turns it off; at
	// most 0.5. Uniform quantizer only, not with online PerChannel blocks.
	Outliers float64
	// Sinks is the number of first tokens appended (since New or Reset)
	// held as FP16 full vectors for as long as they stay, whatever Bits
	// (sink-aware precision: KVSink, RotateKV). Needs Bits ≤ 8 or a Basis.
	Sinks int
}

// orthoTol is how far B·Bᵀ may stray from the identity, per entry.
const orthoTol = 1e-3

// Validate returns an error describing the first setting that cannot hold
// vectors of dim values: unsupported Bits, an unknown Granularity, a
// GroupSize that is missing or does not divide the stored dimension, a
// negative Residual or one without compression, a calibration of the wrong
// shape or granularity, or a basis that is not Rank×dim with orthonormal,
// finite rows. It costs O(Rank²·dim) when a basis is set.
func (c Config) Validate(dim int) error {
	if dim < 1 {
		return fmt.Errorf("store: dimension %d < 1", dim)
	}
	full := c.Bits == 32 || c.Bits == 16
	if !full {
		if err := quant.ValidBits(c.Bits); err != nil {
			return fmt.Errorf("store: Bits %d: want 32, 16 or %d..%d", c.Bits, quant.MinBits, quant.MaxBits)
		}
	}
	stored := dim
	if c.Basis != nil {
		if err := validBasis(c.Basis, dim); err != nil {
			return err
		}
		stored = len(c.Basis) / dim
	}
	if c.Residual < 0 {
		return fmt.Errorf("store: Residual %d < 0", c.Residual)
	}
	if full && c.Residual > 0 && c.Basis == nil {
		return fmt.Errorf("store: Residual %d with Bits %d compresses nothing (needs Bits ≤ 8 or a Basis)", c.Residual, c.Bits)
	}
	if err := c.validateOptions(stored); err != nil {
		return err
	}
	if full {
		if c.Calib != nil {
			return fmt.Errorf("store: Calib with Bits %d (needs Bits ≤ 8)", c.Bits)
		}
		return nil
	}
	if c.Granularity > PerTensor {
		return fmt.Errorf("store: unknown granularity %d", c.Granularity)
	}
	switch c.Granularity {
	case PerGroup:
		if c.GroupSize < 1 || stored%c.GroupSize != 0 {
			return fmt.Errorf("store: GroupSize %d must be ≥ 1 and divide the stored dimension %d", c.GroupSize, stored)
		}
	case PerChannel:
		if c.Calib == nil && c.GroupSize < 1 {
			return fmt.Errorf("store: online per-channel quantization needs GroupSize ≥ 1 tokens per block, got %d", c.GroupSize)
		}
	case PerTensor:
		if c.Calib == nil {
			return fmt.Errorf("store: per-tensor quantization needs a calibration (Config.Calib)")
		}
	}
	if c.Calib != nil {
		want := map[Granularity]int{PerTensor: 1, PerChannel: stored}
		n, ok := want[c.Granularity]
		if !ok {
			return fmt.Errorf("store: Calib with %v granularity (needs tensor or channel)", c.Granularity)
		}
		if err := c.Calib.Validate(); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if c.Calib.Channels() != n {
			return fmt.Errorf("store: %v calibration has %d channels, want %d", c.Granularity, c.Calib.Channels(), n)
		}
	}
	return nil
}

// validBasis checks that b is Rank×dim with finite, orthonormal rows.
func validBasis(b []float32, dim int) error {
	if len(b) == 0 || len(b)%dim != 0 || len(b)/dim > dim {
		return fmt.Errorf("store: basis has %d values, want Rank×%d with 1 ≤ Rank ≤ %d", len(b), dim, dim)
	}
	for _, v := range b {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("store: basis holds %g", v)
		}
	}
	if i, j, d, found := quant.FirstNonOrthonormal(b, dim, orthoTol); found {
		want := 0.0
		if i == j {
			want = 1
		}
		return fmt.Errorf("store: basis rows %d and %d have dot product %.4g, want %g (rows must be orthonormal)", i, j, d, want)
	}
	return nil
}
