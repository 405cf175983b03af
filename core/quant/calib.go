package quant

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Calibration is a value range learned from representative vectors before
// decoding, so that quantization parameters can be fixed instead of being
// computed from the data being stored. Lo and Hi have one entry (per tensor)
// or one entry per channel. Values outside [Lo, Hi] clamp to the nearest end
// when quantized with the calibrated params.
type Calibration struct {
	Lo, Hi []float32
}

// CalibrateTensor returns a per-tensor Calibration from samples, a flat list
// of values (any number of vectors). clip in [0, 0.5) trims that fraction of
// the values from each tail before taking the range: with n values sorted,
// Lo is the value of rank ⌊clip·n⌋ and Hi that of rank n−1−⌊clip·n⌋; 0 keeps
// the plain minimum and maximum. It returns an error for no samples, a NaN or
// Inf sample, or clip out of range. It sorts a copy of samples
// (O(n log n), allocates n values).
func CalibrateTensor(samples []float32, clip float64) (*Calibration, error) {
	if len(samples) == 0 {
		return nil, errors.New("quant: CalibrateTensor with no samples")
	}
	lo, hi, err := clipRange(slices.Clone(samples), clip)
	if err != nil {
		return nil, err
	}
	return &Calibration{Lo: []float32{lo}, Hi: []float32{hi}}, nil
}

// CalibrateChannels returns a per-channel Calibration from samples, n
// vectors of dim values stored row-major (len(samples) = n·dim, n ≥ 1). Each
// channel's range is computed over its n values with the clipping rule of
// CalibrateTensor. It returns an error for dim < 1, a length that is not a
// positive multiple of dim, a NaN or Inf sample, or clip out of range.
func CalibrateChannels(samples []float32, dim int, clip float64) (*Calibration, error) {
	if dim < 1 || len(samples) == 0 || len(samples)%dim != 0 {
		return nil, fmt.Errorf("quant: CalibrateChannels needs n·%d samples, got %d", dim, len(samples))
	}
	n := len(samples) / dim
	c := &Calibration{Lo: make([]float32, dim), Hi: make([]float32, dim)}
	col := make([]float32, n)
	for j := range dim {
		for i := range n {
			col[i] = samples[i*dim+j]
		}
		lo, hi, err := clipRange(col, clip)
		if err != nil {
			return nil, fmt.Errorf("%w (channel %d)", err, j)
		}
		c.Lo[j], c.Hi[j] = lo, hi
	}
	return c, nil
}

// clipRange sorts v in place and returns its clipped range.
func clipRange(v []float32, clip float64) (lo, hi float32, err error) {
	if !(clip >= 0 && clip < 0.5) {
		return 0, 0, fmt.Errorf("quant: clip %g out of [0, 0.5)", clip)
	}
	for _, x := range v {
		if !finite(x) {
			return 0, 0, fmt.Errorf("%w: sample %g", ErrNonFinite, x)
		}
	}
	slices.Sort(v)
	k := int(math.Floor(clip * float64(len(v))))
	k = min(k, (len(v)-1)/2)
	return v[k], v[len(v)-1-k], nil
}

// Channels returns the number of channels the calibration covers: 1 for a
// per-tensor calibration.
func (c *Calibration) Channels() int { return len(c.Lo) }

// Validate returns an error unless Lo and Hi have the same non-zero length
// and every Lo[i] ≤ Hi[i] is finite and within ±MaxFP16.
func (c *Calibration) Validate() error {
	if len(c.Lo) == 0 || len(c.Lo) != len(c.Hi) {
		return fmt.Errorf("quant: calibration has %d lows and %d highs", len(c.Lo), len(c.Hi))
	}
	for i := range c.Lo {
		if _, err := Fit(c.Lo[i], c.Hi[i], MinBits); err != nil {
			return fmt.Errorf("%w (calibration channel %d)", err, i)
		}
	}
	return nil
}

// Params returns the b-bit parameters of every calibrated range, one per
// channel (one for a per-tensor calibration). It returns an error if bits is
// unsupported or the calibration is invalid.
func (c *Calibration) Params(bits int) ([]Params, error) {
	if err := ValidBits(bits); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := make([]Params, len(c.Lo))
	for i := range p {
		p[i] = fit(c.Lo[i], c.Hi[i], bits)
	}
	return p, nil
}
