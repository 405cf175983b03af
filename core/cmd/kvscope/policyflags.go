package main

import (
	"fmt"
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
		fmt.Fprintf(&b, "\n    %-10s %s", p, strings.Join(fl, " "))
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
	case p == kv.SnapKV:
		return fmt.Sprintf("%s, observation window %d + %d prompt tokens kept per head", c.Policy, c.Recent, c.Heavy)
	case len(terms) == 0:
		return fmt.Sprintf("%s, every token kept", c.Policy)
	}
	return fmt.Sprintf("%s, %s = %d tokens per head", c.Policy, strings.Join(terms, " + "), sum)
}
