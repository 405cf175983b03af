// kvscope's WebAssembly SIMD kernels (kernels.wasm, from
// core/internal/kernels/kernels.wat) wired into a Go program's imports.
//
// A Go program that links core/internal/kernels imports the module
// "kvscope_kernels"; without it WebAssembly.instantiate fails with a
// LinkError, so every host of such a program uses this file:
//
//   const go = new Go();
//   const kernels = kvscopeKernels.wire(go, fetch('kernels.wasm'));
//   const inst = (await WebAssembly.instantiateStreaming(fetch('main.wasm'), go.importObject)).instance;
//   const path = await kernels.attach(inst);   // before go.run
//   go.run(inst);
//
// wire adds the imports and starts compiling kernels.wasm beside the Go
// module; attach instantiates it on the Go instance's own Memory object
// (instance.exports.mem), which it imports, so it sees the Go memory even
// after the Go program grows it. The imports forward each call to the
// kernel module's export of the same name; until attach succeeds, `present`
// returns 0 and the Go side stays on its Go path. attach never rejects: a
// missing file, a browser without WebAssembly SIMD (the module fails to
// compile) or a module lacking a function the Go program imports all leave
// the Go path, and attach resolves to the path's name ("wasm simd128" or
// "go: <why>"), which the Go side also reports (kernels.Path()).
//
// The file is a classic script for pages and workers (it defines
// self.kvscopeKernels) and a CommonJS module under Node (the wasm test
// runner core/internal/kernels/testdata/exec_node.js requires it).
(function (root) {
  'use strict';

  const MODULE = 'kvscope_kernels';

  async function compile(source) {
    source = await source;
    if (source == null) throw new Error('no kernels.wasm given');
    if (source instanceof WebAssembly.Module) return source;
    if (typeof Response !== 'undefined' && source instanceof Response) {
      if (!source.ok) throw new Error('kernels.wasm: HTTP ' + source.status);
      if (WebAssembly.compileStreaming && source.headers.get('Content-Type') === 'application/wasm') {
        return WebAssembly.compileStreaming(source);
      }
      return WebAssembly.compile(await source.arrayBuffer());
    }
    return WebAssembly.compile(source);
  }

  // wire adds the "kvscope_kernels" imports to go.importObject and starts
  // compiling source: a Response or a promise of one, bytes, a
  // WebAssembly.Module, or null for none. It returns {attach}.
  function wire(go, source) {
    const compiled = compile(source);
    compiled.catch(() => {}); // reported by attach
    let kernels = null; // the kernel instance's exports once attached
    const requested = new Map(); // import name → {fn: target, call: forwarder}
    const forwarder = (name) => {
      let slot = requested.get(name);
      if (!slot) {
        const s = { fn: null, call: null };
        // Eight parameters cover every kernel; a wasm export ignores the
        // extra undefined ones.
        s.call = (a, b, c, d, e, f, g, h) => s.fn(a, b, c, d, e, f, g, h);
        requested.set(name, (slot = s));
      }
      return slot.call;
    };
    // The import object answers any name the Go module asks for, so this
    // file lists no kernel: the Go declarations and kernels.wat are the
    // two ends of the interface, and abi_version ties them.
    go.importObject[MODULE] = new Proxy({}, {
      get(_, name) {
        if (name === 'present') return () => (kernels ? kernels.abi_version() : 0);
        return typeof name === 'string' ? forwarder(name) : undefined;
      },
    });

    async function attach(instance) {
      let mod;
      try {
        mod = await compiled;
      } catch (err) {
        return 'go: ' + (err && err.message ? err.message : String(err));
      }
      let inst;
      try {
        inst = await WebAssembly.instantiate(mod, { go: { mem: instance.exports.mem } });
      } catch (err) {
        return 'go: ' + err.message;
      }
      for (const [name, slot] of requested) {
        if (typeof inst.exports[name] !== 'function') return 'go: kernels.wasm lacks ' + name;
        slot.fn = inst.exports[name];
      }
      kernels = inst.exports;
      return 'wasm simd128';
    }

    return { attach };
  }

  const api = { wire };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.kvscopeKernels = api;
})(typeof self !== 'undefined' ? self : globalThis);
