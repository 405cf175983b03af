// Package sim runs kvscope's compressed KV cache (core/kv over
// core/store) on a stream of queries, keys and values and measures what the
// compression costs: the bytes it holds and how far attention through it
// strays from attention over the uncompressed history. The page, the
// command line and the lessons all drive it; it renders nothing.
//
// # One run
//
// A Config is every setting of a run: the synthetic stream (synth), the
// eviction policy and its budget, and the storage of what stays. New
// validates it and builds an Engine; Engine.Step decodes one token through
// every layer (allocating nothing), and on reference steps (RefStride)
// compares the compressed attention with the uncompressed one: Metrics.
// Engine.Snapshot is everything a viewer draws for one step of one layer
// (each cell's role, storage, scores and attention; Memory itemized).
//
//   - config.go, build.go: the Config, its validation, and how it becomes
//     a kv.Config and the key and value store.Configs (storageopts.go for
//     the rotation, quantizer, outlier and sink options);
//   - engine.go, caches.go, fill.go, snapshot.go: the run and what it
//     measures (caches keeps each token's original beside the cache to
//     measure storage error, never counted as its memory);
//   - stream.go, refshare.go: the recorded stream and its reference, shared
//     by every engine over the same stream settings and by the page's
//     workers (The reference, below);
//   - replay.go: an engine over a recorded trace (core/trace) instead of
//     the synthetic stream.
//
// # The reference
//
// Fidelity is measured against attention over the whole uncompressed
// history, which costs Heads × history × HeadDim multiply-adds twice per
// layer and step (2.1 M at 4,096 tokens on the page's default stream).
// It depends only on the stream, not on the cache, so a Stream computes
// it once per position and every later run over the same stream (a replay
// after a compression setting moves, the other side of a comparison)
// measures itself against the recording in O(Heads·Budget·HeadDim), with
// the same numbers bit for bit; RefStride samples it on long runs. The
// page's workers compute a long stream's references in blocks from its
// end down while the page decodes from the start (refshare.go;
// TestImportedReferenceIsTheSameRun). The reference's logits and
// weighted sums are core/internal/kernels' ScoresF32 and WeightedSumF32,
// so the page computes them with WebAssembly SIMD and native code with
// SSE2, the same bits on every path; BenchmarkReference measures it.
//
// # Real models
//
// ModelCache is a model.Cache backed by the same compressed cache, fed a
// real model's attention (core/model); ModelRun decodes a prompt twice,
// uncompressed and compressed, and compares the texts and the next-token
// distributions; ModelRun.Perplexity scores what it decoded.
// CalibrateModel learns the ranges and bases calibrated storage needs.
//
// Two things the real model shows, both on stories260K:
//
//   - Recall tasks (task.go) score a model by teacher-forced
//     log-probability (nats per answer token; 0 is perfect) on copy
//     (random tokens, then the same again), name (a rare multi-token name
//     introduced, then needed again) and magic ("The magic word is …",
//     asked later), with filler around the needle at a chosen depth. The
//     context is compressed once when it ends, as kvpress does, then the
//     answer is read through the compressed cache. With the full cache (go
//     test -run '^$' -bench TaskLevels -benchtime 1x ./core/sim: 8 seeds,
//     256 tokens, depths 0 / 0.5 / 1), copy scores −13.01 / −12.98 /
//     −12.64 against −13.08 / −13.03 / −12.73 without the needle (top-1
//     about 1 %), name −5.68 / −4.91 / −4.76 against −6.20 / −6.18 /
//     −5.92 (top-1 9 / 35 / 36 %), magic −4.33 / −4.31 / −4.26 against
//     −4.37 / −4.36 / −4.33 (16 %): a 260K-parameter model cannot copy
//     random tokens and the magic word barely moves it, but name recall
//     uses the needle, and with the needle evicted it falls from −4.93 to
//     −5.71, close to the no-needle −5.88 (TestEvictingTheNeedle).
//   - Sink heads (sink.go: Gu et al., ICLR 2025, position 0's attention
//     importance Σ_q A[q,0]/T per layer and head; a sink head exceeds 0.3):
//     the synthetic stream has them (at sink strength 0 / 1 / 4, 0 / 41 /
//     100 % of heads, TestEngineSinkShare), stories260K has none — 0 of 40
//     heads on 64-token prompts, largest importance 0.17–0.29
//     (TestModelSinks) — so the StreamingLLM lesson is taught on the
//     synthetic stream.
//
// # Many runs
//
//   - sweep.go, sweep_request.go, derive.go: the memory-versus-fidelity
//     sweep over policies × budgets × storage (Grid), as a page's worker
//     receives it in JSON (SweepRequest) and shares it out (Shares); the
//     points that keep every token are derived from one full-cache run;
//     sweep_model.go is the same over a real model;
//   - task.go, taskscore.go, tasksweep.go: recall tasks (copy, name,
//     passkey) a small model is scored on, and the heatmaps and curves of
//     those scores over budgets and depths.
//
// A budget means the same everywhere: SplitBudget gives a policy a budget
// by kv's one rule (kv.Config.SetBudget), for the sweep and the tasks
// alike.
//
// # Model scale
//
// scale.go projects a run to a real model's shape at any history length
// (Engine.ProjectTo, and Config.ProjectSnapshot for a snapshot): the
// policy says which tokens it keeps there (kv.Config.Held), the run what
// each element costs, the stores what they hold once (store.Config.Tables).
// It is the one projection; the page and the command line read it.
//
// # Where the techniques live
//
// Each policy is one file in core/kv and each quantizer one codec in
// core/store; sim asks them for a policy's budget rule, what it holds,
// whether it shares its decision, its relative work per token (the sweep's
// work estimate) and whether it reads keys as stored (ModelCache's refusal
// to re-position them), and for a store's tables and its quantizer's
// value-side partner, instead of keeping copies. The fidelity measures are
// described once too (measures.go: Measures), for the rows, the lessons
// and the page. What still names policies here is data: the presets and
// the attention-sinks figure's three caches.
package sim
