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
//     streaming heads sinks + window, heads told apart on the fly.
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
// # What they keep at equal budget
//
// On the page's default stream (core/synth: 512 tokens, 8 heads × 32
// dims, two seeds), stored in float32 so that only eviction differs, each
// policy keeps 64 tokens a head: 4 sinks, 32 recent tokens and 28 by
// score (a window the 64 newest; streaming 4 sinks and 60 recent). Each
// figure is the mean, over the decode steps after the cache first
// filled, of attention mass kept, output error and attention KL against
// the uncompressed history:
//
//	policy                mass   output error   KL (nats)
//	h2o                   0.852  0.092          0.257
//	h2o -alloc adakv      0.865  0.091          0.220
//	h2o -vweight          0.852  0.092          0.251
//	h2o -merge            0.852  0.133          0.258
//	seed000               0.795  0.140          0.346
//	tova                  0.784  0.146          0.382
//	tova -merge           0.784  0.139          0.382
//	keydiff               0.770  0.153          0.367
//	keydiff -merge        0.770  0.179          0.376
//	expected              0.590  0.292          0.818
//	expected -alloc adakv 0.550  0.323          0.992
//	knorm                 0.521  0.363          1.043
//	knorm -merge          0.521  0.370          1.066
//	random                0.436  0.428          1.307
//	streaming             0.428  0.434          1.347
//	window                0.219  0.861          2.406
//
// (go test -count=1 -run 'TestPoliciesTeachTheLesson|TestScorersAtEqualBudget'
// -v ./core/sim; the flags are the command line's.) Attention-aware
// eviction keeps most of the attention mass; a bare window loses it as
// soon as the sinks leave, and sinks alone bring back part of it. AdaKV's
// gain is the heads' difference: 0.852 → 0.865 here, 0.817 → 0.821 on a
// stream with no retrieval heads and no sinks (TestAdaKVTeachesTheLesson).
// DuoAttention keeps 0.632 of the true retrieval heads' attention against
// StreamingLLM's 0.528 with at least as much memory; its rule (a head whose
// attention outside its sinks and window exceeds 1.5× the layer's mean is
// a retrieval head) is right for 19 of 24 heads over three seeds, where
// calling every head streaming would be right for 18
// (TestDuoTeachesTheLesson). Quest at 80 attended tokens keeps 0.904 of the
// attention with pages of 4, more than any eviction policy at a budget of
// 80 (H2O 0.890), but 0.684 with pages of 16: a page is taken whole and
// this stream's important tokens are scattered; its page bounds are
// counted (131,072 bytes at pages of 4; TestQuestTeachesTheLesson). Each of
// these runs with the same command, -run naming the test.
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
