package kv

import (
	"fmt"
	"testing"
)

// A budgeted policy keeps exactly the sum of the settings it reads, once
// the cache is full: Heavy is not StreamingLLM's or Window's to spend, so
// `-policy streaming -sink 4 -recent 28` keeps 32 tokens per head whatever
// Heavy says.
func TestBudgetIsWhatTheSettingsSay(t *testing.T) {
	for _, tc := range []struct {
		policy              Policy
		sink, recent, heavy int
		want                int
	}{
		{Streaming, 4, 28, 28, 32},
		{Streaming, 4, 28, 0, 32},
		{Streaming, 0, 12, 50, 12},
		{Window, 4, 32, 28, 32},
		{Window, 0, 16, 0, 16},
		{H2O, 4, 32, 28, 64},
		{TOVA, 2, 6, 8, 16},
		{Knorm, 0, 10, 6, 16},
		{Random, 3, 5, 7, 15},
		{Seed000, 4, 32, 28, 64},
	} {
		cfg := Config{Policy: tc.policy, Sink: tc.sink, Recent: tc.recent, Heavy: tc.heavy, Seed: 3,
			Heads: 2, KVHeads: 2, Dim: 8, MaxTokens: 150}
		if got := cfg.Budget(); got != tc.want {
			t.Errorf("%s sink %d recent %d heavy %d: budget %d, want %d", tc.policy, tc.sink, tc.recent, tc.heavy, got, tc.want)
			continue
		}
		l, _ := runPolicy(t, cfg, 150)
		for g := range cfg.KVHeads {
			if got := l.Len(g); got != tc.want {
				t.Errorf("%s sink %d recent %d heavy %d: head %d keeps %d tokens, want %d", tc.policy, tc.sink, tc.recent, tc.heavy, g, got, tc.want)
			}
		}
	}
}

// Params names every setting a budgeted policy's budget sums, so the
// command line can say which flags a policy uses.
func TestParamsNameTheBudget(t *testing.T) {
	for _, p := range Policies() {
		if !p.budgeted() {
			continue
		}
		cfg := Config{Policy: p, Sink: 1, Recent: 10, Heavy: 100}
		want := 0
		ps := p.Params()
		if ps&ParamSink != 0 {
			want += cfg.Sink
		}
		if ps&ParamRecent != 0 {
			want += cfg.Recent
		}
		if ps&ParamHeavy != 0 {
			want += cfg.Heavy
		}
		if got := cfg.Budget(); got != want {
			t.Errorf("%s reads %v but its budget is %d, not %d", p, ps, got, want)
		}
	}
}

func ExampleParam_String() {
	fmt.Println(Streaming.Params())
	fmt.Println(H2O.Params())
	fmt.Println(Full.Params())
	// Output:
	// sink+recent+alloc+merge
	// sink+recent+heavy+shared+alloc+merge+vweight
	// none
}
