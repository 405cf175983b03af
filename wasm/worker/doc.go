// Command worker is kvscope's worker program: the core engine without any
// drawing (no Ebiten, no DOM), run in a Web Worker by
// static/sweep-worker.js so the memory-versus-fidelity sweep never stalls
// the page. Build it with
//
//	GOOS=js GOARCH=wasm go build -trimpath -o static/worker.wasm ./wasm/worker
//
// The glue defines kvscopePost(json) before starting the program; the
// program defines kvscopeWorker with
//
//	handle(type, json)   type "sweep": json is a sim.SweepRequest;
//	                     "cancel": {"id": n};
//	                     "reference": a referenceRequest (reference.go:
//	                     a long link's references);
//	                     "sinks": a sinksRequest (real-model mode);
//	                     "bench": a benchRequest (bench.go: core/model/bench's
//	                     measurement of the loaded model, make bench-wllama);
//	                     "open", "goal", "layer", "sinkmeter": the page's
//	                     real-model decoder (decode.go)
//	loadModel(bytes, id) bytes a Uint8Array of a llama GGUF file
//	firstFrame(json, canvas)
//	                     draws the page's first picture (a firstRequest)
//	                     onto an OffscreenCanvas (firstframe.go)
//
// and replies through kvscopePost with one JSON object per message:
//
//	{"type":"ready"}
//	{"type":"model","id":n,"layers":…,"heads":…,"kvHeads":…,"headDim":…,"context":…}
//	{"type":"start","id":n,"total":…,"points":[{index, policy, budget, sink, recent, heavy, drop, bits, gran}…]}
//	{"type":"row","id":n,"row":{…sim.Row…}}
//	{"type":"refblock","id":n,"t0":…,"t1":…,"data":ArrayBuffer}
//	{"type":"done","id":n,"rows":…,"ms":…}
//	{"type":"cancelled","id":n}
//	{"type":"sinks","id":n,"tokens":[…],"curves":[{"label":…,"policy":…,"sink":…,"recent":…,"nll":[…]}…]}
//	{"type":"firstframe","step":n,"presented":ms} (or "skipped":true)
//	{"type":"bench","id":n,"kernels":…,"start":…,"prompt":[{tokens, ms}…],"decode":[{tokens, ms, ids}…]}
//	{"type":"frame","id":n,"step":s,"data":ArrayBuffer} (core/session's frame)
//	{"type":"sinkmeter","id":n,"layers":…,"heads":…,"tokens":…,"importance":[…]}
//	{"type":"error","id":n,"message":…}
//
// # The page's real model
//
// In real-model mode the page's own thread decodes nothing: one worker
// holds a copy of the model and a core/session Session, builds each run
// the page asks for (calibration included), steps it towards the goal the
// page moves as it plays, and posts a frame of the layer shown about every
// 30 ms of stepping (decode.go). The page draws the latest frame, so a
// click or a key never waits for a step, and the frames rebuild the run's
// snapshot bit for bit (TestWorkerDecodesForThePage). The sink meter runs
// in the same worker while its run is not stepping.
//
// One job runs at a time: a new sweep cancels the one running. The
// worker keeps the last stream's recording, so a new sweep over the same
// stream computes no reference again.
//
// # The chart's sweep
//
// The page runs one worker per core, up to four (static/panels.js). The
// sweep's points are dealt out in parts of about equal work (sim.Shares),
// four per worker, each to the next free one. A browser runs new
// WebAssembly on its baseline compiler first and recompiles hot functions
// in the background, and the optimized code is shared by every worker
// running worker.wasm; so once the page is quiet (drawn, paused, two
// seconds without input) one worker runs a 128-token sweep of the page's
// settings and throws it away, and the learner's sweep then runs on warm
// code. The worker that drew the first picture (below) stays, idle, as
// the chart's first worker, so a chart opened at once shows its first row
// sooner.
//
// # The first picture
//
// Before the Go program of the page (main.wasm) draws, the page's thread
// compiles it and runs its package initialisation, where Ebiten compiles
// its built-in Kage shaders (internal/restorable's init, which every
// Ebiten program runs before main), and V8 compiles each function lazily
// on its first call, on that same thread. So the first picture is not the
// program's: the page's head starts a worker on this smaller, Ebiten-free
// program; static/app.js hands it a canvas over the map
// (transferControlToOffscreen) with the holes' rectangles; and the worker
// decodes the link, runs the stream to the prompt's end and draws side A's
// map, overview and attention rows in software (viz/scene's Rasterize,
// firstframe.go). The program removes that picture with its own first
// frame, which is the same picture: wasm/e2e's TestFirstPictureIsTheMap
// finds none of the holes' pixels different at three window sizes. For
// that the title, the axis lines and the header's controls have fixed
// sizes, so nothing moves when the program fills them in.
//
// main.wasm's compilation waits for the picture (its download does not:
// index.html preloads it), because on two cores the two compilations
// cannot overlap: side by side they share the cores, the program's
// start-up holds the page's thread, and the worker's picture reaches the
// screen only after the program is compiled. The wait is bounded: a worker
// whose Go program has not started 1.5 s after navigation, or whose
// picture is not up 0.8 s after that, is dropped and the program starts.
// Meanwhile the page leaves its thread to the worker: index.html renders
// only once #app is parsed (<link rel=expect blocking=render>), and the
// progress bar only moves. Real-model links, the comparison, lessons and
// the embedded view (index.html), links with values kvscope adjusts
// (errNoFirstFrame), and reduced motion without a play= setting (app.js)
// start with the program instead.
//
// # A long link's references
//
// A link that opens a long stream (minShared tokens or more) with the
// reference on shares the first run's work: workers compute the stream's
// references in blocks of sim.ReferenceBlock positions from its end down
// (reference.go) while the page decodes from the start and takes each
// block in (sim.Stream.ImportReference); whichever side computes a
// position, the numbers are the same bit for bit. The page's own thread
// remains the limit of such a visit: besides start-up, layout and drawing,
// it computes the references of the first positions until the workers'
// blocks reach them, generates the synthetic stream and steps the caches,
// and the reference runs without SIMD (see core/sim). make measure's
// TestLongLinkMainThread logs where that thread's time goes.
package main
