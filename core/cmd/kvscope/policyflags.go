package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/sim"
)

// paramFlags maps the settings a policy reads to this command's flags.
var paramFlags = []struct {
	p    kv.Param
	flag string
}{
	{kv.ParamSink, "-sink"}, {kv.ParamRecent, "-recent"}, {kv.ParamHeavy, "-heavy"},
	{kv.ParamChunk, "-chunk"}, {kv.ParamDrop, "-drop"}, {kv.ParamShared, "-shared"}, {kv.ParamSeed, "-seed"},
	{kv.ParamPages, "-pages -page-size"},
}

// frontierFlags binds the allocator, merging, value weighting and Quest
// settings.
func frontierFlags(fs *flag.FlagSet, c *sim.Config) {
	fs.StringVar(&c.Alloc, "alloc", "uniform", "budget allocator for a budgeted policy: uniform (every head keeps the same), adakv (a layer's heads share their scored budget: each keeps its top 20%, the rest goes to the best scores across heads), pyramid (lower layers keep more, linearly, same total; β = 20)")
	fs.BoolVar(&c.Merge, "merge", c.Merge, "fold an evicted token's value into its kept neighbours, weighted by attention (CaM), instead of dropping it")
	fs.BoolVar(&c.ValueWeight, "vweight", c.ValueWeight, "value-aware scores: multiply an attention score by ‖v‖ before ranking (CriticalKV; h2o, tova, seed000)")
	fs.IntVar(&c.Pages, "pages", c.Pages, "quest: pages each query attends to besides the newest (0 means 4)")
	fs.IntVar(&c.PageSize, "page-size", c.PageSize, "quest: tokens per page (0 means 16)")
}

// frontierSummary prints what the allocators and per-head policies
// decided: per-layer budgets, Duo's head classes and their accuracy on
// the synthetic stream, Quest's attended tokens.
func frontierSummary(w io.Writer, e *sim.Engine, replay bool) {
	cfg := e.Config()
	s := e.Snapshot(0)
	if cfg.Alloc != "" && cfg.Alloc != "uniform" || cfg.Policy == "duo" {
		fmt.Fprintln(w, "Tokens each kv head keeps, per layer:")
		for l := range cfg.Layers {
			fmt.Fprintf(w, "  layer %d: %v\n", l, s.Budgets[l*cfg.KVHeads:(l+1)*cfg.KVHeads])
		}
	}
	if s.Retrieval != nil {
		line := fmt.Sprintf("Duo classified %d of %d kv heads as retrieval heads", count(s.Retrieval), len(s.Retrieval))
		if acc, ok := e.DuoAccuracy(); ok && !replay {
			line += fmt.Sprintf("; right for %.0f%% of heads against the synthetic stream's own retrieval heads", 100*acc)
		}
		fmt.Fprintln(w, line)
	}
	if cfg.Policy == "quest" {
		fmt.Fprintf(w, "Quest: each query head attended %.1f of %d cached tokens at the last step; nothing was evicted, and the page bounds add %d bytes\n",
			s.Attended, e.Layer(0).Len(0), s.Mem.Scores)
	}
}

func count(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}

// policyNotes say what a flag means to a policy when it is not the usual.
var policyNotes = map[kv.Policy]string{
	kv.SnapKV:   "  (-recent: the prompt's observation window; compresses the prompt only)",
	kv.Seed000:  "  (always shared)",
	kv.Expected: "  (-sink 4 keeps the first 4 tokens, as kvpress does)",
	kv.Duo:      "  (streaming heads keep -sink + -recent; heads are classified after -sink + -recent + -heavy tokens)",
	kv.Quest:    "  (nothing evicted: each query attends to its best pages)",
	kv.Chunk:    "  (no token budget)",
}

// policyUsage is the -policy flag's help: every policy with the flags it
// reads. A flag a policy does not read changes nothing it keeps.
func policyUsage() string {
	var b strings.Builder
	b.WriteString("eviction policy; each reads only the flags listed beside it, and a budgeted policy keeps the sum of its -sink, -recent and -heavy per head:")
	for _, p := range kv.Policies() {
		var fl []string
		for _, pf := range paramFlags {
			if p.Params()&pf.p != 0 {
				fl = append(fl, pf.flag)
			}
		}
		if len(fl) == 0 {
			fl = []string{"(no flags)"}
		}
		fmt.Fprintf(&b, "\n    %-10s %s%s", p, strings.Join(fl, " "), policyNotes[p])
	}
	return b.String()
}

// budgetText describes what c's policy keeps per head, naming only the
// settings it reads: "streaming, sink 4 + recent 28 = 32 tokens per head".
func budgetText(c sim.Config) string {
	p, err := kv.ParsePolicy(c.Policy)
	if err != nil {
		return c.Policy
	}
	ps := p.Params()
	var terms []string
	sum := 0
	for _, t := range []struct {
		p    kv.Param
		name string
		v    int
	}{{kv.ParamSink, "sink", c.Sink}, {kv.ParamRecent, "recent", c.Recent}, {kv.ParamHeavy, "heavy", c.Heavy}} {
		if ps&t.p != 0 {
			terms = append(terms, fmt.Sprintf("%s %d", t.name, t.v))
			sum += t.v
		}
	}
	switch {
	case ps&kv.ParamChunk != 0:
		return fmt.Sprintf("%s, chunks of %d, %.0f%% of each dropped", c.Policy, c.ChunkSize, 100*c.DropShare)
	case p == kv.Quest:
		pages, size := c.Pages, c.PageSize
		if pages == 0 {
			pages = kv.DefaultPages
		}
		if size == 0 {
			size = kv.DefaultPageSize
		}
		return fmt.Sprintf("%s, nothing evicted, each query reads %d pages of %d + the newest", c.Policy, pages, size)
	case p == kv.Duo:
		return fmt.Sprintf("%s, streaming heads sink %d + recent %d, retrieval heads everything, classified after %d tokens", c.Policy, c.Sink, c.Recent, c.Sink+c.Recent+c.Heavy)
	case p == kv.SnapKV:
		return fmt.Sprintf("%s, observation window %d + %d prompt tokens kept per head", c.Policy, c.Recent, c.Heavy)
	case len(terms) == 0:
		return fmt.Sprintf("%s, every token kept", c.Policy)
	}
	return fmt.Sprintf("%s, %s = %d tokens per head", c.Policy, strings.Join(terms, " + "), sum)
}
