package kv

import (
	"errors"
	"fmt"
)

// Config configures the cache of one layer.
type Config struct {
	Policy Policy
	Sink   int // positions < Sink are attention sinks, never evicted (policies that keep sinks)
	Recent int // newest tokens always kept (and SnapKV's observation window)
	Heavy  int // tokens kept for their score (heavy hitters, low norms, random picks…)

	ChunkSize int     // Chunk: positions per chunk
	DropShare float64 // Chunk: share of each complete chunk dropped, in [0, 1)

	Pages    int // Quest: pages each query attends to (besides the newest page)
	PageSize int // Quest: tokens per page; 0 means 16

	// Shared makes one eviction decision for all heads of the layer from
	// their mean score, as seed 000 does; otherwise each key/value head
	// decides on its own (H2O's reference). Seed000 is always shared;
	// SnapKV always decides per head.
	Shared bool
	Seed   uint64 // Random policy's generator

	// Alloc chooses how the layer's token budget is split among its heads
	// (Uniform, AdaKV) and, with Layer and Layers, among layers (Pyramid).
	Alloc         Alloc
	Layer, Layers int // this layer's index and the model's layer count (Pyramid; 0, 0 means one layer)

	// ValueWeight rescales an attention score by the value's norm ‖v‖
	// before ranking (CriticalKV's value-aware weighting) for the policies
	// whose score is attention (H2O, TOVA, SnapKV's vote does not use it).
	ValueWeight bool
	// Merge folds an evicted token's value into its kept neighbours,
	// weighted by attention (CaM), instead of dropping it.
	Merge bool

	Heads   int // query heads
	KVHeads int // key/value heads; Heads must be a multiple (grouped-query attention)
	Dim     int // dimensions per head

	// ArchWindow is the model architecture's own sliding window (Gemma 3's
	// local layers): before each step attends, every head drops the tokens
	// at positions ≤ pos − ArchWindow, whatever the policy keeps; such a
	// token's EvictedAt is exactly its position + ArchWindow. 0 for none.
	ArchWindow int

	MaxTokens int // longest history the layer will see; bounds Full, Chunk and SnapKV and the eviction record
	MaxPrompt int // longest prompt: tokens are only evicted once the prompt is over (except Seed000)

	// Keys and Values make each head's stores; nil stores float32 exactly.
	Keys, Values StoreMaker
}

// Budget is the most tokens a head holds after each decode step under a
// budgeted policy and the uniform allocator: the sum of the budget
// settings the policy reads (TokenBudget) — Recent alone for Window and
// Sink + Recent for Streaming, which have no scored part, so Heavy is not
// theirs to spend — and MaxTokens for the policies without a budget
// (Full, Chunk, SnapKV, Duo, Quest). Under Pyramid the layer's own budget
// differs (LayerBudget); under AdaKV heads differ but the layer's total is
// KVHeads·Budget().
func (c Config) Budget() int {
	if !c.Policy.valid() || !c.Policy.budgeted() {
		return c.MaxTokens
	}
	return c.budgetOf(c.Heavy)
}

// KeepsAll reports whether a layer of c never evicts from a history of n
// tokens: a budgeted policy under the uniform allocator, without merging,
// whose budget holds all n. Such a layer holds Full's tokens at every
// step, so attention over it is Full's; only its bookkeeping (index map,
// scores) differs (OverheadHolding).
func (c Config) KeepsAll(n int) bool {
	return c.Policy.valid() && c.Policy.budgeted() && c.Alloc == Uniform && !c.Merge && c.Budget() >= n
}

// budgetOf is the budget with heavy as the scored part.
func (c Config) budgetOf(heavy int) int {
	return c.sumOf(c.Policy.def().budget, heavy)
}

// Validate reports the first problem with c, or nil.
func (c Config) Validate() error {
	switch {
	case !c.Policy.valid():
		return fmt.Errorf("kv: unknown policy %d", c.Policy)
	case c.Heads <= 0 || c.KVHeads <= 0 || c.Dim <= 0:
		return fmt.Errorf("kv: heads (%d), kv heads (%d) and dim (%d) must be positive", c.Heads, c.KVHeads, c.Dim)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("kv: %d query heads cannot share %d kv heads evenly", c.Heads, c.KVHeads)
	case c.ArchWindow < 0:
		return fmt.Errorf("kv: architecture window %d must not be negative", c.ArchWindow)
	case c.Sink < 0 || c.Recent < 0 || c.Heavy < 0:
		return fmt.Errorf("kv: sink (%d), recent (%d) and heavy (%d) must not be negative", c.Sink, c.Recent, c.Heavy)
	case c.MaxTokens <= 0:
		return fmt.Errorf("kv: max tokens must be positive, got %d", c.MaxTokens)
	case c.MaxPrompt < 0 || c.MaxPrompt > c.MaxTokens:
		return fmt.Errorf("kv: max prompt %d must be in [0, max tokens %d]", c.MaxPrompt, c.MaxTokens)
	case c.Heads*c.Dim > 1<<20 || c.MaxTokens > 1<<24:
		return errors.New("kv: layer too large")
	}
	if err := c.validateAlloc(); err != nil {
		return err
	}
	d := c.Policy.def()
	if err := c.checkRanges(); err != nil {
		return err
	}
	if d.validate != nil {
		if err := d.validate(c); err != nil {
			return err
		}
	}
	if d.budgeted {
		if c.Budget() < 1 {
			return fmt.Errorf("kv: %s needs a budget of at least 1 token (%s = %d)", c.Policy, d.budget, c.Budget())
		}
		if d.sinks && c.Sink >= c.Budget() && d.params&ParamHeavy != 0 {
			return fmt.Errorf("kv: budget %d leaves no room beyond the %d sink tokens", c.Budget(), c.Sink)
		}
		if c.Alloc == Pyramid && c.Layers > 1 {
			// The smallest layer must still keep a token beyond its sinks.
			for l, h := range PyramidHeavy(c.Heavy, c.Layers, PyramidBeta) {
				if b := c.budgetOf(h); b < 1 || d.sinks && c.Sink >= b && d.params&ParamHeavy != 0 {
					return fmt.Errorf("kv: pyramid leaves layer %d a budget of %d tokens, no room beyond its %d sinks; raise heavy", l, b, c.Sink)
				}
			}
		}
	}
	if c.ValueWeight && d.params&ParamValueWeight == 0 {
		return fmt.Errorf("kv: value-aware weighting rescales an attention score; %s does not rank by attention", c.Policy)
	}
	if c.Merge && d.params&ParamMerge == 0 {
		return fmt.Errorf("kv: merging folds evicted values into kept ones; %s has no budget to evict to", c.Policy)
	}
	return nil
}

// Held returns what a layer of c holds at a history of n tokens, for
// projecting a run to a model's scale (the simulator's Project): tokens,
// the mean number of tokens a kv head keeps, and index, the mean number of
// index-map entries per kv head (4 bytes each, see Layer.IndexBytes). It
// is each policy's rule: the budget for the budgeted policies (an
// allocator moves tokens between heads and layers, not their mean), every
// token for Full and Quest, every token but each complete chunk's dropped
// share for Chunk, the compressed prompt and every generated token for
// SnapKV (c.MaxPrompt is the prompt), and for DuoAttention every token on
// its retrieval heads and Sink + Recent on its streaming heads. retrieval
// is DuoAttention's share of retrieval heads as a run classified them, or
// negative before it did (every head then keeps every token); other
// policies ignore it. Index entries are one per kept token and head, once
// per layer when the decision is shared (SharedDecision), none where the
// cache keeps its tokens in order (Full, Quest, Duo's retrieval heads).
// It returns 0, 0 for an unknown policy or n < 1, and costs O(1).
func (c Config) Held(n int, retrieval float64) (tokens, index float64) {
	if !c.Policy.valid() || n < 1 {
		return 0, 0
	}
	d := c.Policy.def()
	if d.held != nil {
		return d.held(c, n, retrieval)
	}
	tokens = float64(n)
	if d.budgeted {
		tokens = float64(min(n, c.Budget()))
	}
	return tokens, c.heldIndex(tokens)
}

// heldIndex is Held's index entries per kv head when every head keeps
// tokens tokens: none without an index map, one map per layer under a
// shared decision, else one per head.
func (c Config) heldIndex(tokens float64) float64 {
	switch {
	case c.Policy.def().noIndex:
		return 0
	case c.SharedDecision():
		return tokens / float64(max(c.KVHeads, 1))
	}
	return tokens
}

// SetBudget returns c with the settings its policy reads set so that a kv
// head keeps budget tokens of a history of MaxTokens tokens (MaxPrompt of
// them the prompt), with up to sink attention sinks: the one rule by which
// every policy is given a budget (the simulator's sweeps and recall tasks
// both ask it). budget is clamped to [1, MaxTokens] and the sinks to half
// of it, and Sink, Recent, Heavy and DropShare not set by the rule are 0:
//
//   - a policy with budget settings (TokenBudget: the sink, recent and
//     heavy settings it counts): the sinks if it counts Sink, and the
//     rest between Recent (the larger half) and Heavy where it counts
//     both, else all to the one it counts — window keeps the budget as
//     its window, streaming and duo's streaming heads sinks and a window;
//   - chunk: drops the share 1 − budget/MaxTokens of every chunk (at most
//     0.95), so it keeps about the same share;
//   - snapkv: keeps the same share of the prompt, half observation window
//     (at least 1 token), half voted tokens, and every generated token.
//
// It reports false, returning c unchanged, for a policy without a budget to
// set (full, quest), an unknown policy or MaxTokens < 1.
func (c Config) SetBudget(budget, sink int) (Config, bool) {
	if !c.Policy.valid() || c.MaxTokens < 1 {
		return c, false
	}
	d := c.Policy.def()
	if d.setBudget == nil && d.budget == 0 {
		return c, false
	}
	budget = min(max(budget, 1), c.MaxTokens)
	sink = min(max(sink, 0), budget/2)
	out := c
	out.Sink, out.Recent, out.Heavy, out.DropShare = 0, 0, 0, 0
	if d.setBudget != nil {
		if !d.setBudget(&out, budget, sink) {
			return c, false
		}
		return out, true
	}
	rest := budget
	if d.budget&ParamSink != 0 {
		out.Sink, rest = sink, budget-sink
	}
	switch d.budget & (ParamRecent | ParamHeavy) {
	case ParamRecent | ParamHeavy:
		out.Recent, out.Heavy = rest-rest/2, rest/2
	case ParamRecent:
		out.Recent = rest
	case ParamHeavy:
		out.Heavy = rest
	}
	return out, true
}

// capacity is the most tokens a head holds at once.
func (c Config) capacity() int {
	if !c.Policy.budgeted() {
		return c.MaxTokens
	}
	return min(c.MaxTokens, max(c.maxHeadBudget()+1, c.MaxPrompt))
}

// SharedDecision reports whether all heads of a layer of c share one
// eviction decision (one score per token, one index map for the layer):
// Shared, for the policies that honour it; always for Seed000; never for
// the policies that decide per head whatever Shared says (SnapKV, as its
// reference does; DuoAttention, whose heads differ by design; Quest). It
// is the one rule: the simulator's projection asks it too.
func (c Config) SharedDecision() bool {
	d := c.Policy.def()
	return c.Shared && !d.neverShared || d.alwaysShared
}

// keepsSinks reports whether positions < Sink are pinned.
func (c Config) keepsSinks() bool { return c.Policy.def().sinks && c.Sink > 0 }

// keepsRecent reports whether the Recent newest tokens are pinned.
func (c Config) keepsRecent() bool { return c.Policy.def().recent && c.Recent > 0 }
