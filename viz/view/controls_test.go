package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

// Every eviction, storage and stream control changes the run it sets up:
// moved one after another as a visitor would (view.Set), each takes its
// value, the link says so, and the simulator's numbers at step 200 move.
// The browser keeps one case of this (wasm/e2e TestControlsChangeDrawingAndNumbers),
// which checks the drawing too.
func TestControlsChangeTheRun(t *testing.T) {
	run := func(c sim.Config) (sim.Memory, sim.Metrics, float64) {
		t.Helper()
		e, err := sim.New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(200)
		s := e.Snapshot(0)
		return s.Mem, s.Metrics, KeptPerHead(s)
	}
	s := DefaultState()
	s.Playing = false
	mem0, met0, kept0 := run(s.A)
	for _, tc := range []struct{ key, value string }{
		{"policy", "streaming"}, {"recent", "80"}, {"sink", "0"}, {"policy", "h2o"}, {"heavy", "8"},
		{"bits", "4"}, {"gran", "channel"}, {"residual", "64"}, {"rank", "8"},
		{"policy", "chunk"}, {"chunk", "32"}, {"drop", "0.6"},
		{"heads", "4"}, {"kvheads", "2"}, {"seed", "7"},
		{"policy", "quest"}, {"pages", "2"}, {"pagesize", "8"},
		{"policy", "h2o"}, {"alloc", "adakv"}, {"merge", "1"}, {"vweight", "1"}, {"rank", "0"},
		{"outfp16", "0.05"}, {"sinkfp16", "4"}, {"rotate", "hadamard"}, {"outfp16", "0"}, {"quant", "turbo"},
	} {
		if !Relevant(&s.A, tc.key) {
			t.Errorf("%s=%s: the control is dimmed for %s", tc.key, tc.value, s.A.Policy)
		}
		if ns := Set(&s, tc.key, tc.value); len(ns) > 0 {
			t.Fatalf("%s=%s: %v", tc.key, tc.value, ns)
		}
		if got := Get(&s, tc.key); got != tc.value {
			t.Errorf("%s=%s reads %q", tc.key, tc.value, got)
		}
		if link := Encode(&s); !strings.Contains(link, tc.key+"="+tc.value) {
			t.Errorf("%s=%s: the link lacks it: %s", tc.key, tc.value, link)
		}
		mem, met, kept := run(s.A)
		if mem == mem0 && fmt.Sprint(met) == fmt.Sprint(met0) && kept == kept0 {
			t.Errorf("%s=%s changed no number: memory %+v, kept %v", tc.key, tc.value, mem, kept)
		}
		mem0, met0, kept0 = mem, met, kept
	}
	// With another quantizer than uniform, the settings store then refuses
	// are dimmed.
	for _, key := range []string{"outfp16", "rank"} {
		if Relevant(&s.A, key) {
			t.Errorf("%s stays active for quantizer %s", key, s.A.Quant)
		}
	}
}
