package synth

import (
	"sync"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
)

// The stream is measured against the effects it exists to show, with
// attention computed over the full history as a decoder would. Figures are
// logged so a drift towards noise is visible before a threshold trips.

var (
	defaultOnce   sync.Once
	defaultStream streamStats
)

// defaultRun measures 1024 positions of DefaultConfig once per test binary.
func defaultRun(t *testing.T) streamStats {
	t.Helper()
	defaultOnce.Do(func() {
		defaultStream = measure(t, DefaultConfig(), 1024)
		defaultStream.log(t)
	})
	if defaultStream.steps == 0 {
		t.Fatal("default run failed")
	}
	return defaultStream
}

func TestEffects(t *testing.T) {
	testenv.NativeOnly(t)
	st := defaultRun(t)
	c := st.cfg
	checks := []struct {
		name string
		got  float64
		ok   func(float64) bool
		want string
	}{
		{"sink heads: attention on positions 0..3", st.kindMean(st.sinkShare, Sink),
			func(x float64) bool { return x >= 0.4 }, ">= 0.4"},
		{"all heads: sink share over uniform", mean(st.sinkShare) / st.sinkUniform,
			func(x float64) bool { return x >= 5 }, ">= 5"},
		{"top 5% of non-sink tokens: share of accumulated attention", st.top5,
			func(x float64) bool { return x >= 0.5 }, ">= 0.5"},
		{"local heads: last-16 share over uniform", st.kindMean(st.recent, Local) / st.recUniform,
			func(x float64) bool { return x >= 3 }, ">= 3"},
		{"retrieval head-steps", float64(st.retSteps),
			func(x float64) bool { return x >= 100 }, ">= 100"},
		{"retrieval steps: largest weight on an old non-sink token", st.retMax,
			func(x float64) bool { return x >= 0.5 }, ">= 0.5"},
		{"retrieval steps: weight on the copied token", st.retOn,
			func(x float64) bool { return x >= 0.4 }, ">= 0.4"},
		{"retrieval steps: argmax is the copied token", st.retHit,
			func(x float64) bool { return x >= 0.5 }, ">= 0.5"},
		{"outlier channels: mean |k| over the median channel's", st.outRatio,
			func(x float64) bool { return x >= c.OutlierScale/2 }, ">= OutlierScale/2"},
		{"value noise excess kurtosis (TailDF 4)", st.valueKurt,
			func(x float64) bool { return x > 1 }, "> 1"},
		{"Spearman(key norm, attention per query)", st.normCorr,
			func(x float64) bool { return x <= -0.2 }, "<= -0.2 (Knorm's premise)"},
		{"output error: window-only over streaming (sinks evicted)", st.outErr[polWindow] / st.outErr[polStreaming],
			func(x float64) bool { return x >= 1.3 }, ">= 1.3"},
		{"sink heads' output error: window-only over streaming", st.kindMean(st.outErrHead[polWindow], Sink) / st.kindMean(st.outErrHead[polStreaming], Sink),
			func(x float64) bool { return x >= 2 }, ">= 2"},
		{"output error: random eviction over H2O scores", st.outErr[polRandom] / st.outErr[polSeed000],
			func(x float64) bool { return x >= 1.5 }, ">= 1.5"},
	}
	for _, ch := range checks {
		t.Logf("%-58s %8.3f (want %s)", ch.name, ch.got, ch.want)
		if !ch.ok(ch.got) {
			t.Errorf("%s = %.3f, want %s", ch.name, ch.got, ch.want)
		}
	}
}

// TestKnobsOff checks that each knob at 0 removes its effect, measured
// against the default stream of the same length.
func TestKnobsOff(t *testing.T) {
	testenv.NativeOnly(t)
	const steps = 512
	on := measure(t, DefaultConfig(), steps)
	on.log(t)
	cases := []struct {
		name   string
		off    func(*Config)
		figure func(streamStats) float64
		onMin  float64 // the figure with the knob on is at least this
		offMax float64 // and with it off at most this
	}{
		{"SinkStrength: sink share over uniform", func(c *Config) { c.SinkStrength = 0 },
			func(s streamStats) float64 { return mean(s.sinkShare) / s.sinkUniform }, 5, 1.5},
		{"SinkStrength: window-only error over streaming", func(c *Config) { c.SinkStrength = 0 },
			func(s streamStats) float64 { return s.outErr[polWindow] / s.outErr[polStreaming] }, 1.3, 1.1},
		{"HeavyStrength: top-5% share", func(c *Config) { c.HeavyStrength = 0 },
			func(s streamStats) float64 { return s.top5 }, 0.5, 0.3},
		{"HeavyStrength: random eviction error over H2O's", func(c *Config) { c.HeavyStrength = 0 },
			func(s streamStats) float64 { return s.outErr[polRandom] / s.outErr[polSeed000] }, 1.5, 1.2},
		{"Locality: local heads' last-16 share over uniform", func(c *Config) { c.Locality = 0 },
			func(s streamStats) float64 { return s.kindMean(s.recent, Local) / s.recUniform }, 3, 1.5},
		{"RetrievalShare: retrieval head-steps", func(c *Config) { c.RetrievalShare = 0 },
			func(s streamStats) float64 { return float64(s.retSteps) }, 20, 0},
		{"OutlierChannels: largest channel over median", func(c *Config) { c.OutlierChannels = 0 },
			func(s streamStats) float64 { return s.maxRatio }, 10, 6},
		{"OutlierScale: largest channel over median", func(c *Config) { c.OutlierScale = 0 },
			func(s streamStats) float64 { return s.maxRatio }, 10, 6},
		{"TailDF: |value excess kurtosis|", func(c *Config) { c.TailDF = 0 },
			func(s streamStats) float64 { return max(s.valueKurt, -s.valueKurt) }, 1, 0.2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.off(&c)
			off := measure(t, c, steps)
			got, gotOff := tc.figure(on), tc.figure(off)
			t.Logf("on %.3f, off %.3f", got, gotOff)
			if got < tc.onMin {
				t.Errorf("with the knob on, figure = %.3f, want >= %g", got, tc.onMin)
			}
			if gotOff > tc.offMax {
				t.Errorf("with the knob off, figure = %.3f, want <= %g", gotOff, tc.offMax)
			}
		})
	}
}

// TestEffectsAcrossShapes measures other shapes and seeds: grouped-query
// attention, wider heads, a deeper model's first layer.
func TestEffectsAcrossShapes(t *testing.T) {
	testenv.NativeOnly(t)
	cases := []struct {
		name string
		set  func(*Config)
	}{
		{"GQA 8 heads over 2 kv heads", func(c *Config) { c.KVHeads = 2; c.Seed = 5 }},
		{"dim 64, Gaussian", func(c *Config) { c.HeadDim = 64; c.TailDF = 0; c.Seed = 9 }},
		{"16 heads, seed 3", func(c *Config) { c.Heads, c.KVHeads, c.Seed = 16, 16, 3 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.set(&c)
			st := measure(t, c, 512)
			st.log(t)
			if x := mean(st.sinkShare) / st.sinkUniform; x < 5 {
				t.Errorf("sink share over uniform = %.2f, want >= 5", x)
			}
			if st.top5 < 0.45 {
				t.Errorf("top-5%% share = %.3f, want >= 0.45", st.top5)
			}
			if x := st.kindMean(st.recent, Local) / st.recUniform; x < 3 {
				t.Errorf("local heads' last-16 share over uniform = %.2f, want >= 3", x)
			}
			if st.retSteps > 0 && st.retOn < 0.3 {
				t.Errorf("weight on the copied token = %.3f, want >= 0.3", st.retOn)
			}
		})
	}
}
