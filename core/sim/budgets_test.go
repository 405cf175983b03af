package sim

import "testing"

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
