package quant

import (
	"math"
	"testing"

	"github.com/x448/float16"
)

func TestRoundFP16(t *testing.T) {
	tests := []struct {
		in, want float32
	}{
		{0, 0},
		{1, 1},
		{-2.5, -2.5},
		{1 + 1.0/2048, 1},             // halfway between 1 and 1+2^-10: ties to even
		{1 + 3.0/2048, 1 + 2.0/1024},  // halfway, rounds up to the even neighbour
		{0.1, 0.0999755859375},        // nearest FP16 to 0.1
		{65504, 65504},                // MaxFP16
		{65520, float32(math.Inf(1))}, // rounds past MaxFP16
		{1e-8, 0},                     // below half the smallest subnormal (2^-25)
	}
	for _, tt := range tests {
		if got := RoundFP16(tt.in); got != tt.want {
			t.Errorf("RoundFP16(%g) = %g, want %g", tt.in, got, tt.want)
		}
	}
}

func TestFP16SliceRoundTrip(t *testing.T) {
	src := []float32{0, 1, -1, 0.5, 3.140625, -65504, 6.103515625e-05}
	h := make([]uint16, len(src))
	back := make([]float32, len(src))
	ToFP16(h, src)
	FromFP16(back, h)
	for i := range src {
		if back[i] != src[i] { // all inputs are FP16 values
			t.Errorf("round trip of %g = %g", src[i], back[i])
		}
	}
	if h[1] != 0x3c00 || h[2] != 0xbc00 {
		t.Errorf("bits of 1, -1 = %#04x, %#04x, want 0x3c00, 0xbc00", h[1], h[2])
	}
}

func TestFP16Directed(t *testing.T) {
	tests := []struct {
		in, down, up float32
	}{
		{1, 1, 1},
		{1.0001, 1, 1 + 1.0/1024},
		{-1.0001, -1 - 1.0/1024, -1},
		{0.1, 0.0999755859375, 0.10003662109375},
		{1e-9, 0, 5.960464477539063e-08},   // up: smallest subnormal 2^-24
		{-1e-9, -5.960464477539063e-08, 0}, // never −0
		{65504, 65504, 65504},
		{-65504, -65504, -65504},
	}
	for _, tt := range tests {
		if got := fp16Down(tt.in); got != tt.down {
			t.Errorf("fp16Down(%g) = %g, want %g", tt.in, got, tt.down)
		}
		if got := fp16Up(tt.in); got != tt.up {
			t.Errorf("fp16Up(%g) = %g, want %g", tt.in, got, tt.up)
		}
	}
	if math.Signbit(float64(fp16Up(-1e-9))) {
		t.Error("fp16Up(-1e-9) is −0")
	}
}

// FuzzFP16Directed checks that fp16Down and fp16Up return the FP16 values
// that bracket x most tightly.
func FuzzFP16Directed(f *testing.F) {
	for _, x := range []float32{0, 1, -1, 0.1, -0.1, 1e-9, 65504, -65504, 3e-5, 1000.3} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float32) {
		if !finite(x) || x > MaxFP16 || x < -MaxFP16 {
			return
		}
		d, u := fp16Down(x), fp16Up(x)
		if d > x || u < x {
			t.Fatalf("fp16Down(%g) = %g, fp16Up = %g do not bracket", x, d, u)
		}
		if RoundFP16(d) != d || RoundFP16(u) != u {
			t.Fatalf("results %g, %g are not FP16 values", d, u)
		}
		if d != u {
			// No FP16 value strictly between d and u.
			if next := stepFP16(float16.Fromfloat32(d), +1); next != u && !(d == 0 && next == u) {
				t.Fatalf("fp16 after %g is %g, want %g (x = %g)", d, next, u, x)
			}
		}
	})
}

// TestFP16ToFloat32 compares the fast conversion with x448/float16 on every
// one of the 65536 FP16 bit patterns.
func TestFP16ToFloat32(t *testing.T) {
	for b := range 1 << 16 {
		h := uint16(b)
		got, want := FP16ToFloat32(h), float16.Frombits(h).Float32()
		if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("FP16ToFloat32(%#04x) = %g, want %g", h, got, want)
		}
	}
}
