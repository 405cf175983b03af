package quant

import (
	"math"
	"strings"
	"testing"
)

func TestCalibrateTensor(t *testing.T) {
	samples := []float32{5, -1, 3, 100, 0, 2, 4, 1, -50, 6} // sorted: −50 −1 0 1 2 3 4 5 6 100
	tests := []struct {
		clip   float64
		lo, hi float32
	}{
		{0, -50, 100},
		{0.1, -1, 6}, // ⌊0.1·10⌋ = 1 value trimmed from each tail
		{0.25, 0, 5}, // ⌊2.5⌋ = 2
		{0.49, 2, 3}, // ⌊4.9⌋ = 4 = (n−1)/2: ranks 4 and 5, the two middle values
	}
	for _, tt := range tests {
		c, err := CalibrateTensor(samples, tt.clip)
		if err != nil {
			t.Fatal(err)
		}
		if c.Channels() != 1 || c.Lo[0] != tt.lo || c.Hi[0] != tt.hi {
			t.Errorf("clip %g: range [%v, %v], want [%g, %g]", tt.clip, c.Lo, c.Hi, tt.lo, tt.hi)
		}
	}
	if samples[0] != 5 {
		t.Error("CalibrateTensor reordered its input")
	}
}

func TestCalibrateChannels(t *testing.T) {
	// 4 vectors of dim 3, row-major.
	samples := []float32{
		1, -10, 0.5,
		2, 10, 0.5,
		3, -20, 0.5,
		4, 20, 0.5,
	}
	c, err := CalibrateChannels(samples, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantLo, wantHi := []float32{1, -20, 0.5}, []float32{4, 20, 0.5}
	for j := range 3 {
		if c.Lo[j] != wantLo[j] || c.Hi[j] != wantHi[j] {
			t.Errorf("channel %d: [%g, %g], want [%g, %g]", j, c.Lo[j], c.Hi[j], wantLo[j], wantHi[j])
		}
	}
	p, err := c.Params(4)
	if err != nil {
		t.Fatal(err)
	}
	// Channel 1: (20 − (−20))/15 = 2.6667 → FP16 up 2.66796875; channel 2 constant 0.5.
	if p[1] != (Params{Scale: 2.66796875, Min: -20}) || p[2] != (Params{Min: 0.5}) {
		t.Errorf("params %+v", p)
	}
	// Values outside the calibrated range clamp to the top code, which
	// reconstructs within scale/2 of the calibrated maximum 4.
	if c := p[0].Code(99, 4); c != 15 {
		t.Errorf("99 in channel 0 has code %d, want 15", c)
	}
	if got := p[0].Value(15); math.Abs(float64(got-4)) > float64(p[0].MaxError()) {
		t.Errorf("top code reconstructs as %g, not within %g of 4", got, p[0].MaxError())
	}
}

func TestCalibrateErrors(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name string
		f    func() error
		want string
	}{
		{"tensor empty", func() error { _, err := CalibrateTensor(nil, 0); return err }, "no samples"},
		{"tensor NaN", func() error { _, err := CalibrateTensor([]float32{1, nan}, 0); return err }, "NaN"},
		{"clip", func() error { _, err := CalibrateTensor([]float32{1}, 0.5); return err }, "clip"},
		{"channels ragged", func() error { _, err := CalibrateChannels([]float32{1, 2, 3}, 2, 0); return err }, "n·2 samples"},
		{"channels dim 0", func() error { _, err := CalibrateChannels([]float32{1}, 0, 0); return err }, "samples"},
		{"params bits", func() error { _, err := (&Calibration{Lo: []float32{0}, Hi: []float32{1}}).Params(9); return err }, "bit width"},
		{"reversed", func() error { return (&Calibration{Lo: []float32{2}, Hi: []float32{1}}).Validate() }, "empty range"},
		{"ragged", func() error { return (&Calibration{Lo: []float32{0, 1}, Hi: []float32{1}}).Validate() }, "2 lows and 1 highs"},
		{"beyond FP16", func() error { return (&Calibration{Lo: []float32{0}, Hi: []float32{1e6}}).Validate() }, "exceeds FP16"},
	}
	for _, tt := range tests {
		err := tt.f()
		if err == nil || !strings.HasPrefix(err.Error(), "quant: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
