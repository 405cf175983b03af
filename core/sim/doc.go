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
//   - stream.go, refshare.go: a Stream records the generated positions and
//     their reference once for every engine over the same stream settings;
//     the page's workers compute references in parallel and share them as
//     bytes;
//   - replay.go: an engine over a recorded trace (core/trace) instead of
//     the synthetic stream.
//
// # Real models
//
// ModelCache is a model.Cache backed by the same compressed cache, fed a
// real model's attention (core/model); ModelRun decodes a prompt twice,
// uncompressed and compressed, and compares the texts and the next-token
// distributions; ModelRun.Perplexity scores what it decoded.
// CalibrateModel learns the ranges and bases calibrated storage needs.
// sink.go measures attention sinks (Gu et al.).
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
