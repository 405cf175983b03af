// kvscope page panels that live beside the Go program: the
// memory-versus-fidelity chart with the sweep worker (sweep-worker.js,
// worker.wasm) that fills it off the main thread, and the workers that
// share a long link's reference. The Go program exposes window.kvscope:
// state(), config() and catalog() (the policies and measures as their Go
// descriptions give them) as JSON, applySettings(json) and lesson(n).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);

  // The chart. The sweep is split between workers (one per core, up to
  // four), which take its parts as they become free (see sweep).
  const box = $("chartbox");
  let chart = null, workers = [], reqId = 0, running = 0, deal = null;
  let streamKey = "", swept = new Set(), modelSent = "", total = 0, got = 0, t0 = 0;
  let textTokens = 0; // a real model's chart: the length of the text it decodes
  let sinksKey = "", pendingSinks = null, lastSinksBudget = 0;
  const status = (s) => { $("chart-status").textContent = s ? "· " + s : ""; };

  function ensure() {
    if (chart || typeof KVChart === "undefined" || !window.kvscope || !window.kvscope.config || !window.kvscope.catalog) return !!chart;
    // The policies' labels, colours and settings, and the measures, as
    // their Go descriptions give them (view.Catalogue).
    const catalog = JSON.parse(window.kvscope.catalog());
    chart = KVChart.create($("chart"), {
      metric: "mass",
      catalog: catalog,
      onPick: (s) => window.kvscope.applySettings(JSON.stringify(s)),
    });
    // One worker per core: the page's own thread idles while the chart
    // computes (it draws only what changes), so the workers get the cores.
    while (workers.length < poolSize()) spawn();
    window.kvscopeChart = chart;
    fillMetrics();
    return true;
  }

  const poolSize = () => Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2));
  function spawn() {
    // The worker that drew the first picture (app.js) when there is one:
    // it has compiled worker.wasm already.
    const w = window.kvscopeSpareWorker || new Worker("sweep-worker.js");
    window.kvscopeSpareWorker = null;
    w.onmessage = onMessage;
    workers.push(w);
    return w;
  }

  // Warming up. A browser runs new WebAssembly on its baseline compiler
  // and recompiles the functions that turn out hot, in the background:
  // a sweep in fresh workers runs about 40 % longer than in warm ones
  // (README, Measured: the chart's row). So once the page is quiet — drawn, not playing,
  // and two seconds without a click, key or slider move, so the warm-up
  // never slows what the learner is doing — one worker runs a small sweep
  // of the page's own settings (128 tokens, one to two seconds on one
  // core) and its results are thrown away. The optimized code is shared by
  // every worker running worker.wasm, so the chart's sweep starts at full
  // speed. A sweep asked for meanwhile cancels the warm-up (a worker runs
  // one job at a time).
  const warmID = -1;
  let lastInput = performance.now();
  for (const ev of ["pointerdown", "keydown", "input", "wheel", "touchstart"]) {
    window.addEventListener(ev, () => { lastInput = performance.now(); }, {capture: true, passive: true});
  }
  function warmUp() {
    if (workers.length || !window.kvscope || !window.kvscope.config) return;
    const raw = window.kvscope.config();
    if (!raw) return;
    const c = JSON.parse(raw);
    if (c.model) return; // the real model's sweep loads the model first; warm when the chart opens
    // 128 tokens, or a little past a longer prompt.
    const config = Object.assign({}, c.config, {Tokens: Math.max(128, (c.config.Prompt || 0) + 64)});
    spawn().postMessage({type: "sweep", id: warmID, config: config,
      grid: {policies: null, budgets: null, storage: [{bits: c.config.Bits, gran: c.config.Granularity}], sink: 4}});
    // The other workers start now too (idle until the chart asks), so a
    // sweep never waits for one to load.
    while (workers.length < poolSize()) spawn();
  }
  let readyAt = 0;
  function warmWhenQuiet() {
    if (workers.length) return; // the chart opened first
    if (!readyAt && document.body.dataset.ready) readyAt = performance.now();
    let quiet = readyAt > 0 && performance.now() - Math.max(lastInput, readyAt) > 2000;
    if (quiet) {
      try { quiet = !JSON.parse(window.kvscope.state()).playing; } catch (e) { quiet = false; }
    }
    if (!quiet) { setTimeout(warmWhenQuiet, 500); return; }
    const idle = window.requestIdleCallback || ((f) => setTimeout(f, 1));
    idle(warmUp, {timeout: 2000});
  }

  function fillMetrics() {
    const sel = $("chart-metric");
    const names = chart.metrics();
    const cur = sel.value || "mass";
    sel.textContent = "";
    for (const n of names) {
      const o = document.createElement("option");
      o.value = n; o.textContent = chart.metricLabel(n);
      sel.appendChild(o);
    }
    sel.value = names.includes(cur) ? cur : "mass";
  }
  $("chart-metric").addEventListener("change", (e) => { if (chart) chart.setMetric(e.target.value); });

  function onMessage(e) {
    const m = e.data;
    if (m.type === "ready" || m.type === "model") return;
    if (m.type === "sinks") { drawSinks(m); return; }
    if (m.id === warmID && m.type === "done") window.kvscopeWarmMs = m.ms; // tests read it
    if (m.id !== reqId) return;
    switch (m.type) {
      case "start": total = m.total; status("computing " + total + " settings" + (textTokens ? " on a " + textTokens + "-token text" : "") + "…"); break;
      case "row":
        chart.addRow(m.row); got++;
        if (got === 1) fillMetrics();
        status(got + " of " + total + " settings");
        break;
      case "done":
        running--;
        if (deal && deal(e.target)) break;
        if (running === 0) {
          const ms = performance.now() - t0;
          status(got + " settings" + (textTokens ? " on a " + textTokens + "-token text" : "") + " in " + (ms / 1000).toFixed(1) + " s, off the main thread (" + workers.length + " workers)");
          window.kvscopeSweepMs = ms;
          if (pendingSinks) { reqId++; pendingSinks.id = reqId; workers[0].postMessage(pendingSinks); pendingSinks = null; }
        }
        break;
      case "cancelled": running = Math.max(0, running - 1); break;
      case "error": running = Math.max(0, running - 1); status("could not sweep: " + m.message); break;
    }
  }

  function sweep(c) {
    reqId++;
    textTokens = c.model ? c.maxTokens : 0;
    t0 = performance.now();
    total = 0; got = 0;
    window.kvscopeSweepMs = undefined;
    if (c.model && modelSent !== c.modelName) {
      const bytes = window.kvscope.modelBytes();
      if (!bytes) { status("waiting for the model"); swept.clear(); return; }
      for (const w of workers) {
        const copy = bytes.slice();
        w.postMessage({type: "model", id: reqId, bytes: copy.buffer}, [copy.buffer]);
      }
      modelSent = c.modelName;
    }
    // The synthetic sweep is dealt out in parts of about equal work, four
    // per worker, each to the next worker that is free: a worker that
    // started sooner (the first picture's, app.js) or runs faster takes
    // more parts, and none waits for a slow one at the end. A real-model
    // sweep decodes its text's reference per request, so each worker
    // gets one part.
    const parts = c.model ? workers.length : workers.length * 4;
    let next = 0;
    const id = reqId;
    deal = (w) => {
      if (id !== reqId || next >= parts) return false;
      running++;
      w.postMessage({
        type: "sweep", id: id, config: c.config, shard: next++, shards: parts,
        grid: c.grid || {policies: null, budgets: null, storage: [{bits: c.config.Bits, gran: c.config.Granularity}], sink: 4},
        model: c.model, text: c.text, maxTokens: c.maxTokens, repos: c.repos,
      });
      return true;
    };
    running = 0;
    for (const w of workers) deal(w);
    // A worker runs one job at a time (a new one cancels the last), so
    // the attention-sinks figure waits for the sweep to finish.
    pendingSinks = null;
    if (c.model) {
      // The page's budget, at most half the chart's text (a real model's
      // chart decodes a shorter text than the page: sim.ModelChartTokens).
      const budget = Math.min(Math.max(16, (c.config.Sink || 0) + (c.config.Recent || 0) + (c.config.Heavy || 0)), Math.floor(c.maxTokens / 2));
      const key = c.key + "|" + budget;
      if (key !== sinksKey && budget > 4) {
        sinksKey = key;
        pendingSinks = {type: "sinks", config: c.config, text: c.text, maxTokens: c.maxTokens, budget: budget, sink: 4, repos: false};
        lastSinksBudget = budget;
      }
    }
  }

  function tick() {
    if (!box.open || !ensure()) return;
    const raw = window.kvscope.config();
    if (!raw) return;
    const c = JSON.parse(raw);
    if (c.key !== streamKey) {
      streamKey = c.key;
      swept = new Set();
      chart.clear();
      if (running) { for (const w of workers) w.postMessage({type: "cancel", id: reqId}); running = 0; }
    }
    const sk = c.config.Bits + "/" + c.config.Granularity;
    if (!swept.has(sk) && !running) { swept.add(sk); sweep(c); }
    const st = JSON.parse(window.kvscope.state());
    const s0 = st.sides && st.sides[0];
    if (s0) {
      const cf = s0.config;
      const cur = Object.assign({policy: cf.Policy, sink: cf.Sink, recent: cf.Recent, heavy: cf.Heavy, drop: cf.DropShare, bits: cf.Bits, gran: cf.Granularity,
        bytes: s0.storedBytes}, s0.measures);
      if (st.text) { cur.top1 = st.text.agreement; cur.next_kl = st.text.meanKL; }
      chart.setCurrent(cur);
    }
  }
  setInterval(tick, 400);
  box.addEventListener("toggle", tick);
  window.addEventListener("kvscope:budget", (e) => { if (ensure()) chart.setBudget(e.detail); });

  // The attention-sinks figure (real model): per-position log-perplexity
  // of the text, teacher-forced, for full, window and sinks + window at
  // equal budget (KVChart.createSeries).
  let fig = null;
  function drawSinks(m) {
    if (!fig) fig = KVChart.createSeries($("sinkfig"), {height: 180});
    fig.setCurves(m.curves || [], m.tokens || []);
    if (lastSinksBudget) fig.setBudget(lastSinksBudget);
  }

  // A long stream with the reference on (a link opened at step 4,096, say):
  // workers compute the stream's references from its end down while the
  // page loads and decodes from the start, and each block goes to the Go
  // program (window.kvscopeImportReference, see wasm/refimport.go), so the
  // main thread computes only the first positions' references. One worker
  // fewer than the cores, for the page's own thread. A worker stops when
  // the page has decoded past its blocks.
  function shareReference() {
    const link = window.kvscopeLink || "";
    const get = (k) => { const m = new RegExp("(?:^|[#?&])" + k + "=([^&]*)").exec(link); return m ? decodeURIComponent(m[1]) : null; };
    // model=<address> (a file, not an older link's scale preset) opens real-model mode.
    const modelFile = /[/.]/.test(get("model") || "") && get("mode") !== "synthetic";
    if (+(get("tokens") || 0) < 1024 || get("ref") === "0" || get("mode") === "model" || modelFile) return false;
    const n = Math.max(1, Math.min(3, (navigator.hardwareConcurrency || 2) - 1));
    const queue = [];
    let timer = 0;
    const flush = () => {
      if (!window.kvscopeImportReference) { if (!timer) timer = setTimeout(() => { timer = 0; flush(); }, 20); return; }
      while (queue.length) {
        const [w, bytes] = queue.shift();
        const more = window.kvscopeImportReference(bytes);
        window.kvscopeRefBlocks = (window.kvscopeRefBlocks || 0) + 1; // blocks handed over (tests read it)
        if (!more) w.terminate();
      }
    };
    for (let i = 0; i < n; i++) {
      const w = new Worker("sweep-worker.js");
      w.onmessage = (e) => {
        const m = e.data;
        if (m.type === "refblock") { queue.push([w, new Uint8Array(m.data)]); flush(); }
        else if (m.type === "done" || m.type === "error") w.terminate();
      };
      w.postMessage({type: "reference", id: 1, link: link, part: i, parts: n});
    }
    return true;
  }
  // The reference workers run worker.wasm's hot code already: no warm-up.
  if (!shareReference()) warmWhenQuiet();
})();
