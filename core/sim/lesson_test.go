package sim

import (
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
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
	testenv.NativeOnly(t)
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

// The storage lessons: with outlier key channels, per-channel ranges
// quantize keys far better than per-token ranges (why KIVI quantizes keys
// per channel); and calibrated per-tensor ranges on heavy-tailed keys
// bias q·k systematically, so the summed bias over the cache grows with
// its length (seed 004's warning), where per-channel ranges do not.
func TestStorageTeachesTheLesson(t *testing.T) {
	testenv.NativeOnly(t)
	run := func(gran string, outliers int) (kerr, bias float64) {
		c := DefaultConfig()
		c.Policy, c.Bits, c.Granularity, c.Tokens, c.RefStride, c.TailDF, c.OutlierChannels = "full", 4, gran, 600, 5, 3, outliers
		e, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(c.Tokens)
		_, h := e.Metrics()
		for _, m := range h[len(h)/4:] {
			kerr += m.KErr
			bias += m.Bias
		}
		n := float64(len(h) - len(h)/4)
		return kerr / n, bias / n
	}
	tokK, tokB := run("token", 2)
	chK, chB := run("channel", 2)
	tenK, tenB := run("tensor", 2)
	t.Logf("INT4 keys, 2 outlier channels: key error per token %.4f, per channel %.4f, per tensor %.4f", tokK, chK, tenK)
	t.Logf("mean q·k bias per cached token (logits): per token %+.4f, per channel %+.4f, per tensor %+.4f", tokB, chB, tenB)
	if chK > tokK/2 {
		t.Errorf("per-channel key error %.4f is not clearly below per-token %.4f", chK, tokK)
	}
	if abs(tenB) < 5*abs(chB) || abs(tenB) < 0.02 {
		t.Errorf("per-tensor bias %+.4f is not clearly larger than per-channel %+.4f", tenB, chB)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
