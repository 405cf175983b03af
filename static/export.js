// kvscope figures to take away: every button with data-export downloads
// one file, made in the browser (a Blob and an <a download>); nothing
// leaves it.
//
//   chart-png, chart-svg  the memory-versus-fidelity chart (chart.js's SVG)
//                         with its legend and axes and a caption line naming
//                         the settings; the PNG at two pixels per CSS pixel
//   chart-csv             its points as kvscope -sweep's CSV (the program's
//                         kvscope.sweepCSV: sim.WriteCSV, so the columns are
//                         described once)
//   map (data-side)       a side's title, token map, overview and attention
//                         rows, at two pixels per CSS pixel: the pictures
//                         drawn again in software by the program
//                         (kvscope.mapPixels), the labels from the page
//   memory                the memory bars with their labels and legend, ×2
//   recall-png, recall-csv
//                         the recall heatmap (real-model mode), as PNG and
//                         as kvscope -task's CSV (kvscope.recallCSV)
//
// window.KVExport has the same as functions (chartSVG() returns text,
// chartCSV() and recallCSV() text, the others a Promise of a PNG Blob)
// and download(name, blobOrText, type).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const SCALE = 2; // device pixels per CSS pixel of the pictures
  const CAPTION_FONT = "11px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  const LINE = 14;

  function kv() {
    if (!window.kvscope || !window.kvscope.caption) throw new Error("kvscope has not started yet");
    return window.kvscope;
  }

  // wrap breaks text into lines no wider than maxW (measured with ctx's
  // font), between words; a "·" between settings starts the next line
  // rather than ending one.
  function wrap(ctx, text, maxW) {
    const lines = [];
    let line = "";
    for (const w of text.split(/\s+/).filter(Boolean)) {
      const cand = line ? line + " " + w : w;
      if (!line || ctx.measureText(cand).width <= maxW) { line = cand; continue; }
      let next = w;
      if (line.endsWith(" ·")) { line = line.slice(0, -2); next = "· " + w; }
      lines.push(line);
      line = next;
    }
    if (line) lines.push(line);
    return lines;
  }

  let measurer = null;
  function measure() {
    if (!measurer) measurer = document.createElement("canvas").getContext("2d");
    measurer.font = CAPTION_FONT;
    return measurer;
  }

  function metricLabel() {
    const m = $("chart-metric") && $("chart-metric").value;
    if (!m) return "";
    return window.kvscopeChart ? window.kvscopeChart.metricLabel(m) : m;
  }

  // chartSVG returns the chart as a standalone SVG document: white
  // ground, the caption under the legend, no interactive attributes.
  function chartSVG() {
    if (!window.kvscopeChart || !window.kvscopeChart.rows().length) throw new Error("open the chart and let it sweep first");
    window.kvscopeChart.draw(); // the rows that came in since its last (batched) redraw
    const src = document.querySelector("#chart svg.kvchart");
    if (!src) throw new Error("open the chart and let it sweep first");
    const W = +src.getAttribute("width"), H = +src.getAttribute("height");
    const svg = src.cloneNode(true);
    for (const e of [svg, ...svg.querySelectorAll("*")]) {
      for (const a of ["tabindex", "style", "aria-pressed"]) e.removeAttribute(a);
      if (e.getAttribute("role") === "button") e.removeAttribute("role");
    }
    const caption = kv().caption() + " · y: " + metricLabel();
    const lines = wrap(measure(), caption, W - 16);
    const Ht = H + 8 + LINE * lines.length;
    const NS = "http://www.w3.org/2000/svg";
    svg.setAttribute("xmlns", NS);
    svg.setAttribute("width", W);
    svg.setAttribute("height", Ht);
    svg.setAttribute("viewBox", "0 0 " + W + " " + Ht);
    const bg = document.createElementNS(NS, "rect");
    bg.setAttribute("width", W); bg.setAttribute("height", Ht); bg.setAttribute("fill", "#ffffff");
    svg.insertBefore(bg, svg.firstChild);
    const cap = document.createElementNS(NS, "g");
    cap.setAttribute("class", "kvchart-caption");
    cap.setAttribute("font-size", 11);
    cap.setAttribute("fill", "#333");
    lines.forEach((l, i) => {
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", 8);
      t.setAttribute("y", H + 4 + LINE * (i + 1) - 3);
      t.textContent = l;
      cap.appendChild(t);
    });
    svg.appendChild(cap);
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(svg);
  }

  function toBlob(canvas) {
    return new Promise((ok, bad) => canvas.toBlob((b) => (b ? ok(b) : bad(new Error("the browser could not encode the picture"))), "image/png"));
  }

  // chartPNG draws chartSVG at SCALE pixels per CSS pixel.
  async function chartPNG() {
    const text = chartSVG();
    const doc = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
    const W = +doc.getAttribute("width"), H = +doc.getAttribute("height");
    if (!(W > 0 && H > 0)) throw new Error("the chart has no size");
    const url = URL.createObjectURL(new Blob([text], {type: "image/svg+xml"}));
    try {
      const img = new Image();
      img.src = url;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = Math.round(W * SCALE);
      c.height = Math.round(H * SCALE);
      const ctx = c.getContext("2d");
      ctx.scale(SCALE, SCALE);
      ctx.drawImage(img, 0, 0, W, H);
      return await toBlob(c);
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  function chartCSV() {
    if (!window.kvscopeChart || !window.kvscopeChart.rows().length) throw new Error("open the chart and let it sweep first");
    const r = kv().sweepCSV(JSON.stringify(window.kvscopeChart.rows()));
    if (r.error) throw new Error(r.error);
    return r.csv;
  }

  const clear = (c) => !c || c === "transparent" || /^rgba\(.*,\s*0\)$/.test(c);

  // paint draws el and what it holds as the page shows them onto ctx
  // (whose units are viewport CSS px): background colours, then text,
  // word by word where the page put each word, clipped where the page
  // clips. Elements matching skip are left out.
  function paint(ctx, el, skip) {
    if (skip && el.matches(skip)) return;
    const cs = getComputedStyle(el);
    if (cs.display === "none" || cs.visibility === "hidden" || +cs.opacity === 0) return;
    const r = el.getBoundingClientRect();
    if (!clear(cs.backgroundColor) && r.width > 0 && r.height > 0) {
      ctx.fillStyle = cs.backgroundColor;
      ctx.fillRect(r.x, r.y, r.width, r.height);
    }
    const clip = cs.overflowX !== "visible" || cs.overflowY !== "visible";
    if (clip) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(r.x, r.y, r.width, r.height);
      ctx.clip();
    }
    ctx.globalAlpha = Math.min(ctx.globalAlpha, +cs.opacity || 1);
    for (const n of el.childNodes) {
      if (n.nodeType === Node.ELEMENT_NODE) paint(ctx, n, skip);
      else if (n.nodeType === Node.TEXT_NODE && n.textContent.trim()) words(ctx, n, cs);
    }
    if (clip) ctx.restore();
  }

  function words(ctx, node, cs) {
    ctx.font = cs.fontStyle + " " + cs.fontWeight + " " + cs.fontSize + " " + cs.fontFamily;
    ctx.fillStyle = cs.color;
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    const s = node.textContent, range = document.createRange();
    const re = /\S+/g;
    let m;
    while ((m = re.exec(s))) {
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const b = range.getBoundingClientRect();
      if (b.width > 0) ctx.fillText(m[0], b.x, b.y + b.height / 2);
    }
  }

  // picture draws the elements els (their union, plus a caption strip
  // under it) at SCALE pixels per CSS pixel over the page's background;
  // extra(ctx) draws more in viewport CSS px before the caption.
  async function picture(els, skip, caption, extra) {
    els = els.filter((e) => e && e.getClientRects().length);
    if (!els.length) throw new Error("nothing to draw: open that part of the page first");
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const e of els) {
      const r = e.getBoundingClientRect();
      x0 = Math.min(x0, r.left); y0 = Math.min(y0, r.top); x1 = Math.max(x1, r.right); y1 = Math.max(y1, r.bottom);
    }
    const pad = 8;
    x0 = Math.floor(x0 - pad); y0 = Math.floor(y0 - pad); x1 = Math.ceil(x1 + pad); y1 = Math.ceil(y1 + pad);
    const W = x1 - x0, Hp = y1 - y0;
    const lines = caption ? wrap(measure(), caption, W - 2 * pad) : [];
    const H = Hp + (lines.length ? LINE * lines.length + 4 : 0);
    const c = document.createElement("canvas");
    c.width = W * SCALE;
    c.height = H * SCALE;
    const ctx = c.getContext("2d");
    ctx.scale(SCALE, SCALE);
    ctx.fillStyle = getComputedStyle(document.documentElement).backgroundColor || "#0f1115";
    ctx.fillRect(0, 0, W, H);
    ctx.translate(-x0, -y0);
    for (const e of els) paint(ctx, e, skip);
    if (extra) extra(ctx);
    ctx.setTransform(SCALE, 0, 0, SCALE, 0, 0);
    ctx.font = CAPTION_FONT;
    ctx.fillStyle = getComputedStyle(document.body).color || "#d8dce4";
    ctx.textBaseline = "alphabetic";
    lines.forEach((l, i) => ctx.fillText(l, pad, Hp + LINE * (i + 1) - 3));
    return toBlob(c);
  }

  // mapPNG: side i as the page shows it, its pictures drawn again by the
  // program at SCALE pixels per CSS pixel.
  function mapPNG(i) {
    const side = $("side-" + i);
    const px = kv().mapPixels(i, SCALE);
    if (!px) return Promise.reject(new Error("no map to draw yet"));
    const tmp = document.createElement("canvas");
    tmp.width = px.width;
    tmp.height = px.height;
    tmp.getContext("2d").putImageData(new ImageData(px.data, px.width, px.height), 0, 0);
    return picture([side], "button, .zoom", kv().caption(), (ctx) => ctx.drawImage(tmp, px.x, px.y, px.width / SCALE, px.height / SCALE));
  }

  function memoryPNG() {
    return picture([$("mem-title"), $("memblock-0"), $("memblock-1"), $("seglegend")], "button", kv().caption());
  }

  function recallPNG() {
    const t = document.querySelector("#breaks-map table");
    if (!t) return Promise.reject(new Error("run the heatmap first"));
    const task = $("breaks-task");
    const name = task && task.selectedOptions[0] ? task.selectedOptions[0].textContent : "";
    return picture([t], "button", kv().caption() + " · what compression breaks: " + name + " (nats per answer token)");
  }

  function recallCSV() {
    const s = kv().recallCSV();
    if (!s) throw new Error("run the heatmap first");
    return s;
  }

  function download(name, data, type) {
    const blob = data instanceof Blob ? data : new Blob([data], {type: type || "application/octet-stream"});
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    a.style.display = "none";
    $("app").appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30000);
  }

  const metricKey = () => ($("chart-metric") && $("chart-metric").value) || "mass";
  const exports = {
    "chart-png": async () => ["kvscope-chart-" + metricKey() + ".png", await chartPNG()],
    "chart-svg": async () => ["kvscope-chart-" + metricKey() + ".svg", new Blob([chartSVG()], {type: "image/svg+xml"})],
    "chart-csv": async () => ["kvscope-chart.csv", new Blob([chartCSV()], {type: "text/csv"})],
    "map": async (b) => ["kvscope-map-" + "AB"[+b.dataset.side || 0] + ".png", await mapPNG(+b.dataset.side || 0)],
    "memory": async () => ["kvscope-memory.png", await memoryPNG()],
    "recall-png": async () => ["kvscope-recall.png", await recallPNG()],
    "recall-csv": async () => ["kvscope-recall.csv", new Blob([recallCSV()], {type: "text/csv"})],
  };

  // The button says what happened for a moment: ✓ (the file is
  // downloading) or ✗ with the reason in its tooltip and its panel's line.
  function flash(b, ok, why) {
    if (!b.dataset.label) b.dataset.label = b.textContent;
    if (!b.dataset.title) b.dataset.title = b.title;
    clearTimeout(+b.dataset.timer || 0);
    b.textContent = (ok ? "✓ " : "✗ ") + b.dataset.label;
    b.title = ok ? "Downloaded" : why;
    b.dataset.done = ok ? "ok" : "failed";
    if (!ok) {
      const st = b.closest("details") && b.closest("details").querySelector("summary .sub");
      if (st) st.textContent = "· " + why;
    }
    b.dataset.timer = setTimeout(() => { b.textContent = b.dataset.label; b.title = b.dataset.title; }, ok ? 1500 : 4000);
  }

  document.addEventListener("click", async (ev) => {
    const b = ev.target.closest && ev.target.closest("button[data-export]");
    if (!b || !exports[b.dataset.export]) return;
    try {
      const [name, blob] = await exports[b.dataset.export](b);
      download(name, blob);
      flash(b, true);
    } catch (e) {
      console.error("kvscope export:", e);
      flash(b, false, String(e && e.message || e));
    }
  });

  window.KVExport = {chartSVG, chartPNG, chartCSV, mapPNG, memoryPNG, recallPNG, recallCSV, download, SCALE};
})();
