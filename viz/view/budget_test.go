package view

import (
	"testing"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/sim"
)

func TestSwitchingPolicyKeepsTheBudget(t *testing.T) {
	tests := []struct {
		from, to               string
		sink, recent, heavy    int // before
		wSink, wRecent, wHeavy int // after
		wantTotal              int
	}{
		{"h2o", "window", 4, 32, 28, 4, 64, 28, 64},
		{"h2o", "streaming", 4, 32, 28, 4, 60, 28, 64},
		{"window", "h2o", 4, 64, 28, 4, 32, 28, 64}, // the heavy setting comes back
		{"window", "streaming", 0, 64, 0, 4, 60, 0, 64},
		{"streaming", "h2o", 4, 60, 28, 4, 32, 28, 64},
		{"h2o", "tova", 4, 32, 28, 4, 32, 28, 64},
		{"window", "h2o", 0, 8, 28, 4, 1, 3, 8}, // heavy gives way so recent keeps 1
		{"h2o", "full", 4, 32, 28, 4, 32, 28, 0},
		{"full", "h2o", 4, 32, 28, 4, 32, 28, 64},
	}
	for _, tt := range tests {
		s := DefaultState()
		s.A.Policy, s.A.Sink, s.A.Recent, s.A.Heavy = tt.from, tt.sink, tt.recent, tt.heavy
		if ns := Set(&s, "policy", tt.to); len(ns) > 0 {
			t.Fatalf("%s→%s: notices %v", tt.from, tt.to, ns)
		}
		c := s.A
		if c.Sink != tt.wSink || c.Recent != tt.wRecent || c.Heavy != tt.wHeavy {
			t.Errorf("%s→%s: sink/recent/heavy %d/%d/%d, want %d/%d/%d", tt.from, tt.to, c.Sink, c.Recent, c.Heavy, tt.wSink, tt.wRecent, tt.wHeavy)
		}
		if got := TokenBudget(&c); got != tt.wantTotal {
			t.Errorf("%s→%s: budget %d, want %d", tt.from, tt.to, got, tt.wantTotal)
		}
	}
}

func TestBudgetText(t *testing.T) {
	c := sim.DefaultConfig()
	c.Policy = "streaming"
	c.Sink, c.Recent, c.Heavy = 4, 60, 28
	if got, want := BudgetText(&c), "each head keeps 64 tokens: 4 sinks + 60 recent"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	c.Policy = "h2o"
	c.Recent = 32
	if got, want := BudgetText(&c), "each head keeps 64 tokens: 4 sinks + 28 heavy hitters + 32 recent"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	c.Policy = "random"
	if got, want := BudgetText(&c), "each head keeps 64 tokens: 4 sinks + 28 random picks + 32 recent"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// A link gives its own budget: Decode never rebalances it, whatever the
// order of its keys.
func TestLinksKeepTheirBudget(t *testing.T) {
	for _, link := range []string{"recent=16&policy=window", "policy=window&recent=16", "sink=2&recent=10&policy=streaming"} {
		s, ns := Decode(link)
		if len(ns) > 0 {
			t.Fatalf("%s: %v", link, ns)
		}
		want := 16
		if s.A.Policy == "streaming" {
			want = 12
		}
		if got := TokenBudget(&s.A); got != want {
			t.Errorf("%s: budget %d, want %d", link, got, want)
		}
	}
}

// Every policy's page name is its description's label (the chart's
// legend and the policy menu show it), and an unknown key is shown as
// itself.
func TestPolicyNames(t *testing.T) {
	for _, p := range kv.Policies() {
		if got, want := PolicyName(p.String()), p.Describe().Label; got != want || got == "" {
			t.Errorf("PolicyName(%s) = %q, want %q", p, got, want)
		}
	}
	if got := PolicyName("nosuch"); got != "nosuch" {
		t.Errorf("PolicyName(nosuch) = %q", got)
	}
}

// Quest's title reads the real settings: the pages it reads and their
// size, not the defaults (disagreement 4 of issue 18: the page wrote "4
// best pages of 16" whatever they were, while the command line read them).
func TestQuestTitleReadsItsSettings(t *testing.T) {
	c := sim.DefaultConfig()
	c.Policy, c.Pages, c.PageSize = "quest", 2, 8
	if got, want := BudgetText(&c), "nothing is evicted; each query reads only its 2 best pages of 8 tokens and the newest"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
