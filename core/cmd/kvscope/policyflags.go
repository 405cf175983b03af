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
	{kv.ParamPages, "-pages"}, {kv.ParamPageSize, "-page-size"},
	{kv.ParamAlloc, "-alloc"}, {kv.ParamMerge, "-merge"}, {kv.ParamValueWeight, "-vweight"},
}

// flagOf is the flag of setting p.
func flagOf(p kv.Param) string {
	for _, pf := range paramFlags {
		if pf.p == p {
			return pf.flag
		}
	}
	return p.String()
}

// readers names the policies that read setting p: "read by chunk".
func readers(p kv.Param) string {
	var names []string
	for _, q := range kv.Policies() {
		if q.Params()&p != 0 {
			names = append(names, q.String())
		}
	}
	return "read by " + strings.Join(names, ", ")
}

// policyFlags binds the eviction settings, each saying which policies
// read it (the policies' descriptions say what it means to each).
func policyFlags(fs *flag.FlagSet, c *sim.Config) {
	fs.StringVar(&c.Policy, "policy", c.Policy, policyUsage())
	fs.IntVar(&c.Sink, "sink", c.Sink, "attention-sink tokens always kept ("+readers(kv.ParamSink)+")")
	fs.IntVar(&c.Recent, "recent", c.Recent, "recent window ("+readers(kv.ParamRecent)+")")
	fs.IntVar(&c.Heavy, "heavy", c.Heavy, "tokens kept for their score ("+readers(kv.ParamHeavy)+")")
	fs.IntVar(&c.ChunkSize, "chunk", c.ChunkSize, "tokens per chunk ("+readers(kv.ParamChunk)+")")
	fs.Float64Var(&c.DropShare, "drop", c.DropShare, "share of each chunk dropped, lowest key norm first ("+readers(kv.ParamDrop)+")")
	fs.BoolVar(&c.Shared, "shared", c.Shared, "one eviction decision for all heads of a layer ("+readers(kv.ParamShared)+")")
	fs.StringVar(&c.Alloc, "alloc", "uniform", "budget allocator: uniform (every head keeps the same), adakv (a layer's heads share their scored budget: each keeps its top 20%, the rest goes to the best scores across heads), pyramid (lower layers keep more, linearly, same total; β = 20) ("+readers(kv.ParamAlloc)+")")
	fs.BoolVar(&c.Merge, "merge", c.Merge, "fold an evicted token's value into its kept neighbours, weighted by attention (CaM), instead of dropping it ("+readers(kv.ParamMerge)+")")
	fs.BoolVar(&c.ValueWeight, "vweight", c.ValueWeight, "value-aware scores: multiply an attention score by ‖v‖ before ranking (CriticalKV; "+readers(kv.ParamValueWeight)+")")
	fs.IntVar(&c.Pages, "pages", c.Pages, fmt.Sprintf("pages each query attends to besides the newest, 0 means %d (%s)", kv.DefaultPages, readers(kv.ParamPages)))
	fs.IntVar(&c.PageSize, "page-size", c.PageSize, fmt.Sprintf("tokens per page, 0 means %d (%s)", kv.DefaultPageSize, readers(kv.ParamPageSize)))
}

// frontierSummary prints what the allocators and per-head policies
// decided: per-layer budgets when heads or layers differ, DuoAttention's
// head classes and their accuracy on the synthetic stream, the tokens a
// selecting policy (Quest) let each query attend to.
func frontierSummary(w io.Writer, e *sim.Engine, replay bool) {
	cfg := e.Config()
	s := e.Snapshot(0)
	if cfg.Alloc != "" && cfg.Alloc != "uniform" || s.Retrieval != nil {
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
	if s.Attended > 0 && s.Attended < float64(e.Layer(0).Len(0)) { // it selects what each query reads (Quest)
		p, _ := kv.ParsePolicy(cfg.Policy)
		fmt.Fprintf(w, "%s: each query head attended %.1f of %d cached tokens at the last step; nothing was evicted, and the page bounds add %d bytes\n",
			p.Describe().Label, s.Attended, e.Layer(0).Len(0), s.Mem.Scores)
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

// policyUsage is the -policy flag's help: every policy with the flags it
// reads, what it keeps, and what a flag means to it when that is not the
// usual. A flag a policy does not read changes nothing it keeps.
func policyUsage() string {
	var b strings.Builder
	b.WriteString("eviction policy; each reads only the flags listed beside it, and a budgeted policy keeps the sum of its -sink, -recent and -heavy per head:")
	for _, p := range kv.Policies() {
		d := p.Describe()
		var fl, notes []string
		for _, s := range d.Reads {
			fl = append(fl, flagOf(s.Param))
			if s.Means != "" {
				notes = append(notes, flagOf(s.Param)+": "+s.Means)
			}
		}
		if len(fl) == 0 {
			fl = []string{"(no flags)"}
		}
		fmt.Fprintf(&b, "\n    %-10s %s\n               %s: %s", p, strings.Join(fl, " "), d.Label, d.Short)
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
		}
	}
	return b.String()
}

// budgetText describes what c's policy keeps per head, in its own words
// (kv.Config.Keeps): "streaming: each head keeps 32 tokens: 4 sinks + 28
// recent".
func budgetText(c sim.Config) string { return c.Policy + ": " + c.Keeps() }
