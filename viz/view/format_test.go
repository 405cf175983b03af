package view

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{Bytes(0), "0 B"},
		{Bytes(512), "512 B"},
		{Bytes(1536), "1.5 KiB"},
		{Bytes(16 << 30), "16 GiB"},
		{Bytes(1023.7 * 1024 * 1024), "1024 MiB"},
		{Bytes(-2048), "−2 KiB"},
		{Bytes(math.NaN()), "–"},
		{Sig(0.012345, 3), "0.0123"},
		{Sig(123.456, 3), "123"},
		{Sig(1.5, 3), "1.5"},
		{Sig(7.52e-5, 3), "0.0000752"}, // a hover card's score, not "7.52e-05"
		{Sig(2e-7, 2), "<0.000001"},
		{Sig(-2e-7, 2), "−<0.000001"},
		{Sig(1234567.4, 3), "1234567"},
		{Sig(-0.5, 3), "-0.5"},
		{Sig(math.Inf(1), 3), "–"},
		{Percent(0.9731), "97.3%"},
		{Percent(1.7e-14), "<0.01%"}, // the hover once printed "1.70e-12%"
		{Percent(-3e-9), "−<0.01%"},
		{Percent(0.0001), "0.01%"},
		{Percent(0), "0%"},
		{Percent(1), "100%"},
		{Percent(math.NaN()), "–"},
		{Saving(1000, 32), "31.2× smaller than the FP16 history"},
		{Saving(1000, 1125), "1.12× larger than the FP16 history"}, // not "0.889× smaller"
		{Saving(1000, 1000), "the same size as the FP16 history"},
		{Saving(0, 0), "nothing decoded yet, so nothing to compare with"},
		{Saving(100, 0), "nothing stored"},
		{Nats(6.43e-05), "<0.0001 nats"}, // not "6.43e-05 nats"
		{Nats(0.1632), "0.163 nats"},
		{Nats(0), "0 nats"},
		{Ratio(1000, 32), "31.2×"},
		{Ratio(1, 0), "–"},
	}
	for i, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("case %d: %q, want %q", i, tc.got, tc.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{{0.42, "0.42 s"}, {3.14159, "3.1 s"}, {12.34, "12.3 s"}, {95.2, "95.2 s"}, {-1, "–"}, {math.NaN(), "–"}} {
		if got := Seconds(tc.s); got != tc.want {
			t.Errorf("Seconds(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
