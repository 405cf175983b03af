// Runs static/sweep-worker.js under Node as a Web Worker would run it:
// node harness.js DIR REQUESTS_JSON. DIR holds sweep-worker.js,
// wasm_exec.js and worker.wasm; REQUESTS_JSON is an array of messages to
// post in order, each sent once the previous one's reply of the type
// named by its "await" field arrived ("" sends the next one at once);
// "awaitStep": n waits further for a reply whose step is at least n.
// Every reply is printed as one JSON line; the script exits after the
// last awaited reply.
'use strict';
const fs = require('fs');
const path = require('path');
const [dir, reqFile] = process.argv.slice(2);
const requests = JSON.parse(fs.readFileSync(reqFile, 'utf8'));

globalThis.self = globalThis;
globalThis.importScripts = (...fs_) => { for (const f of fs_) (0, eval)(fs.readFileSync(path.join(dir, f), 'utf8')); };
globalThis.fetch = async (url) => {
  const b = fs.readFileSync(path.join(dir, url));
  return {ok: true, status: 200, arrayBuffer: async () => b.buffer.slice(b.byteOffset, b.byteOffset + b.length)};
};

let waiting = null;
let waitStep = 0;
let next = 0;
function send() {
  while (next < requests.length) {
    const {await: wait, awaitStep, ...msg} = requests[next++];
    self.onmessage({data: msg});
    if (wait) { waiting = wait; waitStep = awaitStep || 0; return; }
  }
  waiting = null;
}
globalThis.postMessage = (m) => {
  // Bytes (an ArrayBuffer) print as base64, as Go's JSON reads []byte.
  // Written synchronously: a large line written to a pipe would otherwise
  // be cut by process.exit.
  fs.writeSync(1, JSON.stringify(m, (k, v) => v instanceof ArrayBuffer ? Buffer.from(v).toString('base64') : v) + '\n');
  if (m.type === 'error') process.exit(1);
  if ((m.type === waiting && !(m.step < waitStep)) || (m.type === 'ready' && next === 0)) {
    if (next >= requests.length) process.exit(0);
    send();
  }
};
(0, eval)(fs.readFileSync(path.join(dir, 'sweep-worker.js'), 'utf8'));
setTimeout(() => { process.stderr.write('timeout\n'); process.exit(2); }, 120000);
