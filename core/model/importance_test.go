package model_test

import (
	"math"
	"testing"
)

// AttentionImportance is Σ_q A[q,k]/(T−k) over the attention a plain
// float64 forward pass computes, and each query's weights sum to one, so
// Σ_k importance_k·(T−k) = T per head.
func TestAttentionImportance(t *testing.T) {
	m := tinyModel(t, 3)
	tokens := []int{1, 11, 8, 9, 12, 7, 16, 10, 3, 13, 8, 8}
	n := len(tokens)
	imp, err := m.AttentionImportance(tokens)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Config
	if len(imp) != c.Layers*c.Heads*n {
		t.Fatalf("%d values, want %d", len(imp), c.Layers*c.Heads*n)
	}
	_, att := naiveForward(m, tokens)
	for l := range c.Layers {
		for h := range c.Heads {
			var total float64
			for k := range n {
				var want float64
				for q := k; q < n; q++ {
					want += att[l][h][q][k]
				}
				want /= float64(n - k)
				got := imp[(l*c.Heads+h)*n+k]
				if math.Abs(got-want) > 1e-5 {
					t.Fatalf("layer %d head %d position %d: importance %v, naive %v", l, h, k, got, want)
				}
				total += got * float64(n-k)
			}
			if math.Abs(total-float64(n)) > 1e-4 {
				t.Fatalf("layer %d head %d: weights sum to %v over %d queries", l, h, total, n)
			}
		}
	}
	// One token attends only to itself.
	one, err := m.AttentionImportance(tokens[:1])
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range one {
		if math.Abs(v-1) > 1e-6 {
			t.Fatalf("single token: importance[%d] = %v, want 1", i, v)
		}
	}
	for _, bad := range [][]int{nil, make([]int, c.ContextLength+1), {1, c.Vocab}} {
		if _, err := m.AttentionImportance(bad); err == nil {
			t.Errorf("%d tokens (%v…) accepted", len(bad), bad[:min(len(bad), 2)])
		}
	}
}
