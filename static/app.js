// kvscope page glue: offer the lessons on a first visit, check WebGL2,
// download and compile main.wasm (streaming, with a progress bar), start
// the Go program, and say so clearly if it cannot start or stops.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);

  function fatal(title, text) {
    if (window.kvscopeOverlayDone) window.kvscopeOverlayDone();
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
    if (!total) $("loading-bar").removeAttribute("value");
    // While a worker draws the first picture, the bar only moves: reading
    // a copy of the download costs the page's thread a few hundred
    // milliseconds, which the picture's worker needs more.
    if (!resp.body || !resp.clone || window.kvscopeFirstWorker) return resp;
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

  // The offer of the guided lessons: a first visit to the plain page (no
  // settings in its link). Shown before the map is drawn, so that the map
  // never moves down under it.
  function offer() {
    let seen = null;
    try { seen = localStorage.getItem("kvscope.lessons"); } catch (e) { /* private mode */ }
    if (!seen && window.kvscopeLink.length <= 1) $("offer").hidden = false;
  }

  // The first picture. The page's thread is busy for a second or more
  // before the Go program draws: it compiles main.wasm, then runs the
  // program's package initialisation (Ebiten compiles its shaders). A
  // worker compiles the smaller worker.wasm and draws side A's first map,
  // overview and attention rows in software onto a canvas over the holes
  // (wasm/worker/firstframe.go). The Go program removes it with its own
  // first frame (kvscopeOverlayDone), which is the same picture.
  // Real-model mode, the comparison and lessons start with the program.
  // The worker was started in the page's head (index.html), with
  // window.kvscopeLink, the link as opened.
  function firstPicture() {
    const w = window.kvscopeFirstWorker;
    if (!w) return;
    const link = window.kvscopeLink;
    if (window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches && !/(?:^|[#?&])play=/.test(link)) {
      w.terminate(); // the program adds a notice above the pictures
      return;
    }
    const rect = (id) => { const r = $(id).getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; };
    const map = rect("map-0"), ov = rect("ov-0"), attn = rect("attn-0");
    if (!(map.W > 0 && map.H > 0)) { w.terminate(); return; }
    const vw = window.innerWidth, vh = window.innerHeight, scale = window.devicePixelRatio || 1;
    // The canvas covers the holes as the program's will (view.Cover,
    // wasm/canvas.go): their union with a 4 px margin, integer edges,
    // within the viewport.
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const r of [map, ov, attn]) {
      if (!(r.W > 0 && r.H > 0)) continue;
      x0 = Math.min(x0, r.X); y0 = Math.min(y0, r.Y);
      x1 = Math.max(x1, r.X + r.W); y1 = Math.max(y1, r.Y + r.H);
    }
    x0 = Math.min(Math.max(0, Math.floor(x0 - 4)), Math.max(vw, 1) - 1);
    y0 = Math.min(Math.max(0, Math.floor(y0 - 4)), Math.max(vh, 1) - 1);
    x1 = Math.min(Math.max(vw, 1), Math.ceil(x1 + 4));
    y1 = Math.min(Math.max(vh, 1), Math.ceil(y1 + 4));
    const box = {X: x0, Y: y0, W: Math.max(1, x1 - x0), H: Math.max(1, y1 - y0)};
    const holder = document.createElement("div");
    holder.id = "firstmap";
    holder.setAttribute("aria-hidden", "true");
    holder.style.left = box.X + "px";
    holder.style.top = box.Y + "px";
    const c = document.createElement("canvas");
    c.width = Math.trunc(box.W * scale);
    c.height = Math.trunc(box.H * scale);
    c.style.width = box.W + "px";
    c.style.height = box.H + "px";
    holder.appendChild(c);
    document.body.insertBefore(holder, document.body.firstChild);
    let off;
    try {
      off = c.transferControlToOffscreen();
    } catch (e) {
      holder.remove();
      w.terminate();
      return;
    }
    // The program waits for the picture (see start) only while the
    // worker keeps up: its Go program running 1.5 s after navigation, the
    // picture shown 0.8 s after that. Past either, the worker goes, so
    // that it takes nothing more from the program.
    let shown, timer = 0, drew = false;
    const pic = new Promise((r) => { shown = r; });
    const settle = (keep) => {
      clearTimeout(timer);
      drew = keep;
      if (!keep && window.kvscopeOverlayDone) {
        window.kvscopeOverlayDone();
        window.kvscopeTiming.overlayDropped = performance.now(); // tests read it
      }
      shown();
    };
    timer = setTimeout(() => settle(false), Math.max(0, 1500 - performance.now()));
    w.onmessage = (e) => {
      const m = e.data;
      if (m.type === "ready") {
        window.kvscopeTiming.overlayReady = performance.now(); // the worker's Go program runs
        clearTimeout(timer);
        timer = setTimeout(() => settle(false), 800);
        return;
      }
      if (m.type === "error" || (m.type === "firstframe" && !m.presented)) settle(false);
      if (m.type !== "firstframe" || !m.presented) return;
      const t = window.kvscopeTiming, o = performance.timeOrigin;
      t.overlayAsked = m.asked - o;
      t.overlayDrawn = m.drawn - o;
      t.overlay = m.presented - o;
      settle(true);
    };
    w.postMessage({type: "firstframe", canvas: off, link: link, scale: scale, box: box, map: map, ov: ov, attn: attn}, [off]);
    // The program removes the picture with its first frame. A worker that
    // drew it has worker.wasm compiled and running: it stays, idle, as
    // the chart's first worker (panels.js takes window.kvscopeSpareWorker),
    // which then starts a second sooner. A worker that fell behind goes.
    window.kvscopeOverlayDone = () => {
      window.kvscopeOverlayDone = null;
      holder.remove();
      if (drew) {
        w.onmessage = null;
        window.kvscopeSpareWorker = w;
      } else {
        w.terminate();
      }
    };
    // The loading line waits at the foot of the window, not over the pictures.
    $("loading").classList.add("compact");
    return pic;
  }

  async function start() {
    // The download starts first: checking WebGL2 creates a context, which
    // takes a while with software rendering.
    window.kvscopeTiming = { start: performance.now() };
    const download = fetchWithProgress("main.wasm");
    download.catch(() => {}); // reported below, once awaited
    const pic = firstPicture();
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
    // main.wasm compiles once the worker's picture is on screen, or the
    // worker has fallen behind (firstPicture). Side by side, the two
    // compilations share this machine's two cores, and while the program
    // starts up, its page's thread is busy, and a worker gets nothing
    // from the page (its download and its messages wait): the picture then
    // came after the program's own first frame in some runs.
    if (pic) await pic;
    window.kvscopeTiming.compile = performance.now();
    // The WebAssembly SIMD kernels (kernels.js): the Go program imports
    // them, and runs its own Go path if they cannot be attached.
    const kernels = kvscopeKernels.wire(go, fetch("kernels.wasm"));
    let inst;
    try {
      inst = await instantiate(resp, go.importObject);
      window.kvscopeTiming.instantiated = performance.now();
      window.kvscopeKernelPath = await kernels.attach(inst);
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
  offer();
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
