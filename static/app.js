// kvscope page glue: check WebGL2, download main.wasm with a progress bar,
// start the Go program, and say so clearly if it cannot start or stops.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);

  function fatal(title, text) {
    $("loading").hidden = true;
    $("fatal-title").textContent = title;
    $("fatal-text").textContent = text;
    $("fatal").hidden = false;
    document.body.dataset.fatal = "1";
  }
  window.kvscopeFatal = fatal;

  function hasWebGL2() {
    try {
      return !!document.createElement("canvas").getContext("webgl2");
    } catch (e) {
      return false;
    }
  }

  function mb(n) { return (n / 1048576).toFixed(1) + " MB"; }

  async function fetchWithProgress(url) {
    const resp = await fetch(url);
    if (!resp.ok) throw new Error(url + ": HTTP " + resp.status);
    const total = +resp.headers.get("Content-Length") || 0;
    if (!resp.body || !resp.body.getReader) return await resp.arrayBuffer();
    const reader = resp.body.getReader();
    const chunks = [];
    let got = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      got += value.length;
      $("loading-text").textContent = total
        ? "Loading the simulator… " + mb(got) + " of " + mb(total)
        : "Loading the simulator… " + mb(got);
      if (total) $("loading-bar").value = got / total;
    }
    const buf = new Uint8Array(got);
    let off = 0;
    for (const c of chunks) { buf.set(c, off); off += c.length; }
    return buf.buffer;
  }

  async function start() {
    if (typeof WebAssembly !== "object") {
      fatal("WebAssembly is not available", "kvscope runs as WebAssembly; this browser does not offer it.");
      return;
    }
    if (!hasWebGL2()) {
      fatal("WebGL2 is not available", "kvscope draws with WebGL2, which this browser or device does not provide (or it is turned off). Try a current Chrome, Firefox or Safari, or enable hardware acceleration.");
      return;
    }
    window.kvscopeTiming = { start: performance.now() };
    let bytes;
    try {
      bytes = await fetchWithProgress("main.wasm");
    } catch (e) {
      fatal("Could not download kvscope", String(e));
      return;
    }
    window.kvscopeTiming.downloaded = performance.now();
    $("loading-text").textContent = "Starting…";
    const go = new Go();
    let inst;
    try {
      inst = (await WebAssembly.instantiate(bytes, go.importObject)).instance;
    } catch (e) {
      fatal("Could not start kvscope", String(e));
      return;
    }
    // The Go program removes the loading screen after its first frames.
    go.run(inst).then(
      () => fatal("kvscope stopped", "The simulator exited" + (window.kvscopeExitReason ? ": " + window.kvscopeExitReason : "") + ". Reload the page to start again."),
      (e) => fatal("kvscope stopped", "The simulator crashed: " + e + ". Reload the page to start again.")
    );
  }
  window.addEventListener("error", (ev) => {
    if (String(ev.message).includes("Go program has already exited")) {
      fatal("kvscope stopped", "The simulator is no longer running. Reload the page to start again.");
    }
  });
  start();
})();
