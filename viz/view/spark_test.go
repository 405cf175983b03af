package view

import (
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
	got, hi := Spark(dst, hist, MetricKErr, 0)
	if hi != 9 {
		t.Errorf("hi = %v", hi)
	}
	want := []float32{1.0 / 9, 2.0 / 9, 5.0 / 9, 7.0 / 9, 1} // bucket maxima, NaN ignored
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Errorf("col %d = %v, want %v", i, got[i], want[i])
		}
	}
	got, hi = Spark(make([]float32, 50), hist[:4], MetricKErr, 10)
	if len(got) != 4 || hi != 10 || got[2] != 0.2 {
		t.Errorf("short history: %v, hi %v", got, hi)
	}
	if got, _ := Spark(dst, nil, MetricMass, 1); len(got) != 0 {
		t.Error("empty history gave columns")
	}
	if n := testing.AllocsPerRun(50, func() { Spark(dst, hist, MetricKL, 0) }); n != 0 {
		t.Errorf("Spark allocates %v", n)
	}
	if Metric(99).Value(&hist[1]) != 0 {
		t.Error("unknown metric has a value")
	}
}
