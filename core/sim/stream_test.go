package sim

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/trace"
)

// streamRun is what a run shows: the metrics history and, every few
// steps, each layer's cells.
type streamRun struct {
	history []Metrics
	cells   [][]Cell
}

// privateAndShared runs cfg twice to its end, once on its own stream and
// once on s, and returns both engines and their runs.
func privateAndShared(t *testing.T, cfg Config, s *Stream) (private, shared *Engine, want, got streamRun) {
	t.Helper()
	private, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	shared, err = NewShared(cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	return private, shared, stepRun(t, private), stepRun(t, shared)
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
	lowrank, sparse, short, off := base, base, base, base
	lowrank.Rank, lowrank.Bits = 8, 4
	sparse.RefStride = 5
	short.Tokens = 90
	off.RefStride = 0
	return append(cs, base, lowrank, sparse, short, off)
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
		_, _, want, got := privateAndShared(t, cfg, s)
		if (len(want.history) == 0) != (cfg.RefStride == 0) {
			t.Fatalf("config %d: %d metric entries with reference stride %d", i, len(want.history), cfg.RefStride)
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

// storageConfigs are storages and policies over base, some measured at
// every step, some every few steps (so slots are reused between measures).
func storageConfigs(base Config) []Config {
	var cs []Config
	for _, st := range []struct {
		bits, group, residual, rank, stride int
		gran, policy                        string
	}{
		{4, 8, 0, 0, 1, "group", "h2o"}, {3, 0, 0, 0, 1, "channel", "h2o"}, {2, 0, 0, 0, 1, "tensor", "h2o"},
		{2, 0, 24, 0, 1, "token", "h2o"}, {4, 8, 40, 0, 1, "kivi", "h2o"}, {4, 0, 0, 6, 1, "token", "h2o"},
		{8, 0, 20, 6, 1, "token", "h2o"}, {16, 0, 0, 6, 1, "token", "h2o"}, {16, 0, 0, 0, 1, "token", "h2o"},
		{4, 8, 0, 0, 3, "group", "h2o"}, {2, 0, 24, 0, 7, "token", "tova"}, {4, 8, 40, 0, 5, "kivi", "random"},
		{4, 8, 12, 0, 2, "kivi", "h2o"}, {8, 0, 20, 6, 4, "token", "snapkv"}, {32, 0, 10, 6, 3, "token", "window"},
		{3, 0, 7, 0, 6, "channel", "knorm"}, {4, 0, 5, 0, 11, "tensor", "chunk"},
	} {
		c := base
		c.Policy, c.Heavy, c.Recent, c.RefStride = st.policy, 20, 30, st.stride
		c.Bits, c.GroupSize, c.Residual, c.Rank, c.Granularity = st.bits, max(st.group, 8), st.residual, st.rank, st.gran
		cs = append(cs, c)
	}
	return cs
}

// Storage errors are measured once per token and kind; an engine that
// measures every kept token again at every step shows the same metrics,
// for every storage (which is what proves that a held token's
// reconstruction changes only with its kind).
func TestStorageErrorsCachedPerKind(t *testing.T) {
	base, cs := presetConfigs(160)
	cs = append(cs, storageConfigs(base)...)
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
		if len(got) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("config %d (%s, %d bits %s, residual %d, rank %d): cached storage errors differ from measuring every step",
				i, cfg.Policy, cfg.Bits, cfg.Granularity, cfg.Residual, cfg.Rank)
		}
	}
}

// The running fixed-point sum of k̂ − k equals a recount over the cached
// tokens after every measure, whatever came and went in between.
func TestBiasSumMatchesRecount(t *testing.T) {
	base, cs := presetConfigs(300)
	cs = append(cs, storageConfigs(base)...)
	for i, cfg := range cs {
		e, err := New(cfg)
		if err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		d := cfg.HeadDim
		buf := make([]float32, d)
		want := make([]int64, d)
		for e.Step() {
			if p := e.Pos() - 1; p%cfg.RefStride != 0 && p != cfg.Tokens-1 {
				continue
			}
			for l, layer := range e.c.layers {
				for g := range cfg.KVHeads {
					clear(want)
					ks, _ := layer.Stores(g)
					for j := range layer.Positions(g) {
						kslot, _ := layer.Slots(g, j)
						ks.Read(kslot, buf)
						for x, o := range e.c.orig(e.c.origK, l, g, kslot) {
							buf[x] -= o
						}
						addFixed(want, buf, 1)
					}
					if got := e.c.diffSum[(l*cfg.KVHeads+g)*d:][:d]; !reflect.DeepEqual(got, want) {
						t.Fatalf("config %d (%s, %s, stride %d), step %d, layer %d, head %d: running sum %v…, recount %v…",
							i, cfg.Policy, cfg.Granularity, cfg.RefStride, e.Pos()-1, l, g, got[:3], want[:3])
					}
				}
			}
		}
		if e.Err() != nil {
			t.Fatal(e.Err())
		}
	}
}

// Keys too large for FP16 (a float32 trace stored in float32 with a low
// rank) still give finite storage errors and the bias a direct sum gives.
func TestHugeErrorsStayFinite(t *testing.T) {
	const layers, tokens, heads, dim = 1, 64, 2, 8
	r := rand.New(rand.NewPCG(1, 2))
	n := layers * tokens * heads * dim
	tr := &trace.Trace{Layers: layers, Tokens: tokens, QHeads: heads, KVHeads: heads, Dim: dim,
		Q: make([]float32, n), K: make([]float32, n), V: make([]float32, n)}
	for i := range tr.Q {
		tr.Q[i] = float32(r.NormFloat64() * 1e-20)
		tr.K[i] = float32(r.NormFloat64() * 1e20)
		tr.V[i] = float32(r.NormFloat64())
	}
	cfg := DefaultConfig()
	cfg.Bits, cfg.Rank, cfg.Tokens, cfg.Prompt = 32, 2, tokens, 4
	e, err := NewReplay(cfg, tr)
	if err != nil {
		t.Fatal(err)
	}
	for e.Step() {
	}
	if e.Err() != nil {
		t.Fatal(e.Err())
	}
	m, _ := e.Metrics()
	// The bias recounted in float64 over the cached tokens.
	var want float64
	layer, q, buf := e.Layer(0), e.q, make([]float32, dim)
	for g := range heads {
		ks, _ := layer.Stores(g)
		var b float64
		for j := range layer.Positions(g) {
			kslot, _ := layer.Slots(g, j)
			ks.Read(kslot, buf)
			for x, o := range e.c.orig(e.c.origK, 0, g, kslot) {
				b += float64(q[g*dim+x]) * (float64(buf[x]) - float64(o))
			}
		}
		want += b / math.Sqrt(dim) / float64(len(layer.Positions(g))) / heads
	}
	if math.IsInf(m.KErr, 0) || math.IsNaN(m.KErr) || m.KErr <= 0 || math.Abs(m.Bias-want) > 1e-6*math.Abs(want) { // k̂ − k is a float32 difference
		t.Fatalf("key error %v, bias %v (recounted %v)", m.KErr, m.Bias, want)
	}
}
