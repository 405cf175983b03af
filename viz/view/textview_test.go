package view

import (
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/sim"
)

func TestMarkOf(t *testing.T) {
	const (
		F = sim.Future
		E = sim.Evicted
		S = sim.Sink
		H = sim.Heavy
		R = sim.Recent
		K = sim.Kept
		W = sim.Windowed
	)
	for _, tc := range []struct {
		name  string
		roles []sim.Role // one position, one role per head
		head  int
		want  TokenMark
	}{
		{"one head holds", []sim.Role{E, H, E}, 1, TokenMark{H, 1}},
		{"one head dropped", []sim.Role{E, H, E}, 0, TokenMark{E, 0}},
		{"share: the role of the heads holding it", []sim.Role{E, H, E, H}, AllHeads, TokenMark{H, 0.5}},
		{"share: most heads win", []sim.Role{R, H, R, E}, AllHeads, TokenMark{R, 0.75}},
		{"share: a tie goes to the role drawn on top", []sim.Role{R, S, E, E}, AllHeads, TokenMark{S, 0.5}},
		{"share: held by every head", []sim.Role{K, K}, AllHeads, TokenMark{K, 1}},
		{"share: held by none", []sim.Role{E, E, E}, AllHeads, TokenMark{E, 0}},
		{"share: the model's window dropped it", []sim.Role{W, W, E}, AllHeads, TokenMark{W, 0}},
		{"a head past the layer's is the share", []sim.Role{E, H}, 7, TokenMark{H, 0.5}},
		{"future", []sim.Role{F, F}, 0, TokenMark{F, 0}},
	} {
		s := &sim.Snapshot{Step: 1, Heads: len(tc.roles), Cells: make([]sim.Cell, len(tc.roles))}
		for h, r := range tc.roles {
			s.Cells[h].Role = r
		}
		if got := MarkOf(s, tc.head, 0); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The text view rewrites exactly the positions whose mark changed, while a
// run plays, after a change of head, and after a replay from the start.
func TestTextViewUpdate(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Tokens, cfg.Heads, cfg.KVHeads, cfg.Recent, cfg.Heavy = 160, 4, 4, 16, 12
	e, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var tv TextView
	var prev []TokenMark
	head := 0
	total := 0
	check := func(s *sim.Snapshot) {
		t.Helper()
		changed, old := tv.Update(s, head, nil)
		if want := min(len(prev), s.Step); old != want {
			t.Fatalf("step %d: previous length %d, want %d", s.Step, old, want)
		}
		var want []int
		for p := 0; p < old; p++ {
			if MarkOf(s, head, p) != prev[p] {
				want = append(want, p)
			}
		}
		if !slices.Equal(changed, want) {
			t.Fatalf("step %d, head %d: changed %v, want %v", s.Step, head, changed, want)
		}
		if tv.Len() != s.Step {
			t.Fatalf("view of %d positions at step %d", tv.Len(), s.Step)
		}
		prev = prev[:0]
		for p := 0; p < s.Step; p++ {
			if tv.Mark(p) != MarkOf(s, head, p) {
				t.Fatalf("step %d: position %d marked %+v, want %+v", s.Step, p, tv.Mark(p), MarkOf(s, head, p))
			}
			prev = append(prev, tv.Mark(p))
		}
		total += len(changed)
	}
	for e.Step() {
		if e.Pos()%7 == 0 {
			check(e.Snapshot(0))
		}
	}
	if total == 0 {
		t.Fatal("no position changed its mark over a run that evicts")
	}
	head = AllHeads
	check(e.Snapshot(0))
	e2, _ := sim.New(cfg)
	e2.RunTo(40)
	check(e2.Snapshot(0))
}

func TestTokenLabel(t *testing.T) {
	s := &sim.Snapshot{Step: 3, Tokens: []string{"", " the", "\n"}}
	for p, want := range []string{"BOS", " the", "\n"} {
		if got := TokenLabel(s, p); got != want {
			t.Errorf("position %d: %q, want %q", p, got, want)
		}
	}
	if got := TokenLabel(&sim.Snapshot{Step: 20}, 12); got != "12 " {
		t.Errorf("synthetic position 12: %q", got)
	}
}
