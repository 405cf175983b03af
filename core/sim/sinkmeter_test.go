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
