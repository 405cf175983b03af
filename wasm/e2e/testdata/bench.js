// make bench-wllama's measurements in the browser (wasm/e2e/bench_test.go
// drives them): the same GGUF file, one thread each, one system at a time.
//
//   await kvbench.wllama(url, spec)   wllama 3.13 (llama.cpp in WebAssembly,
//                                     SIMD; CPU only, headless Chromium has
//                                     no WebGPU) on one thread
//   await kvbench.kvscope(url, spec)  one kvscope decoder (core/model/bench)
//                                     in kvscope's sweep worker, on the SIMD
//                                     kernels, as the page runs it
//
// spec: {prompt: text, start: text, decode: n, warm: w, reps: r}, from
// core/model/bench (the kvscope worker tokenizes the same texts itself, as
// wllama does). Each runs w untimed sittings (V8 tiers the wasm up) then r
// timed ones, each a prompt run (the prompt up to its first greedy token)
// and a decode run (start, then n greedy tokens each fed back), and
// resolves to the JSON of {prompt: [{tokens, ms}], decode: [{tokens, ms}],
// ...facts}.
import {Wllama} from '/wllama/index.js';

const quiet = {debug() {}, log() {}, info() {}, warn: console.warn, error: console.error};

async function wllama(url, spec) {
  const {prompt, start, decode, warm, reps} = spec;
  const wl = new Wllama({default: '/wllama/wasm/wllama.wasm'}, {suppressNativeLog: true, logger: quiet});
  const blob = await (await fetch(url)).blob();
  const t0 = performance.now();
  // A context the two runs fit, as kvscope's caches are sized; the F32 KV
  // cache kvscope's model.FullCache keeps; batches holding the whole prompt.
  // (Token counts: at most a token a character, and BOS.)
  const n = Math.max(prompt.length, start.length + decode) + 2;
  await wl.loadModel([blob], {
    n_threads: 1, n_ctx: n, n_batch: prompt.length + 1, n_ubatch: prompt.length + 1, n_gpu_layers: 0,
    cache_type_k: 'f32', cache_type_v: 'f32', flash_attn: false,
  });
  const out = {loadMs: performance.now() - t0, threads: wl.getNumThreads(), multithread: wl.isMultithread(),
    webgpu: wl.isSupportWebGPU(), version: Wllama.getLibllamaVersion(), prompt: [], decode: [], wallDecodeMs: [], startTokens: 0};
  // llama.cpp's own timings (llama-server's): the prompt run's prompt_ms
  // covers the prompt's batches and its first token; the decode run's
  // predicted_ms runs from its first token to its last, so predicted_n − 1
  // forward passes. cache_prompt off: every run processes its whole prompt.
  const opts = {temperature: 0, cache_prompt: false, ignore_eos: true};
  for (let i = 0; i < warm + reps; i++) {
    const p = await wl.createCompletion({...opts, prompt, max_tokens: 1});
    const t1 = performance.now();
    const d = await wl.createCompletion({...opts, prompt: start, max_tokens: decode + 1});
    const wall = performance.now() - t1;
    if (d.timings.predicted_n !== decode + 1) {
      throw new Error(`wllama predicted ${d.timings.predicted_n} tokens, not ${decode + 1}`);
    }
    out.startTokens = d.timings.prompt_n;
    if (i >= warm) {
      out.prompt.push({tokens: p.timings.prompt_n, ms: p.timings.prompt_ms});
      out.decode.push({tokens: d.timings.predicted_n - 1, ms: d.timings.predicted_ms});
      out.wallDecodeMs.push(wall);
    }
  }
  await wl.exit();
  return JSON.stringify(out);
}

async function kvscope(url, spec) {
  const w = new Worker('/static/sweep-worker.js');
  const waiting = new Map(); // reply type → {resolve, reject}
  const next = (type) => new Promise((resolve, reject) => waiting.set(type, {resolve, reject}));
  w.onmessage = (e) => {
    const m = e.data;
    if (m.type === 'error') {
      for (const p of waiting.values()) p.reject(new Error(m.message));
      waiting.clear();
      return;
    }
    const p = waiting.get(m.type);
    if (p) {
      waiting.delete(m.type);
      p.resolve(m);
    }
  };
  try {
    const t0 = performance.now();
    const loaded = next('model');
    w.postMessage({type: 'model', id: 1, url});
    await loaded;
    const loadMs = performance.now() - t0;
    const done = next('bench');
    w.postMessage({type: 'bench', id: 2, warm: spec.warm, reps: spec.reps});
    const r = await done;
    return JSON.stringify({loadMs, kernels: r.kernels, prompt: r.prompt, decode: r.decode, startTokens: r.start});
  } finally {
    w.terminate();
  }
}

window.kvbench = {wllama, kvscope, isolated: self.crossOriginIsolated};
