package view

import (
	"github.com/kvscope/kvscope/core/kv"
	"github.com/kvscope/kvscope/core/sim"
)

// PolicyName returns the page's name of a policy (its link key, as
// kv.ParsePolicy reads it): its description's Label, "H2O" for h2o,
// "StreamingLLM" for streaming. A key without a policy is its own name.
func PolicyName(key string) string {
	if p, err := kv.ParsePolicy(key); err == nil {
		return p.Describe().Label
	}
	return key
}

// PolicyHelp returns a policy's help text for a learner (its
// description's Help), "" for an unknown key.
func PolicyHelp(key string) string {
	p, err := kv.ParsePolicy(key)
	if err != nil {
		return ""
	}
	return p.Describe().Help
}

// TokenBudget returns how many tokens per head c's policy keeps once the
// prompt is over: the sum of the budget settings it reads
// (kv.Config.TokenBudget) — window keeps Recent, StreamingLLM and
// DuoAttention's streaming heads Sink + Recent, the heavy-hitter policies
// Sink + Recent + Heavy — and 0 for a policy without budget settings.
func TokenBudget(c *sim.Config) int {
	k, _ := c.KV()
	return k.TokenBudget()
}

// BudgetText says in a few words what each head of c keeps, e.g.
// "each head keeps 64 tokens: 4 sinks + 28 heavy hitters + 32 recent":
// the policy's own words (kv.Config.Keeps), from c's settings.
func BudgetText(c *sim.Config) string { return c.Keeps() }

// defaultSinks are the sinks a switch gives a policy that counts sinks
// when the one before did not and none were set.
const defaultSinks = 4

// KeepBudget moves c from policy from to policy c.Policy keeping the
// total token budget, so that switching policies compares them at equal
// memory, by the settings each counts in its budget (kv.Setting.Budget):
// a policy counting only Recent gets the whole budget as its window; one
// counting sinks keeps the sinks (4 when the policy before counted none
// and none were set, at most the budget less one token); one counting
// both Recent and Heavy keeps its heavy setting and gives the recent
// window what is left (at least 1, taking it from the heavy setting when
// needed). Settings a policy does not count are left as they were, so
// switching back restores them. Switching from or to a policy without
// budget settings changes nothing.
func KeepBudget(c *sim.Config, from string) {
	to, err := kv.ParsePolicy(c.Policy)
	fp, ferr := kv.ParsePolicy(from)
	if err != nil || ferr != nil || to == fp {
		return
	}
	counts := func(p kv.Policy) kv.Param {
		var ps kv.Param
		for _, s := range p.Describe().Reads {
			if s.Budget {
				ps |= s.Param
			}
		}
		return ps
	}
	toB, fromB := counts(to), counts(fp)
	if toB == 0 || fromB == 0 {
		return
	}
	old := *c
	old.Policy = from
	total := TokenBudget(&old)
	if total < 1 {
		return
	}
	rest := total
	if toB&kv.ParamSink != 0 {
		if fromB&kv.ParamSink == 0 && c.Sink == 0 {
			c.Sink = min(defaultSinks, total/2)
		}
		c.Sink = min(c.Sink, total-1)
		rest -= c.Sink
	}
	switch toB & (kv.ParamRecent | kv.ParamHeavy) {
	case kv.ParamRecent | kv.ParamHeavy:
		c.Heavy = min(c.Heavy, rest-1)
		c.Recent = rest - c.Heavy
	case kv.ParamRecent:
		c.Recent = rest
	case kv.ParamHeavy:
		c.Heavy = rest
	}
}
