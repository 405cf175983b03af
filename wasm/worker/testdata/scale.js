// Decoding across cores, with nothing drawn: node scale.js DIR MODEL N
// STEPS PROMPT starts N worker_threads, each running static/sweep-worker.js
// (DIR holds it, wasm_exec.js, kernels.js and worker.wasm) as a Web Worker
// runs it, loads MODEL (a GGUF path) in each, then opens one real-model run
// per worker (core/session: the page's decoder, three decoders a step) of
// STEPS tokens after PROMPT and waits for every run's last frame. It
// prints one JSON line: {workers, steps, ms, stepsPerS} for the decoding
// alone (loading excluded).
'use strict';
const {Worker, isMainThread, parentPort, workerData} = require('worker_threads');
const fs = require('fs');
const path = require('path');

if (!isMainThread) {
  const {dir} = workerData;
  globalThis.self = globalThis;
  globalThis.importScripts = (...fs_) => { for (const f of fs_) (0, eval)(fs.readFileSync(path.join(dir, f), 'utf8')); };
  globalThis.fetch = async (url) => {
    const b = fs.readFileSync(path.isAbsolute(url) ? url : path.join(dir, url));
    return {ok: true, status: 200, arrayBuffer: async () => b.buffer.slice(b.byteOffset, b.byteOffset + b.length)};
  };
  globalThis.postMessage = (m) => {
    if (m.data instanceof ArrayBuffer) delete m.data; // frames: the step is enough here
    parentPort.postMessage(m);
  };
  parentPort.on('message', (m) => self.onmessage({data: m}));
  (0, eval)(fs.readFileSync(path.join(dir, 'sweep-worker.js'), 'utf8'));
  return;
}

const [dir, model, n, steps, prompt] = process.argv.slice(2);
const N = +n, STEPS = +steps;
const ws = [];
let loaded = 0, done = 0, t0 = 0;
const settings = {config: {Policy: 'h2o', Recent: 32, Heavy: 32, Sink: 4, Bits: 8}, text: prompt, maxTokens: STEPS};
for (let i = 0; i < N; i++) {
  const w = new Worker(__filename, {workerData: {dir}});
  let sent = false;
  w.on('message', (m) => {
    if (m.type === 'ready') w.postMessage({type: 'model', id: 1, url: model});
    else if (m.type === 'model' && ++loaded === N) {
      t0 = performance.now();
      for (const x of ws) x.postMessage({type: 'open', id: 3, settings, goal: STEPS, layer: 0});
    } else if (m.type === 'frame' && m.step >= STEPS && !sent) {
      sent = true;
      if (++done === N) {
        const ms = performance.now() - t0;
        console.log(JSON.stringify({workers: N, steps: N * STEPS, ms, stepsPerS: N * STEPS / (ms / 1000)}));
        process.exit(0);
      }
    } else if (m.type === 'error') { console.error(JSON.stringify(m)); process.exit(1); }
  });
  ws.push(w);
}
setTimeout(() => { console.error('timeout'); process.exit(2); }, 1800000);
