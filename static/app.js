// kvscope page glue: check WebGL2, download and compile main.wasm (streaming,
// with a progress bar), start the Go program, and say so clearly if it
// cannot start or stops.
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

  // fetchWithProgress returns the response of url untouched, so that the
  // browser compiles the module as it streams in and keeps the compiled
  // code for the next visit (instantiateStreaming needs the response
  // itself for that); a clone of it moves the progress bar. A compressed
  // download's length is not the module's, so the bar then counts
  // megabytes without a total.
  async function fetchWithProgress(url) {
    const resp = await fetch(url);
    if (!resp.ok) throw new Error(url + ": HTTP " + resp.status);
    const encoded = !!resp.headers.get("Content-Encoding");
    const total = encoded ? 0 : +resp.headers.get("Content-Length") || 0;
    if (!resp.body || !resp.clone) return resp;
    if (!total) $("loading-bar").removeAttribute("value");
    const reader = resp.clone().body.getReader();
    let got = 0, shown = 0;
    (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        got += value.length;
        const now = performance.now();
        if (now - shown > 100) {
          shown = now;
          $("loading-text").textContent = total
            ? "Loading the simulator… " + mb(got) + " of " + mb(total)
            : "Loading the simulator… " + mb(got);
          if (total) $("loading-bar").value = got / total;
        }
      }
    })().catch(() => {});
    return resp;
  }

  // instantiate compiles and instantiates the module as it streams in,
  // or from the whole download where streaming compilation is missing.
  async function instantiate(resp, imports) {
    if (WebAssembly.instantiateStreaming) {
      return (await WebAssembly.instantiateStreaming(resp, imports)).instance;
    }
    return (await WebAssembly.instantiate(await resp.arrayBuffer(), imports)).instance;
  }

  async function start() {
    // The download starts first: checking WebGL2 creates a context, which
    // takes a while with software rendering.
    window.kvscopeTiming = { start: performance.now() };
    const download = fetchWithProgress("main.wasm");
    download.catch(() => {}); // reported below, once awaited
    if (typeof WebAssembly !== "object") {
      fatal("WebAssembly is not available", "kvscope runs as WebAssembly; this browser does not offer it.");
      return;
    }
    if (!hasWebGL2()) {
      fatal("WebGL2 is not available", "kvscope draws with WebGL2, which this browser or device does not provide (or it is turned off). Try a current Chrome, Firefox or Safari, or enable hardware acceleration.");
      return;
    }
    let resp;
    try {
      resp = await download;
    } catch (e) {
      fatal("Could not download kvscope", String(e));
      return;
    }
    window.kvscopeTiming.responded = performance.now();
    const go = new Go();
    // GODEBUG for the Go program, for measuring it: localStorage
    // "kvscope.godebug" = "inittrace=1" prints each package's init time
    // to the console (make measure reads it, TestGoInit).
    try {
      const dbg = localStorage.getItem("kvscope.godebug");
      if (dbg) go.env = Object.assign({}, go.env, {GODEBUG: dbg});
    } catch (e) { /* storage blocked */ }
    let inst;
    try {
      inst = await instantiate(resp, go.importObject);
      window.kvscopeTiming.instantiated = performance.now();
    } catch (e) {
      fatal(String(e).includes("fetch") || String(e).includes("network") ? "Could not download kvscope" : "Could not start kvscope", String(e));
      return;
    }
    $("loading-text").textContent = "Starting…";
    // The Go program removes the loading screen after its first frame.
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

// Definitions: every figure marked data-def explains itself on hover and
// on keyboard focus (the Go program fills window.kvscopeDefs at start).
(function () {
  const box = document.getElementById("def");
  if (!box) return;
  let shown = null;
  function show(el) {
    const d = window.kvscopeDefs && window.kvscopeDefs[el.dataset.def];
    if (!d) return;
    shown = el;
    box.querySelector(".dname").textContent = d.name;
    box.querySelector(".dformula").textContent = d.formula;
    box.querySelector(".dbetter").textContent = d.better + ".";
    box.querySelector(".dmeaning").textContent = d.meaning;
    box.hidden = false;
    const r = el.getBoundingClientRect();
    const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
    const w = Math.min(340, vw - 16);
    box.style.width = w + "px";
    let x = Math.min(Math.max(8, r.left), vw - w - 8);
    let y = r.bottom + 6;
    const h = box.offsetHeight;
    if (y + h > vh - 8) y = Math.max(8, r.top - h - 6);
    box.style.left = x + "px";
    box.style.top = y + "px";
    box.dataset.for = el.dataset.def;
  }
  function hide(el) {
    if (el && el !== shown) return;
    shown = null;
    box.hidden = true;
  }
  document.addEventListener("mouseover", (ev) => {
    const el = ev.target.closest && ev.target.closest("[data-def]");
    if (el) show(el); else if (shown && document.activeElement !== shown) hide();
  });
  document.addEventListener("focusin", (ev) => {
    const el = ev.target.closest && ev.target.closest("[data-def]");
    if (el) show(el); else hide();
  });
  document.addEventListener("focusout", (ev) => {
    if (ev.target === shown) hide(ev.target);
  });
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") hide(); });
  document.addEventListener("scroll", () => hide(), true);
})();
