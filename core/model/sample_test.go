package model_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

func TestArgmax(t *testing.T) {
	tests := []struct {
		x    []float32
		want int
	}{
		{nil, -1},
		{[]float32{3}, 0},
		{[]float32{-5, -1, -3}, 1},
		{[]float32{1, 4, 4, 2}, 1},
	}
	for _, tc := range tests {
		if got := model.Argmax(tc.x); got != tc.want {
			t.Errorf("Argmax(%v) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

func TestSampler(t *testing.T) {
	logits := []float32{0, float32(math.Log(2)), float32(math.Log(3))}
	if got := model.NewSampler(0, 1).Sample(logits); got != 2 {
		t.Errorf("temperature 0 sampled %d, want argmax 2", got)
	}
	draw := func(seed uint64, n int) []int {
		s := model.NewSampler(1, seed)
		out := make([]int, n)
		for i := range out {
			out[i] = s.Sample(logits)
		}
		return out
	}
	if a, b := draw(42, 100), draw(42, 100); !reflect.DeepEqual(a, b) {
		t.Error("same seed gave different samples")
	}
	if a, b := draw(42, 100), draw(43, 100); reflect.DeepEqual(a, b) {
		t.Error("different seeds gave identical samples")
	}
	const n = 6000
	var counts [3]int
	for _, id := range draw(7, n) {
		counts[id]++
	}
	for i, p := range []float64{1.0 / 6, 2.0 / 6, 3.0 / 6} {
		if f := float64(counts[i]) / n; math.Abs(f-p) > 0.03 {
			t.Errorf("token %d drawn with frequency %.3f, want %.3f", i, f, p)
		}
	}
	if model.NewSampler(1, 1).Sample(nil) != -1 {
		t.Error("Sample(nil) != -1")
	}
	// Sample must not modify the logits.
	if logits[0] != 0 || logits[2] != float32(math.Log(3)) {
		t.Errorf("logits modified: %v", logits)
	}
}

func TestGenerate(t *testing.T) {
	m := tinyModel(t, 11)
	r := m.NewRunner(fullCache(t, m.Config))
	greedy, err := r.Generate([]int{1, 8}, model.GenerateOptions{MaxTokens: 10, IgnoreEOS: true})
	if err != nil || len(greedy) != 10 {
		t.Fatalf("greedy: %v, %v", greedy, err)
	}
	if r.Pos() != 2+9 {
		t.Errorf("position after 10 generated tokens = %d, want 11 (the last is not fed)", r.Pos())
	}
	// Greedy equals argmax of the naive forward pass at every step.
	seq := []int{1, 8}
	for i, tok := range greedy {
		if want := model.Argmax(naiveLogits(m, seq)); tok != want {
			t.Fatalf("step %d: generated %d, naive argmax %d", i, tok, want)
		}
		seq = append(seq, tok)
	}
	// Stop at EOS (included) unless IgnoreEOS.
	tok := *m.Tokenizer
	tok.EOS = greedy[3]
	stop := &model.Model{Config: m.Config, Weights: m.Weights, Tokenizer: &tok}
	out, err := stop.NewRunner(fullCache(t, m.Config)).Generate([]int{1, 8}, model.GenerateOptions{MaxTokens: 10})
	first := 0
	for greedy[first] != tok.EOS {
		first++
	}
	if err != nil || !reflect.DeepEqual(out, greedy[:first+1]) {
		t.Errorf("with EOS = %d: %v, %v; want %v", tok.EOS, out, err, greedy[:first+1])
	}
	// Sampling is deterministic for a seed.
	opts := model.GenerateOptions{MaxTokens: 20, Temperature: 1, Seed: 9, IgnoreEOS: true}
	a, _ := r.Generate([]int{1}, opts)
	b, _ := r.Generate([]int{1}, opts)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("seeded sampling differs: %v vs %v", a, b)
	}
	if _, err := r.Generate(nil, opts); err == nil {
		t.Error("empty prompt accepted")
	}
	if out, err := r.Generate([]int{1}, model.GenerateOptions{}); err != nil || len(out) != 0 {
		t.Errorf("zero options: %v, %v", out, err)
	}
}
