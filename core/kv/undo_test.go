package kv_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/quant"
	"github.com/kvscope/kvscope/core/store"
)

// With stores that check tokens themselves (calibrated INT8, which can
// undo an Append) the layer skips its own scan for NaN and infinities. A
// bad value in any head's key or value — the last head's value included,
// after every other head took the token — and a bad value on the step that
// ends the prompt must still be refused with the cache, its scores and
// every store's memory and contents left as they were. A residual store,
// which cannot undo an Append, keeps the layer's scan.
func TestStoresCheckTokens(t *testing.T) {
	const heads, dim = 3, 4
	cal := &quant.Calibration{Lo: []float32{-2}, Hi: []float32{2}}
	for _, tc := range []struct {
		name  string
		cfg   store.Config
		steps int // tokens before the bad one
	}{
		{"int8-calibrated", store.Config{Bits: 8, Granularity: store.PerTensor, Calib: cal}, 9},
		{"int8-calibrated/prompt end", store.Config{Bits: 8, Granularity: store.PerTensor, Calib: cal}, 5},
		{"int4-residual", store.Config{Bits: 4, Residual: 2}, 9},
	} {
		mk := func(g, d, c int) (kv.Store, error) { return store.New(tc.cfg, d, c) }
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
			for _, at := range []string{"key/0", "key/2", "value/0", "value/2"} {
				t.Run(fmt.Sprintf("%s/%v/%s", tc.name, bad, at), func(t *testing.T) {
					l, err := kv.NewLayer(kv.Config{Policy: kv.H2O, Recent: 2, Heavy: 2, Heads: heads, KVHeads: heads,
						Dim: dim, MaxTokens: 20, MaxPrompt: 5, Keys: mk, Values: mk})
					if err != nil {
						t.Fatal(err)
					}
					k, v := make([]float32, heads*dim), make([]float32, heads*dim)
					q, out := make([]float32, heads*dim), make([]float32, heads*dim)
					for pos := range tc.steps {
						for i := range k {
							k[i], v[i], q[i] = float32(i%5)/3-0.5, float32(pos%3)/2, float32(i%3)-1
						}
						if err := l.Step(pos, q, k, v, out); err != nil {
							t.Fatal(err)
						}
					}
					before := snapshot(l)
					var which string
					var head int
					fmt.Sscanf(strings.Replace(at, "/", " ", 1), "%s %d", &which, &head)
					x := k
					if which == "value" {
						x = v
					}
					x[head*dim+1] = bad
					err = l.Step(tc.steps, q, k, v, out)
					if err == nil {
						t.Fatal("bad token accepted")
					}
					if after := snapshot(l); after != before {
						t.Fatalf("refused token (%v) changed the cache:\n%s\nwas\n%s", err, after, before)
					}
					x[head*dim+1] = 0
					if err := l.Step(tc.steps, q, k, v, out); err != nil {
						t.Fatalf("the step after the refusal: %v", err)
					}
				})
			}
		}
	}
}

// snapshot renders what a layer shows of itself: positions, scores, and
// each store's memory and reconstructed tokens.
func snapshot(l *kv.Layer) string {
	var b strings.Builder
	cfg := l.Config()
	x := make([]float32, cfg.Dim)
	for g := range cfg.KVHeads {
		fmt.Fprintln(&b, l.Positions(g), slices.Clone(l.Scores(g)))
		keys, values := l.Stores(g)
		for _, s := range []kv.Store{keys, values} {
			fmt.Fprintf(&b, "%+v", s.(*store.Store).Memory())
			for i := range l.Len(g) {
				ks, vs := l.Slots(g, i)
				slot := ks
				if s == values {
					slot = vs
				}
				s.Read(slot, x)
				fmt.Fprint(&b, x)
			}
			fmt.Fprintln(&b)
		}
	}
	return b.String()
}
