package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/model"
)

// zipReference computes KVzip's scores for the first n positions of
// prompt independently of the run: one uncompressed cache fed the
// context, the request and the context again token by token (Forward, not
// the batched pass), each query of the reconstruction read from the
// cache's weights as it comes. It returns [layer][kv head][position].
func zipReference(t *testing.T, m *model.Model, prompt []int, n int) [][][]float64 {
	t.Helper()
	tk := m.Tokenizer
	ctx := prompt[:n]
	if tk.AddBOS() && ctx[0] == tk.BOS {
		ctx = ctx[1:]
	}
	_, close := tk.Chat.Turn()
	input := append(tk.Encode(ZipRequest, false, false), tk.EncodeSpecial(close, false, false)...)
	input = append(input, ctx...)
	mc := m.Config
	fc, err := model.NewFullCache(mc, n+len(input))
	if err != nil {
		t.Fatal(err)
	}
	r := m.NewRunner(fc)
	best := make([][][]float64, mc.Layers)
	for l := range best {
		best[l] = make([][]float64, mc.KVHeads)
		for g := range best[l] {
			best[l][g] = make([]float64, n)
		}
	}
	for i, tok := range append(slices.Clone(prompt[:n]), input...) {
		if _, err := r.Forward(tok); err != nil {
			t.Fatal(err)
		}
		if i < n {
			continue
		}
		for l := range best {
			for qh := range mc.Heads {
				w := fc.Attention(l, qh)
				g := qh / (mc.Heads / mc.KVHeads)
				for p := range n {
					best[l][g][p] = math.Max(best[l][g][p], float64(w[p]))
				}
			}
		}
	}
	return best
}

// KVzip on a real model: after the prompt, the run's reconstruction gives
// each cached prompt token the score an independent computation gives it,
// each layer keeps its KVHeads·Heavy best beyond the sinks (heads keep
// unequal shares), and the pass's cost is reported.
func TestKVzipScoresTheReconstruction(t *testing.T) {
	m := loadModel(t)
	const text = "Lily had a red ball. She gave it to her dog Max, and Max ran to the park with it to play."
	cfg := DefaultConfig()
	cfg.Policy, cfg.Sink, cfg.Heavy, cfg.Bits = "kvzip", 2, 6, 32
	r, err := NewModelRun(m, cfg, text, 80, false)
	if err != nil {
		t.Fatal(err)
	}
	n := len(r.prompt)
	for r.Pos() <= n && r.Step() {
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	fed, d := r.ZipCost()
	if fed < n || d <= 0 {
		t.Fatalf("the reconstruction fed %d positions in %v for a %d-token prompt", fed, d, n)
	}
	want := zipReference(t, m, r.prompt, n)
	unequal := false
	for l, layer := range r.cache.c.layers {
		kept := 0
		for g := range m.Config.KVHeads {
			ps := layer.Positions(g)
			for i, p := range ps {
				if int(p) >= n {
					continue // generated: always kept
				}
				kept++
				if int(p) < cfg.Sink {
					continue
				}
				if got := layer.Scores(g)[i]; math.Abs(got-want[l][g][p]) > 1e-4 {
					t.Fatalf("layer %d head %d position %d: score %v, the reference %v", l, g, p, got, want[l][g][p])
				}
			}
			if g > 0 && len(ps) != len(layer.Positions(0)) {
				unequal = true
			}
		}
		if wantKept := m.Config.KVHeads * (cfg.Sink + cfg.Heavy); kept != wantKept {
			t.Errorf("layer %d keeps %d prompt tokens, want %d", l, kept, wantKept)
		}
		// What it dropped scored no higher than what it kept.
		var keptMin, dropMax = math.Inf(1), math.Inf(-1)
		for g := range m.Config.KVHeads {
			held := layer.Positions(g)
			for p := cfg.Sink; p < n; p++ {
				if slices.Contains(held, int32(p)) {
					keptMin = min(keptMin, want[l][g][p])
				} else {
					dropMax = max(dropMax, want[l][g][p])
				}
			}
		}
		if dropMax > keptMin+1e-4 {
			t.Errorf("layer %d dropped a token scored %v and kept one scored %v", l, dropMax, keptMin)
		}
	}
	if !unequal {
		t.Error("every head kept the same number of tokens: the layer's budget is not shared by score")
	}
	for r.Step() {
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
}
