package sim

import (
	"testing"
)

// meanMetrics runs cfg and averages the metrics of the decode steps after
// the cache first filled (so every policy is compared while it evicts).
func meanMetrics(t *testing.T, cfg Config) Metrics {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(cfg.Tokens)
	if e.Err() != nil {
		t.Fatal(e.Err())
	}
	_, hist := e.Metrics()
	from := (cfg.Sink + cfg.Recent + cfg.Heavy) * 2 / cfg.RefStride
	var m Metrics
	for _, h := range hist[from:] {
		m = m.add(h)
	}
	return m.scale(1 / float64(len(hist)-from))
}

// The lesson the page teaches must hold on the default synthetic stream:
// attention-aware eviction (H2O, seed 000) keeps more of the attention and
// changes the output less than random eviction or a bare window at the
// same budget, and keeping the sinks (StreamingLLM) beats a bare window.
func TestPoliciesTeachTheLesson(t *testing.T) {
	base := DefaultConfig()
	base.Tokens, base.Bits, base.RefStride = 512, 32, 2
	seeds := []uint64{1, 2}
	res := map[string]Metrics{}
	for _, p := range []string{"h2o", "seed000", "random", "window", "streaming", "tova", "knorm"} {
		var m Metrics
		for _, s := range seeds {
			c := base
			c.Seed, c.Policy = s, p
			if p == "window" {
				c.Sink, c.Recent, c.Heavy = 0, base.Sink+base.Recent+base.Heavy, 0
			}
			if p == "streaming" {
				c.Recent, c.Heavy = base.Recent+base.Heavy, 0
			}
			m = m.add(meanMetrics(t, c))
		}
		res[p] = m.scale(1 / float64(len(seeds)))
		t.Logf("%-9s mass %.3f  output error %.3f  KL %.3f", p, res[p].Mass, res[p].OutErr, res[p].KL)
	}
	better := func(a, b string, margin float64) {
		t.Helper()
		ma, mb := res[a], res[b]
		t.Logf("%s vs %s: mass %+.3f, output error %+.3f", a, b, ma.Mass-mb.Mass, ma.OutErr-mb.OutErr)
		if ma.Mass < mb.Mass+margin || ma.OutErr > mb.OutErr-margin {
			t.Errorf("%s (mass %.3f, error %.3f) is not clearly better than %s (mass %.3f, error %.3f)",
				a, ma.Mass, ma.OutErr, b, mb.Mass, mb.OutErr)
		}
	}
	for _, good := range []string{"h2o", "seed000"} {
		for _, bad := range []string{"random", "window"} {
			better(good, bad, 0.05)
		}
	}
	better("streaming", "window", 0.05)
}
