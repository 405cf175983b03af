package sim

import (
	"slices"
	"strings"
	"testing"
)

// heldAt returns how many positions kv head 0 of layer 0 holds.
func heldAt(r *ModelRun) int {
	s := r.Snapshot(0)
	n := 0
	for p := 0; p < s.Step; p++ {
		if s.Cell(0, p).Role.Held() {
			n++
		}
	}
	return n
}

// A question about a document is read after it, and the learner's choice
// decides when the cache starts evicting: where the document ends (before
// the question arrives) or after the question.
func TestDocumentRunCompressesBeforeOrAfter(t *testing.T) {
	m := loadModel(t)
	doc := strings.Repeat("Lily had a red ball and a big dog. ", 6)
	const q = "What colour was the ball?"
	d := m.Tokenizer.Document(doc, q)
	if d.Question >= len(d.IDs) || d.Question < 20 {
		t.Fatalf("document of %d tokens, question from %d", len(d.IDs), d.Question)
	}
	cfg := DefaultConfig()
	cfg.Policy, cfg.Sink, cfg.Recent, cfg.Heavy, cfg.Bits = "window", 0, 8, 0, 32
	for _, after := range []bool{false, true} {
		r, err := NewDocumentRun(m, cfg, doc, q, after, len(d.IDs)+16, false)
		if err != nil {
			t.Fatal(err)
		}
		for r.Pos() < d.Question+2 && r.StepTo(d.Question+2) {
		}
		if r.Pos() != d.Question+2 {
			t.Fatalf("after %v: at %d, want %d", after, r.Pos(), d.Question+2)
		}
		held := heldAt(r)
		if want := 8; !after && held != want {
			t.Errorf("compressed before the question: %d positions held two tokens into it, want the window's %d", held, want)
		}
		if want := d.Question + 2; after && held != want {
			t.Errorf("compressed after the question: %d positions held inside it, want all %d", held, want)
		}
		for r.Step() {
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		full, _ := r.Tokens()
		if !slices.Equal(full[:len(d.IDs)], d.IDs) {
			t.Fatalf("the run read %v, the prompt is %v", full[:len(d.IDs)], d.IDs)
		}
		if heldAt(r) != 8 {
			t.Errorf("after %v: %d held at the end, want 8", after, heldAt(r))
		}
	}
	alone, err := NewDocumentRun(m, cfg, doc, "", false, len(d.IDs)+16, false)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewModelRun(m, cfg, doc, len(d.IDs)+16, false)
	if err != nil {
		t.Fatal(err)
	}
	for alone.Step() && plain.Step() {
	}
	a, _ := alone.Tokens()
	b, _ := plain.Tokens()
	if !slices.Equal(a, b) {
		t.Errorf("a document without a question runs as its prompt alone: %v, %v", a, b)
	}
}

func TestPromptRunRefuses(t *testing.T) {
	m := loadModel(t)
	cfg := DefaultConfig()
	for _, tc := range []struct {
		name       string
		toks       []int
		at, tokens int
		says       string
	}{
		{"no prompt", nil, 0, 16, "at least one token"},
		{"compression past the prompt", []int{1, 5, 6}, 4, 16, "compression from position 4"},
		{"compression before the first token", []int{1, 5, 6}, 0, 16, "compression from position 0"},
		{"a token past the vocabulary", []int{1, m.Config.Vocab}, 2, 16, "out of the vocabulary"},
		{"no room", []int{1, 5, 6}, 3, 3, "leaves no room"},
	} {
		if _, err := NewPromptRun(m, cfg, tc.toks, tc.at, tc.tokens, false); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.says)
		}
	}
}
