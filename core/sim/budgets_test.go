package sim

import (
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testmodel"
)

// Snapshots carry every layer's per-head budgets — equal under uniform,
// per layer under pyramid, per head under adakv — and Duo's head classes.
func TestSnapshotBudgets(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mod    func(*Config)
		layers bool // budgets differ between layers
		heads  bool // budgets differ between heads of a layer
	}{
		{"uniform", func(c *Config) {}, false, false},
		{"pyramid", func(c *Config) { c.Alloc = "pyramid" }, true, false},
		{"adakv", func(c *Config) { c.Alloc = "adakv" }, true, true},
		{"duo", func(c *Config) { c.Policy, c.Heavy = "duo", 64 }, true, true},
	} {
		c := DefaultConfig()
		c.Layers, c.Tokens, c.RefStride = 3, 300, 0
		tc.mod(&c)
		e, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(c.Tokens)
		s := e.Snapshot(1)
		if len(s.Budgets) != c.Layers*c.KVHeads {
			t.Fatalf("%s: %d budgets", tc.name, len(s.Budgets))
		}
		layersDiffer, headsDiffer := false, false
		total := 0
		for l := range c.Layers {
			for g := range c.KVHeads {
				b := s.Budgets[l*c.KVHeads+g]
				total += b
				layersDiffer = layersDiffer || b != s.Budgets[g]
				headsDiffer = headsDiffer || b != s.Budgets[l*c.KVHeads]
				if b != e.Layer(l).Len(g) {
					t.Errorf("%s: layer %d head %d budget %d but %d tokens held", tc.name, l, g, b, e.Layer(l).Len(g))
				}
			}
		}
		if layersDiffer != tc.layers || headsDiffer != tc.heads {
			t.Errorf("%s: budgets %v differ between layers %v, between heads %v", tc.name, s.Budgets, layersDiffer, headsDiffer)
		}
		if tc.name != "duo" && total != c.Layers*c.KVHeads*c.Budget() {
			t.Errorf("%s: total budget %d, want %d", tc.name, total, c.Layers*c.KVHeads*c.Budget())
		}
		if (s.Retrieval != nil) != (tc.name == "duo") {
			t.Errorf("%s: retrieval classes %v", tc.name, s.Retrieval)
		}
		if tc.name == "duo" {
			for i, r := range s.Retrieval {
				if r != (s.Budgets[i] == c.Tokens) {
					t.Errorf("duo: head %d retrieval %v with budget %d", i, r, s.Budgets[i])
				}
			}
		}
	}
}

// The projection to a longer history keeps Quest's whole history (it
// evicts nothing) and Duo's retrieval heads' whole history.
func TestProjectNewPolicies(t *testing.T) {
	m := Models[0]
	for _, p := range []string{"quest", "duo"} {
		c := DefaultConfig()
		c.Policy, c.Bits, c.Tokens, c.RefStride, c.Heavy = p, 16, 300, 0, 64
		e, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(c.Tokens)
		short, long := e.Project(m, 1000), e.Project(m, 32768)
		floor := m.FP16Bytes(36)
		if p == "quest" {
			floor = m.FP16Bytes(32768)
		}
		if long < floor || long <= short {
			t.Errorf("%s: projection to 32768 tokens %d bytes (1000 tokens: %d), want at least %d", p, long, short, floor)
		}
	}
}

// Re-positioning keys rotates them by their index among the slots
// attention reads, which Quest (a subset) and KeyDiff (a mean before any
// rotation) cannot honour: the real-model cache refuses them.
func TestReposRefusesSelection(t *testing.T) {
	for _, p := range []string{"quest", "keydiff"} {
		c := DefaultConfig()
		c.Policy, c.Bits = p, 16
		mc := testmodel.Model(t).Config
		if _, err := NewModelCache(mc, c, 64, 4, true, nil); err == nil {
			t.Errorf("%s with re-positioned keys accepted", p)
		}
		if _, err := NewModelCache(mc, c, 64, 4, false, nil); err != nil {
			t.Errorf("%s without re-positioning refused: %v", p, err)
		}
	}
}

// Under PyramidKV the first layer holds more tokens than the last: the
// originals kept beside the cache for the error metrics must cover the
// largest, so every layer's key error stays what its storage makes it
// (float32 storage: exactly zero).
func TestPyramidMetricsCoverEveryLayer(t *testing.T) {
	c := DefaultConfig()
	c.Layers, c.Tokens, c.RefStride, c.Bits, c.Alloc = 4, 300, 1, 32, "pyramid"
	e, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	for e.Step() {
		for l := range c.Layers {
			s := e.Snapshot(l)
			for g := range c.KVHeads {
				for p := range s.Step {
					if cell := s.Cell(g, p); cell.Role != Evicted && cell.KErr != 0 {
						t.Fatalf("step %d layer %d head %d position %d: key error %v with float32 storage", s.Step, l, g, p, cell.KErr)
					}
				}
			}
		}
	}
	if last, _ := e.Metrics(); last.KErr != 0 || last.VErr != 0 {
		t.Errorf("float32 storage reports errors %+v", last)
	}
}

// FuzzFrontierConfig: any configuration of the newer policies, allocators
// and options either is rejected with an error or runs without panicking,
// with finite metrics, positive memory and budgets for every head.
func FuzzFrontierConfig(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(4), uint8(20), uint8(12), uint8(2), uint8(3), uint8(4), false, false)
	f.Add(uint8(3), uint8(0), uint8(2), uint8(6), uint8(30), uint8(1), uint8(2), uint8(8), true, true)
	f.Add(uint8(5), uint8(2), uint8(0), uint8(9), uint8(3), uint8(4), uint8(0), uint8(0), true, false)
	f.Fuzz(func(t *testing.T, policy, alloc, sink, recent, heavy, layers, pages, pageSize uint8, merge, vweight bool) {
		policies := []string{"expected", "keydiff", "duo", "quest", "h2o", "tova", "knorm", "streaming"}
		allocs := []string{"", "uniform", "adakv", "pyramid", "lru"}
		c := DefaultConfig()
		c.Tokens, c.HeadDim, c.Heads, c.KVHeads, c.RefStride = 90, 8, 4, 2, 3
		c.Policy, c.Alloc = policies[int(policy)%len(policies)], allocs[int(alloc)%len(allocs)]
		c.Sink, c.Recent, c.Heavy = int(sink%10), int(recent%30), int(heavy%40)
		c.Layers, c.Pages, c.PageSize = int(layers%4)+1, int(pages%12), int(pageSize%20)
		c.Merge, c.ValueWeight = merge, vweight
		e, err := New(c)
		if err != nil {
			return
		}
		for e.Step() {
		}
		if e.Err() != nil {
			t.Fatalf("valid config %+v failed: %v", c, e.Err())
		}
		s := e.Snapshot(c.Layers - 1)
		for _, v := range []float64{s.Metrics.Mass, s.Metrics.OutErr, s.Metrics.KL, s.Attended} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("config %+v: non-finite figure in %+v", c, s.Metrics)
			}
		}
		if s.Mem.Total() <= 0 || len(s.Budgets) != c.Layers*c.KVHeads {
			t.Fatalf("config %+v: memory %+v, %d budgets", c, s.Mem, len(s.Budgets))
		}
		for _, b := range s.Budgets {
			if b < 1 {
				t.Fatalf("config %+v: budgets %v", c, s.Budgets)
			}
		}
	})
}

// Cells say which tokens attention read at the step: every cached token,
// except under Quest, only the selected pages (and the newest).
func TestCellsSayWhatWasAttended(t *testing.T) {
	for _, p := range []string{"h2o", "quest"} {
		c := DefaultConfig()
		c.Policy, c.Tokens, c.RefStride, c.Pages = p, 300, 0, 3
		e, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(c.Tokens)
		s := e.Snapshot(0)
		for g := range c.KVHeads {
			n, cached := 0, 0
			for pos := range s.Step {
				cell := s.Cell(g, pos)
				if cell.Attended {
					n++
					if cell.Role == Evicted {
						t.Fatalf("%s: evicted token %d attended", p, pos)
					}
				}
				if cell.Role != Evicted {
					cached++
				}
			}
			want := cached
			if p == "quest" {
				want = 3*16 + (c.Tokens-1)%16 + 1 // three pages and the newest, partial page
			}
			if n != want {
				t.Errorf("%s head %d: %d tokens attended, want %d", p, g, n, want)
			}
		}
	}
}

// A replayed trace knows no retrieval heads: Duo classifies its heads but
// reports no accuracy, with the reference on or off.
func TestDuoAccuracyNeedsTheSyntheticStream(t *testing.T) {
	for _, ref := range []int{0, 2} {
		c := DefaultConfig()
		c.Policy, c.Tokens, c.RefStride, c.Heavy = "duo", 120, ref, 40
		rep, err := NewReplay(c, record(t, c))
		if err != nil {
			t.Fatal(err)
		}
		rep.RunTo(c.Tokens)
		if rep.Layer(0).RetrievalHeads() == nil {
			t.Fatal("duo did not classify the replayed heads")
		}
		if _, ok := rep.DuoAccuracy(); ok {
			t.Errorf("ref %d: a replay reported an accuracy", ref)
		}
		live, _ := New(c)
		live.RunTo(c.Tokens)
		if _, ok := live.DuoAccuracy(); !ok {
			t.Errorf("ref %d: the live run reported none", ref)
		}
	}
}
