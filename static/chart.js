// kvscope's memory-versus-fidelity chart: the figure every KV-compression
// paper plots (fidelity against memory, one line per method), drawn in SVG
// from the sweep rows the worker (sweep-worker.js) posts.
//
// API (a global KVChart; also module.exports under Node):
//
//   const chart = KVChart.create(el, {onPick, metric, budget});
//       el:      the element to draw in (its width is used; height 320 px
//                unless opts.height). The chart owns el's content.
//       onPick:  called with the setting of a clicked (or Enter-pressed)
//                point: {policy, sink, recent, heavy, drop, bits, gran} —
//                the page's link keys.
//       metric:  the y measure (default 'mass'): a key of the catalog's
//                measures.
//       budget:  an optional memory budget in bytes, drawn as a line.
//       catalog: what kvscope's Go descriptions say of the policies and
//                measures (window.kvscope.catalog(), view.Catalogue):
//                {policies: [{name, label, color, reads}], measures: [{key,
//                label, up, unit, perfect, perfectKey, model, chart}]};
//                default window.kvscopeCatalog. A policy's label and
//                colour name its curve, the settings it reads tell its
//                points apart; a policy the catalog lacks is shown by its
//                link key in a colour of its own.
//   chart.setRows(rows)    replaces the points (rows as the worker's
//                          {type:'row'} messages carry them: policy, budget,
//                          sink, recent, heavy, drop, bits, gran, bytes,
//                          full_bytes, ratio, mass, output_error, kl,
//                          key_error, value_error; real model: top1,
//                          next_kl, ppl, ppl_full).
//   chart.addRow(row)      adds one point (while a sweep fills in).
//   chart.clear()          removes every point.
//   chart.setCurrent(cfg)  highlights the learner's setting: cfg has the
//                          settings keys above and, when the page measured
//                          it, bytes and the metric values (drawn as a star
//                          where they fall, even off the grid); null clears.
//   chart.setMetric(name)  chooses y: a measure the catalog lets the chart
//                          plot (the real model's only when rows carry them).
//   chart.setBudget(bytes) draws (or, with 0, removes) the budget line.
//   chart.focus(policy)    brings one policy's curve and points forward,
//                          fading the others (null: all alike); a click on
//                          a legend key does the same, a second click
//                          undoes it, and hovering a key or a point shows
//                          that policy forward while the pointer stays.
//   chart.metrics()        the metric names the current rows can show.
//   chart.metricLabel(name) a metric's label as the axis writes it;
//   chart.format(name, v)  a value of it as the chart prints it.
//   chart.rows()           the rows drawn, in the order added.
//   chart.destroy()        removes the chart from el.
//
//   const fig = KVChart.createSeries(el, {height, window});
//       the attention-sinks figure (real-model mode): log-perplexity along
//       the text for each cache, from the worker's {type:'sinks'} reply.
//   fig.setCurves(curves, tokens)  curves: [{label, nll: [per position]}]
//                          (nll[i] = −log p(token i+1)); tokens: the text's
//                          pieces (for hover). Each curve is drawn as the
//                          running mean of nll up to each position (the log
//                          of the perplexity so far), or with {window: n} as
//                          the mean over the last n positions.
//   fig.setBudget(tokens)  marks where the evicting caches start to evict.
//   fig.destroy()
//
// x is the stored bytes (everything the cache holds) on a log scale, with
// the compression ratio against the FP16 history along the top; one curve
// per eviction policy and storage variant (colour: policy; marker shape:
// bits and granularity); the uncompressed history is the hollow point at
// the right. Hovering or focusing a point shows its setting and numbers.
'use strict';

(function (root) {
  const SVGNS = 'http://www.w3.org/2000/svg';

  // The y measures, from the catalog (sim.Measures): label (with its
  // unit), which way is better, how to print a value, the value of the
  // uncompressed cache (or the row field that holds it).
  const pct = (v) => sig(100 * v, 3) + ' %';
  function metricsOf(catalog) {
    const out = {};
    for (const m of (catalog && catalog.measures) || []) {
      if (!m.chart) continue;
      out[m.key] = {
        label: m.label + (m.unit === 'nats' ? ' (nats)' : ''), better: m.up ? 'up' : 'down',
        format: m.unit === 'share' ? pct : (v) => sig(v, 3), share: m.unit === 'share',
        perfect: m.perfect === undefined ? null : m.perfect, perfectKey: m.perfectKey || '', model: !!m.model,
      };
    }
    return out;
  }
  // policiesOf indexes the catalog's policies by name.
  function policiesOf(catalog) {
    const out = {};
    for (const p of (catalog && catalog.policies) || []) out[p.name] = p;
    return out;
  }
  const catalogOf = (opts) => (opts && opts.catalog) || root.kvscopeCatalog || {};

  // Colours for policies the catalog does not know (Okabe–Ito and Tol's,
  // distinct under colour-vision deficiency), each taking the next.
  const PALETTE = ['#000000', '#E69F00', '#56B4E9', '#009E73', '#D55E00', '#0072B2', '#CC79A7', '#999933', '#882255', '#44AA99', '#F0E442', '#332288', '#117733', '#AA4499'];
  const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'down', 'cross', 'plus'];

  // sig prints v with at most n significant digits, no exponent.
  function sig(v, n) {
    if (!isFinite(v)) return '–';
    if (v === 0) return '0';
    const d = n - 1 - Math.floor(Math.log10(Math.abs(v)));
    if (d < 0) return String(Math.round(v / 10 ** -d) * 10 ** -d);
    return String(Number(v.toFixed(d)));
  }

  function formatBytes(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let u = 0;
    while (n >= 1024 && u < units.length - 1) { n /= 1024; u++; }
    return u === 0 ? Math.round(n) + ' B' : sig(n, 3) + ' ' + units[u];
  }

  // settingOf is the page setting a row stands for.
  function settingOf(r) {
    return {policy: r.policy, sink: r.sink, recent: r.recent, heavy: r.heavy, drop: r.drop, bits: r.bits, gran: r.gran};
  }

  function storageKey(r) { return r.bits + ' ' + r.gran; }

  function storageLabel(r) {
    const b = r.bits === 32 ? 'float32' : r.bits === 16 ? 'FP16' : 'INT' + r.bits;
    return r.bits >= 16 ? b : b + ' ' + r.gran;
  }

  // The settings a row carries that tell a policy's points apart, among
  // those its catalog entry reads, with how each is written.
  const ROW_SETTINGS = {
    sink: (v) => v + ' sinks', recent: (v) => v + ' recent', heavy: (v) => v + ' heavy',
    drop: (v) => 'dropping ' + sig(100 * v, 3) + ' % per chunk',
  };
  // readsOf is the row settings policy entry p reads (all of them when
  // the catalog does not know the policy).
  const readsOf = (p) => Object.keys(ROW_SETTINGS).filter((k) => !p || (p.reads || []).includes(k));

  // describe is the setting in words; pol is the row's policy's catalog
  // entry (or undefined).
  function describe(r, pol) {
    let s = (pol && pol.label) || r.policy;
    const parts = readsOf(pol).filter((k) => r[k]).map((k) => ROW_SETTINGS[k](r[k]));
    if (parts.length) s += ': ' + parts.join(' + ');
    return s + ' · ' + storageLabel(r);
  }

  // sameSetting reports whether a row is the setting cfg names: the same
  // policy and storage, and the same value of every setting it reads.
  function sameSetting(r, cfg, pol) {
    if (!cfg || r.policy !== cfg.policy || r.bits !== Number(cfg.bits) || r.gran !== cfg.gran) return false;
    return readsOf(pol).every((k) => Math.abs(r[k] - Number(cfg[k])) < 1e-9);
  }

  // byteTicks returns powers of two within [lo, hi] (every second or
  // fourth one when there would be more than nine).
  function byteTicks(lo, hi) {
    const e0 = Math.ceil(Math.log2(lo)), e1 = Math.floor(Math.log2(hi));
    let step = 1;
    while ((e1 - e0) / step + 1 > 9) step *= 2;
    const out = [];
    for (let e = e0; e <= e1; e += step) out.push(2 ** e);
    return out;
  }

  // linTicks returns about n round ticks within [lo, hi].
  function linTicks(lo, hi, n) {
    const span = hi - lo || 1;
    const step0 = span / n;
    const mag = 10 ** Math.floor(Math.log10(step0));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0);
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) out.push(Number(v.toPrecision(12)));
    return out;
  }

  // curves groups rows into one polyline per policy and storage, sorted
  // by bytes.
  function curves(rows) {
    const by = new Map();
    for (const r of rows) {
      const k = r.policy + '|' + storageKey(r);
      if (!by.has(k)) by.set(k, {policy: r.policy, storage: storageKey(r), rows: []});
      by.get(k).rows.push(r);
    }
    for (const c of by.values()) c.rows.sort((a, b) => a.bytes - b.bytes);
    return [...by.values()];
  }

  function el(tag, attrs, parent) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // marker draws a shape of radius s at (x, y).
  function marker(shape, x, y, s, attrs, parent) {
    const pts = (list) => list.map(([a, b]) => (x + a * s).toFixed(1) + ',' + (y + b * s).toFixed(1)).join(' ');
    switch (shape) {
      case 'square': return el('rect', {x: x - s * 0.85, y: y - s * 0.85, width: 1.7 * s, height: 1.7 * s, ...attrs}, parent);
      case 'triangle': return el('polygon', {points: pts([[0, -1.1], [1, 0.8], [-1, 0.8]]), ...attrs}, parent);
      case 'diamond': return el('polygon', {points: pts([[0, -1.2], [1.1, 0], [0, 1.2], [-1.1, 0]]), ...attrs}, parent);
      case 'down': return el('polygon', {points: pts([[0, 1.1], [1, -0.8], [-1, -0.8]]), ...attrs}, parent);
      case 'cross': return el('polygon', {points: pts([[-1, -0.6], [-0.6, -1], [0, -0.4], [0.6, -1], [1, -0.6], [0.4, 0], [1, 0.6], [0.6, 1], [0, 0.4], [-0.6, 1], [-1, 0.6], [-0.4, 0]]), ...attrs}, parent);
      case 'plus': return el('polygon', {points: pts([[-0.35, -1], [0.35, -1], [0.35, -0.35], [1, -0.35], [1, 0.35], [0.35, 0.35], [0.35, 1], [-0.35, 1], [-0.35, 0.35], [-1, 0.35], [-1, -0.35], [-0.35, -0.35]]), ...attrs}, parent);
    }
    return el('circle', {cx: x, cy: y, r: s, ...attrs}, parent);
  }

  function create(container, opts) {
    opts = opts || {};
    const catalog = catalogOf(opts);
    const METRICS = metricsOf(catalog);
    const policies = policiesOf(catalog);
    let rows = [];
    let metric = METRICS[opts.metric] ? opts.metric : 'mass';
    let current = null;
    let budget = opts.budget || 0;
    let pending = false;
    const height = opts.height || 320;
    const nameOf = (p) => (policies[p] && policies[p].label) || p;
    const describeRow = (r) => describe(r, policies[r.policy]);
    // Focus: the policy a legend click pinned, and the one under the
    // pointer (a key or a point), which wins while it is there. tagged
    // holds each drawn element with its policy and whether it is a legend
    // key (which fades less).
    let pinned = null, hovered = null, tagged = [];
    const tag = (node, p, key) => { tagged.push([node, p, !!key]); return node; };
    function applyFocus() {
      const f = hovered || pinned;
      for (const [node, p, key] of tagged) {
        node.setAttribute('opacity', !f || p === f ? 1 : key ? 0.45 : 0.12);
        if (key) node.setAttribute('aria-pressed', String(p === pinned));
      }
    }
    const hover = (p) => { hovered = p; applyFocus(); };
    const pin = (p) => { pinned = pinned === p ? null : p; applyFocus(); };
    const colors = new Map();
    const shapes = new Map();

    container.textContent = '';
    if (container.style) container.style.position = container.style.position || 'relative';
    const svg = el('svg', {class: 'kvchart', role: 'img', 'aria-label': 'memory against fidelity', 'font-family': 'system-ui, sans-serif'});
    container.appendChild(svg);
    const tip = document.createElement('div');
    tip.className = 'kvchart-tip';
    tip.setAttribute('role', 'status');
    tip.style.cssText = 'position:absolute;pointer-events:none;display:none;background:#fff;border:1px solid #888;' +
      'padding:4px 6px;font:12px system-ui,sans-serif;max-width:260px;white-space:normal;box-shadow:0 1px 4px rgba(0,0,0,.2)';
    container.appendChild(tip);

    function colorOf(p) {
      if (!colors.has(p)) colors.set(p, (policies[p] && policies[p].color) || PALETTE[colors.size % PALETTE.length]);
      return colors.get(p);
    }
    function shapeOf(r) {
      const k = storageKey(r);
      if (!shapes.has(k)) shapes.set(k, SHAPES[shapes.size % SHAPES.length]);
      return shapes.get(k);
    }

    function value(r, m) {
      const v = r[m];
      return typeof v === 'number' && isFinite(v) ? v : null;
    }

    function showTip(r, x, y, W) {
      const lines = [describeRow(r), formatBytes(r.bytes) + ' stored (' + sig(r.ratio || r.full_bytes / r.bytes, 3) + '× smaller than FP16)'];
      lines.push(Object.keys(METRICS).filter((k) => value(r, k) !== null).map((k) => (k === metric ? '▸ ' : '') + METRICS[k].label + ' ' + METRICS[k].format(r[k])).join(' · '));
      tip.textContent = '';
      for (const l of lines) {
        const d = document.createElement('div');
        d.textContent = l;
        tip.appendChild(d);
      }
      tip.style.display = 'block';
      tip.style.left = Math.max(0, Math.min(x + 12, W - 270)) + 'px';
      tip.style.top = Math.max(0, y - 10) + 'px';
    }
    function hideTip() { tip.style.display = 'none'; }

    function draw() {
      pending = false;
      const W = Math.max(280, (container.clientWidth || 640));
      const H = height;
      const L = 56, R = 12, T = 34, B = 58;
      const m = METRICS[metric];
      if (!m) {
        el('text', {x: W / 2, y: H / 2, 'text-anchor': 'middle', fill: '#666', 'font-size': 13}, svg).textContent = 'no measures to plot (no catalog)';
        return;
      }
      const shown = rows.filter((r) => r.bytes > 0 && value(r, metric) !== null);
      // The legend wraps onto more rows in a narrow chart: the picture
      // grows below the plot instead of the rows climbing over the axis.
      const legendItems = [...new Set(shown.map((r) => r.policy))].map((p) => 18 + 7 * nameOf(p).length);
      const storageItems = [...new Map(shown.map((r) => [storageKey(r), r])).values()];
      if (storageItems.length > 1) for (const r of storageItems) legendItems.push(20 + 6.5 * storageLabel(r).length);
      let legendRows = 1;
      for (let x = L, i = 0; i < legendItems.length; i++) {
        if (x > L && x + legendItems[i] > W - 20) { legendRows++; x = L; }
        x += legendItems[i];
      }
      const Htot = H + 14 * (legendRows - 1);
      svg.setAttribute('viewBox', '0 0 ' + W + ' ' + Htot);
      svg.setAttribute('width', W);
      svg.setAttribute('height', Htot);
      svg.textContent = '';
      tagged = [];
      const full = rows.length ? Math.max(...rows.map((r) => r.full_bytes || 0)) : 0;
      // The uncompressed point: the FP16 history, at perfect fidelity.
      let perfect = m.perfect;
      if (m.perfectKey) {
        const f = rows.find((r) => r[m.perfectKey] > 0);
        perfect = f ? f[m.perfectKey] : null;
      }
      const xs = shown.map((r) => r.bytes).concat(full > 0 ? [full] : []);
      if (current && current.bytes > 0) xs.push(current.bytes);
      let ys = shown.map((r) => r[metric]).concat(perfect !== null ? [perfect] : []);
      if (current && value(current, metric) !== null) ys.push(current[metric]);
      if (!xs.length) {
        el('text', {x: W / 2, y: H / 2, 'text-anchor': 'middle', fill: '#666', 'font-size': 13}, svg).textContent = 'computing the sweep…';
        return;
      }
      const x0 = Math.min(...xs) / 1.25, x1 = Math.max(...xs) * 1.25;
      let y0 = Math.min(...ys), y1 = Math.max(...ys);
      const topShare = m.share && m.better === 'up'; // a share that is best at 100 %
      if (topShare) { y0 = Math.min(y0, 0); y1 = 1; }
      if (m.perfect === 0) y0 = 0;
      if (y1 - y0 < 1e-9) { y1 = y0 + 1; }
      const pad = (y1 - y0) * 0.05;
      if (!topShare) y1 += pad;
      const sx = (v) => L + (Math.log(v) - Math.log(x0)) / (Math.log(x1) - Math.log(x0)) * (W - L - R);
      const sy = (v) => T + (1 - (v - y0) / (y1 - y0)) * (H - T - B);

      // Axes and grid.
      const axis = el('g', {class: 'kvchart-axes', 'font-size': 11, fill: '#444'}, svg);
      for (const v of byteTicks(x0, x1)) {
        const x = sx(v);
        el('line', {x1: x, x2: x, y1: T, y2: H - B, stroke: '#e4e4e4'}, axis);
        el('text', {x: x, y: H - B + 14, 'text-anchor': 'middle'}, axis).textContent = formatBytes(v);
      }
      if (full > 0) {
        for (let k = 1; k <= 1024; k *= 2) {
          const v = full / k;
          if (v < x0 || v > x1) continue;
          el('text', {x: sx(v), y: T - 6, 'text-anchor': 'middle', fill: '#777'}, axis).textContent = k + '×';
        }
        el('text', {x: L, y: 12, fill: '#777'}, axis).textContent = 'compression against the FP16 history';
      }
      for (const v of linTicks(y0, y1, 5)) {
        const y = sy(v);
        el('line', {x1: L, x2: W - R, y1: y, y2: y, stroke: '#e4e4e4'}, axis);
        el('text', {x: L - 6, y: y + 4, 'text-anchor': 'end'}, axis).textContent = m.format(v);
      }
      el('text', {x: (L + W - R) / 2, y: H - B + 30, 'text-anchor': 'middle'}, axis).textContent = 'bytes stored (log scale)';
      el('text', {x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: 'rotate(-90 12 ' + (T + H - B) / 2 + ')'}, axis)
        .textContent = m.label + (m.better === 'up' ? ' ↑ better' : ' ↓ better');

      if (budget > 0 && budget > x0 && budget < x1) {
        const x = sx(budget);
        el('line', {class: 'kvchart-budget', x1: x, x2: x, y1: T, y2: H - B, stroke: '#b00', 'stroke-dasharray': '4 3'}, svg);
        el('text', {x: x + 4, y: H - B - 6, fill: '#b00', 'font-size': 11}, svg).textContent = 'budget ' + formatBytes(budget);
      }

      // One curve per policy and storage.
      const cs = curves(shown);
      const lines = el('g', {class: 'kvchart-curves', fill: 'none', 'stroke-width': 1.5}, svg);
      for (const c of cs) {
        if (c.rows.length < 2) continue;
        const d = c.rows.map((r, i) => (i ? 'L' : 'M') + sx(r.bytes).toFixed(1) + ' ' + sy(r[metric]).toFixed(1)).join(' ');
        tag(el('path', {d: d, stroke: colorOf(c.policy), 'data-policy': c.policy, 'data-storage': c.storage, class: 'kvchart-curve'}, lines), c.policy);
      }
      // The uncompressed history.
      if (full > 0 && perfect !== null) {
        const u = el('circle', {class: 'kvchart-uncompressed', cx: sx(full), cy: sy(perfect), r: 6, fill: '#fff', stroke: '#000', 'stroke-width': 2}, svg);
        const t = el('title', {}, u);
        t.textContent = 'uncompressed FP16 history: ' + formatBytes(full);
      }
      // Points.
      const pts = el('g', {class: 'kvchart-points'}, svg);
      for (const r of shown) {
        const x = sx(r.bytes), y = sy(r[metric]);
        const isCur = current && sameSetting(r, current, policies[r.policy]);
        const p = marker(shapeOf(r), x, y, isCur ? 6 : 4, {
          fill: colorOf(r.policy), stroke: isCur ? '#000' : '#fff', 'stroke-width': isCur ? 2.5 : 1,
          class: 'kvchart-point' + (isCur ? ' kvchart-current' : ''), tabindex: 0, role: 'button',
          'data-index': r.index, 'data-policy': r.policy, 'aria-label': describeRow(r) + ', ' + formatBytes(r.bytes) + ', ' + m.label + ' ' + m.format(r[metric]),
          style: 'cursor:pointer',
        }, pts);
        tag(p, r.policy);
        const enter = () => { showTip(r, x, y, W); hover(r.policy); };
        const leave = () => { hideTip(); hover(null); };
        p.addEventListener('mouseenter', enter);
        p.addEventListener('focus', enter);
        p.addEventListener('mouseleave', leave);
        p.addEventListener('blur', leave);
        p.addEventListener('click', () => opts.onPick && opts.onPick(settingOf(r)));
        p.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            if (e.preventDefault) e.preventDefault();
            if (opts.onPick) opts.onPick(settingOf(r));
          }
        });
      }
      // The learner's setting where it was measured, grid or not.
      if (current && current.bytes > 0 && value(current, metric) !== null) {
        const x = sx(current.bytes), y = sy(current[metric]);
        const s = 8;
        const star = [];
        for (let i = 0; i < 10; i++) {
          const a = -Math.PI / 2 + i * Math.PI / 5, rr = i % 2 ? s * 0.45 : s;
          star.push((x + rr * Math.cos(a)).toFixed(1) + ',' + (y + rr * Math.sin(a)).toFixed(1));
        }
        const st = el('polygon', {class: 'kvchart-you', points: star.join(' '), fill: '#ffd400', stroke: '#000', 'stroke-width': 1.5}, svg);
        el('title', {}, st).textContent = 'your setting: ' + formatBytes(current.bytes) + ', ' + m.label + ' ' + m.format(current[metric]);
      }

      // Legend: policies (colour), storage (shape).
      const leg = el('g', {class: 'kvchart-legend', 'font-size': 11, fill: '#333'}, svg);
      let lx = L, ly = H - 12;
      const wrap = (w) => { if (lx > L && lx + w > W - 20) { lx = L; ly += 14; } };
      const seen = [...new Set(shown.map((r) => r.policy))];
      for (const p of seen) {
        const name = nameOf(p);
        wrap(18 + 7 * name.length);
        const key = tag(el('g', {class: 'kvchart-key', 'data-policy': p, tabindex: 0, role: 'button',
          'aria-label': name + ': bring its curve forward', style: 'cursor:pointer'}, leg), p, true);
        el('rect', {x: lx - 2, y: ly - 10, width: 16 + 7 * name.length, height: 14, fill: 'transparent'}, key); // the whole label answers
        el('rect', {x: lx, y: ly - 8, width: 10, height: 10, fill: colorOf(p)}, key);
        const t = el('text', {x: lx + 13, y: ly + 1}, key);
        t.textContent = name;
        key.addEventListener('mouseenter', () => hover(p));
        key.addEventListener('mouseleave', () => hover(null));
        key.addEventListener('click', () => pin(p));
        key.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            if (e.preventDefault) e.preventDefault();
            pin(p);
          }
        });
        lx += 18 + 7 * name.length;
      }
      const storages = storageItems;
      if (storages.length > 1) {
        for (const r of storages) {
          const label = storageLabel(r);
          wrap(20 + 6.5 * label.length);
          marker(shapeOf(r), lx + 5, ly - 3, 4, {fill: '#666'}, leg);
          el('text', {x: lx + 12, y: ly + 1}, leg).textContent = label;
          lx += 20 + 6.5 * label.length;
        }
      }
      applyFocus();
    }
    // A redraw replaces the element under the pointer, which then never
    // hears the pointer leave: the picture itself clears a stale hover.
    svg.addEventListener('mouseleave', () => hover(null));
    svg.addEventListener('mousemove', (e) => {
      if (hovered && e.target && e.target.closest && !e.target.closest('[data-policy]')) hover(null);
    });

    // Redraws are batched to one per frame, and while a sweep streams
    // rows in (addRow), to one per quarter second: a redraw rebuilds the
    // whole picture, and the page's thread shares the machine with the
    // workers computing the rows.
    let lastDraw = -1e9;
    const streamGap = 250;
    function schedule(streaming) {
      if (pending) return;
      pending = true;
      const raf = root.requestAnimationFrame || ((f) => setTimeout(f, 16));
      const now = () => (root.performance || Date).now();
      const wait = streaming ? lastDraw + streamGap - now() : 0;
      const go = () => { lastDraw = now(); draw(); };
      if (wait > 0) setTimeout(() => raf(go), wait); else raf(go);
    }

    const chart = {
      setRows(rs) { rows = (rs || []).slice(); schedule(); },
      addRow(r) { rows.push(r); schedule(true); },
      clear() { rows = []; schedule(); },
      setCurrent(cfg) {
        // The page reports its setting a few times a second: redraw only
        // when it changed.
        const same = JSON.stringify(cfg || null) === JSON.stringify(current);
        current = cfg || null;
        if (!same) schedule();
      },
      setMetric(name) {
        if (!METRICS[name]) throw new Error('KVChart: unknown metric ' + name);
        metric = name;
        schedule();
      },
      setBudget(b) { const v = Number(b) || 0; if (v !== budget) { budget = v; schedule(); } },
      focus(p) { pinned = p || null; applyFocus(); },
      metrics() {
        const model = rows.some((r) => Object.keys(METRICS).some((k) => METRICS[k].model && value(r, k) !== null));
        return Object.keys(METRICS).filter((k) => !METRICS[k].model || model);
      },
      metricLabel(name) { return METRICS[name] ? METRICS[name].label : name; },
      format(name, v) { return METRICS[name] ? METRICS[name].format(v) : String(v); },
      rows() { return rows.slice(); },
      draw,
      destroy() { container.textContent = ''; },
    };
    draw();
    return chart;
  }

  // smooth returns the running mean of xs (window 0) or the mean over the
  // last `window` values at each position.
  function smooth(xs, window) {
    const out = new Array(xs.length);
    let sum = 0;
    for (let i = 0; i < xs.length; i++) {
      sum += xs[i];
      if (window > 0 && i >= window) sum -= xs[i - window];
      out[i] = sum / (window > 0 ? Math.min(i + 1, window) : i + 1);
    }
    return out;
  }

  function createSeries(container, opts) {
    opts = opts || {};
    const height = opts.height || 260;
    let curves = [], tokens = [], budget = 0;
    container.textContent = '';
    if (container.style) container.style.position = container.style.position || 'relative';
    const svg = el('svg', {class: 'kvchart-series', role: 'img', 'aria-label': 'log-perplexity along the text', 'font-family': 'system-ui, sans-serif'});
    container.appendChild(svg);
    // Each curve in its policy's colour (curves carry their policy).
    const policies = policiesOf(catalogOf(opts));

    function draw() {
      const W = Math.max(280, container.clientWidth || 640), H = height;
      const L = 56, R = 12, T = 14, B = 44;
      svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
      svg.setAttribute('width', W);
      svg.setAttribute('height', H);
      svg.textContent = '';
      const ys = curves.map((c) => smooth(c.nll, opts.window || 0));
      const n = Math.max(0, ...curves.map((c) => c.nll.length));
      if (!n) {
        el('text', {x: W / 2, y: H / 2, 'text-anchor': 'middle', fill: '#666', 'font-size': 13}, svg).textContent = 'computing…';
        return;
      }
      const all = ys.flat().filter(isFinite);
      const y0 = 0, y1 = Math.max(...all) * 1.05 || 1;
      const sx = (i) => L + (n > 1 ? i / (n - 1) : 0) * (W - L - R);
      const sy = (v) => T + (1 - (v - y0) / (y1 - y0)) * (H - T - B);
      const axis = el('g', {'font-size': 11, fill: '#444'}, svg);
      for (const v of linTicks(0, n, 8)) {
        if (v > n - 1) continue;
        el('line', {x1: sx(v), x2: sx(v), y1: T, y2: H - B, stroke: '#e4e4e4'}, axis);
        el('text', {x: sx(v), y: H - B + 14, 'text-anchor': 'middle'}, axis).textContent = String(v + 1);
      }
      for (const v of linTicks(y0, y1, 4)) {
        el('line', {x1: L, x2: W - R, y1: sy(v), y2: sy(v), stroke: '#e4e4e4'}, axis);
        el('text', {x: L - 6, y: sy(v) + 4, 'text-anchor': 'end'}, axis).textContent = sig(v, 3);
      }
      el('text', {x: (L + W - R) / 2, y: H - B + 30, 'text-anchor': 'middle'}, axis).textContent = 'position in the text (tokens)';
      el('text', {x: 12, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: 'rotate(-90 12 ' + (T + H - B) / 2 + ')'}, axis)
        .textContent = (opts.window ? 'log-perplexity, last ' + opts.window : 'log-perplexity so far') + ' ↓ better';
      if (budget > 0 && budget < n) {
        el('line', {class: 'kvchart-budget', x1: sx(budget - 1), x2: sx(budget - 1), y1: T, y2: H - B, stroke: '#b00', 'stroke-dasharray': '4 3'}, svg);
        el('text', {x: sx(budget - 1) + 4, y: H - B - 6, fill: '#b00', 'font-size': 11}, svg).textContent = 'cache full: eviction starts';
      }
      curves.forEach((c, k) => {
        const col = (policies[c.policy] && policies[c.policy].color) || PALETTE[(k + 3) % PALETTE.length];
        const d = ys[k].map((v, i) => (i ? 'L' : 'M') + sx(i).toFixed(1) + ' ' + sy(v).toFixed(1)).join(' ');
        const path = el('path', {class: 'kvchart-curve', d: d, fill: 'none', stroke: col, 'stroke-width': 1.8, 'data-label': c.label}, svg);
        el('title', {}, path).textContent = c.label + ': ' + sig(ys[k][ys[k].length - 1], 3) + ' at the end (perplexity ' + sig(Math.exp(ys[k][ys[k].length - 1]), 3) + ')';
        el('rect', {x: L + 8 + k * 150, y: T + 4, width: 10, height: 10, fill: col}, svg);
        el('text', {x: L + 22 + k * 150, y: T + 13, 'font-size': 11, fill: '#333'}, svg).textContent = c.label;
      });
      // Hover: the position, its token and each curve's value.
      const hover = el('rect', {x: L, y: T, width: W - L - R, height: H - T - B, fill: 'transparent', class: 'kvchart-hover'}, svg);
      const title = el('title', {}, hover);
      hover.addEventListener('mousemove', (e) => {
        const box = svg.getBoundingClientRect ? svg.getBoundingClientRect() : {left: 0, width: W};
        const px = (e.clientX - box.left) * W / (box.width || W);
        const i = Math.max(0, Math.min(n - 1, Math.round((px - L) / (W - L - R) * (n - 1))));
        title.textContent = 'position ' + (i + 1) + (tokens[i + 1] !== undefined ? ', next token ' + JSON.stringify(tokens[i + 1]) : '') + ': ' +
          curves.map((c, k) => c.label + ' ' + sig(ys[k][i], 3)).join(', ');
      });
    }

    const fig = {
      setCurves(cs, toks) { curves = (cs || []).filter((c) => c && c.nll); tokens = toks || []; draw(); },
      setBudget(b) { budget = Number(b) || 0; draw(); },
      draw,
      destroy() { container.textContent = ''; },
    };
    draw();
    return fig;
  }

  const KVChart = {create, createSeries, _internal: {metricsOf,smooth, sig, formatBytes, byteTicks, linTicks, curves, sameSetting, describe, settingOf}};
  if (typeof module !== 'undefined' && module.exports) module.exports = KVChart;
  root.KVChart = KVChart;
})(typeof self !== 'undefined' ? self : globalThis);
