package kv

import (
	"errors"
	"fmt"
	"math"
)

// Config configures the cache of one layer.
type Config struct {
	Policy Policy
	Sink   int // positions < Sink are attention sinks, never evicted (policies that keep sinks)
	Recent int // newest tokens always kept (and SnapKV's observation window)
	Heavy  int // tokens kept for their score (heavy hitters, low norms, random picks…)

	ChunkSize int     // Chunk: positions per chunk
	DropShare float64 // Chunk: share of each complete chunk dropped, in [0, 1)

	// Shared makes one eviction decision for all heads of the layer from
	// their mean score, as seed 000 does; otherwise each key/value head
	// decides on its own (H2O's reference). Seed000 is always shared;
	// SnapKV always decides per head.
	Shared bool
	Seed   uint64 // Random policy's generator

	Heads   int // query heads
	KVHeads int // key/value heads; Heads must be a multiple (grouped-query attention)
	Dim     int // dimensions per head

	MaxTokens int // longest history the layer will see; bounds Full, Chunk and SnapKV and the eviction record
	MaxPrompt int // longest prompt: tokens are only evicted once the prompt is over (except Seed000)

	// Keys and Values make each head's stores; nil stores float32 exactly.
	Keys, Values StoreMaker
}

// Budget is the most tokens a head holds after each decode step under a
// budgeted policy: Sink + Recent + Heavy, except Recent alone for Window
// and Sink + Recent for Streaming (which have no scored part, so Heavy is
// not theirs to spend); MaxTokens for Full, Chunk and SnapKV.
func (c Config) Budget() int {
	switch c.Policy {
	case Window:
		return c.Recent
	case Streaming:
		return c.Sink + c.Recent
	case Full, Chunk, SnapKV:
		return c.MaxTokens
	}
	return c.Sink + c.Recent + c.Heavy
}

// Validate reports the first problem with c, or nil.
func (c Config) Validate() error {
	switch {
	case c.Policy >= numPolicies:
		return fmt.Errorf("kv: unknown policy %d", c.Policy)
	case c.Heads <= 0 || c.KVHeads <= 0 || c.Dim <= 0:
		return fmt.Errorf("kv: heads (%d), kv heads (%d) and dim (%d) must be positive", c.Heads, c.KVHeads, c.Dim)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("kv: %d query heads cannot share %d kv heads evenly", c.Heads, c.KVHeads)
	case c.Sink < 0 || c.Recent < 0 || c.Heavy < 0:
		return fmt.Errorf("kv: sink (%d), recent (%d) and heavy (%d) must not be negative", c.Sink, c.Recent, c.Heavy)
	case c.MaxTokens <= 0:
		return fmt.Errorf("kv: max tokens must be positive, got %d", c.MaxTokens)
	case c.MaxPrompt < 0 || c.MaxPrompt > c.MaxTokens:
		return fmt.Errorf("kv: max prompt %d must be in [0, max tokens %d]", c.MaxPrompt, c.MaxTokens)
	case c.Heads*c.Dim > 1<<20 || c.MaxTokens > 1<<24:
		return errors.New("kv: layer too large")
	}
	switch c.Policy {
	case Window:
		if c.Recent < 1 {
			return errors.New("kv: window policy needs a recent window of at least 1 token")
		}
	case Chunk:
		if c.ChunkSize < 1 {
			return fmt.Errorf("kv: chunk size must be at least 1, got %d", c.ChunkSize)
		}
		if math.IsNaN(c.DropShare) || c.DropShare < 0 || c.DropShare >= 1 {
			return fmt.Errorf("kv: drop share must be in [0, 1), got %v", c.DropShare)
		}
	case SnapKV:
		if c.Recent < 1 || c.Heavy < 0 {
			return errors.New("kv: snapkv needs an observation window (recent) of at least 1 token")
		}
	case Full:
	default:
		if c.Budget() < 1 {
			return fmt.Errorf("kv: %s needs a budget of at least 1 token (%s = %d)", c.Policy, c.Policy.Params().budgetFormula(), c.Budget())
		}
		if c.Sink >= c.Budget() && c.Policy != Streaming {
			return fmt.Errorf("kv: budget %d leaves no room beyond the %d sink tokens", c.Budget(), c.Sink)
		}
	}
	return nil
}

// capacity is the most tokens a head holds at once.
func (c Config) capacity() int {
	if !c.Policy.budgeted() {
		return c.MaxTokens
	}
	return min(c.MaxTokens, max(c.Budget()+1, c.MaxPrompt))
}

// sharedDecision reports whether all heads share one eviction decision.
// SnapKV always selects per head, as its reference does.
func (c Config) sharedDecision() bool {
	return c.Shared && c.Policy != SnapKV || c.Policy == Seed000
}

// keepsSinks reports whether positions < Sink are pinned.
func (c Config) keepsSinks() bool {
	switch c.Policy {
	case Streaming, H2O, TOVA, Knorm, Random, Seed000:
		return c.Sink > 0
	}
	return false
}

// keepsRecent reports whether the Recent newest tokens are pinned.
func (c Config) keepsRecent() bool {
	switch c.Policy {
	case Window, Streaming, H2O, TOVA, Knorm, Random, Seed000:
		return c.Recent > 0
	}
	return false
}
