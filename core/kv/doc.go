// Package kv is kvscope's compressed key/value cache: per layer and per
// key/value head it holds the tokens an eviction policy keeps under a token
// budget, stores their keys and values through a Store (exact, FP16,
// quantized or low-rank), and records each token's original position,
// accumulated attention score, role and, once evicted, when it left.
//
// A policy is a scorer — a score per cached token of a key/value head,
// higher keeps — plus what it protects (attention sinks, a recent window).
// How many tokens each head may keep is the budget allocator's choice
// (Alloc: uniform, AdaKV or PyramidKV), separate from the scorer, so any
// allocator composes with any scorer. Each policy lives in its own file
// (h2o.go, tova.go, …), whose doc comment states its rule, parameters and
// paper, and which defines it once: its Description (name, label, help,
// paper, colour, the settings it reads and their ranges, how its budget is
// counted and set, what it keeps at a history) and the hooks the Layer
// calls. Everything else — the simulator, the page, the command line —
// asks the description (Policy.Describe, Config.Keeps, Config.Held,
// Config.SetBudget) instead of naming policies. A scoring policy defined
// outside kv plugs in the same way with Register.
//
// A decoding loop feeds a Layer one token at a time with Step (or a whole
// prompt with Prefill). Every per-step operation costs O(budget·dim) and
// allocates nothing once the Layer is built.
//
// # The policies
//
// Each row is one file; its doc comment gives the rule and the paper, its
// Description the settings it reads and their ranges.
//
//   - full (full.go): every token, the uncompressed baseline.
//   - window (window.go): the -recent newest tokens only; once the first
//     tokens leave, the attention that rested on them has nowhere to go —
//     watch it collapse.
//   - streaming (streaming.go, StreamingLLM): the first Sink tokens
//     (attention sinks) and a recent window; many heads park most of
//     their attention on the first tokens.
//   - h2o (h2o.go, H2O): the heavy hitters by accumulated attention and a
//     recent window; a few tokens receive most attention over time.
//   - tova (tova.go, TOVA): drops the token the current query attends to
//     least; no accumulation, no pinned tokens unless asked.
//   - knorm (knorm.go): keeps low-norm keys; needs no attention weights.
//   - chunk (chunk.go, seed 004): per chunk of ChunkSize tokens, drops the
//     DropShare with the lowest key norm; no token budget.
//   - random (random.go): the control experiment.
//   - snapkv (snapkv.go, SnapKV): the prompt's last queries vote which
//     prompt tokens stay; compresses the prefill only.
//   - seed000 (seed000.go): sinks + H2O + recent with one shared decision,
//     seed 000's cache reproduced decision for decision (golden_test.go).
//   - expected (expected.go, ExpectedAttention, kvpress's default): scores
//     keys by the attention future queries are expected to pay, from the
//     recent queries' mean and covariance, × ‖v‖; it looks ahead instead of
//     back, and on a stream whose query noise is unrelated to the keys its
//     variance term rewards noise.
//   - keydiff (keydiff.go, KeyDiff): keeps the keys least like the mean key
//     direction; needs no attention weights.
//   - duo (duo.go, DuoAttention): retrieval heads keep everything,
//     streaming heads sinks + window, heads told apart on the fly (right
//     for about 80 % of the synthetic stream's heads).
//   - quest (quest.go, Quest): keeps everything in pages with per-channel
//     key bounds; each query reads its best pages — it saves attention
//     work, not memory.
//
// Besides the scorers: the allocators (alloc.go: Uniform, AdaKV, which
// splits a layer's budget unevenly between heads, and PyramidKV, between
// layers), merging evicted values into their neighbours (merge.go, CaM)
// and value-aware weighting of attention scores (Config.ValueWeight,
// CriticalKV) compose with every budgeted policy.
//
// # Adding a policy
//
// A scoring policy is one file, in any package: a Description and a keep
// rule given to Register from a package variable or init.
// core/cmd/kvscope/plugin_test.go registers one from a test file and finds
// it in the command line's help, the page's menus, controls and chart, and
// the simulator's projection, with no other file changed. A policy that
// needs hooks of its own into the Layer (its own state, attention or
// eviction) is a file here, defined as the built-in ones are (its constant
// in policy.go's list, a define call in its init). describe_test.go checks
// every description; named_test.go that nothing outside kv names a policy.
package kv
