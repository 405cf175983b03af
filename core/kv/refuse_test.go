package kv_test

import (
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/store"
)

// A token that a store refuses — here a key beyond FP16 on the step that
// ends the prompt, and with FP16-residual stores that cannot undo an
// Append — changes nothing: no eviction, no compression, no end of prompt.
func TestRefusedTokenAtPromptEndChangesNothing(t *testing.T) {
	for _, mk := range []struct {
		name string
		cfg  store.Config
	}{{"fp16", store.Config{Bits: 16}}, {"int4-residual", store.Config{Bits: 4, Residual: 2}}} {
		t.Run(mk.name, func(t *testing.T) {
			maker := func(g, d, c int) (kv.Store, error) { return store.New(mk.cfg, d, c) }
			l, err := kv.NewLayer(kv.Config{Policy: kv.H2O, Recent: 2, Heavy: 2, Heads: 2, KVHeads: 2, Dim: 4, MaxTokens: 30, MaxPrompt: 10, Keys: maker, Values: maker})
			if err != nil {
				t.Fatal(err)
			}
			k, v, q, out := make([]float32, 8), make([]float32, 8), make([]float32, 8), make([]float32, 8)
			for pos := range 10 {
				for i := range k {
					k[i], v[i], q[i] = float32(pos+i)/10, float32(i), 1
				}
				if err := l.Step(pos, q, k, v, out); err != nil {
					t.Fatal(err)
				}
			}
			before := slices.Clone(l.Positions(0))
			evicted := slices.Clone(l.EvictedAt(0))
			ks, _ := l.Stores(0)
			mem := ks.(*store.Store).Memory()
			k[5] = 1e5 // head 1's key is beyond FP16
			if err := l.Step(10, q, k, v, out); err == nil {
				t.Fatal("a key beyond FP16 was accepted")
			}
			if !slices.Equal(before, l.Positions(0)) || ks.(*store.Store).Memory() != mem || !slices.Equal(evicted, l.EvictedAt(0)) {
				t.Fatalf("refused token changed head 0: %v → %v, memory %+v → %+v",
					before, l.Positions(0), mem, ks.(*store.Store).Memory())
			}
			k[5] = 0
			if err := l.Step(10, q, k, v, out); err != nil {
				t.Fatal(err)
			}
		})
	}
}
