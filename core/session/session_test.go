package session

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
	"github.com/kvscope/kvscope/core/sim"
)

func settings(policy string, bits int) Settings {
	c := sim.DefaultConfig()
	c.Policy, c.Bits, c.Recent, c.Sink = policy, bits, 12, 2
	return Settings{Config: c, Text: "Once upon a time", MaxTokens: 48}
}

// sameSnapshot reports where two snapshots differ ("" when they agree),
// comparing every field the page draws, floats bit for bit.
func sameSnapshot(a, b *sim.Snapshot) string {
	switch {
	case a.Step != b.Step || a.Prompt != b.Prompt || a.Layer != b.Layer || a.Layers != b.Layers || a.Heads != b.Heads:
		return "shape"
	case math.Float64bits(a.Attended) != math.Float64bits(b.Attended):
		return "attended"
	case a.Mem != b.Mem || a.FullBytes != b.FullBytes || a.EvictBytes != b.EvictBytes:
		return "memory"
	case a.Metrics != b.Metrics:
		return "metrics"
	case !slices.Equal(a.Cells[:a.Heads*a.Step], b.Cells[:b.Heads*b.Step]):
		return "cells"
	case !slices.Equal(a.Budgets, b.Budgets) || !slices.Equal(a.Retrieval, b.Retrieval):
		return "budgets"
	case !slices.Equal(a.History, b.History):
		return "history"
	case !slices.Equal(a.Tokens, b.Tokens):
		return "tokens"
	case (a.Sinks == nil) != (b.Sinks == nil) || a.Sinks != nil && !reflect.DeepEqual(*a.Sinks, *b.Sinks):
		return "sinks"
	case (a.Text == nil) != (b.Text == nil):
		return "text presence"
	case a.Text != nil && (a.Text.ZipFed > 0) != (a.Text.ZipTime > 0):
		return "KVzip's cost"
	case a.Text != nil && !reflect.DeepEqual(untimed(*a.Text), untimed(*b.Text)):
		return "text"
	}
	return ""
}

// untimed is t without the time KVzip's pass took, which differs between
// two runs of the same settings.
func untimed(t sim.TextCompare) sim.TextCompare {
	t.ZipTime = 0
	return t
}

// Frames sent after every few steps, at changing layers, rebuild on the
// receiving side exactly the snapshot the run itself gives: what the
// page draws from a worker's frames is what it drew from the run.
func TestFramesRebuildTheRun(t *testing.T) {
	m := testmodel.Model(t)
	for _, tc := range []struct {
		name   string
		set    Settings
		stride []int // steps between frames, cycled
	}{
		{"h2o int8, a frame a step", settings("h2o", 8), []int{1}},
		{"window fp16, frames every 1-5 steps", settings("window", 16), []int{3, 1, 5, 2}},
		{"snapkv int4", settings("snapkv", 4), []int{2, 7}},
		{"kvzip int8, its reconstruction's cost", settings("kvzip", 8), []int{1, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct, err := sim.NewModelRun(m, tc.set.Config, tc.set.Text, tc.set.MaxTokens, tc.set.Repos)
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Open(7, tc.set, tc.set.MaxTokens, 0); err != nil {
				t.Fatal(err)
			}
			var rc Receiver
			frames, steps := 0, 0
			for i := 0; ; i++ {
				n := tc.stride[i%len(tc.stride)]
				took, stepped := 0, 0 // positions the session's steps fed, and the steps
				for range n {
					before := s.Pos()
					if !s.Step() {
						break
					}
					took, stepped = took+s.Pos()-before, stepped+1
					if !direct.Step() {
						t.Fatal("the direct run ended before the session's")
					}
				}
				layer := frames % m.Config.Layers
				if ok, err := s.SetLayer(7, layer); !ok || err != nil {
					t.Fatalf("SetLayer(7, %d) = %v, %v", layer, ok, err)
				}
				f, err := rc.Receive(s.Frame())
				if err != nil {
					t.Fatalf("frame %d: %v", frames, err)
				}
				frames++
				steps += f.Steps
				if f.Steps != took || f.ID != 7 {
					t.Fatalf("frame %d: id %d, %d steps; want 7, %d", frames, f.ID, f.Steps, took)
				}
				if took > 0 && f.Nanos <= 0 {
					t.Fatalf("frame %d: %d steps in %d ns", frames, f.Steps, f.Nanos)
				}
				if d := sameSnapshot(f.Snap, direct.Snapshot(layer)); d != "" {
					t.Fatalf("frame %d (step %d, layer %d): the %s differ", frames, f.Snap.Step, layer, d)
				}
				full, _ := direct.Tokens()
				if !slices.Equal(f.IDs, full) {
					t.Fatalf("frame %d: token ids differ", frames)
				}
				if f.Ended {
					break
				}
				if stepped < n && !s.Pending() && !f.Ended {
					// Short of a stride without ending: the goal is reached.
					if s.Pos() != tc.set.MaxTokens {
						t.Fatalf("stopped at %d of %d without ending", s.Pos(), tc.set.MaxTokens)
					}
					break
				}
			}
			if steps != direct.Pos() || frames < 5 {
				t.Fatalf("%d steps in %d frames; the run fed %d", steps, frames, direct.Pos())
			}
		})
	}
}

// A session steps only towards its goal, ignores goals and layers of a
// run it no longer has, and refuses what the model cannot do.
func TestSessionGoalsAndIDs(t *testing.T) {
	m := testmodel.Model(t)
	if _, err := New(nil); err == nil {
		t.Fatal("New(nil) accepted")
	}
	s, _ := New(m)
	if s.Pending() || s.Step() || s.Frame() != nil || s.ID() != 0 {
		t.Fatal("a session without a run steps or frames")
	}
	set := settings("h2o", 8)
	if err := s.Open(1, set, 5, m.Config.Layers); err == nil {
		t.Fatal("a layer past the model's accepted")
	}
	bad := set
	bad.MaxTokens = 1
	if err := s.Open(1, bad, 5, 0); err == nil || s.ID() != 0 {
		t.Fatalf("a 1-token run: err %v, run %d open", err, s.ID())
	}
	if err := s.Open(2, set, 5, 0); err != nil {
		t.Fatal(err)
	}
	for s.Step() {
	}
	if s.Pos() != 5 {
		t.Fatalf("goal 5: stopped at %d", s.Pos())
	}
	if s.SetGoal(1, 20) || s.Pending() {
		t.Fatal("a stale run's goal was taken")
	}
	if ok, _ := s.SetLayer(1, 1); ok {
		t.Fatal("a stale run's layer was taken")
	}
	if ok, err := s.SetLayer(2, -1); !ok || err == nil {
		t.Fatalf("layer -1: %v, %v", ok, err)
	}
	if !s.SetGoal(2, 9) || !s.Pending() {
		t.Fatal("goal 9 not taken")
	}
	for s.Step() {
	}
	if s.Pos() != 9 {
		t.Fatalf("goal 9: stopped at %d", s.Pos())
	}
	// Past the run's length it ends, and its frame says so.
	s.SetGoal(2, 1000)
	for s.Step() {
	}
	var rc Receiver
	f, err := rc.Receive(s.Frame())
	if err != nil || !f.Ended || f.Err != "" || f.Snap.Step != set.MaxTokens {
		t.Fatalf("at the end: %+v, %v", f, err)
	}
}

// A receiver refuses frames it cannot take, with an error and no panic:
// another format, a cut frame, and a frame that continues what never
// arrived.
func TestReceiverRefuses(t *testing.T) {
	m := testmodel.Model(t)
	s, _ := New(m)
	if err := s.Open(3, settings("window", 16), 12, 0); err != nil {
		t.Fatal(err)
	}
	for s.Step() {
	}
	first := slices.Clone(s.Frame())
	s.SetGoal(3, 20)
	for s.Step() {
	}
	second := slices.Clone(s.Frame())
	var rc Receiver
	if _, err := rc.Receive([]byte("GIF89a")); err == nil {
		t.Fatal("another format accepted")
	}
	for _, n := range []int{4, 20, len(first) / 2, len(first) - 1} {
		if _, err := rc.Receive(first[:n]); err == nil || !errors.Is(err, errShort) && !strings.Contains(err.Error(), "more than it holds") {
			t.Fatalf("a frame cut at %d of %d bytes: %v", n, len(first), err)
		}
	}
	rc.Reset()
	if _, err := rc.Receive(second); err == nil || !strings.Contains(err.Error(), "only") {
		t.Fatalf("a continuation without its start: %v", err)
	}
	rc.Reset()
	if _, err := rc.Receive(first); err != nil {
		t.Fatal(err)
	}
	f, err := rc.Receive(second)
	if err != nil || f.Snap.Step != 20 {
		t.Fatalf("in order: %v, step %d", err, f.Snap.Step)
	}
	// After Resend the next frame stands on its own.
	s.Resend()
	var fresh Receiver
	if f, err := fresh.Receive(s.Frame()); err != nil || len(f.Snap.History) != 20 || len(f.IDs) != 20 {
		t.Fatalf("a resent frame: %v", err)
	}
}

func FuzzReceive(f *testing.F) {
	m := testmodel.Model(f)
	s, _ := New(m)
	if err := s.Open(1, settings("h2o", 4), 8, 0); err != nil {
		f.Fatal(err)
	}
	for s.Step() {
	}
	f.Add(slices.Clone(s.Frame()))
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		var rc Receiver
		fr, err := rc.Receive(b)
		if err == nil && fr.Snap == nil {
			t.Fatal("a frame without a snapshot accepted")
		}
		if err == nil && len(fr.Snap.Cells) != fr.Snap.Heads*fr.Snap.Step {
			t.Fatalf("%d cells for %d×%d", len(fr.Snap.Cells), fr.Snap.Heads, fr.Snap.Step)
		}
	})
}

// A goal inside the prompt stops the run there: a step reads a prompt
// chunk only up to the goal, and a frame counts the positions fed, not
// the steps.
func TestSessionGoalInsidePrompt(t *testing.T) {
	m := testmodel.Model(t)
	set := settings("h2o", 8)
	set.Text = strings.Repeat("Once upon a time, there was a little girl. ", 3)
	set.MaxTokens = 100
	prompt := len(m.Tokenizer.Prompt(set.Text))
	s, _ := New(m)
	if err := s.Open(4, set, 10, 0); err != nil {
		t.Fatal(err)
	}
	steps := 0
	for s.Step() {
		steps++
	}
	var rc Receiver
	f, err := rc.Receive(s.Frame())
	if err != nil || s.Pos() != 10 || steps != 1 || f.Steps != 10 || f.Snap.Step != 10 {
		t.Fatalf("goal 10 of a %d-token prompt: at %d after %d steps, frame of %d positions at %d: %v", prompt, s.Pos(), steps, f.Steps, f.Snap.Step, err)
	}
	s.SetGoal(4, prompt+2)
	for s.Step() {
	}
	if f, err = rc.Receive(s.Frame()); err != nil || s.Pos() != prompt+2 || f.Steps != prompt-8 || len(f.Snap.Text.KLHistory) != 3 {
		t.Fatalf("goal %d: at %d, frame of %d positions, %d KL entries: %v", prompt+2, s.Pos(), f.Steps, len(f.Snap.Text.KLHistory), err)
	}
}
