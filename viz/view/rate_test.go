package view_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kvscope/kvscope/viz/view"
)

func TestRate(t *testing.T) {
	ms := time.Millisecond
	type add struct {
		n int
		d time.Duration
	}
	for _, tc := range []struct {
		name    string
		adds    []add
		want    float64
		windows int // Adds that reported a completed window
	}{
		{"nothing measured", nil, 0, 0},
		{"zero time", []add{{3, 0}}, 0, 0},
		{"before a window", []add{{1, 100 * ms}, {1, 100 * ms}}, 10, 0},
		{"one window", []add{{4, time.Second}, {4, time.Second}}, 4, 1},
		// A slow start (1 step in 2 s) leaves once two windows follow it.
		{"slow start forgotten", []add{{1, 2 * time.Second}, {20, time.Second}, {20, time.Second}, {20, time.Second}}, 20, 2},
		// The figure covers the last window and the work since it.
		{"last window and since", []add{{1, 2 * time.Second}, {10, time.Second}}, 11.0 / 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r view.Rate
			windows := 0
			for _, a := range tc.adds {
				if r.Add(a.n, a.d) {
					windows++
				}
			}
			if got := r.PerSecond(); fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", tc.want) {
				t.Errorf("PerSecond() = %v, want %v", got, tc.want)
			}
			if windows != tc.windows {
				t.Errorf("%d Adds reported a window, want %d", windows, tc.windows)
			}
		})
	}
}

func TestDecodeFact(t *testing.T) {
	if f := view.DecodeFact(0); f.Value != "" {
		t.Errorf("DecodeFact(0) = %+v, want no value before a step", f)
	}
	for in, want := range map[float64]string{11.24: "11.2 steps/s", 0.2: "0.2 steps/s", 2345.6: "2,346 steps/s"} {
		f := view.DecodeFact(in)
		if f.Value != want || f.Label != "Decoding" || !strings.Contains(f.Title, "3 decoders") {
			t.Errorf("DecodeFact(%v) = %+v, want value %q and a title naming 3 decoders", in, f, want)
		}
	}
}

func ExampleRate() {
	var r view.Rate
	r.Add(1, 2*time.Second) // a slow first step
	for i := 0; i < 8; i++ {
		r.Add(5, 500*time.Millisecond)
	}
	fmt.Printf("%.1f steps/s\n", r.PerSecond())
	// Output: 10.0 steps/s
}
