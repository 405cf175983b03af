package sim

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
	"github.com/kvscope/kvscope/core/kv"
)

// sweepBase is a small stream for sweep tests: two layers, grouped query
// heads, 128 tokens.
func sweepBase() Config {
	c := DefaultConfig()
	c.Layers, c.Heads, c.KVHeads, c.HeadDim, c.Tokens = 2, 4, 2, 16, 128
	return c
}

// singleRun is what the engine gives for cfg run on its own (New, a
// private stream): stored bytes at the end and the fidelity averaged over
// every reference step.
func singleRun(t *testing.T, cfg Config) (mem Memory, full int64, mean Metrics) {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.RunTo(cfg.Tokens)
	if e.Err() != nil {
		t.Fatal(e.Err())
	}
	_, hist := e.Metrics()
	var sum Metrics
	for _, h := range hist {
		sum.KErr += h.KErr
		sum.VErr += h.VErr
		sum.OutErr += h.OutErr
		sum.Mass += h.Mass
		sum.KL += h.KL
	}
	n := float64(len(hist))
	mean = Metrics{KErr: sum.KErr / n, VErr: sum.VErr / n, OutErr: sum.OutErr / n, Mass: sum.Mass / n, KL: sum.KL / n}
	return e.Memory(), e.FullBytes(), mean
}

// Every row of a sweep over a shared recording equals, bit for bit, the
// same configuration run on its own through the engine.
func TestSweepRowsEqualSingleRuns(t *testing.T) {
	testenv.NativeOnly(t)
	base := sweepBase()
	g := Grid{Budgets: []int{6, 40, 128}, Storage: []StorageVariant{{8, "token"}, {4, "kivi"}, {4, "channel"}}, Sink: 4}
	var rows []Row
	if err := Sweep(context.Background(), base, g, nil, func(r Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	ps, err := g.Points(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(ps) {
		t.Fatalf("%d rows for %d configurations", len(rows), len(ps))
	}
	policies := map[string]bool{}
	for i, r := range rows {
		c := ps[i].Config
		policies[r.Policy] = true
		if r.Index != i || r.Policy != c.Policy || r.Sink != c.Sink || r.Recent != c.Recent || r.Heavy != c.Heavy ||
			r.Bits != c.Bits || r.Granularity != c.Granularity || r.DropShare != c.DropShare {
			t.Fatalf("row %d settings %+v differ from its configuration", i, r)
		}
		mem, full, m := singleRun(t, c)
		if r.Bytes != mem.Total() || r.FullBytes != full || r.Ratio != float64(full)/float64(mem.Total()) {
			t.Errorf("row %d (%s %d-bit %s): bytes %d of %d, single run %d of %d", i, r.Policy, r.Bits, r.Granularity, r.Bytes, r.FullBytes, mem.Total(), full)
		}
		if r.Mass != m.Mass || r.OutErr != m.OutErr || r.KL != m.KL || r.KErr != m.KErr || r.VErr != m.VErr {
			t.Errorf("row %d (%s budget %d, %d-bit %s): mass %v error %v KL %v, single run %v %v %v",
				i, r.Policy, r.Budget, r.Bits, r.Granularity, r.Mass, r.OutErr, r.KL, m.Mass, m.OutErr, m.KL)
		}
	}
	for _, p := range kv.Policies() {
		if !policies[p.String()] {
			t.Errorf("policy %s missing from the sweep", p)
		}
	}
}

// The same sweep twice gives the same rows; a worker's share gives the
// same rows as the whole sweep; a stream recorded by one sweep serves the
// next.
func TestSweepDeterministicAndShardable(t *testing.T) {
	base := sweepBase()
	base.Tokens = 96
	g := Grid{Policies: []string{"window", "h2o", "full"}, Budgets: []int{8, 32}, Sink: 2}
	collect := func(only []int, s *Stream) []Row {
		ps, err := g.Points(base)
		if err != nil {
			t.Fatal(err)
		}
		var rows []Row
		if err := SweepPoints(context.Background(), ps, only, s, func(r Row) error { rows = append(rows, r); return nil }); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	s, err := NewStream(base)
	if err != nil {
		t.Fatal(err)
	}
	all := collect(nil, s)
	if s.Recorded() != base.Tokens {
		t.Fatalf("the shared stream recorded %d of %d positions", s.Recorded(), base.Tokens)
	}
	if again := collect(nil, nil); !reflect.DeepEqual(all, again) {
		t.Fatalf("two sweeps differ:\n%+v\n%+v", all, again)
	}
	odd := collect([]int{1, 3, 4}, s)
	if want := []Row{all[1], all[3], all[4]}; !reflect.DeepEqual(odd, want) {
		t.Fatalf("a share of the sweep differs from the same rows of the whole:\n%+v\n%+v", odd, want)
	}
	if len(all) != 5 || all[4].Policy != "full" || all[4].Budget != base.Tokens {
		t.Fatalf("want window and h2o at two budgets, then full once: %+v", all)
	}
}

// A sweep stops when its context is cancelled or its callback fails.
func TestSweepStops(t *testing.T) {
	base := sweepBase()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := Sweep(ctx, base, DefaultGrid(), nil, func(Row) error {
		n++
		if n == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 2 {
		t.Fatalf("cancelled after 2 rows: got %d rows, error %v", n, err)
	}
	stop := errors.New("enough")
	n = 0
	err = Sweep(context.Background(), base, DefaultGrid(), nil, func(Row) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("callback error: %d rows, error %v", n, err)
	}
}

func TestDefaultBudgets(t *testing.T) {
	for _, tc := range []struct {
		tokens int
		want   []int
	}{
		{512, []int{10, 18, 31, 55, 96, 167, 293, 512}},
		{4096, []int{82, 143, 251, 438, 766, 1339, 2342, 4096}},
		{64, []int{2, 4, 7, 12, 21, 37, 64}},
		{16, []int{2, 3, 5, 9, 16}},
		{2, []int{2}},
	} {
		if got := DefaultBudgets(tc.tokens); !slices.Equal(got, tc.want) {
			t.Errorf("DefaultBudgets(%d) = %v, want %v", tc.tokens, got, tc.want)
		}
	}
}

// The split gives every budgeted policy the same total budget per head,
// and each policy the parts its rule uses.
func TestGridSplitIsFair(t *testing.T) {
	base := DefaultConfig()
	g := Grid{Sink: 4}
	for _, tc := range []struct {
		policy              string
		budget              int
		sink, recent, heavy int
		drop                float64
		budgeted            bool
	}{
		{"window", 55, 0, 55, 0, 0, true},
		{"streaming", 55, 4, 51, 0, 0, true},
		{"h2o", 55, 4, 26, 25, 0, true},
		{"h2o", 3, 1, 1, 1, 0, true},
		{"tova", 10, 4, 3, 3, 0, true},
		{"seed000", 512, 4, 254, 254, 0, true},
		{"chunk", 128, 0, 0, 0, 0.75, true},
		{"chunk", 10, 0, 0, 0, 0.95, true},
		{"snapkv", 256, 0, 4, 4, 0, true},
		{"full", 55, 0, 0, 0, 0, false},
	} {
		c, ok := g.Config(base, tc.policy, tc.budget)
		if ok != tc.budgeted || c.Sink != tc.sink || c.Recent != tc.recent || c.Heavy != tc.heavy || c.DropShare != tc.drop {
			t.Errorf("%s at %d: sink %d recent %d heavy %d drop %v (%v), want %d %d %d %v (%v)",
				tc.policy, tc.budget, c.Sink, c.Recent, c.Heavy, c.DropShare, ok, tc.sink, tc.recent, tc.heavy, tc.drop, tc.budgeted)
		}
	}
}

// FuzzGridConfig: for any budget and sink count, every policy's
// configuration is valid and every policy with a token budget gets
// exactly the budget asked for (clamped to the history).
func FuzzGridConfig(f *testing.F) {
	f.Add(10, 4, 512)
	f.Add(1, 0, 16)
	f.Add(2, 9, 17)
	f.Add(4096, 4, 4096)
	f.Fuzz(func(t *testing.T, budget, sink, tokens int) {
		base := DefaultConfig()
		base.Tokens = 16 + (tokens%4096+4096)%4096
		base.Heads, base.KVHeads, base.HeadDim = 2, 2, 8
		budget = budget%(2*base.Tokens) + 1
		g := Grid{Sink: sink % 64}
		for _, p := range kv.Policies() {
			c, ok := g.Config(base, p.String(), budget)
			if err := c.Validate(); err != nil {
				t.Fatalf("%s at %d: %v", p, budget, err)
			}
			kc, _ := c.kv()
			switch p {
			case kv.Full, kv.Chunk, kv.SnapKV, kv.Quest, kv.KVzip:
			case kv.Duo: // streaming heads keep the budget, retrieval heads everything
				if !ok || c.Sink+c.Recent != min(max(budget, 1), base.Tokens) {
					t.Fatalf("%s at %d: sink %d + recent %d (%v)", p, budget, c.Sink, c.Recent, ok)
				}
			default:
				if !ok || kc.Budget() != min(max(budget, 1), base.Tokens) {
					t.Fatalf("%s at %d: budget %d (%v)", p, budget, kc.Budget(), ok)
				}
			}
		}
	})
}

func TestSweepRefusesBadGrids(t *testing.T) {
	base := sweepBase()
	ps, err := Grid{Storage: AllStorage(), Budgets: []int{8}}.Points(base)
	if want := len(AllStorage()) * len(kv.Policies()); err != nil || len(ps) != want {
		t.Fatalf("every policy stored every way: %d points (%v), want %d", len(ps), err, want)
	}
	other := base
	other.Seed++
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"empty budgets", func() error { _, err := Grid{Budgets: []int{}}.Points(base); return err }},
		{"zero budget", func() error { _, err := Grid{Budgets: []int{0, 4}}.Points(base); return err }},
		{"no storage", func() error { _, err := Grid{Storage: []StorageVariant{}}.Points(base); return err }},
		{"bad bits", func() error { _, err := Grid{Storage: []StorageVariant{{9, "token"}}}.Points(base); return err }},
		{"bad policy", func() error { _, err := Grid{Policies: []string{"lru"}}.Points(base); return err }},
		{"bad base", func() error { b := base; b.Heads = 3; _, err := DefaultGrid().Points(b); return err }},
		{"two streams", func() error {
			return SweepPoints(context.Background(), []Point{{base, 8}, {other, 8}}, nil, nil, func(Row) error { return nil })
		}},
		{"index out of range", func() error {
			return SweepPoints(context.Background(), []Point{{base, 8}}, []int{1}, nil, func(Row) error { return nil })
		}},
		{"no reference", func() error {
			b := base
			b.RefStride = 0
			_, err := RunRow(context.Background(), 0, Point{b, 8}, nil)
			return err
		}},
	} {
		if err := tc.err(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// On the default stream the sweep draws the figure the lessons teach:
// at every budget below the history, H2O keeps more attention mass than
// a window, sinks rescue the window, and fidelity grows with the budget.
func TestSweepShowsTheTradeOff(t *testing.T) {
	base := DefaultConfig()
	base.Tokens, base.RefStride = 256, 4
	g := Grid{Policies: []string{"window", "streaming", "h2o"}, Sink: 4}
	by := map[string][]Row{}
	if err := Sweep(context.Background(), base, g, nil, func(r Row) error { by[r.Policy] = append(by[r.Policy], r); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, h := range by["h2o"] {
		w, s := by["window"][i], by["streaming"][i]
		if h.Budget == base.Tokens {
			if h.Mass < 1-1e-6 || w.Mass < 1-1e-6 {
				t.Errorf("a budget of the whole history loses mass: h2o %v window %v", h.Mass, w.Mass)
			}
			continue
		}
		if !(h.Mass > s.Mass && s.Mass > w.Mass) {
			t.Errorf("budget %d: mass h2o %.3f, streaming %.3f, window %.3f", h.Budget, h.Mass, s.Mass, w.Mass)
		}
		if i > 0 && (h.Mass <= by["h2o"][i-1].Mass || h.Bytes <= by["h2o"][i-1].Bytes) {
			t.Errorf("h2o budget %d keeps no more mass or bytes than budget %d", h.Budget, by["h2o"][i-1].Budget)
		}
		if math.IsNaN(h.KL) || h.KL <= 0 {
			t.Errorf("h2o budget %d: KL %v", h.Budget, h.KL)
		}
	}
}

// Points that round to the same configuration (SnapKV's share of a short
// prompt, chunk pruning's largest drop share) run once and report the
// same numbers under their own index and budget.
func TestSweepRunsRepeatsOnce(t *testing.T) {
	base := sweepBase()
	g := Grid{Policies: []string{"snapkv", "chunk"}, Budgets: []int{2, 3, 4}, Sink: 4}
	ps, err := g.Points(base)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	if err := SweepPoints(context.Background(), ps, nil, nil, func(r Row) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || ps[0].Config != ps[2].Config || ps[1].Config != ps[3].Config {
		t.Fatalf("want 6 rows over repeated configurations: %+v", ps)
	}
	for i, r := range rows {
		if r.Index != i || r.Budget != ps[i].Budget {
			t.Errorf("row %d: index %d budget %d", i, r.Index, r.Budget)
		}
		mem, _, m := singleRun(t, ps[i].Config)
		if r.Bytes != mem.Total() || r.Mass != m.Mass || r.OutErr != m.OutErr || r.KL != m.KL {
			t.Errorf("row %d differs from its single run", i)
		}
	}
}

// Shares deals every point to exactly one shard, and the default sweep's
// shards carry about equal estimated work (a deal by index alone gave one
// of two workers every policy that keeps the whole history).
func TestSharesBalanceTheWork(t *testing.T) {
	ps, err := DefaultGrid().Points(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 4} {
		shares := Shares(ps, n)
		seen := make([]int, len(ps))
		load := make([]float64, n)
		for k, sh := range shares {
			fulls := map[Config]bool{} // full-cache runs this shard makes
			for j, i := range sh {
				seen[i]++
				if j > 0 && sh[j-1] >= i {
					t.Fatalf("%d shards: share %d not ascending: %v", n, k, sh)
				}
				c := ps[i].Config
				if fc, ok := keepsAll(c); ok {
					c = fc // derived from the full cache's run
				}
				if c == fullOf(c) {
					if !fulls[c] {
						load[k] += pointCost(Point{c, c.Tokens})
					}
					fulls[c] = true
					continue
				}
				load[k] += pointCost(ps[i])
			}
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("%d shards: point %d dealt %d times", n, i, c)
			}
		}
		lo, hi := load[0], load[0]
		for _, l := range load {
			lo, hi = min(lo, l), max(hi, l)
		}
		if n > 1 && hi > 1.25*lo {
			t.Errorf("%d shards: estimated loads %v differ by more than 25%%", n, load)
		}
	}
}
