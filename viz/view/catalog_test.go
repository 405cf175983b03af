package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/sim"
	"github.com/kvscope/kvscope/core/store"
)

// A control is active exactly when the policy reads its setting: kv's
// description says so, and kv accepts a setting the page leaves active.
// Disagreements 2 and 3 of issue 18: the page left Budget split and value
// weighting active for DuoAttention (whose AdaKV kv then refused), the
// sinks active for SnapKV, the recent window for Chunk and the page size
// for every policy.
func TestRelevantIsWhatThePolicyReads(t *testing.T) {
	for _, tc := range []struct {
		policy, key string
		want        bool
	}{
		{"duo", "alloc", false},
		{"duo", "vweight", false},
		{"duo", "merge", false},
		{"duo", "sink", true},
		{"snapkv", "sink", false},
		{"snapkv", "recent", true},
		{"chunk", "recent", false},
		{"chunk", "drop", true},
		{"h2o", "pagesize", false},
		{"quest", "pagesize", true},
		{"quest", "shared", false},
		{"knorm", "vweight", false},
		{"h2o", "vweight", true},
		{"window", "heavy", false},
		{"streaming", "b.heavy", false},
		{"h2o", "seed", true}, // the stream's
	} {
		c := sim.DefaultConfig()
		c.Policy = tc.policy
		if got := Relevant(&c, tc.key); got != tc.want {
			t.Errorf("Relevant(%s, %s) = %v, want %v", tc.policy, tc.key, got, tc.want)
		}
	}
	// Every policy: an active allocator, merging or weighting is one kv
	// accepts; an inactive one kv refuses (PyramidKV: AdaKV also needs
	// per-head decisions, which seed000 never makes).
	for _, p := range kv.Policies() {
		for _, tc := range []struct {
			key string
			set func(c *sim.Config)
		}{
			{"alloc", func(c *sim.Config) { c.Alloc = "pyramid" }},
			{"merge", func(c *sim.Config) { c.Merge = true }},
			{"vweight", func(c *sim.Config) { c.ValueWeight = true }},
		} {
			c := sim.DefaultConfig()
			c.Policy = p.String()
			tc.set(&c)
			err := c.Validate()
			if rel := Relevant(&c, tc.key); rel != (err == nil) {
				t.Errorf("%s: %s active %v, but kv says %v", p, tc.key, rel, err)
			}
		}
	}
	c := sim.DefaultConfig()
	c.Bits = 16
	if Relevant(&c, "gran") || !Relevant(&c, "bits") {
		t.Error("granularity matters at 16 bits, or bits do not")
	}
}

// The menus list every policy and quantizer with its description's label.
func TestMenusReadTheDescriptions(t *testing.T) {
	pol := Menu("policy")
	if len(pol) != len(kv.Policies()) {
		t.Fatalf("%d policies in the menu, %d in kv", len(pol), len(kv.Policies()))
	}
	for i, p := range kv.Policies() {
		if d := p.Describe(); pol[i].Value != d.Name || pol[i].Label != d.Label || pol[i].Title != d.Short {
			t.Errorf("menu entry %+v for %s", pol[i], d.Name)
		}
	}
	q := Menu("quant")
	if len(q) != len(store.Quantizers) {
		t.Fatalf("%d quantizers in the menu, %d in store", len(q), len(store.Quantizers))
	}
	for i, name := range store.Quantizers {
		s, _ := store.ParseQuantizer(name)
		d, _ := s.Def()
		if q[i].Value != name || q[i].Label != d.Label || q[i].Title != d.Help {
			t.Errorf("menu entry %+v for %s", q[i], name)
		}
	}
	for _, key := range []string{"policy", "quant", "alloc", "rotate", "gran", "mode", "scale"} {
		f, _, _ := Lookup(key)
		var values []string
		for _, o := range Menu(key) {
			values = append(values, o.Value)
			if o.Label == "" {
				t.Errorf("%s: %q has no label", key, o.Value)
			}
		}
		if strings.Join(values, ",") != strings.Join(f.Choices, ",") {
			t.Errorf("%s: menu %v, accepted values %v", key, values, f.Choices)
		}
	}
	for _, key := range []string{"preset", "task", "metric", "bits"} {
		if len(Menu(key)) == 0 {
			t.Errorf("no %s menu", key)
		}
	}
	if Menu("nosuch") != nil {
		t.Error("a menu for an unknown key")
	}
}

// The names of a configuration's storage say its quantizer (the page's
// titles once called every quantizer "INT4 per token").
func TestStorageName(t *testing.T) {
	for _, tc := range []struct {
		bits          int
		quant, gran   string
		residual, rnk int
		want          string
	}{
		{32, "", "token", 0, 0, "float32"},
		{16, "turbo", "token", 0, 4, "FP16, rank 4"},
		{4, "", "channel", 32, 0, "INT4 per channel, FP16 residual 32"},
		{2, "uniform", "kivi", 0, 0, "INT2 KIVI"},
		{4, "turbo", "token", 0, 0, "4-bit TurboQuant"},
		{3, "qjl", "token", 16, 0, "3-bit QJL sketch (keys), FP16 residual 16"},
	} {
		c := sim.DefaultConfig()
		c.Bits, c.Quant, c.Granularity, c.Residual, c.Rank = tc.bits, tc.quant, tc.gran, tc.residual, tc.rnk
		if got := StorageName(&c); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc, got, tc.want)
		}
	}
	c := sim.DefaultConfig()
	c.Policy, c.Sink, c.Recent, c.Bits, c.Granularity = "streaming", 4, 60, 8, "channel"
	if got, want := ConfigName(&c), "StreamingLLM · each head keeps 64 tokens: 4 sinks + 60 recent · INT8 per channel"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// The catalog the page's JavaScript reads has every policy, quantizer and
// measure, with what the chart needs of each, and marshals.
func TestCatalogue(t *testing.T) {
	var c Catalog
	if err := json.Unmarshal([]byte(Catalogue().JSON()), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Policies) != len(kv.Policies()) || len(c.Quantizers) != len(store.Quantizers) || len(c.Measures) != len(sim.Measures) {
		t.Fatalf("catalog of %d policies, %d quantizers, %d measures", len(c.Policies), len(c.Quantizers), len(c.Measures))
	}
	byName := map[string]CatalogPolicy{}
	for _, p := range c.Policies {
		byName[p.Name] = p
		if p.Label == "" || p.Color == "" || p.Help == "" {
			t.Errorf("%+v", p)
		}
	}
	for name, want := range map[string]string{"full": "", "window": "recent,alloc,merge", "chunk": "chunk,drop,shared",
		"quest": "pages,pagesize", "snapkv": "recent,heavy"} {
		if got := strings.Join(byName[name].Reads, ","); got != want {
			t.Errorf("%s reads %q, want %q", name, got, want)
		}
	}
	for _, m := range c.Measures {
		if m.Perfect == nil && m.PerfectKey == "" {
			t.Errorf("measure %s has no perfect value", m.Key)
		}
	}
}

// The fidelity table's metrics, their definitions and the chart's
// measures are one list (disagreement 8 of issue 18: three spellings of
// the labels under two spellings of the keys).
func TestOneSpellingOfTheMeasures(t *testing.T) {
	defs := Definitions()
	for _, m := range sim.Measures {
		d, ok := defs[m.Key]
		if !ok || d.Name != m.Title || d.Formula == "" {
			t.Errorf("measure %s: definition %+v", m.Key, d)
		}
	}
	for k, m := range Metrics {
		if Metric(k) != MetricOf(m.Key) || !m.Table {
			t.Errorf("metric %d is %s", k, m.Key)
		}
	}
	for _, old := range []string{"kerr", "verr", "outerr", "nextkl"} {
		if _, ok := defs[old]; ok {
			t.Errorf("a second spelling %q of a measure's key", old)
		}
	}
	if d := defs["ctl-quant"]; !strings.Contains(d.Formula, "TurboQuant") {
		t.Errorf("the quantizer's definition does not list the quantizers: %q", d.Formula)
	}
}
