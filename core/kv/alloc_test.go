package kv

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// PyramidKV's per-layer scored budgets fall linearly from the first layer
// to the last and add up to the uniform total.
func TestPyramidHeavy(t *testing.T) {
	for _, tc := range []struct{ heavy, layers int }{{28, 1}, {28, 2}, {28, 6}, {100, 32}, {3, 7}, {0, 4}} {
		b := PyramidHeavy(tc.heavy, tc.layers, PyramidBeta)
		sum := 0
		for l, x := range b {
			sum += x
			if l > 0 && x > b[l-1]+1 { // rounding may wobble by one
				t.Errorf("heavy %d, %d layers: budgets rise at layer %d: %v", tc.heavy, tc.layers, l, b)
			}
			if x < 0 {
				t.Errorf("negative budget %v", b)
			}
		}
		if sum != tc.heavy*tc.layers {
			t.Errorf("heavy %d, %d layers: total %d, want %d (%v)", tc.heavy, tc.layers, sum, tc.heavy*tc.layers, b)
		}
		if tc.layers > 1 && tc.heavy >= 20 && !(b[0] > tc.heavy && b[len(b)-1] < tc.heavy) {
			t.Errorf("heavy %d, %d layers: the first layer should keep more than the last: %v", tc.heavy, tc.layers, b)
		}
	}
}

func ExamplePyramidHeavy() {
	// Four layers with 28 scored tokens each on average: min 28/20 = 1.4,
	// max 2·28 − 1.4 = 54.6, falling linearly (54.6, 36.9, 19.1, 1.4),
	// rounded so the total stays 4·28 = 112.
	fmt.Println(PyramidHeavy(28, 4, PyramidBeta))
	// Output: [55 36 20 1]
}

// Under AdaKV the layer keeps KVHeads·Budget tokens in all, each head at
// least its floor (its windows plus α of its scored share), and heads
// whose attention is spread keep more than heads whose attention is
// concentrated. Every policy's invariants still hold.
func TestAdaKVSplitsTheLayerBudget(t *testing.T) {
	for _, p := range []Policy{H2O, TOVA, Knorm, Random, Expected, KeyDiff} {
		cfg := Config{Policy: p, Alloc: AdaKV, Sink: 2, Recent: 4, Heavy: 10, Seed: 5, Heads: 8, KVHeads: 4, Dim: 8, MaxTokens: 200}
		l := runLoose(t, cfg, 200)
		total, lens := 0, make([]int, cfg.KVHeads)
		for g := range lens {
			lens[g] = l.Len(g)
			total += lens[g]
			if lens[g] < l.floor {
				t.Errorf("%s: head %d keeps %d tokens, below its floor %d", p, g, lens[g], l.floor)
			}
		}
		if want := cfg.KVHeads * cfg.Budget(); total != want {
			t.Errorf("%s: layer keeps %d tokens, want %d (%v)", p, total, want, lens)
		}
		if l.floor != 2+4+2 {
			t.Errorf("floor %d, want sink 2 + recent 4 + ⌈0.2·10⌉", l.floor)
		}
		t.Logf("%s: per-head budgets %v", p, lens)
	}
}

// The allocators refuse what they cannot do.
func TestAllocRefuses(t *testing.T) {
	base := Config{Policy: H2O, Sink: 2, Recent: 4, Heavy: 10, Heads: 4, KVHeads: 4, Dim: 8, MaxTokens: 50}
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"adakv shared", func(c *Config) { c.Alloc, c.Shared = AdaKV, true }, "cannot share"},
		{"adakv seed000", func(c *Config) { c.Policy, c.Alloc = Seed000, AdaKV }, "cannot share"},
		{"pyramid full", func(c *Config) { c.Policy, c.Alloc = Full, Pyramid }, "has none"},
		{"unknown alloc", func(c *Config) { c.Alloc = numAllocs }, "unknown allocator"},
		{"layer out of range", func(c *Config) { c.Alloc, c.Layer, c.Layers = Pyramid, 3, 3 }, "out of range"},
		{"pyramid starves a layer", func(c *Config) { c.Alloc, c.Layers, c.Sink, c.Recent, c.Heavy = Pyramid, 3, 0, 0, 3 }, "pyramid leaves layer 2"},
		{"pyramid leaves only sinks", func(c *Config) { c.Alloc, c.Layers, c.Recent, c.Heavy = Pyramid, 4, 0, 4 }, "no room beyond"},
		{"value weight on norms", func(c *Config) { c.Policy, c.ValueWeight = Knorm, true }, "attention"},
		{"merge without budget", func(c *Config) { c.Policy, c.Merge = Full, true }, "no budget"},
	} {
		c := base
		tc.mod(&c)
		if _, err := NewLayer(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := ParseAlloc("lru"); err == nil {
		t.Error("unknown allocator name accepted")
	}
	for _, a := range []Alloc{Uniform, AdaKV, Pyramid} {
		if got, err := ParseAlloc(strings.ToUpper(a.String())); err != nil || got != a {
			t.Errorf("ParseAlloc(%q) = %v, %v", a, got, err)
		}
	}
}

// Under PyramidKV each layer keeps its own budget: the first more than
// Budget, the last less.
func TestPyramidLayerBudgets(t *testing.T) {
	const layers = 4
	heavy := PyramidHeavy(28, layers, PyramidBeta)
	for layer := range layers {
		cfg := Config{Policy: H2O, Alloc: Pyramid, Layer: layer, Layers: layers, Sink: 4, Recent: 8, Heavy: 28,
			Heads: 2, KVHeads: 2, Dim: 8, MaxTokens: 120}
		l := runLoose(t, cfg, 120)
		if want := 4 + 8 + heavy[layer]; l.Len(0) != want || cfg.LayerBudget() != want {
			t.Errorf("layer %d keeps %d tokens (budget %d), want %d", layer, l.Len(0), cfg.LayerBudget(), want)
		}
	}
}

// Merging folds the evicted token's share of the output into its
// neighbours: Σ a_i·v_i over the cache, with the attention the evicted
// token had handed to its neighbours, is what it was before the eviction.
func TestMergeKeepsTheWeightedValueSum(t *testing.T) {
	cfg := Config{Policy: H2O, Merge: true, Sink: 1, Recent: 3, Heavy: 4, Heads: 2, KVHeads: 2, Dim: 8, MaxTokens: 60}
	l, _ := runPolicy(t, cfg, 40)
	h := &l.heads[1]
	for _, last := range []bool{false, false, true} {
		i := 3
		if last {
			i = len(h.pos) - 1
		}
		before := weightedSum(h, cfg.Dim)
		l.dropMerged(h, i, 40)
		after := weightedSum(h, cfg.Dim)
		for c := range before {
			if math.Abs(before[c]-after[c]) > 1e-5*(1+math.Abs(before[c])) {
				t.Fatalf("evicting index %d: Σ a·v channel %d was %v, is %v", i, c, before[c], after[c])
			}
		}
	}
	// Plain eviction at the same budget loses that share.
	plain := cfg
	plain.Merge = false
	lp, _ := runPolicy(t, plain, 40)
	hp := &lp.heads[1]
	before := weightedSum(hp, cfg.Dim)
	lp.remove(hp, 3, 40)
	after := weightedSum(hp, cfg.Dim)
	same := true
	for c := range before {
		same = same && math.Abs(before[c]-after[c]) < 1e-6
	}
	if same {
		t.Error("plain eviction kept the weighted sum too: the test cannot tell merging apart")
	}
}

func weightedSum(h *head, dim int) []float64 {
	s := make([]float64, dim)
	v := make([]float32, dim)
	for i := range h.pos {
		h.values.Read(h.vslot[i], v)
		for c, x := range v {
			s[c] += float64(h.attn[i]) * float64(x)
		}
	}
	return s
}

// Value-aware weighting ranks an attention score by ‖v‖ too: with it, the
// kept set changes, and its state (one norm per token) is counted.
func TestValueWeight(t *testing.T) {
	cfg := Config{Policy: H2O, Sink: 1, Recent: 3, Heavy: 6, Heads: 2, KVHeads: 2, Dim: 8, MaxTokens: 80}
	l0, _ := runPolicy(t, cfg, 80)
	cfg.ValueWeight = true
	l1, _ := runPolicy(t, cfg, 80)
	if fmt.Sprint(l0.Positions(0)) == fmt.Sprint(l1.Positions(0)) && fmt.Sprint(l0.Positions(1)) == fmt.Sprint(l1.Positions(1)) {
		t.Error("value weighting kept exactly the same tokens")
	}
	if got, want := l1.ScoreBytes()-l0.ScoreBytes(), int64(4*(l1.Len(0)+l1.Len(1))); got != want {
		t.Errorf("value norms add %d bytes, want %d", got, want)
	}
}

// runLoose runs cfg for steps tokens of the test stream without the
// uniform budget's invariant (allocators give heads and layers other
// budgets); the layer's own limits are checked instead.
func runLoose(t testing.TB, cfg Config, steps int) *Layer {
	t.Helper()
	l, err := NewLayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newStream(cfg.Seed+3, cfg.Heads, cfg.KVHeads, cfg.Dim)
	out := make([]float32, cfg.Heads*cfg.Dim)
	for pos := range steps {
		s.next()
		if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
			t.Fatalf("step %d: %v", pos, err)
		}
		total := 0
		for g := range cfg.KVHeads {
			total += l.Len(g)
			if l.Len(g) > cfg.maxHeadBudget() {
				t.Fatalf("step %d: head %d holds %d tokens, beyond its most %d", pos, g, l.Len(g), cfg.maxHeadBudget())
			}
			if cfg.keepsSinks() && pos >= cfg.Sink && l.Positions(g)[cfg.Sink-1] != int32(cfg.Sink-1) {
				t.Fatalf("step %d: head %d lost a sink", pos, g)
			}
		}
		if total > cfg.KVHeads*cfg.LayerBudget() {
			t.Fatalf("step %d: layer holds %d tokens, over %d", pos, total, cfg.KVHeads*cfg.LayerBudget())
		}
	}
	return l
}

// The allocators and options allocate nothing per step either.
func TestAllocatorsAllocateNothing(t *testing.T) {
	for _, cfg := range []Config{
		{Policy: H2O, Alloc: AdaKV},
		{Policy: Expected, Alloc: AdaKV},
		{Policy: KeyDiff, Alloc: Pyramid, Layer: 1, Layers: 4},
		{Policy: H2O, Merge: true, ValueWeight: true},
		{Policy: TOVA, Merge: true, Shared: true},
	} {
		cfg.Sink, cfg.Recent, cfg.Heavy, cfg.Heads, cfg.KVHeads, cfg.Dim, cfg.MaxTokens = 2, 8, 6, 4, 4, 16, 4000
		l, err := NewLayer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s := newStream(1, 4, 4, 16)
		s.next()
		out := make([]float32, 64)
		pos := 0
		if allocs := testing.AllocsPerRun(500, func() {
			_ = l.Step(pos, s.q, s.k, s.v, out)
			pos++
		}); allocs != 0 {
			t.Errorf("%s %s merge=%v: %v allocations per step", cfg.Policy, cfg.Alloc, cfg.Merge, allocs)
		}
	}
}

// FuzzAlloc: any combination of policy, allocator and options is either
// refused with an error or runs, keeping the layer's total within its
// budget, the sinks and the newest token.
func FuzzAlloc(f *testing.F) {
	f.Add(uint8(H2O), uint8(AdaKV), uint8(2), uint8(5), uint8(4), uint8(2), uint8(1), false, false, false)
	f.Add(uint8(Expected), uint8(Pyramid), uint8(4), uint8(3), uint8(9), uint8(4), uint8(3), true, true, false)
	f.Add(uint8(KeyDiff), uint8(Uniform), uint8(1), uint8(1), uint8(1), uint8(1), uint8(0), true, false, true)
	f.Fuzz(func(t *testing.T, policy, alloc, sink, recent, heavy, kvHeads, layer uint8, merge, vweight, shared bool) {
		cfg := Config{Policy: Policy(policy % uint8(numPolicies+1)), Alloc: Alloc(alloc % uint8(numAllocs+1)),
			Sink: int(sink % 8), Recent: int(recent % 8), Heavy: int(heavy % 12), Merge: merge, ValueWeight: vweight, Shared: shared,
			Layer: int(layer % 5), Layers: 4, Heads: 4, KVHeads: int(kvHeads%4) + 1, Dim: 4, MaxTokens: 60, Seed: 2}
		if cfg.KVHeads == 3 {
			cfg.KVHeads = 4
		}
		l, err := NewLayer(cfg)
		if err != nil {
			return
		}
		s := newStream(5, cfg.Heads, cfg.KVHeads, cfg.Dim)
		out := make([]float32, cfg.Heads*cfg.Dim)
		for pos := range 60 {
			s.next()
			if err := l.Step(pos, s.q, s.k, s.v, out); err != nil {
				t.Fatalf("valid config %+v failed at %d: %v", cfg, pos, err)
			}
			total := 0
			for g := range cfg.KVHeads {
				total += l.Len(g)
				ps := l.Positions(g)
				if cfg.keepsSinks() && pos >= cfg.Sink && ps[cfg.Sink-1] != int32(cfg.Sink-1) {
					t.Fatalf("%+v step %d: head %d lost a sink", cfg, pos, g)
				}
				if cfg.keepsRecent() && ps[len(ps)-1] != int32(pos) {
					t.Fatalf("%+v step %d: head %d lost the newest token", cfg, pos, g)
				}
			}
			if cfg.Policy.budgeted() && total > cfg.KVHeads*cfg.LayerBudget() {
				t.Fatalf("%+v step %d: layer holds %d, over %d", cfg, pos, total, cfg.KVHeads*cfg.LayerBudget())
			}
			for _, x := range out {
				if math.IsNaN(float64(x)) {
					t.Fatalf("%+v step %d: NaN output", cfg, pos)
				}
			}
		}
	})
}
