package quant

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPackedLen(t *testing.T) {
	tests := []struct{ n, bits, want int }{
		{0, 2, 0},
		{1, 2, 1},
		{4, 2, 1},    // 8 bits
		{5, 2, 2},    // 10 bits
		{8, 3, 3},    // 24 bits
		{3, 3, 2},    // 9 bits
		{128, 3, 48}, // 384 bits: a 3-bit token of dim 128
		{128, 4, 64},
		{127, 4, 64},
		{128, 8, 128},
		{7, 5, 5}, // 35 bits
	}
	for _, tt := range tests {
		if got := PackedLen(tt.n, tt.bits); got != tt.want {
			t.Errorf("PackedLen(%d, %d) = %d, want %d", tt.n, tt.bits, got, tt.want)
		}
	}
}

func TestPackLayout(t *testing.T) {
	tests := []struct {
		codes []uint8
		bits  int
		want  []byte
	}{
		// 2 bits, LSB first: 1 | 2<<2 | 3<<4 | 0<<6 = 0b00_11_10_01 = 0x39; then 1.
		{[]uint8{1, 2, 3, 0, 1}, 2, []byte{0x39, 0x01}},
		// 3 bits: 5 | 3<<3 | 7<<6 = 5+24+448 = 477 = 0x1DD → bytes 0xDD, 0x01
		// (the third code straddles the byte boundary).
		{[]uint8{5, 3, 7}, 3, []byte{0xdd, 0x01}},
		// 4 bits: low nibble first.
		{[]uint8{0xa, 0x5, 0xf}, 4, []byte{0x5a, 0x0f}},
		{[]uint8{200, 7}, 8, []byte{200, 7}},
		// Bits above the width are ignored: 0xff at 2 bits is 3.
		{[]uint8{0xff, 0}, 2, []byte{0x03}},
	}
	for _, tt := range tests {
		dst := make([]byte, len(tt.want)+2)
		got := Pack(dst, tt.codes, tt.bits)
		if !bytes.Equal(got, tt.want) {
			t.Errorf("Pack(%v, %d) = %#v, want %#v", tt.codes, tt.bits, got, tt.want)
		}
	}
}

func TestPackRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for bits := MinBits; bits <= MaxBits; bits++ {
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 31, 128, 129} {
			t.Run(fmt.Sprintf("b%d/n%d", bits, n), func(t *testing.T) {
				codes := make([]uint8, n)
				for i := range codes {
					codes[i] = uint8(r.IntN(1 << bits))
				}
				packed := Pack(make([]byte, PackedLen(n, bits)), codes, bits)
				got := make([]uint8, n)
				Unpack(got, packed, bits)
				if !slices.Equal(got, codes) {
					t.Errorf("round trip = %v, want %v", got, codes)
				}
			})
		}
	}
}

func FuzzPackRoundTrip(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5}, uint8(3))
	f.Add([]byte{255, 0, 255}, uint8(2))
	f.Add([]byte{}, uint8(8))
	f.Fuzz(func(t *testing.T, raw []byte, b uint8) {
		bits := MinBits + int(b)%(MaxBits-MinBits+1)
		codes := make([]uint8, len(raw))
		for i, c := range raw {
			codes[i] = c & (1<<bits - 1)
		}
		packed := Pack(make([]byte, PackedLen(len(codes), bits)), raw, bits)
		if len(packed) != PackedLen(len(codes), bits) {
			t.Fatalf("packed %d bytes, want %d", len(packed), PackedLen(len(codes), bits))
		}
		if rem := len(codes) * bits % 8; rem != 0 && packed[len(packed)-1]>>rem != 0 {
			t.Fatalf("padding bits of the last byte are not zero: %#x", packed[len(packed)-1])
		}
		got := make([]uint8, len(codes))
		Unpack(got, packed, bits)
		if !slices.Equal(got, codes) {
			t.Fatalf("%d bits: round trip = %v, want %v", bits, got, codes)
		}
	})
}

func TestPackPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"short dst", func() { Pack(make([]byte, 1), make([]uint8, 5), 2) }},
		{"bad bits", func() { Pack(make([]byte, 8), make([]uint8, 5), 1) }},
		{"short src", func() { Unpack(make([]uint8, 9), make([]byte, 3), 3) }},
		{"negative n", func() { PackedLen(-1, 4) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil {
					t.Error("no panic")
				}
			}()
			tt.f()
		})
	}
}
