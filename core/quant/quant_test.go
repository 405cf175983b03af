package quant

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestFit(t *testing.T) {
	tests := []struct {
		name   string
		lo, hi float32
		bits   int
		want   Params
	}{
		// 0..15 at 4 bits: (15 − 0)/15 = 1, both FP16 values.
		{"unit steps", 0, 15, 4, Params{Scale: 1, Min: 0}},
		// −1..2 at 2 bits: 3/3 = 1.
		{"negative min", -1, 2, 2, Params{Scale: 1, Min: -1}},
		// 0..1 at 8 bits: 1/255 = 0.00392157 rounds up to the FP16 value
		// 2^-8·(1 + 5/1024) = 0.0039253234863 (2^-8·(1 + 4/1024) = 0.0039215 is below).
		{"rounded scale", 0, 1, 8, Params{Scale: 0.0039253234863281250, Min: 0}},
		// 0.1 is not FP16: Min rounds down to 0.0999755859375.
		{"rounded min", 0.1, 0.1 + 7, 3, Params{Scale: 1.0009765625, Min: 0.0999755859375}},
		// A constant FP16 value: scale 0, exact.
		{"constant", 2.5, 2.5, 4, Params{Scale: 0, Min: 2.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Fit(tt.lo, tt.hi, tt.bits)
			if err != nil {
				t.Fatal(err)
			}
			if p != tt.want {
				t.Errorf("Fit(%g, %g, %d) = %+v, want %+v", tt.lo, tt.hi, tt.bits, p, tt.want)
			}
		})
	}
}

func TestFitErrors(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tests := []struct {
		name   string
		lo, hi float32
		bits   int
		want   string
	}{
		{"bits 1", 0, 1, 1, "unsupported bit width"},
		{"bits 9", 0, 1, 9, "unsupported bit width"},
		{"bits 16", 0, 1, 16, "unsupported bit width"},
		{"NaN", nan, 1, 4, "NaN"},
		{"Inf", 0, inf, 4, "NaN or Inf"},
		{"reversed", 2, 1, 4, "empty range"},
		{"beyond FP16", 0, 70000, 8, "exceeds FP16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fit(tt.lo, tt.hi, tt.bits)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "quant: ") {
				t.Errorf("Fit(%g, %g, %d) error = %v, want one containing %q", tt.lo, tt.hi, tt.bits, err, tt.want)
			}
		})
	}
	if _, err := FitSlice([]float32{1, nan}, 4); !errors.Is(err, ErrNonFinite) {
		t.Errorf("FitSlice with NaN: error %v, want ErrNonFinite", err)
	}
	if _, err := FitSlice(nil, 4); err == nil {
		t.Error("FitSlice(nil) returned no error")
	}
}

// checkBound fails t unless every x quantizes and reconstructs within
// p.MaxError(), allowing for the float32 rounding of x̂ itself.
func checkBound(t *testing.T, x []float32, p Params, bits int) {
	t.Helper()
	codes := make([]uint8, len(x))
	xhat := make([]float32, len(x))
	Quantize(codes, x, p, bits)
	Dequantize(xhat, codes, p)
	for i := range x {
		if int(codes[i]) >= 1<<bits {
			t.Fatalf("code %d does not fit %d bits", codes[i], bits)
		}
		err := math.Abs(float64(x[i]) - float64(xhat[i]))
		slack := ulp(max(abs32(x[i]), abs32(xhat[i])))
		if err > float64(p.MaxError())+slack {
			t.Fatalf("x = %g: x̂ = %g, error %g > scale/2 = %g (params %+v, %d bits)",
				x[i], xhat[i], err, p.MaxError(), p, bits)
		}
	}
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

// ulp returns the float32 spacing at |x|.
func ulp(x float32) float64 {
	return float64(math.Nextafter32(x, float32(math.Inf(1))) - x)
}

func TestErrorBound(t *testing.T) {
	tests := []struct {
		name string
		x    []float32
	}{
		{"ramp", []float32{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{"signed", []float32{-3.3, 1.7, 0.01, -0.02, 2.9}},
		{"offset", []float32{1000.1, 1000.2, 1000.9, 1000.05}},
		{"tiny range", []float32{1e-6, 2e-6, 3e-6}},
		{"constant not FP16", []float32{0.1, 0.1, 0.1}},
		{"full FP16 range", []float32{-65504, 0, 65504}},
		{"outlier", []float32{0.1, -0.2, 0.15, 40}},
	}
	for _, tt := range tests {
		for _, bits := range []int{2, 3, 4, 8} {
			p, err := FitSlice(tt.x, bits)
			if err != nil {
				t.Fatalf("%s/%d: %v", tt.name, bits, err)
			}
			t.Run(tt.name, func(t *testing.T) { checkBound(t, tt.x, p, bits) })
		}
	}
}

func TestConstantExact(t *testing.T) {
	x := []float32{-1.5, -1.5, -1.5}
	for _, bits := range []int{2, 3, 4, 8} {
		p, err := FitSlice(x, bits)
		if err != nil {
			t.Fatal(err)
		}
		codes := make([]uint8, len(x))
		xhat := make([]float32, len(x))
		Quantize(codes, x, p, bits)
		Dequantize(xhat, codes, p)
		for i := range x {
			if xhat[i] != x[i] {
				t.Errorf("%d bits: x̂ = %g, want exactly %g", bits, xhat[i], x[i])
			}
		}
	}
}

func TestCodeClamps(t *testing.T) {
	p := Params{Scale: 1, Min: 0}
	tests := []struct {
		x    float32
		bits int
		want uint8
	}{
		{-5, 4, 0},
		{2.4, 4, 2},
		{2.5, 4, 3}, // round half away from zero
		{14.6, 4, 15},
		{99, 4, 15},
		{99, 3, 7},
		{300, 8, 255},
		{float32(math.NaN()), 8, 0},
	}
	for _, tt := range tests {
		if got := p.Code(tt.x, tt.bits); got != tt.want {
			t.Errorf("Code(%g, %d) = %d, want %d", tt.x, tt.bits, got, tt.want)
		}
	}
}

func TestErrorBoundRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 128)
	for trial := range 500 {
		span := math.Pow(10, r.Float64()*8-4) // 1e-4 .. 1e4
		off := (r.Float64()*2 - 1) * 1000
		for i := range x {
			x[i] = float32(off + span*r.NormFloat64())
		}
		bits := []int{2, 3, 4, 8}[trial%4]
		p, err := FitSlice(x, bits)
		if err != nil {
			t.Fatal(err)
		}
		checkBound(t, x, p, bits)
	}
}

// FuzzErrorBound checks the scale/2 bound and the FP16-ness of the params
// for arbitrary ranges and points inside them.
func FuzzErrorBound(f *testing.F) {
	f.Add(float32(0), float32(1), float32(0.5), uint8(4))
	f.Add(float32(-65504), float32(65504), float32(3), uint8(2))
	f.Add(float32(0.1), float32(0.1), float32(0.1), uint8(8))
	f.Add(float32(1e-7), float32(3e-7), float32(2e-7), uint8(3))
	f.Fuzz(func(t *testing.T, a, b, x float32, bits uint8) {
		lo, hi := min(a, b), max(a, b)
		bw := MinBits + int(bits)%(MaxBits-MinBits+1)
		p, err := Fit(lo, hi, bw)
		if err != nil {
			if finite(lo) && finite(hi) && lo >= -MaxFP16 && hi <= MaxFP16 {
				t.Fatalf("Fit(%g, %g, %d): %v", lo, hi, bw, err)
			}
			return
		}
		if RoundFP16(p.Scale) != p.Scale || RoundFP16(p.Min) != p.Min || p.Scale < 0 {
			t.Fatalf("params %+v are not non-negative-scale FP16 values", p)
		}
		if !(x >= lo && x <= hi) {
			x = lo + (hi-lo)/2
		}
		checkBound(t, []float32{lo, hi, x}, p, bw)
	})
}

// roundCases are values of t where rounding half away from zero is easy to
// get wrong: halves, their float64 neighbours, and the largest float64
// below 1/2, which t + 0.5 would round up to 1.
func roundCases() []float64 {
	ts := []float64{0, math.SmallestNonzeroFloat64, 0.25, 0.5 - 1.0/(1<<54), 0.5 - 1.0/(1<<53), 255, 254.99999999999997, 1 << 30}
	for k := range 300 {
		h := float64(k) + 0.5
		ts = append(ts, h, math.Nextafter(h, 0), math.Nextafter(h, math.Inf(1)), float64(k))
	}
	return ts
}

func TestRoundHalfUp(t *testing.T) {
	for _, x := range roundCases() {
		if got, want := RoundHalfUp(x), int32(math.Round(x)); got != want {
			t.Errorf("RoundHalfUp(%v) = %d, math.Round gives %d", x, got, want)
		}
	}
}

func TestRoundCode(t *testing.T) {
	for _, x := range roundCases() {
		if got, want := RoundCode(x), int64(math.Round(x)); got != want {
			t.Errorf("RoundCode(%v) = %d, math.Round gives %d", x, got, want)
		}
	}
}

// TestRoundCodeOutside checks RoundCode's promise for t outside
// [0, 2^31) on the running port: the result is never in [1, 2^31), so
// uint64(r−1) < 2^31−1 admits no such t. The inputs come from a slice the
// compiler cannot fold.
func TestRoundCodeOutside(t *testing.T) {
	ts := []float64{math.NaN(), -math.NaN(), math.Inf(1), math.Inf(-1), -1e300, 1e300, -0.5, -0.75, -1.5, -2,
		-math.SmallestNonzeroFloat64, 1 << 31, 1<<31 + 0.5, 1 << 32, 1<<32 + 5, 1 << 63, 1 << 64, -(1 << 63), -(1 << 64)}
	for _, x := range ts {
		if r := RoundCode(x); uint64(r-1) < 1<<31-1 {
			t.Errorf("RoundCode(%v) = %d, inside [1, 2^31)", x, r)
		}
	}
}

// FuzzRoundHalfUp holds RoundHalfUp to math.Round over its documented
// domain, 0 ≤ t < 2^31.
func FuzzRoundHalfUp(f *testing.F) {
	for _, x := range roundCases()[:12] {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		x = math.Abs(x)
		if !(x < 1<<31) {
			return
		}
		if got, want := RoundHalfUp(x), int32(math.Round(x)); got != want {
			t.Fatalf("RoundHalfUp(%v) = %d, math.Round gives %d", x, got, want)
		}
	})
}

// TestCodeMatchesRound holds Code to its definition, round((x − Min)/Scale)
// clamped, with math.Round and the float64 reciprocal, on values placed at
// and around every half level.
func TestCodeMatchesRound(t *testing.T) {
	for _, p := range []Params{{Scale: 0.0625, Min: -3}, {Scale: 0.01171875, Min: 0.5}, {Scale: 3, Min: -384}} {
		for _, bits := range []int{2, 3, 4, 8} {
			top := float64(levels(bits) - 1)
			for k := -2; k <= levels(bits)+1; k++ {
				h := p.Min + (float32(k)+0.5)*p.Scale
				for _, x := range []float32{h, math.Nextafter32(h, -1e9), math.Nextafter32(h, 1e9), p.Min + float32(k)*p.Scale} {
					r := math.Round((float64(x) - float64(p.Min)) * (1 / float64(p.Scale)))
					want := uint8(max(0, min(top, r)))
					if got := p.Code(x, bits); got != want {
						t.Fatalf("%+v, %d bits: Code(%v) = %d, want %d", p, bits, x, got, want)
					}
				}
			}
		}
	}
}
