package kv

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"
)

// zipLayer is a KVzip layer that has read a prompt of n tokens.
func zipLayer(t *testing.T, cfg Config, n int) (*Layer, *stream) { return runPolicy(t, cfg, n) }

// Scores from a reconstruction pass decide what stays: the layer keeps
// its KVHeads·Heavy best-scored prompt tokens beyond the sinks, whichever
// heads hold them, so heads keep unequal shares; the sinks stay, every
// generated token stays, and the roles say which is which.
func TestZipKeepsTheBestScoredPromptTokens(t *testing.T) {
	cfg := Config{Policy: KVzip, Sink: 2, Heavy: 3, Heads: 4, KVHeads: 2, Dim: 8, MaxTokens: 30, MaxPrompt: 12, Seed: 9}
	l, s := zipLayer(t, cfg, 12)
	scores := make([][]float32, 2)
	type cand struct {
		score  float32
		g, pos int
	}
	var all []cand
	for g := range scores {
		scores[g] = make([]float32, l.Len(g))
		for i := range scores[g] {
			// Head 0 is needed more than head 1, except head 1's last token.
			scores[g][i] = float32((1-g)*10 + i%5)
			if g == 1 && i == len(scores[g])-1 {
				scores[g][i] = 50
			}
			if i >= cfg.Sink {
				all = append(all, cand{scores[g][i], g, i})
			}
		}
	}
	if err := l.Zip(scores); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b cand) int { return cmp.Compare(b.score, a.score) })
	want := [2][]int32{{0, 1}, {0, 1}}
	for _, c := range all[:cfg.KVHeads*cfg.Heavy] {
		want[c.g] = append(want[c.g], int32(c.pos))
	}
	for g := range want {
		slices.Sort(want[g])
		if got := l.Positions(g); !slices.Equal(got, want[g]) {
			t.Errorf("head %d keeps %v, want %v", g, got, want[g])
		}
	}
	if len(want[0]) == len(want[1]) {
		t.Fatalf("the test's scores give both heads the same share: %v", want)
	}
	out := make([]float32, cfg.Heads*cfg.Dim)
	for pos := 12; pos < 20; pos++ {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
	}
	for g := range want {
		if l.Len(g) != len(want[g])+8 {
			t.Errorf("head %d holds %d tokens after 8 generated, want %d", g, l.Len(g), len(want[g])+8)
		}
		for i, p := range l.Positions(g) {
			r, wantRole := l.Role(g, i), Heavy
			switch {
			case p < 2:
				wantRole = Sink
			case p >= 12:
				wantRole = Kept
			}
			if r != wantRole {
				t.Errorf("head %d position %d: role %v, want %v", g, p, r, wantRole)
			}
		}
	}
}

// Without a reconstruction (the synthetic stream), each prompt token's
// score is the largest attention a prompt query gave it, and the prompt's
// end compresses by it.
func TestZipWithoutAModelUsesThePromptsAttention(t *testing.T) {
	cfg := Config{Policy: KVzip, Sink: 1, Heavy: 4, Heads: 3, KVHeads: 3, Dim: 8, MaxTokens: 40, MaxPrompt: 16, Seed: 4}
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(cfg.Seed, cfg.Heads, cfg.KVHeads, cfg.Dim)
	out := make([]float32, cfg.Heads*cfg.Dim)
	best := make([][]float64, cfg.KVHeads)
	for pos := range 15 {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatal(err)
		}
		for g := range best {
			best[g] = append(best[g], 0)
			for i, a := range l.Attention(g) { // one query head per kv head: its own weights
				best[g][i] = math.Max(best[g][i], float64(a))
			}
		}
	}
	for g := range best {
		for i, v := range best[g] {
			if math.Abs(l.Scores(g)[i]-v) > 1e-7 {
				t.Fatalf("head %d token %d: score %v, the largest attention it got %v", g, i, l.Scores(g)[i], v)
			}
		}
	}
	s.next()
	if err := l.Step(15, s.q, s.k, s.v, out); err != nil { // the prompt's last token
		t.Fatal(err)
	}
	l.EndPrompt()
	total := 0
	for g := range cfg.KVHeads {
		total += l.Len(g)
	}
	if want := cfg.KVHeads * (cfg.Sink + cfg.Heavy); total != want {
		t.Errorf("the layer holds %d tokens after the prompt, want %d", total, want)
	}
}

func TestZipRefuses(t *testing.T) {
	cfg := Config{Policy: KVzip, Sink: 1, Heavy: 2, Heads: 2, KVHeads: 2, Dim: 4, MaxTokens: 20, MaxPrompt: 6}
	l, _ := zipLayer(t, cfg, 4)
	ok := [][]float32{make([]float32, 4), make([]float32, 4)}
	for _, tc := range []struct {
		name   string
		scores [][]float32
		says   string
	}{
		{"one head", ok[:1], "scores for 2 heads"},
		{"short", [][]float32{make([]float32, 4), make([]float32, 3)}, "holds 4 tokens, got 3"},
		{"NaN", [][]float32{{0, float32(math.NaN()), 0, 0}, make([]float32, 4)}, "KVzip score"},
	} {
		if err := l.Zip(tc.scores); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.says)
		}
	}
	if l.Len(0) != 4 || l.Len(1) != 4 {
		t.Fatalf("a refused Zip changed the cache: %d and %d tokens", l.Len(0), l.Len(1))
	}
	if err := l.Zip(ok); err != nil {
		t.Fatal(err)
	}
	if err := l.Zip(ok); err == nil || !strings.Contains(err.Error(), "after the prompt") {
		t.Errorf("a second Zip: %v", err)
	}
	h, _ := zipLayer(t, Config{Policy: H2O, Sink: 1, Heavy: 2, Recent: 2, Heads: 2, KVHeads: 2, Dim: 4, MaxTokens: 20, MaxPrompt: 6}, 4)
	if err := h.Zip(ok); err == nil || !strings.Contains(err.Error(), "not h2o") {
		t.Errorf("Zip on an H2O cache: %v", err)
	}
}
