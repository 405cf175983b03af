package kv

import (
	"math"
	"testing"
)

// Held is what a layer holds: after a run of n tokens, every policy's
// mean tokens per head and index entries per head (IndexBytes) are what
// Held says of a history of n, with and without Shared, DuoAttention's
// share of retrieval heads as the layer classified them.
func TestHeldIsWhatALayerHolds(t *testing.T) {
	const n = 120
	for _, p := range Policies() {
		for _, shared := range []bool{false, true} {
			cfg := Config{Policy: p, Sink: 2, Recent: 8, Heavy: 6, ChunkSize: 16, DropShare: 0.25, Shared: shared,
				Heads: 4, KVHeads: 4, Dim: 8, MaxTokens: n, Seed: 5}
			l := runLoose(t, cfg, n)
			var held float64
			for g := range cfg.KVHeads {
				held += float64(l.Len(g))
			}
			held /= float64(cfg.KVHeads)
			share := -1.0
			if r := l.RetrievalHeads(); r != nil {
				share = 0
				for _, x := range r {
					if x {
						share += 1 / float64(len(r))
					}
				}
			}
			tokens, index := cfg.Held(n, share)
			wantIndex := float64(l.IndexBytes()) / 4 / float64(cfg.KVHeads)
			if math.Abs(tokens-held) > 1e-9 || math.Abs(index-wantIndex) > 1e-9 {
				t.Errorf("%v shared=%v: Held %.3f tokens and %.3f index entries per head, the layer %.3f and %.3f",
					p, shared, tokens, index, held, wantIndex)
			}
		}
	}
	if tok, idx := (Config{Policy: 255}).Held(10, 0); tok != 0 || idx != 0 {
		t.Errorf("unknown policy holds %v, %v", tok, idx)
	}
}

// SetBudget gives every budgeted policy exactly the budget asked for
// (clamped to the history), sinks at most half of it, and a valid
// configuration; the policies without one report false and are left as
// they are.
func TestSetBudgetGivesTheBudget(t *testing.T) {
	for _, p := range Policies() {
		for _, budget := range []int{0, 1, 2, 7, 40, 200, 500} {
			c := Config{Policy: p, Sink: 9, Recent: 9, Heavy: 9, ChunkSize: 16, DropShare: 0.5,
				Heads: 2, KVHeads: 2, Dim: 4, MaxTokens: 200, MaxPrompt: 50}
			got, ok := c.SetBudget(budget, 4)
			want := min(max(budget, 1), c.MaxTokens)
			switch {
			case p == Full || p == Quest:
				if ok || got.Sink != c.Sink || got.Recent != c.Recent || got.Heavy != c.Heavy || got.DropShare != c.DropShare {
					t.Errorf("%v: SetBudget set %+v (%v)", p, got, ok)
				}
				continue
			case !ok:
				t.Errorf("%v at %d: no budget set", p, budget)
				continue
			case got.Validate() != nil:
				t.Errorf("%v at %d: %+v is invalid: %v", p, budget, got, got.Validate())
			case got.Sink > want/2:
				t.Errorf("%v at %d: %d sinks", p, budget, got.Sink)
			}
			if p.budgeted() && got.Budget() != want {
				t.Errorf("%v at %d: budget %d", p, budget, got.Budget())
			}
		}
	}
}
