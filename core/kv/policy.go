// Package kv is kvscope's compressed key/value cache: per layer and per
// key/value head it holds the tokens an eviction policy keeps under a token
// budget, stores their keys and values through a Store (exact, FP16,
// quantized or low-rank), and records each token's original position,
// accumulated attention score, role and, once evicted, when it left.
//
// A decoding loop feeds a Layer one token at a time with Step (or a whole
// prompt with Prefill). Every per-step operation costs O(budget·dim) and
// allocates nothing once the Layer is built.
package kv

import (
	"fmt"
	"strings"
)

// Policy chooses which tokens stay in the cache.
type Policy uint8

// The eviction policies. Budgeted policies hold at most Config.Budget()
// tokens per head after every step: the sum of the sink, recent and heavy
// settings the policy reads (Params).
const (
	// Full keeps every token: the uncompressed baseline.
	Full Policy = iota
	// Window keeps the Recent newest tokens and nothing else. Once the first
	// tokens leave, attention that sank into them has nowhere to go.
	Window
	// Streaming (StreamingLLM) keeps the first Sink tokens and the Recent newest.
	Streaming
	// H2O keeps the Recent newest tokens plus, per head, the Heavy tokens with
	// the largest accumulated post-softmax attention (self-attention included:
	// a new token starts with the attention it receives in its own step).
	// Sink > 0 additionally pins the first Sink positions.
	H2O
	// TOVA drops, whenever the cache is over budget, the token that the
	// current query attends to least. Sink and Recent, when set, are protected.
	TOVA
	// Knorm keeps low-L2-norm keys: over budget, the highest-norm key outside
	// the sink and recent windows goes. It needs no attention weights.
	Knorm
	// Chunk (seed 004) splits the history into chunks of ChunkSize positions
	// and, when a chunk is complete, drops the DropShare of its keys with the
	// lowest L2 norm. It has no token budget.
	Chunk
	// Random evicts a uniformly chosen token outside the sink and recent
	// windows, from a seeded generator: the baseline a real policy must beat.
	Random
	// SnapKV compresses the prompt only: the last Recent prompt queries (the
	// observation window) vote, with average pooling over 5 positions, for
	// Heavy prompt tokens per head; the window is kept too. Generated tokens
	// are never evicted.
	SnapKV
	// Seed000 is seed 000's combined cache exactly: attention over the cache
	// as it was before the new token, averaged over all heads of the layer,
	// accumulates into one shared score; the new token enters with score 0;
	// over budget it keeps positions < Sink, the Recent newest others and the
	// Heavy best-scored of the rest. One decision for all heads.
	Seed000
	numPolicies
)

var policyNames = [...]string{
	Full: "full", Window: "window", Streaming: "streaming", H2O: "h2o", TOVA: "tova",
	Knorm: "knorm", Chunk: "chunk", Random: "random", SnapKV: "snapkv", Seed000: "seed000",
}

// String returns the policy's name as ParsePolicy accepts it.
func (p Policy) String() string {
	if p < numPolicies {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", p)
}

// Policies returns every policy, in declaration order.
func Policies() []Policy {
	ps := make([]Policy, numPolicies)
	for i := range ps {
		ps[i] = Policy(i)
	}
	return ps
}

// ParsePolicy returns the policy with the given name (case-insensitive).
func ParsePolicy(name string) (Policy, error) {
	for i, n := range policyNames {
		if strings.EqualFold(name, n) {
			return Policy(i), nil
		}
	}
	return 0, fmt.Errorf("kv: unknown policy %q (want one of %s)", name, strings.Join(policyNames[:], ", "))
}

// budgeted reports whether the policy evicts down to Sink+Recent+Heavy.
func (p Policy) budgeted() bool {
	switch p {
	case Full, Chunk, SnapKV:
		return false
	}
	return true
}

// Param is a set of the Config settings a policy reads.
type Param uint16

// The settings a policy may read.
const (
	ParamSink   Param = 1 << iota // Config.Sink
	ParamRecent                   // Config.Recent
	ParamHeavy                    // Config.Heavy
	ParamChunk                    // Config.ChunkSize
	ParamDrop                     // Config.DropShare
	ParamShared                   // Config.Shared
	ParamSeed                     // Config.Seed
)

var paramNames = [...]string{"sink", "recent", "heavy", "chunk", "drop", "shared", "seed"}

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

// budgetFormula is the sum that makes the token budget of a policy
// reading p.
func (p Param) budgetFormula() string {
	return (p & (ParamSink | ParamRecent | ParamHeavy)).String()
}

// Params returns the settings policy p reads; the others change nothing
// it does. A budgeted policy's budget is the sum of the sink, recent and
// heavy settings it reads (see Config.Budget).
func (p Policy) Params() Param {
	const budget = ParamSink | ParamRecent | ParamHeavy
	switch p {
	case Window:
		return ParamRecent
	case Streaming:
		return ParamSink | ParamRecent
	case H2O, TOVA, Knorm:
		return budget | ParamShared
	case Random:
		return budget | ParamShared | ParamSeed
	case Chunk:
		return ParamChunk | ParamDrop | ParamShared
	case SnapKV:
		return ParamRecent | ParamHeavy
	case Seed000:
		return budget
	}
	return 0
}
