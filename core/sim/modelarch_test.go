package sim

import (
	"bytes"
	"testing"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/model"
	"github.com/kvscope/kvscope/core/model/ggufwrite"
)

// archModel synthesizes a small model of architecture arch (Gemma 3 with
// a 6-position sliding window on its local layers).
func archModel(t testing.TB, arch string) *model.Model {
	t.Helper()
	s := ggufwrite.LlamaSpec{Arch: arch, Dim: 64, Layers: 6, Heads: 4, KVHeads: 2, Hidden: 96, Vocab: 400, Context: 128,
		NormEps: 1e-6, RopeBase: 1e6, Version: 3, Seed: 9, Window: 6, RopeFactors: arch == "llama"}
	if arch == "qwen3" || arch == "gemma3" {
		s.HeadDim = 32
	}
	data := ggufwrite.Llama(s)
	m, err := model.Load(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestModelCacheArchs: for every architecture, kvscope's compressed cache
// keeping everything exactly gives the uncompressed cache's logits — its
// rotary embedding per layer and Gemma 3's sliding window included — and
// on Gemma 3 the window's evictions are the architecture's own: a local
// layer holds at most the window, each token leaving exactly when it falls
// out of it, while a global layer keeps everything.
func TestModelCacheArchs(t *testing.T) {
	tokens := []int{1, 300, 41, 7, 399, 120, 5, 64, 200, 33, 17, 250, 90, 91, 92, 93}
	for _, arch := range model.Archs() {
		t.Run(arch, func(t *testing.T) {
			m := archModel(t, arch)
			cfg := DefaultConfig()
			cfg.Policy, cfg.Bits = "full", 32
			mc, err := NewModelCache(m.Config, cfg, len(tokens), 1, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			fc, err := model.NewFullCache(m.Config, len(tokens))
			if err != nil {
				t.Fatal(err)
			}
			a, b := m.NewRunner(mc), m.NewRunner(fc)
			for i, tok := range tokens {
				la, err := a.Forward(tok)
				if err != nil {
					t.Fatal(err)
				}
				lb, _ := b.Forward(tok)
				for j := range la {
					if d := la[j] - lb[j]; d > 1e-4 || d < -1e-4 {
						t.Fatalf("position %d: logit %d differs by %g", i, j, d)
					}
				}
			}
			for l, layer := range mc.c.layers {
				w := m.Config.Window(l)
				if layer.Window() != w {
					t.Fatalf("layer %d window %d, want %d", l, layer.Window(), w)
				}
				n := len(tokens)
				if w > 0 {
					n = w
				}
				if got := layer.Len(0); got != n {
					t.Errorf("layer %d (window %d) holds %d tokens, want %d", l, w, got, n)
				}
				var snap Snapshot
				mc.c.fill(&snap, l, len(tokens), nil)
				for p := range len(tokens) {
					want := Recent
					if w > 0 && p+w < len(tokens) {
						want = Windowed
					}
					if r := snap.Cell(0, p).Role; (r == Windowed) != (want == Windowed) {
						t.Errorf("layer %d position %d: role %v", l, p, r)
					}
				}
				for p, at := range layer.EvictedAt(0)[:len(tokens)] {
					want := -1
					if w > 0 && p+w < len(tokens) {
						want = p + w
					}
					if int(at) != want {
						t.Errorf("layer %d: position %d evicted at %d, want %d", l, p, at, want)
					}
				}
			}
		})
	}
}

// TestArchWindowUnderEveryPolicy: a local layer's window holds under every
// policy, and the policy's own evictions come on top.
func TestArchWindowUnderEveryPolicy(t *testing.T) {
	m := archModel(t, "gemma3")
	tokens := make([]int, 40)
	for i := range tokens {
		tokens[i] = (i*37 + 5) % 400
	}
	for _, p := range kv.Policies() {
		cfg := DefaultConfig()
		cfg.Policy, cfg.Bits, cfg.Sink, cfg.Recent, cfg.Heavy = p.String(), 32, 2, 3, 2
		mc, err := NewModelCache(m.Config, cfg, len(tokens), 1, false, nil)
		if err != nil {
			t.Logf("%v: %v", p, err)
			continue
		}
		r := m.NewRunner(mc)
		for _, tok := range tokens {
			if _, err := r.Forward(tok); err != nil {
				t.Fatalf("%v: %v", p, err)
			}
		}
		layer := mc.c.layers[0]
		for g := range m.Config.KVHeads {
			pos := layer.Positions(g)
			if len(pos) > 0 && int(pos[0]) <= len(tokens)-1-layer.Window() {
				t.Errorf("%v: local layer head %d still holds position %d beyond its window %d", p, g, pos[0], layer.Window())
			}
		}
	}
}
