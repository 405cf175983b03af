package sim

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

// Every row of a real-model sweep equals the same configuration run on
// its own: a ModelRun (as the page and kvscope -model decode) and
// Perplexity of its uncompressed text.
func TestModelSweepRowsEqualSingleRuns(t *testing.T) {
	m := loadModel(t)
	const prompt, n = "Once upon a time", 48
	base := DefaultConfig()
	g := Grid{Policies: []string{"window", "h2o", "full"}, Budgets: []int{6, 24}, Storage: []StorageVariant{{8, "token"}, {4, "channel"}}, Sink: 2}
	var rows []Row
	if err := ModelSweep(context.Background(), m, base, prompt, n, false, g, func(r Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	ps, err := ModelPoints(m, base, prompt, n, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(ps) || len(rows) != 10 {
		t.Fatalf("%d rows for %d configurations, want 10", len(rows), len(ps))
	}
	for i, r := range rows {
		c := ps[i].Config
		run := runModel(t, m, c, prompt, n, false)
		s := run.Snapshot(0)
		mean := MeanMetrics(s.History)
		full, comp, err := Perplexity(m, c, s.Text.Full, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.Bytes != s.Mem.Total() || r.FullBytes != s.FullBytes || r.Mass != mean.Mass || r.OutErr != mean.OutErr || r.KL != mean.KL ||
			r.Top1 != s.Text.Agreement || r.NextKL != s.Text.MeanKL || r.PPL != comp || r.PPLFull != full {
			t.Errorf("row %d (%s budget %d, %d-bit %s) = %+v;\nsingle run: bytes %d of %d, mass %v error %v KL %v, top-1 %v, next KL %v, perplexity %v / %v",
				i, r.Policy, r.Budget, r.Bits, r.Granularity, r, s.Mem.Total(), s.FullBytes, mean.Mass, mean.OutErr, mean.KL,
				s.Text.Agreement, s.Text.MeanKL, comp, full)
		}
	}
	if full, tiny := rows[4], rows[0]; full.Policy != "full" || tiny.Budget != 6 || full.Top1 <= tiny.Top1 || full.NextKL >= tiny.NextKL {
		t.Errorf("the full 8-bit cache (%+v) predicts no better than a 6-token window (%+v)", full, tiny)
	}
}

// The attention-sinks figure: once the text is longer than the budget,
// both evicting caches predict the text worse than the full cache, at the
// same budget; the full cache's curve is the uncompressed perplexity's.
// (Whether the sinks help is what the figure measures: on stories260K,
// with keys at their absolute positions, they do not — the model does
// not park its attention on the first tokens as large models do.)
func TestSinkFigure(t *testing.T) {
	m := loadModel(t)
	const n, budget, sink = 160, 24, 4
	toks, curves, err := SinkFigure(m, DefaultConfig(), "Once upon a time", n, budget, sink, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != n || len(curves) != 3 {
		t.Fatalf("%d tokens, %d curves", len(toks), len(curves))
	}
	after := func(c Curve) float64 {
		var s float64
		for _, x := range c.NLL[budget:] {
			s += x
		}
		return s / float64(len(c.NLL)-budget)
	}
	full, window, sinks := after(curves[0]), after(curves[1]), after(curves[2])
	t.Logf("mean NLL after %d tokens: full %.3f, window %.3f, sinks + window %.3f", budget, full, window, sinks)
	if !(window > full && sinks > full) {
		t.Errorf("want window and sinks + window above full, got %.3f, %.3f, %.3f", window, sinks, full)
	}
	w, s := curves[1].Config, curves[2].Config
	if w.Recent != budget || w.Sink != 0 || s.Sink != sink || s.Recent != budget-sink || s.Heavy != 0 {
		t.Errorf("unequal budgets: window %+v, sinks %+v", w, s)
	}
	// The full curve's mean is the log of the model's perplexity.
	fc, err := model.NewFullCache(m.Config, n)
	if err != nil {
		t.Fatal(err)
	}
	ppl, err := m.Perplexity(fc, toks)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, x := range curves[0].NLL {
		sum += x
	}
	if mean := sum / float64(len(curves[0].NLL)); math.Abs(mean-math.Log(ppl)) > 1e-6 {
		t.Errorf("full curve mean %.6f, log perplexity %.6f", mean, math.Log(ppl))
	}
	for _, tc := range []struct{ n, budget, sink int }{{1, 4, 2}, {n, 1, 0}, {n, 8, 8}, {n, n + 1, 4}, {100000, 8, 4}} {
		if _, _, err := SinkFigure(m, DefaultConfig(), "Once", tc.n, tc.budget, tc.sink, false); err == nil {
			t.Errorf("SinkFigure(%d tokens, budget %d, sink %d): no error", tc.n, tc.budget, tc.sink)
		}
	}
}

// A real model's chart is ModelChartPolicies at three budgets below the
// text's length, and its text is as long as the decode rate lets it be.
func TestModelChartGridAndTokens(t *testing.T) {
	for _, tc := range []struct {
		tokens int
		want   []int
	}{{256, []int{32, 64, 128}}, {64, []int{8, 16, 32}}, {16, []int{4, 8}}, {8, []int{4}}} {
		g := ModelChartGrid(tc.tokens)
		if !slices.Equal(g.Budgets, tc.want) || !slices.Equal(g.Policies, ModelChartPolicies()) || len(g.Policies) < 3 || g.Sink != DefaultSweepSink {
			t.Errorf("ModelChartGrid(%d) = %+v, want budgets %v", tc.tokens, g, tc.want)
		}
		for _, b := range g.Budgets {
			if b >= tc.tokens {
				t.Errorf("ModelChartGrid(%d): budget %d keeps the whole text", tc.tokens, b)
			}
		}
	}
	for _, tc := range []struct {
		max     int
		rate    float64
		workers int
		want    int
	}{
		{256, 0, 2, 256},   // rate unknown: the page's length
		{256, 500, 2, 256}, // stories260K decodes hundreds of steps a second
		{256, 9, 2, 64},    // SmolLM2-135M: 6 points a worker × 96 × 4/3 / 9 ≈ 85 s > 60; 64 is 57 s
		{256, 9, 4, 128},   // twice the workers, twice the text
		{256, 9, 1, 32},    // one worker: 12 points × 48 × 4/3 / 9 ≈ 85 s; 32 is 57 s
		{256, 1, 1, 32},    // too slow for any: the shortest
		{24, 1, 1, 24},     // a run shorter than 32 keeps its length
	} {
		if got := ModelChartTokens(tc.max, tc.rate, tc.workers, 60); got != tc.want {
			t.Errorf("ModelChartTokens(%d, %v, %d) = %d, want %d", tc.max, tc.rate, tc.workers, got, tc.want)
		}
	}
}
