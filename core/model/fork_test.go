package model_test

import (
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

// A runner whose cache is copied from another's after n tokens and which
// seeks to n continues exactly as the other does.
func TestCopyFromAndSeek(t *testing.T) {
	m := tinyModel(t, 9)
	tokens := []int{1, 11, 8, 9, 12, 7, 16, 10, 3, 13}
	a, b := fullCache(t, m.Config), fullCache(t, m.Config)
	ra, rb := m.NewRunner(a), m.NewRunner(b)
	for _, tok := range tokens[:6] {
		if _, err := ra.Forward(tok); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rb.Forward(5); err != nil { // b's own history is replaced
		t.Fatal(err)
	}
	if err := b.CopyFrom(a, 4); err != nil {
		t.Fatal(err)
	}
	if err := rb.Seek(4); err != nil {
		t.Fatal(err)
	}
	ref := m.NewRunner(fullCache(t, m.Config))
	for i, tok := range tokens {
		want, err := ref.Forward(tok)
		if err != nil {
			t.Fatal(err)
		}
		if i < 4 {
			continue
		}
		got, err := rb.Forward(tok)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(got, want); d != 0 {
			t.Fatalf("position %d: logits differ by %g after copy and seek", i, d)
		}
	}
	small, err := model.NewFullCache(m.Config, 3)
	if err != nil {
		t.Fatal(err)
	}
	other := tinyConfig
	other.ContextLength = 64
	bigger, err := model.NewFullCache(other, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{small.CopyFrom(a, 4), b.CopyFrom(a, 7), bigger.CopyFrom(a, 2), b.CopyFrom(a, -1), rb.Seek(-1)} {
		if err == nil {
			t.Error("an impossible copy or seek was accepted")
		}
	}
}
