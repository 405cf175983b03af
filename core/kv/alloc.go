package kv

import (
	"fmt"
	"math"
	"strings"
)

// Alloc is a budget allocator: how many tokens each head of each layer
// keeps. It composes with any budgeted policy's scorer.
type Alloc uint8

// The allocators.
const (
	// Uniform gives every head of every layer the same budget,
	// Config.Budget(): what kvscope always did.
	Uniform Alloc = iota
	// AdaKV (Feng et al., "Ada-KV: Optimizing KV Cache Eviction by Adaptive
	// Budget Allocation", arXiv 2407.11550) pools the budgets of a layer's
	// heads: each head keeps its sinks, its recent window and its top
	// α·Heavy scored tokens (α = AdaAlpha, a safeguard), and the rest of the
	// layer's scored budget, (1−α)·Heavy·KVHeads, goes to the best scores
	// across all heads of the layer, so heads whose attention is spread
	// keep more than heads whose attention is concentrated. The layer's
	// total stays KVHeads·Budget(). It needs per-head decisions (not Shared).
	AdaKV
	// Pyramid (Cai et al., "PyramidKV: Dynamic KV Cache Compression based
	// on Pyramidal Information Funneling", arXiv 2406.02069) gives lower
	// layers more: with an average scored budget Heavy, layer l of L keeps
	// max − l·(max−min)/(L−1) scored tokens, where min = Heavy/β, max =
	// 2·Heavy − min and β = PyramidBeta (kvpress's formula), rounded so that
	// the layers' total is exactly L·Heavy; the sinks and recent window are
	// kept in every layer as before. One layer is Uniform.
	Pyramid
	numAllocs
)

// AdaKV's safeguard share and PyramidKV's β, as kvpress sets them.
const (
	AdaAlpha    = 0.2
	PyramidBeta = 20
)

var allocNames = [...]string{Uniform: "uniform", AdaKV: "adakv", Pyramid: "pyramid"}

// allocLabels are the allocators' names for menus.
var allocLabels = [...]string{Uniform: "uniform", AdaKV: "AdaKV (per head)", Pyramid: "PyramidKV (per layer)"}

// Allocs returns every allocator, in declaration order.
func Allocs() []Alloc {
	out := make([]Alloc, numAllocs)
	for i := range out {
		out[i] = Alloc(i)
	}
	return out
}

// Label returns the allocator's name for a menu: "AdaKV (per head)".
func (a Alloc) Label() string {
	if a < numAllocs {
		return allocLabels[a]
	}
	return a.String()
}

// String returns the allocator's name as ParseAlloc accepts it.
func (a Alloc) String() string {
	if a < numAllocs {
		return allocNames[a]
	}
	return fmt.Sprintf("Alloc(%d)", a)
}

// ParseAlloc returns the allocator with the given name (case-insensitive;
// "" is Uniform).
func ParseAlloc(name string) (Alloc, error) {
	if name == "" {
		return Uniform, nil
	}
	for i, n := range allocNames {
		if strings.EqualFold(name, n) {
			return Alloc(i), nil
		}
	}
	return 0, fmt.Errorf("kv: unknown allocator %q (want one of %s)", name, strings.Join(allocNames[:], ", "))
}

// validateAlloc checks the allocator against the rest of c.
func (c Config) validateAlloc() error {
	switch {
	case c.Alloc >= numAllocs:
		return fmt.Errorf("kv: unknown allocator %d", c.Alloc)
	case c.Layers < 0 || c.Layer < 0 || c.Layers > 0 && c.Layer >= c.Layers:
		return fmt.Errorf("kv: layer %d out of range [0, %d)", c.Layer, c.Layers)
	case c.Alloc == Uniform:
		return nil
	case c.Policy.def().params&ParamAlloc == 0:
		return fmt.Errorf("kv: the %s allocator splits a token budget; %s has none", c.Alloc, c.Policy)
	case c.Alloc == AdaKV && c.SharedDecision():
		return fmt.Errorf("kv: adakv gives heads unequal budgets; it cannot share one decision for all heads (%s, shared %v)", c.Policy, c.Shared)
	}
	return nil
}

// PyramidHeavy returns the scored budget of each of layers layers under
// PyramidKV with average heavy and factor beta: falling linearly from the
// first layer to the last, summing to exactly layers·heavy.
func PyramidHeavy(heavy, layers int, beta float64) []int {
	out := make([]int, layers)
	if layers <= 1 {
		for i := range out {
			out[i] = heavy
		}
		return out
	}
	lo := float64(heavy) / beta
	hi := 2*float64(heavy) - lo
	step := (hi - lo) / float64(layers-1)
	// Round the running sum, so the parts add up to the rounded total.
	var cum float64
	prev := 0
	for l := range out {
		cum += hi - float64(l)*step
		r := int(math.Round(cum))
		out[l] = r - prev
		prev = r
	}
	return out
}

// layerHeavy is this layer's scored budget under c's allocator.
func (c Config) layerHeavy() int {
	if c.Alloc != Pyramid || c.Layers <= 1 {
		return c.Heavy
	}
	return PyramidHeavy(c.Heavy, c.Layers, PyramidBeta)[c.Layer]
}

// LayerBudget is the most tokens a head of this layer holds after each
// decode step under a budgeted policy (on average over heads under AdaKV);
// MaxTokens for the policies without a budget.
func (c Config) LayerBudget() int {
	if !c.Policy.valid() || !c.Policy.budgeted() {
		return c.MaxTokens
	}
	return c.budgetOf(c.layerHeavy())
}

// headFloor is the fewest tokens AdaKV leaves a head once the layer is
// full: its protected windows and its top α share of the scored budget.
func (c Config) headFloor() int {
	b := c.LayerBudget()
	heavy := b - c.budgetOf(0)
	return b - heavy + int(math.Ceil(AdaAlpha*float64(heavy)))
}

// maxHeadBudget is the most tokens one head may hold after a step.
func (c Config) maxHeadBudget() int {
	b := c.LayerBudget()
	if c.Alloc == AdaKV {
		return b*c.KVHeads - (c.KVHeads-1)*c.headFloor()
	}
	return b
}

// HeadBudget returns the most tokens head g keeps after the current step:
// the layer's budget under Uniform and Pyramid; under AdaKV the tokens the
// head holds, its share of the layer's pool; under Duo, Sink + Recent for
// a streaming head and every token for a retrieval head (and for every
// head before they are classified); Len for the policies without a budget.
func (l *Layer) HeadBudget(g int) int {
	switch {
	case l.def.budgeted && l.cfg.Alloc != AdaKV:
		return l.budget
	case l.cfg.Policy == Duo:
		if r := l.RetrievalHeads(); r != nil && !r[g] {
			return l.cfg.Sink + l.cfg.Recent
		}
	}
	return len(l.heads[g].pos)
}
