// Checks static/chart.js under Node with a minimal DOM: node chart_test.js
// CHART_JS ROWS_JSON MODEL_ROWS_JSON CATALOG_JSON. ROWS_JSON are sweep rows
// as the worker posts them, CATALOG_JSON the catalog the page hands the
// chart (view.Catalogue). Prints "ok" or throws.
'use strict';
const fs = require('fs');
const assert = require('assert');
const [chartPath, rowsPath, modelRowsPath, catalogPath] = process.argv.slice(2);

class El {
  constructor(tag) { this.tag = tag; this.attrs = {}; this.children = []; this.listeners = {}; this.style = {}; this.clientWidth = 800; this._text = ''; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return this.attrs[k]; }
  appendChild(c) { this.children.push(c); c.parent = this; return c; }
  addEventListener(t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); }
  fire(t, e) { for (const f of this.listeners[t] || []) f(e || {}); }
  set textContent(v) { this.children = []; this._text = String(v); }
  get textContent() { return this._text + this.children.map((c) => c.textContent).join(''); }
  set className(v) { this.attrs.class = v; }
  all(pred, out = []) { if (pred(this)) out.push(this); for (const c of this.children) c.all(pred, out); return out; }
  byClass(c) { return this.all((e) => (e.attrs.class || '').split(' ').includes(c)); }
}
globalThis.document = {createElementNS: (ns, t) => new El(t), createElement: (t) => new El(t)};
globalThis.requestAnimationFrame = () => {}; // draws are called by hand

const KVChart = require(chartPath);
const rows = JSON.parse(fs.readFileSync(rowsPath, 'utf8'));
const modelRows = JSON.parse(fs.readFileSync(modelRowsPath, 'utf8'));
const root = new El('div');
const picks = [];
const catalog = JSON.parse(fs.readFileSync(catalogPath, 'utf8'));
const chart = KVChart.create(root, {onPick: (s) => picks.push(s), catalog: catalog});
const entry = (name) => catalog.policies.find((p) => p.name === name);

// Empty: a message, no points.
assert.strictEqual(root.byClass('kvchart-point').length, 0);

// Progressive: rows added one by one draw like rows set at once.
for (const r of rows) chart.addRow(r);
chart.draw();
const progressive = root.byClass('kvchart-point').length;
chart.setRows(rows);
chart.draw();
const points = root.byClass('kvchart-point');
assert.strictEqual(points.length, rows.length, 'one point per row');
assert.strictEqual(progressive, rows.length);

// One curve per policy and storage with more than one budget.
const curves = root.byClass('kvchart-curve');
const perKey = new Map();
for (const r of rows) if (r.policy !== 'full') {
  const k = r.policy + '|' + r.bits + ' ' + r.gran;
  perKey.set(k, (perKey.get(k) || 0) + 1);
}
const keys = new Set([...perKey].filter(([, n]) => n > 1).map(([k]) => k));
assert.strictEqual(curves.length, keys.size, 'curves ' + curves.length + ' want ' + keys.size);
const policies = new Set(curves.map((c) => c.attrs['data-policy']));
for (const k of keys) assert.ok(policies.has(k.split('|')[0]), 'no curve for ' + k);
assert.strictEqual(root.byClass('kvchart-uncompressed').length, 1, 'the uncompressed point');

// Each point says its numbers: the engine's, as printed.
const fmt = (v) => chart.format('mass', v);
for (const p of points) {
  const r = rows.find((x) => String(x.index) === p.attrs['data-index']);
  assert.ok(p.attrs['aria-label'].includes(fmt(r.mass)), p.attrs['aria-label'] + ' lacks ' + fmt(r.mass));
  assert.ok(p.attrs['aria-label'].includes(KVChart._internal.formatBytes(r.bytes)));
}

// The current setting is highlighted; the measured one gets a star.
const cur = rows.find((r) => r.policy === 'h2o');
chart.setCurrent({...KVChart._internal.settingOf(cur), bytes: cur.bytes, mass: cur.mass});
chart.draw();
const hl = root.byClass('kvchart-current');
assert.strictEqual(hl.length, 1, 'one highlighted point');
assert.strictEqual(hl[0].attrs['data-index'], String(cur.index));
assert.strictEqual(root.byClass('kvchart-you').length, 1, 'the star');

// A legend key brings its policy forward: hovering it while the pointer
// stays, a click until a second click; hovering a point does the same.
const opacity = (node) => Number(node.attrs.opacity || 1);
const faded = () => root.byClass('kvchart-curve').filter((c) => opacity(c) < 1).map((c) => c.attrs['data-policy']);
const legendKeys = root.byClass("kvchart-key");
assert.strictEqual(legendKeys.length, new Set(rows.map((r) => r.policy)).size, 'one legend key per policy');
const h2oKey = legendKeys.find((k) => k.attrs['data-policy'] === 'h2o');
assert.deepStrictEqual(faded(), [], 'nothing faded before a key is touched');
h2oKey.fire('mouseenter');
assert.ok(faded().length > 0 && !faded().includes('h2o'), 'hovering h2o fades the others: ' + faded());
assert.ok(root.byClass('kvchart-point').every((p) => (opacity(p) === 1) === (p.attrs['data-policy'] === 'h2o')), 'points follow their curves');
h2oKey.fire('mouseleave');
assert.deepStrictEqual(faded(), [], 'leaving the key restores every curve');
h2oKey.fire('click');
h2oKey.fire('mouseleave');
assert.ok(faded().length > 0 && !faded().includes('h2o'), 'a click pins h2o');
assert.strictEqual(h2oKey.attrs['aria-pressed'], 'true');
chart.draw();
assert.ok(faded().length > 0 && !faded().includes('h2o'), 'the pin survives a redraw');
const winPoint = root.byClass('kvchart-point').find((p) => p.attrs['data-policy'] === 'window');
winPoint.fire('mouseenter');
assert.ok(!faded().includes('window') && faded().includes('h2o'), 'hovering a window point shows window over the pin');
winPoint.fire('mouseleave');
root.byClass('kvchart-key').find((k) => k.attrs['data-policy'] === 'h2o').fire('keydown', {key: 'Enter'});
assert.deepStrictEqual(faded(), [], 'Enter on the pinned key unpins it');

// Hover shows the setting and numbers; click and Enter pick the setting.
const p0 = root.byClass('kvchart-point').find((p) => p.attrs['data-index'] === String(cur.index));
p0.fire('mouseenter');
const tip = root.byClass('kvchart-tip')[0];
assert.strictEqual(tip.style.display, 'block');
assert.ok(tip.textContent.includes(KVChart._internal.formatBytes(cur.bytes)) && tip.textContent.includes(entry('h2o').label), tip.textContent);
p0.fire('mouseleave');
assert.strictEqual(tip.style.display, 'none');
p0.fire('click');
p0.fire('keydown', {key: 'Enter'});
assert.deepStrictEqual(picks, [KVChart._internal.settingOf(cur), KVChart._internal.settingOf(cur)]);
assert.deepStrictEqual(Object.keys(picks[0]).sort(), ['bits', 'drop', 'gran', 'heavy', 'policy', 'recent', 'sink']);

// The legend names each policy by its catalog label, in its colour.
for (const k of root.byClass('kvchart-key')) {
  const p = entry(k.attrs['data-policy']);
  assert.ok(k.textContent.includes(p.label), k.textContent + ' is not ' + p.label);
  assert.ok(k.children.some((c) => c.attrs.fill === p.color), p.name + ' is not drawn in ' + p.color);
}

// Metrics: the catalog's chart measures; synthetic rows offer three, model
// rows six; unknown throws.
const chartMeasures = catalog.measures.filter((m) => m.chart);
assert.deepStrictEqual(chart.metrics(), chartMeasures.filter((m) => !m.model).map((m) => m.key));
chart.setMetric('kl');
chart.draw();
assert.ok(root.textContent.includes(chart.metricLabel('kl')) && chart.metricLabel('kl').startsWith(catalog.measures.find((m) => m.key === 'kl').label));
assert.throws(() => chart.setMetric('bogus'));
chart.setBudget(cur.bytes * 1.1);
chart.draw();
assert.strictEqual(root.byClass('kvchart-budget').length, 1);
chart.setRows(modelRows);
assert.deepStrictEqual(chart.metrics(), chartMeasures.map((m) => m.key));
chart.setMetric('ppl');
chart.draw();
assert.strictEqual(root.byClass('kvchart-point').length, modelRows.length);

// Helpers.
assert.strictEqual(KVChart._internal.sig(0.12345, 3), '0.123');
assert.strictEqual(KVChart._internal.formatBytes(36960), '36.1 KiB');
assert.deepStrictEqual(KVChart._internal.byteTicks(3000, 70000), [4096, 8192, 16384, 32768, 65536]);
assert.deepStrictEqual(KVChart._internal.byteTicks(1000, 1 << 30).length <= 9, true);
// The attention-sinks figure: one path per cache, running means.
assert.deepStrictEqual(KVChart._internal.smooth([1, 3, 5, 7], 0), [1, 2, 3, 4]);
assert.deepStrictEqual(KVChart._internal.smooth([1, 3, 5, 7], 2), [1, 2, 4, 6]);
const froot = new El('div');
const fig = KVChart.createSeries(froot, {catalog: catalog});
fig.setCurves([{label: 'full', policy: 'full', nll: [1, 0.5, 0.4]}, {label: 'window', policy: 'window', nll: [1, 0.9, 2]},
  {label: 'sinks + window', policy: 'streaming', nll: [1, 0.6, 0.5]}], ['<s>', 'Once', ' upon', ' a']);
fig.setBudget(2);
const paths = froot.byClass('kvchart-curve');
assert.deepStrictEqual(paths.map((p) => p.attrs['data-label']), ['full', 'window', 'sinks + window']);
assert.deepStrictEqual(paths.map((p) => p.attrs.stroke), ['full', 'window', 'streaming'].map((n) => entry(n).color));
assert.strictEqual(froot.byClass('kvchart-budget').length, 1);
froot.byClass('kvchart-hover')[0].fire('mousemove', {clientX: 10000});
assert.ok(froot.textContent.includes('position 3, next token " a"'), froot.textContent);
// A policy the chart has never heard of, added to the catalog alone, is
// named and coloured by its entry, and its points told apart by the
// settings it reads.
const plugged = {name: 'plugged-test', label: 'Plugged (test)', title: 'Plugged', help: '', color: '#123456', reads: ['recent', 'alloc']};
const proot = new El('div');
const pchart = KVChart.create(proot, {catalog: {policies: [plugged], measures: catalog.measures}});
const prow = (i, recent) => ({index: i, policy: 'plugged-test', sink: 4, recent: recent, heavy: 9, drop: 0, bits: 16, gran: 'token', bytes: 1000 * recent, full_bytes: 64000, ratio: 1, mass: 0.5 + recent / 100, output_error: 0.1, kl: 0.1});
pchart.setRows([prow(0, 8), prow(1, 16)]);
pchart.setCurrent({policy: 'plugged-test', sink: 0, recent: 16, heavy: 0, drop: 0, bits: 16, gran: 'token'});
pchart.draw();
const pkey = proot.byClass('kvchart-key')[0];
assert.ok(pkey.textContent.includes('Plugged (test)') && pkey.children.some((c) => c.attrs.fill === '#123456'), pkey.textContent);
const pcur = proot.byClass('kvchart-current');
assert.ok(pcur.length === 1 && pcur[0].attrs['data-index'] === '1', 'the setting it reads picks the current point');
assert.ok(pcur[0].attrs['aria-label'].startsWith('Plugged (test): 16 recent ·'), pcur[0].attrs['aria-label']);
console.log('ok');
