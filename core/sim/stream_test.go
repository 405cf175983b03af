package sim

import (
	"reflect"
	"strings"
	"testing"
)

// streamRun is what a run shows: the metrics history and, every few
// steps, each layer's cells.
type streamRun struct {
	history []Metrics
	cells   [][]Cell
}

// stepRun runs e to its end, snapshotting every layer every 13th step.
func stepRun(t *testing.T, e *Engine) streamRun {
	t.Helper()
	var r streamRun
	for e.Step() {
		if e.Pos()%13 == 0 {
			for l := range e.Config().Layers {
				r.cells = append(r.cells, append([]Cell(nil), e.Snapshot(l).Cells...))
			}
		}
	}
	if e.Err() != nil {
		t.Fatal(e.Err())
	}
	_, h := e.Metrics()
	r.history = append([]Metrics(nil), h...)
	return r
}

// presetConfigs returns a small stream of n tokens (two layers, grouped
// query heads) with the default cache settings, and every preset over it.
func presetConfigs(n int) (base Config, presets []Config) {
	base = DefaultConfig()
	base.Layers, base.Heads, base.KVHeads, base.HeadDim, base.Tokens = 2, 4, 2, 16, n
	for _, p := range Presets {
		c := base
		p.Apply(&c)
		presets = append(presets, c)
	}
	return base, presets
}

// sharedConfigs are cache settings over one stream (two layers, grouped
// query heads): eviction policies, storages, reference strides.
func sharedConfigs() []Config {
	base, cs := presetConfigs(150)
	lowrank, sparse, short := base, base, base
	lowrank.Rank, lowrank.Bits = 8, 4
	sparse.RefStride = 5
	short.Tokens = 90
	return append(cs, base, lowrank, sparse, short)
}

// Engines sharing a Stream, one after another (each replaying what the
// earlier ones recorded), show exactly what private engines show.
func TestSharedStreamMatchesPrivate(t *testing.T) {
	cs := sharedConfigs()
	s, err := NewStream(cs[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, cfg := range cs {
		private, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		shared, err := NewShared(cfg, s)
		if err != nil {
			t.Fatal(err)
		}
		want, got := stepRun(t, private), stepRun(t, shared)
		if len(want.history) == 0 {
			t.Fatalf("config %d: no metrics", i)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("config %d (%s, %d bits): the shared run differs from the private one", i, cfg.Policy, cfg.Bits)
		}
	}
	if s.Recorded() != cs[0].Tokens {
		t.Fatalf("the stream recorded %d positions, want %d", s.Recorded(), cs[0].Tokens)
	}
}

// Two engines stepping in turn on one Stream (the page's comparison), the
// second sometimes ahead, show what private engines show.
func TestSharedStreamInterleaved(t *testing.T) {
	cs := sharedConfigs()
	a, b := cs[0], cs[1]
	s, err := NewStream(a)
	if err != nil {
		t.Fatal(err)
	}
	ea, _ := NewShared(a, s)
	eb, _ := NewShared(b, s)
	pa, _ := New(a)
	pb, _ := New(b)
	for n := 1; n <= a.Tokens; n++ {
		if n%3 == 0 {
			eb.RunTo(n + 2)
			pb.RunTo(n + 2)
		}
		ea.RunTo(n)
		pa.RunTo(n)
		if n%17 != 0 {
			continue
		}
		for _, pair := range [][2]*Engine{{ea, pa}, {eb, pb}} {
			got, want := pair[0].Snapshot(1), pair[1].Snapshot(1)
			if !reflect.DeepEqual(got.Cells, want.Cells) || !reflect.DeepEqual(got.History, want.History) {
				t.Fatalf("step %d: a shared engine differs from its private twin", n)
			}
		}
	}
}

func TestNewSharedRejectsOtherStreams(t *testing.T) {
	base := DefaultConfig()
	base.Tokens = 64
	s, err := NewStream(base)
	if err != nil {
		t.Fatal(err)
	}
	seed, longer, shape := base, base, base
	seed.Seed++
	longer.Tokens++
	shape.HeadDim = 16
	for name, c := range map[string]Config{"seed": seed, "tokens": longer, "head dim": shape} {
		if s.Matches(c) {
			t.Errorf("%s: the stream claims to match", name)
		}
		if _, err := NewShared(c, s); err == nil || !strings.HasPrefix(err.Error(), "sim: ") {
			t.Errorf("%s: NewShared error %v, want a sim: error", name, err)
		}
	}
	fewer := base
	fewer.Tokens, fewer.Policy = 32, "window"
	if _, err := NewShared(fewer, s); err != nil {
		t.Errorf("fewer tokens, another policy: %v", err)
	}
	bad := base
	bad.HeadDim = -1
	if _, err := NewStream(bad); err == nil {
		t.Error("NewStream accepted a negative head dim")
	}
}

// Replaying a recorded stream with the reference on allocates nothing.
func TestSharedReplayAllocatesNothing(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tokens = 400
	s, _ := NewStream(cfg)
	first, _ := NewShared(cfg, s)
	first.RunTo(cfg.Tokens)
	e, _ := NewShared(cfg, s)
	e.RunTo(100)
	if a := testing.AllocsPerRun(200, func() { e.Step() }); a != 0 {
		t.Fatalf("a replayed step allocates %v times", a)
	}
}

// Storage errors are measured once per token and kind; an engine that
// measures every kept token again at every step shows the same metrics,
// for every storage (which is what proves that a held token's
// reconstruction changes only with its kind).
func TestStorageErrorsCachedPerKind(t *testing.T) {
	base, cs := presetConfigs(160)
	for _, st := range []struct {
		bits, group, residual, rank int
		gran                        string
	}{
		{4, 8, 0, 0, "group"}, {3, 0, 0, 0, "channel"}, {2, 0, 0, 0, "tensor"}, {2, 0, 24, 0, "token"},
		{4, 8, 40, 0, "kivi"}, {4, 0, 0, 6, "token"}, {8, 0, 20, 6, "token"}, {16, 0, 0, 6, "token"}, {16, 0, 0, 0, "token"},
	} {
		c := base
		c.Policy, c.Heavy, c.Recent = "h2o", 20, 30
		c.Bits, c.GroupSize, c.Residual, c.Rank, c.Granularity = st.bits, max(st.group, 8), st.residual, st.rank, st.gran
		cs = append(cs, c)
	}
	for i, cfg := range cs {
		cached, err := New(cfg)
		if err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		fresh, _ := New(cfg)
		for cached.Step() {
			clear(fresh.c.kerrs)
			clear(fresh.c.verrs)
			fresh.Step()
		}
		_, want := fresh.Metrics()
		_, got := cached.Metrics()
		if len(got) != cfg.Tokens || !reflect.DeepEqual(got, want) {
			t.Fatalf("config %d (%s, %d bits %s, residual %d, rank %d): cached storage errors differ from measuring every step",
				i, cfg.Policy, cfg.Bits, cfg.Granularity, cfg.Residual, cfg.Rank)
		}
	}
}
