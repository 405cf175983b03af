package model_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

func TestKVHead(t *testing.T) {
	tests := []struct {
		heads, kvHeads int
		want           []int // kv head of each query head
	}{
		{8, 4, []int{0, 0, 1, 1, 2, 2, 3, 3}},
		{8, 8, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{8, 1, []int{0, 0, 0, 0, 0, 0, 0, 0}},
		{6, 2, []int{0, 0, 0, 1, 1, 1}},
	}
	for _, tc := range tests {
		for h, want := range tc.want {
			if got := model.KVHead(h, tc.heads, tc.kvHeads); got != want {
				t.Errorf("KVHead(%d, %d, %d) = %d, want %d", h, tc.heads, tc.kvHeads, got, want)
			}
		}
	}
}

func randVec(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

// TestGQAEquivalence checks the head mapping end to end: a GQA cache must give
// exactly what a multi-head cache gives when each kv head is duplicated for the
// query heads that share it.
func TestGQAEquivalence(t *testing.T) {
	gqa := model.Config{Dim: 32, Layers: 1, Heads: 8, KVHeads: 2, HeadDim: 4, Hidden: 8, Vocab: 4, ContextLength: 16, NormEps: 1e-5, RopeBase: 10000}
	mha := gqa
	mha.KVHeads = gqa.Heads
	a, b := fullCache(t, gqa), fullCache(t, mha)
	rng := rand.New(rand.NewPCG(1, 2))
	group := gqa.Heads / gqa.KVHeads
	outA, outB := make([]float32, gqa.Dim), make([]float32, gqa.Dim)
	for pos := 0; pos < 10; pos++ {
		q := randVec(rng, gqa.Dim)
		k, v := randVec(rng, gqa.KVDim()), randVec(rng, gqa.KVDim())
		kx, vx := make([]float32, mha.KVDim()), make([]float32, mha.KVDim())
		for h := 0; h < gqa.Heads; h++ {
			g := h / group
			copy(kx[h*4:h*4+4], k[g*4:g*4+4])
			copy(vx[h*4:h*4+4], v[g*4:g*4+4])
		}
		qb := append([]float32(nil), q...)
		if err := a.Attend(0, pos, q, k, v, outA); err != nil {
			t.Fatal(err)
		}
		if err := b.Attend(0, pos, qb, kx, vx, outB); err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(outA, outB); d != 0 {
			t.Fatalf("position %d: GQA and duplicated-head outputs differ by %g", pos, d)
		}
	}
}

// TestFullCacheAttention checks the exposed attention weights against a direct
// computation and that they form a distribution.
func TestFullCacheAttention(t *testing.T) {
	c := tinyConfig
	fc := fullCache(t, c)
	rng := rand.New(rand.NewPCG(3, 4))
	var keys, qs [][]float32
	out := make([]float32, c.Dim)
	for pos := 0; pos < 6; pos++ {
		q, k, v := randVec(rng, c.Dim), randVec(rng, c.KVDim()), randVec(rng, c.KVDim())
		kr := append([]float32(nil), k...)
		model.RoPE(kr, pos, c.HeadDim, c.RopeBase)
		keys = append(keys, kr)
		qr := append([]float32(nil), q...)
		model.RoPE(qr, pos, c.HeadDim, c.RopeBase)
		qs = append(qs, qr)
		if err := fc.Attend(1, pos, q, k, v, out); err != nil {
			t.Fatal(err)
		}
	}
	if got := fc.Attention(0, 0); len(got) != 0 {
		t.Errorf("layer 0 never attended but has %d weights", len(got))
	}
	last := qs[len(qs)-1]
	for h := 0; h < c.Heads; h++ {
		g := model.KVHead(h, c.Heads, c.KVHeads)
		got := fc.Attention(1, h)
		if len(got) != 6 {
			t.Fatalf("head %d: %d weights, want 6", h, len(got))
		}
		want := make([]float32, 6)
		for u := range want {
			var s float64
			for i := 0; i < c.HeadDim; i++ {
				s += float64(last[h*c.HeadDim+i] * keys[u][g*c.HeadDim+i])
			}
			want[u] = float32(s / math.Sqrt(float64(c.HeadDim)))
		}
		model.Softmax(want)
		var sum float64
		for _, w := range got {
			sum += float64(w)
		}
		if d := maxAbsDiff(got, want); d > 1e-5 || math.Abs(sum-1) > 1e-5 {
			t.Errorf("head %d: weights %v, want %v (sum %v)", h, got, want, sum)
		}
	}
	if fc.Len(1) != 6 || fc.Len(0) != 0 {
		t.Errorf("Len = %d, %d; want 6, 0", fc.Len(1), fc.Len(0))
	}
	fc.Reset()
	if fc.Len(1) != 0 || len(fc.Attention(1, 0)) != 0 {
		t.Error("Reset left positions behind")
	}
}

func TestFullCacheErrors(t *testing.T) {
	c := tinyConfig
	fc, err := model.NewFullCache(c, 2)
	if err != nil {
		t.Fatal(err)
	}
	q, k, v, out := make([]float32, c.Dim), make([]float32, c.KVDim()), make([]float32, c.KVDim()), make([]float32, c.Dim)
	tests := []struct {
		name   string
		l, pos int
		k      []float32
		want   string
	}{
		{"layer", c.Layers, 0, k, "layer"},
		{"negative layer", -1, 0, k, "layer"},
		{"skipped position", 0, 1, k, "in order"},
		{"short key", 0, 0, k[:1], "lengths"},
	}
	for _, tc := range tests {
		if err := fc.Attend(tc.l, tc.pos, q, tc.k, v, out); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	for pos := 0; pos < 2; pos++ {
		if err := fc.Attend(0, pos, q, k, v, out); err != nil {
			t.Fatal(err)
		}
	}
	if err := fc.Attend(0, 2, q, k, v, out); err == nil || !strings.Contains(err.Error(), "capacity") {
		t.Errorf("past capacity: err = %v", err)
	}
	bad := c
	bad.KVHeads = 3
	if _, err := model.NewFullCache(bad, 0); err == nil {
		t.Error("NewFullCache accepted an invalid config")
	}
	if _, err := model.NewFullCache(c, 1<<30); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("huge capacity: err = %v", err)
	}
}
