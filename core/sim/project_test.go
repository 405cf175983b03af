package sim

import (
	"math"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
	"github.com/kvscope/kvscope/core/kv"
)

// Projected onto its own shape at its own history, a run holds what it
// holds: the tokens the policy keeps, its index maps (one per head, one
// per layer when kv shares the decision, none for retrieval heads and
// caches in order), its state and the stores' tables are the run's own.
// Every policy, with and without Shared (DuoAttention decides per head
// whatever Shared says: the projection once counted one index per layer
// for duo -shared).
func TestProjectOwnShape(t *testing.T) {
	testenv.NativeOnly(t)
	for _, p := range kv.Policies() {
		for _, shared := range []bool{false, true} {
			c := DefaultConfig()
			c.Policy, c.Shared, c.Layers, c.Tokens, c.RefStride = p.String(), shared, 2, 300, 0
			name := c.Policy
			if shared {
				name += "-shared"
			}
			t.Run(name, func(t *testing.T) {
				e, err := New(c)
				if err != nil {
					t.Fatal(err)
				}
				e.RunTo(c.Tokens)
				own := Model{Name: "own", Layers: c.Layers, KVHeads: c.KVHeads, HeadDim: c.HeadDim}
				got, want := e.Project(own, e.Pos()), e.Memory().Total()
				if math.Abs(float64(got-want)) > 1e-3*float64(want) {
					t.Errorf("projection %d bytes, the run holds %d (index %d, scores %d)", got, want, e.Memory().Index, e.Memory().Scores)
				}
			})
		}
	}
}

// The page projects its snapshot every frame: ProjectSnapshot is the
// engine's projection and allocates nothing.
func TestProjectSnapshot(t *testing.T) {
	for _, p := range []string{"duo", "quest", "h2o"} {
		c := DefaultConfig()
		c.Policy, c.Tokens, c.RefStride = p, 300, 0
		e, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(c.Tokens)
		s := e.Snapshot(0)
		m := Models[1]
		if got, want := c.ProjectSnapshot(s, m, 1<<16), e.ProjectTo(m, 1<<16); got != want {
			t.Errorf("%s: snapshot projection %+v, engine's %+v", p, got, want)
		}
		if a := testing.AllocsPerRun(20, func() { c.ProjectSnapshot(s, m, 1<<16) }); a != 0 {
			t.Errorf("%s: ProjectSnapshot allocates %v times", p, a)
		}
	}
}
