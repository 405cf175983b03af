package sim

import (
	"math"
	"testing"
)

// A SinkMeter stepped token by token measures what AttentionImportance's
// position 0 gives, and says when it is done.
func TestSinkMeter(t *testing.T) {
	m := loadModel(t)
	toks := m.Tokenizer.Encode("Once upon a time there was a cat", true, false)
	imp, err := m.AttentionImportance(toks)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := NewSinkMeter(m, toks)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for {
		more := sm.Step()
		steps++
		if !more {
			break
		}
		if sm.Done() {
			t.Fatal("done before the last token")
		}
	}
	if !sm.Done() || sm.Err() != nil || steps != len(toks) || sm.Step() {
		t.Fatalf("after %d steps of %d: done %v, err %v", steps, len(toks), sm.Done(), sm.Err())
	}
	s := sm.Sinks()
	n := len(toks)
	if s.Tokens != n || s.Layers != m.Config.Layers || s.Heads != m.Config.Heads {
		t.Fatalf("shape %d×%d over %d", s.Layers, s.Heads, s.Tokens)
	}
	for i, v := range s.Importance {
		if want := imp[i*n]; math.Abs(v-want) > 1e-12 {
			t.Fatalf("head %d: meter %v, AttentionImportance %v", i, v, want)
		}
	}
	if _, err := NewSinkMeter(m, make([]int, m.Config.ContextLength+1)); err == nil {
		t.Error("more tokens than the context accepted")
	}
	bad, _ := NewSinkMeter(m, []int{1, m.Config.Vocab + 5})
	for bad.Step() {
	}
	if bad.Err() == nil || bad.Done() {
		t.Errorf("a token out of range: err %v, done %v", bad.Err(), bad.Done())
	}
}

// A greedy meter continues the prompt as the run's uncompressed side
// does, and measures what ModelSinks measures on those tokens.
func TestGreedySinkMeter(t *testing.T) {
	m := loadModel(t)
	cfg := DefaultConfig()
	cfg.Policy, cfg.Bits = "full", 32
	r := runModel(t, m, cfg, "Once upon a time", SinkPrompt, false)
	full, _ := r.Tokens()
	prompt := m.Tokenizer.Encode("Once upon a time", true, false)
	sm, err := NewGreedySinkMeter(m, prompt, SinkPrompt)
	if err != nil {
		t.Fatal(err)
	}
	for sm.Step() {
	}
	if !sm.Done() || sm.Err() != nil {
		t.Fatalf("done %v, err %v", sm.Done(), sm.Err())
	}
	got := sm.Tokens()
	if len(got) != SinkPrompt || len(full) < SinkPrompt {
		t.Fatalf("%d tokens fed, run has %d", len(got), len(full))
	}
	for i := range got {
		if got[i] != full[i] {
			t.Fatalf("token %d: meter %d, run %d", i, got[i], full[i])
		}
	}
	want, err := ModelSinks(m, got)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range sm.Sinks().Importance {
		if math.Abs(v-want.Importance[i]) > 1e-12 {
			t.Fatalf("head %d: %v, ModelSinks %v", i, v, want.Importance[i])
		}
	}
	if _, err := NewGreedySinkMeter(m, nil, 8); err == nil {
		t.Error("an empty prompt accepted")
	}
}
