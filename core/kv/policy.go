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

// The eviction policies. Budgeted policies hold at most Sink+Recent+Heavy
// tokens per head after every step.
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
