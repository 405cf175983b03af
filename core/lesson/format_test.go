package lesson

import (
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		metric string
		v      float64
		want   string
	}{
		{"mass", 0.43, "43 %"},
		{"mass", 0.4349, "43.5 %"},
		{"mass", 1, "100 %"},
		{"output_error", 0.000609, "0.0609 %"},
		{"output_error", 1.164, "116 %"},
		{"kl", 0.2, "0.2 nats"},
		{"kl", 0, "0 nats"},
		{"bytes", 512, "512 B"},
		{"bytes", 36960, "36.1 KiB"},
		{"bytes", 16 << 30, "16 GiB"},
		{"step", 512, "512 tokens"},
		{"ppl", 1.6234, "1.62"},
		{"ppl", 1234.5, "1230"},
		{"ppl", math.NaN(), "–"},
	} {
		if got := Format(tc.metric, tc.v); got != tc.want {
			t.Errorf("Format(%s, %v) = %q, want %q", tc.metric, tc.v, got, tc.want)
		}
	}
}

func TestChange(t *testing.T) {
	for _, tc := range []struct {
		metric        string
		before, after float64
		want          string
	}{
		{"mass", 0.43, 0.22, "attention mass kept over the run fell from 43 % to 22 %"},
		{"mass", 0.22, 0.43, "attention mass kept over the run rose from 22 % to 43 %"},
		{"mass", 0.4301, 0.4302, "attention mass kept over the run stayed at 43 %"},
		{"top1", 1, 0.5, "top-1 agreement over the run fell from 100 % to 50 %"},
		{"ppl", 1.62, 2.05, "perplexity rose from 1.62 to 2.05"}, // of the whole text
		{"bytes", 512 << 10, 66 << 10, "memory stored fell from 512 KiB to 66 KiB"},
	} {
		if got := change(tc.metric, tc.before, tc.after); got != tc.want {
			t.Errorf("change = %q, want %q", got, tc.want)
		}
	}
}

func TestLessonData(t *testing.T) {
	if n := len(All()); n < 10 {
		t.Fatalf("%d lessons, want at least 10", n)
	}
	for i, l := range All() {
		if l.N != i+1 || l.Slug == "" || l.Title == "" || l.Notice == "" || l.Action.Key == "" || l.Action.Ask == "" || len(l.Expect) == 0 {
			t.Errorf("lesson %d is incomplete: %+v", i+1, l)
		}
		switch l.Highlight {
		case "map", "memory", "fidelity", "text", "chart":
		default:
			t.Errorf("lesson %d highlights %q", l.N, l.Highlight)
		}
		for _, e := range l.Expect {
			if nameOf(e.Metric) == "" || (e.Dir != Up && e.Dir != Down) {
				t.Errorf("lesson %d expects %+v", l.N, e)
			}
		}
	}
	for _, n := range []int{0, len(All()) + 1} {
		if _, err := Get(n); err == nil {
			t.Errorf("Get(%d): no error", n)
		}
		if _, err := Claim(n, Numbers{}, Numbers{}); err == nil {
			t.Errorf("Claim(%d): no error", n)
		}
	}
	l, _ := Get(1)
	if !l.Done("at", "512") || !l.Done("at", "600") || l.Done("at", "511") || l.Done("at", "x") || l.Done("tokens", "512") {
		t.Error("the step action is reaching the step")
	}
}

func TestConfigRefusesBadSettings(t *testing.T) {
	for _, s := range []Setting{{"sink", "four"}, {"bits", "9"}, {"policy", "lru"}, {"shared", "maybe"}, {"seed", "-1"}, {"drop", "x"}} {
		if _, err := Config(sim.DefaultConfig(), []Setting{s}); err == nil {
			t.Errorf("%s=%s: no error", s.Key, s.Value)
		}
	}
	if _, err := Measure(sim.DefaultConfig(), []Setting{{"mode", "model"}}, nil); err == nil {
		t.Error("model mode without a model: no error")
	}
	if _, err := Measure(sim.DefaultConfig(), []Setting{{"at", "-3"}}, nil); err == nil {
		t.Error("a negative step: no error")
	}
}

func TestBest(t *testing.T) {
	rows := []sim.Row{
		{Policy: "a", Bytes: 100, Mass: 0.5, OutErr: 0.3},
		{Policy: "b", Bytes: 200, Mass: 0.9, OutErr: 0.1},
		{Policy: "c", Bytes: 90, Mass: 0.6, OutErr: 0.4},
	}
	for _, tc := range []struct {
		max    int64
		metric string
		want   string
		ok     bool
	}{
		{100, "mass", "c", true},
		{100, "output_error", "a", true},
		{1000, "mass", "b", true},
		{50, "mass", "", false},
	} {
		r, ok := Best(rows, tc.max, tc.metric)
		if ok != tc.ok || r.Policy != tc.want {
			t.Errorf("Best(≤%d, %s) = %q %v, want %q %v", tc.max, tc.metric, r.Policy, ok, tc.want, tc.ok)
		}
	}
}
