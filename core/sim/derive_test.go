package sim

import (
	"context"
	"fmt"
	"testing"

	"github.com/kvscope/kvscope/core/internal/testenv"
)

// A point that keeps every token is derived from the full cache's run:
// for every budgeted policy and every storage, with the storage options
// that treat tokens differently by position (FP16 sinks, outliers, a
// residual window, low rank) and with shared decisions and value-aware
// scoring, the derived row equals the point's own run, field for field.
// Points that could evict (a budget short of the history, a non-uniform
// allocator, merging) are not derived.
func TestDerivedRowsEqualRuns(t *testing.T) {
	testenv.NativeOnly(t)
	small := func() Config {
		c := DefaultConfig()
		c.Layers, c.Heads, c.KVHeads, c.HeadDim, c.Tokens, c.Prompt = 2, 4, 2, 16, 96, 12
		return c
	}
	var bases []Config
	for _, st := range AllStorage() {
		c := small()
		c.Bits, c.Granularity = st.Bits, st.Granularity
		bases = append(bases, c)
	}
	for _, f := range []func(*Config){
		func(c *Config) { c.SinkFP16 = 4 },
		func(c *Config) { c.OutliersFP16 = 0.05 },
		func(c *Config) { c.Rotate = "hadamard" },
		func(c *Config) { c.Quant = "turbo" },
		func(c *Config) { c.Residual = 16 },
		func(c *Config) { c.Rank = 8 },
		func(c *Config) { c.Shared = true },
		func(c *Config) { c.Bits, c.Granularity = 4, "channel" },
	} {
		c := small()
		c.Bits = 4
		f(&c)
		bases = append(bases, c)
	}
	vw := small()
	vw.ValueWeight = true // only for the policies that rank by attention
	bases = append(bases, vw)
	derived := 0
	for bi, base := range bases {
		s, err := NewStream(base)
		if err != nil {
			t.Fatal(err)
		}
		g := Grid{Budgets: []int{base.Tokens}, Sink: DefaultSweepSink}
		if base.ValueWeight {
			g.Policies = []string{"h2o", "tova", "seed000"}
		}
		ps, err := g.Points(base)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range ps {
			fc, ok := keepsAll(p.Config)
			if !ok {
				continue
			}
			name := fmt.Sprintf("base %d %s %d-bit %s", bi, p.Config.Policy, p.Config.Bits, p.Config.Granularity)
			full, err := RunRow(context.Background(), -1, Point{fc, fc.Tokens}, s)
			if err != nil {
				t.Fatal(name, err)
			}
			got, err := derivedRow(i, p, full)
			if err != nil {
				t.Fatal(name, err)
			}
			want, err := RunRow(context.Background(), i, p, s)
			if err != nil {
				t.Fatal(name, err)
			}
			if got != want {
				t.Errorf("%s:\nderived %+v\nrun     %+v", name, got, want)
			}
			derived++
		}
	}
	if derived < 9*(len(bases)-1)+3 {
		t.Errorf("%d points derived over %d bases, want every budgeted policy's in each", derived, len(bases))
	}

	// Points that may evict run.
	c := small()
	for _, m := range []func(*Config){
		func(c *Config) { c.Policy, c.Sink, c.Recent, c.Heavy = "h2o", 4, 40, 40 },
		func(c *Config) { c.Policy, c.Sink, c.Recent, c.Heavy, c.Alloc = "h2o", 4, 46, 46, "adakv" },
		func(c *Config) { c.Policy, c.Sink, c.Recent, c.Heavy, c.Merge = "h2o", 4, 46, 46, true },
		func(c *Config) { c.Policy = "snapkv" },
		func(c *Config) { c.Policy = "full" },
	} {
		x := c
		m(&x)
		if _, ok := keepsAll(x); ok {
			t.Errorf("%s sink %d recent %d heavy %d alloc %q merge %v: derived, but it may evict or is the full cache itself",
				x.Policy, x.Sink, x.Recent, x.Heavy, x.Alloc, x.Merge)
		}
	}
}
