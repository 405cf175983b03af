package kv

import (
	"fmt"
	"strings"
)

// Policy chooses which tokens stay in the cache.
type Policy uint8

// The eviction policies, one file each. Budgeted policies hold at most
// Config.Budget() tokens per head after every step (under the uniform
// allocator): the sum of the sink, recent and heavy settings the policy
// reads (Params).
const (
	// Full keeps every token: the uncompressed baseline (full.go).
	Full Policy = iota
	// Window keeps the Recent newest tokens and nothing else (window.go).
	Window
	// Streaming (StreamingLLM) keeps the first Sink tokens and the Recent
	// newest (streaming.go).
	Streaming
	// H2O keeps heavy hitters by accumulated attention (h2o.go).
	H2O
	// TOVA drops the token the current query attends to least (tova.go).
	TOVA
	// Knorm keeps low-L2-norm keys (knorm.go).
	Knorm
	// Chunk drops the lowest-norm share of every complete chunk (chunk.go).
	Chunk
	// Random evicts a uniformly chosen unprotected token (random.go).
	Random
	// SnapKV compresses the prompt by an observation window's vote (snapkv.go).
	SnapKV
	// Seed000 is seed 000's combined cache exactly (seed000.go).
	Seed000
	// Expected (ExpectedAttention) keeps the keys future queries are
	// expected to attend to, times the value's norm (expected.go).
	Expected
	// KeyDiff keeps the keys least like the mean key (keydiff.go).
	KeyDiff
	// Duo (DuoAttention) gives retrieval heads the full cache and streaming
	// heads sinks + recent, classifying heads on the fly (duo.go).
	Duo
	// Quest evicts nothing and lets each query attend to its best pages
	// only (quest.go).
	Quest
	// KVzip compresses the prompt once by how much repeating it needs each
	// token (kvzip.go).
	KVzip
	numPolicies
)

// policyDef is what a policy is: its Description, what it protects, and
// the hooks the Layer calls. A nil hook means the default stated beside
// it. Hooks run inside Step and must allocate nothing.
type policyDef struct {
	desc   Description
	params Param // the settings desc.Reads names
	budget Param // the settings that add up to its token budget (Setting.Budget)

	budgeted      bool                                   // evicts down to a token budget per head after every decode step (desc.Budgeted)
	sinks, recent bool                                   // positions < Sink, and the Recent newest tokens, are never evicted
	scoredRole    Role                                   // role of a token kept for its score (outside the windows)
	keyNorms      bool                                   // keep ‖k‖ of each token as it arrived (head.norm)
	valueNorms    bool                                   // keep ‖v‖ of each token as it arrived (head.vnorm)
	latest        bool                                   // the score is the latest attention alone (TOVA): Update replaces scores instead of adding
	oneScore      bool                                   // one score for all heads, kept in head 0 (Seed000)
	alwaysShared  bool                                   // one decision for all heads whatever Config.Shared (Seed000)
	neverShared   bool                                   // one decision per head whatever Config.Shared (SnapKV)
	inPrompt      bool                                   // also evicts while the prompt lasts (Seed000)
	stateBytes    int                                    // bytes of policy state per cached token and head (once when shared)
	validate      func(c Config) error                   // rules beyond its settings' ranges; nil: none
	setup         func(l *Layer)                         // allocate the policy's state; nil: none
	reset         func(l *Layer)                         // empty the policy's state; nil: none
	arrive        func(l *Layer, g int, k []float32)     // a token entered head g (after the generic per-token state)
	observe       func(l *Layer, q []float32, pos int)   // after attention: accumulate scores, gather statistics
	rescore       func(l *Layer)                         // before evicting: bring every head's scores up to date
	keep          func(l *Layer, h *head, i int) float64 // the keep score of token i; nil: h.score[i]
	victim        func(l *Layer, g, lo, hi int) int      // uniform allocator's victim among [lo, hi); nil: lowest keep
	attend        func(l *Layer, q, out []float32)       // attention; nil: over every cached token
	endPrompt     func(l *Layer)                         // the prompt ended; nil: evict down to budget if budgeted
	evict         func(l *Layer, pos int)                // after each step; nil: evict down to budget if budgeted
	extraBytes    func(l *Layer) int64                   // policy state not per token (page bounds, statistics)
	role          func(l *Layer, g, i int) Role          // role of head g's i-th token; nil: sink, recent or scoredRole
	roles         []Role                                 // the roles role gives (with a role hook)
	noIndex       bool                                   // keeps every token in order: no index map (Full, Quest)
	indexedHead   func(l *Layer, g int) bool             // whether head g needs an index map; nil: every head does
	// held is Config.Held's rule: the mean tokens a kv head keeps at a
	// history of n tokens and the mean index entries per kv head (see
	// Held); nil: every token for a policy without a budget, else the
	// budget, each indexed (heldIndex).
	held func(c Config, n int, retrieval float64) (tokens, index float64)
	// setBudget is SetBudget's rule for a policy whose budget is not the
	// sum of its budget settings: it sets c's settings from the budget
	// and sink count (both checked) and reports whether it could; nil: the
	// rule for the budget settings (SetBudget), none for a policy without.
	setBudget func(c *Config, budget, sink int) bool
	// keeps is Config.Keeps's text; nil: the budget settings' sum.
	keeps func(c Config) string
}

// registry holds every policy's definition, indexed by Policy: the
// built-in ones at their constants (defined by their files' init), then
// the registered ones.
var registry []*policyDef

// define registers built-in policy p; each policy's file calls it from
// init. d.desc.Reads gives d.params and d.budget.
func define(p Policy, d *policyDef) {
	for len(registry) <= int(p) {
		registry = append(registry, nil)
	}
	if registry[p] != nil {
		panic("kv: policy " + d.desc.Name + " defined twice")
	}
	for _, o := range registry {
		if o != nil && (o.desc.Name == d.desc.Name || o.desc.Color == d.desc.Color) {
			panic("kv: policy " + d.desc.Name + " defined twice, or in " + o.desc.Name + "'s colour")
		}
	}
	d.desc.Budgeted = d.budgeted
	sortReads(d.desc.Reads)
	for _, s := range d.desc.Reads {
		d.params |= s.Param
		if s.Budget {
			d.budget |= s.Param
		}
	}
	registry[p] = d
}

// valid reports whether p is a defined policy.
func (p Policy) valid() bool { return int(p) < len(registry) && registry[p] != nil }

// def returns p's definition; p must be valid.
func (p Policy) def() *policyDef { return registry[p] }

// String returns the policy's name as ParsePolicy accepts it.
func (p Policy) String() string {
	if p.valid() {
		return registry[p].desc.Name
	}
	return fmt.Sprintf("Policy(%d)", p)
}

// Policies returns every policy: the built-in ones in declaration order,
// then the registered ones in the order they were registered.
func Policies() []Policy {
	ps := make([]Policy, 0, len(registry))
	for i := range registry {
		if Policy(i).valid() {
			ps = append(ps, Policy(i))
		}
	}
	return ps
}

// ParsePolicy returns the policy with the given name (case-insensitive).
// It allocates nothing when it finds one.
func ParsePolicy(name string) (Policy, error) {
	for i, d := range registry {
		if d != nil && strings.EqualFold(name, d.desc.Name) {
			return Policy(i), nil
		}
	}
	var names []string
	for _, p := range Policies() {
		names = append(names, p.String())
	}
	return 0, fmt.Errorf("kv: unknown policy %q (want one of %s)", name, strings.Join(names, ", "))
}

// budgeted reports whether the policy evicts down to a budget per head.
func (p Policy) budgeted() bool { return p.def().budgeted }

// Param is a set of the Config settings a policy reads.
type Param uint16

// The settings a policy may read.
const (
	ParamSink        Param = 1 << iota // Config.Sink
	ParamRecent                        // Config.Recent
	ParamHeavy                         // Config.Heavy
	ParamChunk                         // Config.ChunkSize
	ParamDrop                          // Config.DropShare
	ParamShared                        // Config.Shared
	ParamSeed                          // Config.Seed
	ParamPages                         // Config.Pages
	ParamPageSize                      // Config.PageSize
	ParamAlloc                         // Config.Alloc (an allocator other than Uniform), Layer and Layers
	ParamMerge                         // Config.Merge
	ParamValueWeight                   // Config.ValueWeight
)

var paramNames = [...]string{"sink", "recent", "heavy", "chunk", "drop", "shared", "seed", "pages", "pagesize", "alloc", "merge", "vweight"}

// String lists the settings by their short names, joined by "+", or "none".
func (p Param) String() string {
	var names []string
	for i, n := range paramNames {
		if p&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// Params returns the settings policy p reads (its Description's Reads);
// the others change nothing it does. A budgeted policy's budget is the
// sum of its budget settings (see Config.Budget).
func (p Policy) Params() Param {
	if !p.valid() {
		return 0
	}
	return p.def().params
}

// budgetParams are the settings that may add up to a budget.
const budgetParams = ParamSink | ParamRecent | ParamHeavy
