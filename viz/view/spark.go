package view

import (
	"math"
	"strconv"

	"github.com/kvscope/kvscope/core/sim"
)

// Metric is one of the measures the page's fidelity table shows: an index
// into Metrics.
type Metric int

// Metrics are the measures of the page's fidelity table, in its order: the
// sim.Measures a run's Metrics hold (Table), each named, defined and
// keyed by its one description there.
var Metrics = tableMeasures()

func tableMeasures() []sim.Measure {
	var out []sim.Measure
	for _, m := range sim.Measures {
		if m.Table {
			out = append(out, m)
		}
	}
	return out
}

// MetricOf returns the table's metric of the given measure key, or -1.
func MetricOf(key string) Metric {
	for i, m := range Metrics {
		if m.Key == key {
			return Metric(i)
		}
	}
	return -1
}

// Value returns metric k of m, or 0 for an unknown k.
func (k Metric) Value(m *sim.Metrics) float64 {
	if k < 0 || int(k) >= len(Metrics) {
		return 0
	}
	v, _ := Metrics[k].Of(m)
	return v
}

// Format prints metric k's value v as the table shows it: a share as a
// percentage, nats with their unit.
func (k Metric) Format(v float64) string {
	if k >= 0 && int(k) < len(Metrics) && Metrics[k].Unit == "nats" {
		return Nats(v)
	}
	return Percent(v)
}

// Spark scales the history of metric k into dst: when the history is
// longer than dst it is split into len(dst) equal buckets and each keeps
// its largest value (spikes stay visible); otherwise one column per step.
// Heights are divided by hi = max(floor, largest finite value), so they lie
// in [0, 1]; NaN and infinite values count as 0. It returns the columns
// used and hi, and allocates nothing.
func Spark(dst []float32, hist []sim.Metrics, k Metric, floor float64) ([]float32, float64) {
	return spark(dst, len(hist), func(i int) float64 { return k.Value(&hist[i]) }, floor)
}

// SparkValues is Spark for a plain series (such as the real model's
// next-token KL per step): the same bucketing, scaling and NaN handling,
// no allocation.
func SparkValues(dst []float32, vals []float64, floor float64) ([]float32, float64) {
	return spark(dst, len(vals), func(i int) float64 { return vals[i] }, floor)
}

// spark is Spark over the n values value(0), …, value(n−1).
func spark(dst []float32, n int, value func(i int) float64, floor float64) ([]float32, float64) {
	cols := min(len(dst), n)
	if cols == 0 {
		return dst[:0], math.Max(floor, 0)
	}
	hi := floor
	for i := range n {
		if v := value(i); finite(v) && v > hi {
			hi = v
		}
	}
	if hi <= 0 {
		hi = 1
	}
	for j := range cols {
		m := 0.0
		for i := j * n / cols; i < (j+1)*n/cols; i++ {
			if v := value(i); finite(v) && v > m {
				m = v
			}
		}
		dst[j] = float32(m / hi)
	}
	return dst[:cols], hi
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// SparkPaths returns SVG path data for a sparkline of heights hs (each in
// [0, 1], as from Spark) in a w×h box: one bar per height from the bottom
// edge, the columns spanning the width, half a unit apart when there is
// room. older draws every bar but the last, newest the last (so the page
// can highlight it); a zero-height bar is left out, so both may be empty.
// Coordinates have at most two decimals.
func SparkPaths(hs []float32, w, h float64) (older, newest string) {
	if len(hs) == 0 || w <= 0 || h <= 0 {
		return "", ""
	}
	cw := w / float64(len(hs))
	bw := math.Max(cw-0.5, math.Min(cw, 0.5))
	var b []byte
	bar := func(i int) {
		v := math.Min(math.Max(float64(hs[i]), 0), 1) * h
		if !(v > 0) {
			return
		}
		b = append(b, 'M')
		b = appendCoord(b, float64(i)*cw)
		b = append(b, ' ')
		b = appendCoord(b, h-v)
		b = append(b, 'h')
		b = appendCoord(b, bw)
		b = append(b, 'v')
		b = appendCoord(b, v)
		b = append(b, 'h')
		b = appendCoord(b, -bw)
		b = append(b, 'z')
	}
	for i := 0; i < len(hs)-1; i++ {
		bar(i)
	}
	older = string(b)
	b = b[:0]
	bar(len(hs) - 1)
	return older, string(b)
}

func appendCoord(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, math.Round(v*100)/100, 'f', -1, 64)
}
