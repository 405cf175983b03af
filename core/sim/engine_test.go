package sim

import (
	"reflect"
	"testing"
)

func TestDefaultRuns(t *testing.T) {
	cfg := DefaultConfig()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for e.Step() {
	}
	if e.Err() != nil || e.Pos() != cfg.Tokens {
		t.Fatalf("stopped at %d: %v", e.Pos(), e.Err())
	}
	s := e.Snapshot(0)
	counts := map[Role]int{}
	for _, c := range s.Cells {
		counts[c.Role]++
	}
	t.Logf("roles %v, memory %+v (total %d) of %d FP16 bytes, metrics %+v", counts, s.Mem, s.Mem.Total(), s.FullBytes, s.Metrics)
	for _, r := range []Role{Sink, Heavy, Recent, Evicted} {
		if counts[r] == 0 {
			t.Errorf("no %s cell in the default run", r)
		}
	}
}

func TestDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tokens = 200
	run := func() ([]Cell, []Metrics) {
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.RunTo(cfg.Tokens)
		s := e.Snapshot(0)
		return append([]Cell(nil), s.Cells...), append([]Metrics(nil), s.History...)
	}
	c1, m1 := run()
	c2, m2 := run()
	if !reflect.DeepEqual(c1, c2) || !reflect.DeepEqual(m1, m2) {
		t.Fatal("two runs of one config differ")
	}
}

// Between reference steps, a snapshot still carries the reference
// attention, equal to what a reference step would have computed.
func TestSnapshotReferenceOnDemand(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tokens = 100
	every, sparse := cfg, cfg
	sparse.RefStride = 7
	a, _ := New(every)
	b, _ := New(sparse)
	for n := 1; n <= 40; n += 3 {
		a.RunTo(n)
		b.RunTo(n)
		ca, cb := a.Snapshot(0).Cells, b.Snapshot(0).Cells
		for i := range ca {
			if ca[i].AttnFull != cb[i].AttnFull {
				t.Fatalf("step %d cell %d: reference attention %v, on demand %v", n, i, ca[i].AttnFull, cb[i].AttnFull)
			}
		}
	}
	if _, h := b.Metrics(); len(h) != 6 {
		t.Fatalf("stride 7 over 40 steps kept %d metric entries, want 6", len(h))
	}
}

func TestCosts(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tokens = 300
	e, _ := New(cfg)
	e.RunTo(100)
	e.SetTiming(true)
	e.RunTo(300)
	c := e.Costs()
	t.Logf("per token: generate %v, store %v, attention %v, eviction %v, reference %v; compression overhead %.0f%% of attention",
		c.Generate, c.Store, c.Attend, c.Evict, c.Reference, 100*c.Overhead())
	if c.Steps != 200 || c.Store <= 0 || c.Attend <= 0 || c.Evict <= 0 || c.Reference <= 0 || c.Generate <= 0 {
		t.Fatalf("costs %+v", c)
	}
}
