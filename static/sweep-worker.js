// kvscope sweep worker: runs worker.wasm — kvscope's core engine without
// any drawing (wasm/worker) — in a Web Worker, so the memory-versus-
// fidelity sweep never stalls the page.
//
// Start it beside the page:
//
//   const w = new Worker('sweep-worker.js');
//   w.onmessage = (e) => { /* e.data.type: ready, model, start, row, done, cancelled, sinks, bench, error */ };
//
// Messages to the worker (plain objects; the worker answers with plain
// objects, each carrying the request's id):
//
//   {type: 'sweep', id, config, grid, shard, shards, model, text, maxTokens, repos}
//       config: the base configuration with sim.Config's Go field names
//       ({Seed, Layers, Heads, KVHeads, HeadDim, Prompt, Tokens, …, Policy,
//       Sink, Recent, Heavy, …, Bits, Granularity, GroupSize, Residual, Rank,
//       RefStride}); missing fields take kvscope's defaults.
//       grid: {policies: [names] | null (every policy), budgets: [tokens] |
//       null (8 from 2 % to 100 %), storage: [{bits, gran}] | null (config's),
//       sink: sinks of the policies that keep them (default 4)}.
//       shard, shards: run only the points whose index % shards == shard,
//       so several workers can share one sweep.
//       model: true for real-model mode (load the model first), with text,
//       maxTokens and repos as the page's real-model settings.
//     replies {type:'start', id, total, points:[{index, policy, budget, sink,
//     recent, heavy, drop, bits, gran}]}, then one {type:'row', id, row} per
//     configuration as it completes (row: index, the settings above, bytes,
//     full_bytes, ratio, mass, output_error, kl, key_error, value_error and in
//     model mode top1, next_kl, ppl, ppl_full), then {type:'done', id, rows, ms}.
//   {type: 'cancel', id}            stops the sweep (reply {type:'cancelled', id}).
//   {type: 'model', id, url}        fetches and loads a llama GGUF (or {bytes:
//                                   ArrayBuffer}); reply {type:'model', id, layers, …}.
//   {type: 'reference', id, link, part, parts}
//                                   part of the references of side A's stream
//                                   of the page link (hash or query; streams of
//                                   1,024 tokens or more, reference on): replies
//                                   {type:'refblock', id, t0, t1, data: ArrayBuffer}
//                                   per block of positions, from the end of the
//                                   stream down, then {type:'done', id, blocks, ms}.
//   {type: 'firstframe', canvas, link, scale, viewW, viewH, map, ov, attn}
//                                   draws the page's first picture of the link
//                                   onto canvas (an OffscreenCanvas the size
//                                   of the viewport, transferred); map, ov and
//                                   attn are side A's holes ({X, Y, W, H}, CSS
//                                   px). Reply {type:'firstframe', step,
//                                   presented} (ms since the epoch), or
//                                   {type:'firstframe', skipped: true}.
//   {type: 'sinks', id, config, text, maxTokens, budget, sink, repos}
//                                   the attention-sinks figure; reply {type:'sinks',
//                                   id, tokens, curves:[{label, sink, recent, nll}]}.
//   {type: 'bench', id, warm, reps} times one kvscope decoder on the loaded
//                                   model (core/model/bench, make bench-wllama):
//                                   reply {type:'bench', id, kernels, start, prompt:
//                                   [{tokens, ms}], decode: [{tokens, ms, ids}]}.
//
// Errors come back as {type:'error', id, message}. Messages sent before
// the wasm has started wait for it.
'use strict';

importScripts('wasm_exec.js', 'kernels.js');

self.kvscopePost = (json) => self.postMessage(JSON.parse(json));
// A message with bytes: the JSON's fields and data, an ArrayBuffer handed
// over (transferred, not copied).
self.kvscopePostBlock = (json, bytes) => {
  const m = JSON.parse(json);
  m.data = bytes.buffer;
  self.postMessage(m, [bytes.buffer]);
};

const ready = (async () => {
  const go = new Go();
  // The SIMD kernels, as on the page (kernels.js).
  const kernels = kvscopeKernels.wire(go, fetch('kernels.wasm'));
  const resp = fetch('worker.wasm');
  let inst;
  try {
    inst = await WebAssembly.instantiateStreaming(resp, go.importObject);
  } catch (err) {
    // A server without the application/wasm type: compile from bytes.
    const buf = await (await fetch('worker.wasm')).arrayBuffer();
    inst = await WebAssembly.instantiate(buf, go.importObject);
  }
  await kernels.attach(inst.instance);
  go.run(inst.instance); // defines self.kvscopeWorker, posts {type:'ready'}
})().catch((err) => {
  self.postMessage({type: 'error', id: 0, message: 'kvscope worker could not start: ' + err});
  throw err;
});

self.onmessage = async (e) => {
  const msg = e.data || {};
  try {
    await ready;
    const {type, ...rest} = msg;
    if (type === 'model') {
      let buf = rest.bytes;
      if (!buf) {
        const r = await fetch(rest.url);
        if (!r.ok) throw new Error('fetching ' + rest.url + ': ' + r.status);
        buf = await r.arrayBuffer();
      }
      self.kvscopeWorker.loadModel(new Uint8Array(buf), rest.id || 0);
      return;
    }
    if (type === 'firstframe') {
      const {canvas, ...geometry} = rest;
      self.kvscopeWorker.firstFrame(JSON.stringify(geometry), canvas);
      return;
    }
    self.kvscopeWorker.handle(String(type), JSON.stringify(rest));
  } catch (err) {
    self.postMessage({type: 'error', id: msg.id || 0, message: String(err && err.message || err)});
  }
};
