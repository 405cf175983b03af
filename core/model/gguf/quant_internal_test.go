package gguf

import (
	"math"
	"testing"

	"github.com/x448/float16"
)

// halfToFloat agrees with the float16 package on every one of the 65,536
// bit patterns (NaNs as NaNs), and floatToHalf inverts it on all but NaNs.
func TestHalfToFloatExhaustive(t *testing.T) {
	for h := range 1 << 16 {
		got, want := halfToFloat(uint16(h)), float16.Frombits(uint16(h)).Float32()
		if want != want {
			if got == got {
				t.Fatalf("half %#04x: got %v, want NaN", h, got)
			}
			continue
		}
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("half %#04x: got %v (%#08x), want %v (%#08x)", h, got, math.Float32bits(got), want, math.Float32bits(want))
		}
		if back := floatToHalf(got); back != uint16(h) {
			t.Fatalf("half %#04x → %v → %#04x", h, got, back)
		}
	}
}

// floatToBF16 rounds to nearest even and keeps NaNs quiet NaNs.
func TestFloatToBF16(t *testing.T) {
	for _, tc := range []struct {
		in   uint32
		want uint16
	}{
		{0x3F800000, 0x3F80}, // 1
		{0x3F808000, 0x3F80}, // halfway, even stays
		{0x3F818000, 0x3F82}, // halfway, odd rounds up
		{0x3F808001, 0x3F81}, // above halfway
		{0x7F7FFFFF, 0x7F80}, // the largest float32 rounds to +Inf
		{0x7F800000, 0x7F80}, // +Inf
		{0x7F800001, 0x7FC0}, // a signalling NaN becomes quiet
		{0xFFC00000, 0xFFC0}, // −NaN
		{0x80000000, 0x8000}, // −0
	} {
		if got := floatToBF16(math.Float32frombits(tc.in)); got != tc.want {
			t.Errorf("bf16(%#08x) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
}

// scaleMinK4 and putScaleMinK4 are inverse on all 6-bit values of every
// sub-block, each sub-block's bits untouched by the others.
func TestScaleMinK4RoundTrip(t *testing.T) {
	for v := range 64 {
		var q [12]byte
		for j := range 8 {
			putScaleMinK4(j, &q, uint8((v+7*j)&63), uint8((v*5+j)&63))
		}
		for j := range 8 {
			sc, m := scaleMinK4(j, &q)
			if sc != uint8((v+7*j)&63) || m != uint8((v*5+j)&63) {
				t.Fatalf("v %d sub-block %d: got (%d, %d)", v, j, sc, m)
			}
		}
	}
}

// nearestInt rounds ties to even, as ggml's float trick does.
func TestNearestInt(t *testing.T) {
	for _, tc := range []struct {
		in   float32
		want int
	}{{0.5, 0}, {1.5, 2}, {2.5, 2}, {-0.5, 0}, {-1.5, -2}, {0.49999997, 0}, {3.7, 4}, {-3.7, -4}} {
		if got := nearestInt(tc.in); got != tc.want {
			t.Errorf("nearestInt(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
