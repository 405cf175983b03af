// Tests of static/kernels.js under Node's test runner (make test-wasm runs
// it): the kernel module attached to a stand-in Go program's memory
// (fakego.wat), and each way it can be absent, which must leave the
// program on its Go path rather than fail.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const repo = path.resolve(__dirname, '..', '..', '..', '..');
const kernelsJS = require(path.join(repo, 'static', 'kernels.js'));
const kernelsWasm = fs.readFileSync(path.join(repo, 'static', 'kernels.wasm'));
// The Go side's abiVersion (simd_wasm.go): the module must report it.
const abiVersion = Number(/^const abiVersion = (\d+)$/m.exec(
  fs.readFileSync(path.join(__dirname, '..', 'simd_wasm.go'), 'utf8'))[1]);

// wat assembles WebAssembly text with wabt's wat2wasm (the Makefile
// installs it to build kernels.wasm).
function wat(text) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kvscope-glue-'));
  try {
    fs.writeFileSync(path.join(dir, 'm.wat'), text);
    execFileSync('wat2wasm', [path.join(dir, 'm.wat'), '-o', path.join(dir, 'm.wasm')]);
    return fs.readFileSync(path.join(dir, 'm.wasm'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
const fakeGo = wat(fs.readFileSync(path.join(__dirname, 'fakego.wat'), 'utf8'));

async function start(source) {
  const go = { importObject: {} };
  const kernels = kernelsJS.wire(go, source);
  const { instance } = await WebAssembly.instantiate(fakeGo, go.importObject);
  return { instance, path: await kernels.attach(instance) };
}

// dotAt writes a and b at byte offset off of the program's memory and
// returns the program's dot_f32 of them.
function dotAt(instance, off, a, b) {
  const f = new Float32Array(instance.exports.mem.buffer);
  f.set(a, off / 4);
  f.set(b, off / 4 + a.length);
  return instance.exports.dot(off, off + 4 * a.length, a.length);
}

test('attached: the kernels run on the program memory, grown or not', async () => {
  const { instance, path: p } = await start(kernelsWasm);
  assert.strictEqual(p, 'wasm simd128');
  assert.strictEqual(instance.exports.present(), abiVersion);
  const a = [1, 2, 3, 4, 5], b = [2, 2, 2, 2, 0.5];
  assert.strictEqual(dotAt(instance, 1024, a, b), 22.5);
  assert.strictEqual(instance.exports.grow(3), 1); // now 4 pages
  assert.strictEqual(dotAt(instance, 3 * 65536 + 8, a, b), 22.5);
});

test('attached from a Response, as a page fetches it', async () => {
  const resp = new Response(kernelsWasm, { headers: { 'Content-Type': 'application/wasm' } });
  const { instance, path: p } = await start(Promise.resolve(resp));
  assert.strictEqual(p, 'wasm simd128');
  assert.strictEqual(instance.exports.present(), abiVersion);
});

for (const [name, source, why] of [
  ['no module given', null, 'go: no kernels.wasm given'],
  ['HTTP error', new Response('missing', { status: 404 }), 'go: kernels.wasm: HTTP 404'],
  ['not WebAssembly', Buffer.from('not wasm'), 'go: '],
  ['a function missing', wat('(module (import "go" "mem" (memory 0)) (func (export "abi_version") (result i32) (i32.const 1)))'),
    'go: kernels.wasm lacks dot_f32'],
]) {
  test('absent: ' + name, async () => {
    const { instance, path: p } = await start(source);
    assert.ok(p.startsWith(why), p);
    assert.strictEqual(instance.exports.present(), 0);
  });
}
