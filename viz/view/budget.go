package view

import (
	"fmt"

	"github.com/kvscope/kvscope/core/sim"
)

// policyNames are the page's names of the eviction policies.
var policyNames = map[string]string{"full": "full cache", "window": "window only", "streaming": "StreamingLLM", "h2o": "H2O",
	"tova": "TOVA", "knorm": "key norm", "chunk": "chunks", "random": "random", "snapkv": "SnapKV", "seed000": "sinks + H2O + recent",
	"expected": "ExpectedAttention", "keydiff": "KeyDiff", "duo": "DuoAttention", "quest": "Quest"}

// PolicyName returns the page's name of a policy (its link key, as
// kv.ParsePolicy reads it): "H2O" for h2o, "StreamingLLM" for streaming.
// A key without a name is its own name.
func PolicyName(key string) string {
	if n, ok := policyNames[key]; ok {
		return n
	}
	return key
}

// Budgeted reports whether a policy keeps a fixed number of tokens per
// head (its budget), as opposed to every token (full), a share (chunk), a
// prompt selection (snapkv) or everything with a selection per query
// (quest): the policies a budget allocator can split.
func Budgeted(policy string) bool {
	switch policy {
	case "full", "chunk", "snapkv", "quest":
		return false
	}
	return true
}

// TokenBudget returns how many tokens per head c's policy keeps once the
// prompt is over, and which settings make it up: window keeps Recent,
// StreamingLLM Sink + Recent, the heavy-hitter policies Sink + Recent +
// Heavy. For policies without a fixed budget it returns 0.
func TokenBudget(c *sim.Config) int {
	switch c.Policy {
	case "window":
		return c.Recent
	case "streaming", "duo":
		return c.Sink + c.Recent
	}
	if !Budgeted(c.Policy) {
		return 0
	}
	return c.Sink + c.Recent + c.Heavy
}

// BudgetText says in a few words what each head of c keeps, e.g.
// "each head keeps 64 tokens: 4 sinks + 28 heavy hitters + 32 recent".
func BudgetText(c *sim.Config) string {
	switch c.Policy {
	case "full":
		return "each head keeps every token"
	case "chunk":
		return fmt.Sprintf("each head drops %s of every chunk of %d tokens", Percent(c.DropShare), c.ChunkSize)
	case "snapkv":
		return fmt.Sprintf("the prompt's last %d queries choose %d prompt tokens per head; every generated token stays", c.Recent, c.Heavy)
	case "window":
		return fmt.Sprintf("each head keeps %d tokens: the newest %d", c.Recent, c.Recent)
	case "streaming":
		return fmt.Sprintf("each head keeps %d tokens: %d sinks + %d recent", c.Sink+c.Recent, c.Sink, c.Recent)
	case "duo":
		return fmt.Sprintf("streaming heads keep %d sinks + %d recent, retrieval heads every token (told apart after %d tokens)", c.Sink, c.Recent, c.Sink+c.Recent+c.Heavy)
	case "quest":
		return "nothing is evicted; each query reads only its 4 best pages of 16 tokens and the newest"
	}
	return fmt.Sprintf("each head keeps %d tokens: %d sinks + %d %s + %d recent", TokenBudget(c), c.Sink, c.Heavy, scoredName(c.Policy), c.Recent)
}

// scoredName names the tokens a scoring policy keeps beyond its sinks and
// recent window (the Heavy setting), by what its score picks: "heavy
// hitters" for the accumulated attention of H2O and seed 000, "random
// picks" for random, and so on.
func scoredName(policy string) string {
	switch policy {
	case "tova":
		return "most attended now"
	case "knorm":
		return "lowest key norms"
	case "keydiff":
		return "most distinct keys"
	case "expected":
		return "highest expected attention"
	case "random":
		return "random picks"
	}
	return "heavy hitters"
}

// KeepBudget moves c from policy from to policy c.Policy keeping the
// total token budget, so that switching policies compares them at equal
// memory: a window gets sink + recent + heavy as its window; StreamingLLM
// keeps the sinks (4 when there were none) and gives the rest to the
// recent window; a heavy-hitter policy keeps the sinks and heavy hitters
// and gives the recent window what is left (at least 1, taking it from
// the heavy hitters when needed). Sink and heavy settings a policy does
// not use are left as they were, so switching back restores them.
// Switching from or to a policy without a fixed budget changes nothing.
func KeepBudget(c *sim.Config, from string) {
	to := c.Policy
	if from == to || !Budgeted(from) || !Budgeted(to) {
		return
	}
	old := *c
	old.Policy = from
	total := TokenBudget(&old)
	if total < 1 {
		return
	}
	switch to {
	case "window":
		c.Recent = total
	case "streaming", "duo":
		if c.Sink == 0 {
			c.Sink = min(4, total-1)
		}
		c.Sink = min(c.Sink, total-1)
		c.Recent = total - c.Sink
	default:
		if from == "window" && c.Sink == 0 {
			c.Sink = min(4, total/2)
		}
		c.Sink = min(c.Sink, total-1)
		c.Heavy = min(c.Heavy, total-c.Sink-1)
		c.Recent = total - c.Sink - c.Heavy
	}
}
