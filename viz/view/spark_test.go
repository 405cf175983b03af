package view

import (
	"fmt"
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

func TestSpark(t *testing.T) {
	hist := make([]sim.Metrics, 10)
	for i := range hist {
		hist[i].KErr = float64(i)
	}
	hist[3].KErr = math.NaN()
	dst := make([]float32, 5)
	got, hi := Spark(dst, hist, MetricOf("key_error"), 0)
	if hi != 9 {
		t.Errorf("hi = %v", hi)
	}
	want := []float32{1.0 / 9, 2.0 / 9, 5.0 / 9, 7.0 / 9, 1} // bucket maxima, NaN ignored
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Errorf("col %d = %v, want %v", i, got[i], want[i])
		}
	}
	got, hi = Spark(make([]float32, 50), hist[:4], MetricOf("key_error"), 10)
	if len(got) != 4 || hi != 10 || got[2] != 0.2 {
		t.Errorf("short history: %v, hi %v", got, hi)
	}
	if got, _ := Spark(dst, nil, MetricOf("mass"), 1); len(got) != 0 {
		t.Error("empty history gave columns")
	}
	if n := testing.AllocsPerRun(50, func() { Spark(dst, hist, MetricOf("kl"), 0) }); n != 0 {
		t.Errorf("Spark allocates %v", n)
	}
	if Metric(99).Value(&hist[1]) != 0 {
		t.Error("unknown metric has a value")
	}
}

func TestSparkPaths(t *testing.T) {
	tests := []struct {
		name          string
		hs            []float32
		w, h          float64
		older, newest string
	}{
		{"empty", nil, 64, 22, "", ""},
		{"no box", []float32{1}, 0, 22, "", ""},
		{"one bar is the newest", []float32{0.5}, 10, 20, "", "M0 10h9.5v10h-9.5z"},
		{"zero bars left out", []float32{0, 1, 0}, 6, 10, "M2 0h1.5v10h-1.5z", ""},
		{"clamped, rounded", []float32{2, -1, 1.0 / 3}, 3, 1, "M0 0h0.5v1h-0.5z", "M2 0.67h0.5v0.33h-0.5z"},
		{"narrow columns keep half a unit", []float32{1, 1}, 0.5, 1, "M0 0h0.25v1h-0.25z", "M0.25 0h0.25v1h-0.25z"},
	}
	for _, tc := range tests {
		older, newest := SparkPaths(tc.hs, tc.w, tc.h)
		if older != tc.older || newest != tc.newest {
			t.Errorf("%s: SparkPaths = %q, %q; want %q, %q", tc.name, older, newest, tc.older, tc.newest)
		}
	}
}

func ExampleSparkPaths() {
	older, newest := SparkPaths([]float32{0.25, 1}, 8, 4)
	fmt.Println(older)
	fmt.Println(newest)
	// Output:
	// M0 3h3.5v1h-3.5z
	// M4 0h3.5v4h-3.5z
}
