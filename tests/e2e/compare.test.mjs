// The Compare view (issue 17) on generated runs (two hpcrun measurements of one synthetic program
// with different sample and thread counts, `hpcscope fixture hpcrun`; databases written by
// `hpcscope synth`) and, with the corpus, on an hpcrun measurement
// against the database hpcprof made from it: the totals, the differential flame graph's frames and
// the delta CSV equal what `hpcscope diff` prints; a run against a copy of itself shows no change
// anywhere; the delta tables sort by delta; normalisation and the width toggle; mismatched inputs
// say so; `hpcscope.compare` and the `&base=` deep link; the distribution panel's per-profile
// values of both runs equal each run's `hpcscope dump --json`. Screenshots at 1600x1000 and
// 800x600 go to target/screenshots/compare-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appForFile, dropSelect, screenshot, hasCorpus, CORPUS } from './helpers.mjs';
import { cli, dumpJson, generated, GENERATED } from './generated.mjs';
import { serve } from '../../scripts/serve.js';

const made = new Map();
/** A dataset written once per test process under target/e2e-generated/ by `hpcscope ...args DIR`. */
function write(name, ...args) {
  const dir = path.join(GENERATED, name);
  if (!made.has(name)) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    cli(...args, dir);
    made.set(name, dir);
  }
  return dir;
}
/** A synthetic database (a seed gives its own tree). */
const synth = (name, seed) => write(name, 'synth', '--ranks', '2', '--threads', '2', '--contexts', '400', '--metrics', '2', '--samples', '100', '--seed', String(seed));
/** A measurement of the fixture program: one tree, values by the sample and thread counts. */
const measured = (name, samples, threads) => write(name, 'fixture', 'hpcrun', '--samples', String(samples), '--threads', String(threads));

const app = appForFile({ width: 1600, height: 1000 });

const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1e-300);

/** hpcscope.compare(base, new), then the view's state once its table shows rows. */
async function compare(page, base, now) {
  const st = await page.evaluate(([a, b]) => window.hpcscope.compare(a, b), [base, now]);
  if (st.error) return st;
  await page.waitForFunction(() => {
    const v = window.hpcscope.state().views.compare;
    return v && v.flame && v.flame.rects > 0 && v.table && v.table.visible.length > 0;
  });
  return page.evaluate(() => window.hpcscope.state().views.compare);
}

/** Generates two measurements (`measured`'s arguments each), drops them and compares the second
 *  with the first; their folders, the base's dataset id and the compare view's state. */
async function compareMeasured(page, base, now) {
  const [a, b] = [measured(...base), measured(...now)];
  const ida = await dropSelect(page, a);
  const idb = await dropSelect(page, b);
  return { a, b, ida, view: await compare(page, ida, idb) };
}

/** Polls the compare view's state until `pred(v)` holds (the page's CSP forbids evaluating
 *  strings, so the predicate runs here); returns that state. */
async function waitView(page, pred, timeoutMs = 30000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await page.evaluate(() => window.hpcscope.state().views.compare);
    if (v && pred(v)) return v;
    if (Date.now() > end) throw new Error(`compare view never satisfied ${pred}: ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Inclusive values of a union path in the CLI's differential folded file: [base, new]. */
function foldedInclusive(folded, names) {
  const prefix = names.join(';');
  let b = 0;
  let n = 0;
  for (const line of folded.split('\n')) {
    const m = /^(.*) (\S+) (\S+)$/.exec(line);
    if (!m || (m[1] !== prefix && !m[1].startsWith(`${prefix};`))) continue;
    b += Number(m[2]);
    n += Number(m[3]);
  }
  return [b, n];
}

/** The flame graph's frames of depth 1..3 against the CLI's folded file. */
async function checkFrames(page, view, folded, what) {
  const frames = view.flame.frames.filter((f) => f.depth >= 1 && f.depth <= 3).slice(0, 40);
  assert.ok(frames.length >= 3, `${what}: ${frames.length} frames`);
  for (const f of frames) {
    const info = await page.evaluate(([c, n]) => window.hpcscope.engine.call('compare_node_info', c, n), [view.comparison, f.node]);
    const [b, n] = foldedInclusive(folded, info.path.slice(1));
    const sum = (x, y) => Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(view.totals.base_total), Math.abs(view.totals.new_total));
    assert.ok(sum(f.base, b), `${what} ${info.path.join(';')}: base ${f.base} vs folded ${b}`);
    assert.ok(sum(f.new, n), `${what} ${info.path.join(';')}: new ${f.new} vs folded ${n}`);
    assert.equal(f.added, info.base_contexts === 0, `${what} ${info.path.join(';')}: added`);
  }
}

test('two generated runs: totals, frames, delta tables and CSV equal hpcscope diff', async () => {
  const { page, problems } = app;
  let { a, b, ida, view } = await compareMeasured(page, ['compare-300.m', 300, 4], ['compare-600.m', 600, 3]);
  const json = JSON.parse(cli('diff', '--json', a, b));
  assert.equal(view.base, ida);
  assert.equal(view.totals.new_metric, json.metric);
  assert.equal(view.totals.base_total, json.base_total);
  assert.equal(view.totals.new_total, json.new_total);
  assert.ok(json.base_total !== json.new_total, 'the two runs have different totals');
  assert.deepEqual([view.flame.root.base, view.flame.root.new], [json.base_total, json.new_total]);
  assert.ok(view.contexts.matched > 10, JSON.stringify(view.contexts));
  assert.match(view.summary, /only in base/);
  await checkFrames(page, view, cli('diff', '--format', 'folded', a, b), '300 -> 600 samples');
  // Functions whose share changed take other colours of the scale.
  const colours = new Set(view.flame.frames.map((f) => f.colour));
  assert.ok(colours.size >= 2, [...colours].join(' '));

  // Top-down delta table: the root row holds both totals and their difference; the root's
  // children are sorted by inclusive delta, largest first.
  const rows = view.table.visible;
  assert.equal(rows[0].label, '<root>');
  assert.equal(rows[0].values[0].inclusive, json.base_total);
  assert.equal(rows[0].values[1].inclusive, json.new_total);
  assert.ok(near(rows[0].values[2].inclusive, json.new_total - json.base_total));
  const kids = rows.filter((r) => r.depth === 1).map((r) => r.values[2].inclusive);
  assert.ok(kids.length >= 1);
  for (let i = 1; i < kids.length; i++) assert.ok(kids[i - 1] >= kids[i], `delta order ${kids}`);
  const ratioCells = await page.locator('[data-testid="table-topdown"] .tt-row').first().locator('.tt-num').allInnerTexts();
  assert.equal(ratioCells.length, 8, ratioCells.join('|'));
  assert.match(ratioCells[6], /^×\d/);

  // The flat table: scopes sorted by exclusive delta; its exclusive deltas add up to the totals'.
  await page.click('.compare [data-table="flat"]');
  view = await waitView(page, v => v.table.kind === 'flat' && v.table.visible.length > 1);
  const flat = view.table.visible.filter((r) => r.cct !== null).map((r) => r.values[2].exclusive);
  for (let i = 1; i < flat.length; i++) assert.ok(flat[i - 1] >= flat[i], `flat order ${flat}`);

  // The delta CSV: the button's download equals `hpcscope diff --format csv`.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="compare-export-csv"]')]);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  assert.equal(csv, cli('diff', '--format', 'csv', a, b));
  assert.match(download.suggestedFilename(), /-vs-.*\.csv$/);

  await page.click('.compare [data-table="topdown"]');
  await waitView(page, v => v.table.kind === 'topdown');
  await screenshot(page, 'compare-generated-1600.png');

  // Percent of each run's root: both roots are 100, values equal the CLI's.
  await page.selectOption('[data-testid="compare-normalize"]', 'percent');
  view = await waitView(page, v => v.normalize === 'percent' && v.flame.root && Math.abs(v.flame.root.base - 100) < 1e-9);
  assert.ok(near(view.flame.root.new, 100));
  await checkFrames(page, view, cli('diff', '--format', 'folded', '--normalize', 'percent', a, b), 'percent');
  // Width from the base run: frames only in the new run have no width.
  await page.selectOption('[data-testid="compare-width"]', 'base');
  // The flag changes before the frames are laid out again: wait for frames laid out by the base.
  const baseWidths = (v) => v.flame.frames.filter((x) => x.depth === 1).every((f) => near(f.width, f.base / 100));
  view = await waitView(page, v => v.flame.width === 'base' && v.flame.frames.length > 0 && baseWidths(v));
  assert.ok(view.flame.frames.every((f) => !f.added), 'no added frame drawn when the base sets widths');
  for (const f of view.flame.frames.filter((x) => x.depth === 1)) assert.ok(near(f.width, f.base / 100), `${f.name} ${f.width} ${f.base}`);
  await page.selectOption('[data-testid="compare-width"]', 'new');
  await page.selectOption('[data-testid="compare-normalize"]', 'none');
  await waitView(page, v => v.normalize === 'none' && v.flame.width === 'new');

  // A tooltip with both runs' values.
  const box = await page.locator('[data-testid="compare-canvas"]').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + 9 + 18);
  await page.waitForSelector('[data-testid="compare-tooltip"]:not([hidden])');
  const tipText = await page.locator('[data-testid="compare-tooltip"]').innerText();
  assert.match(tipText, /inclusive[\s\S]*→[\s\S]*exclusive/);
  await screenshot(page, 'compare-generated-tooltip-1600.png');
  await page.mouse.move(box.x + box.width / 2, box.y - 40);

  await page.setViewportSize({ width: 800, height: 600 });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  await screenshot(page, 'compare-generated-800.png');
  await page.setViewportSize({ width: 1600, height: 1000 });
  assert.deepEqual(problems, []);
});

/** Per-profile values of a run's dump on the contexts of a path of frame names: profile
 *  index -> value of metric id `mid` summed over those contexts. */
function dumpValues(dump, path, mid) {
  const short = (p) => p.split('/').pop();
  const entries = { main_thread: 'main thread', application_thread: 'application thread', unknown_entry: 'unknown entry' };
  const name = (c) => {
    if (c.entry_point) return entries[c.entry_point];
    if (c.function != null) return dump.functions[c.function].name;
    if (c.file == null) return c.offset == null ? '<unknown>' : `${c.module == null ? '' : `${short(dump.modules[c.module])}+`}0x${c.offset.toString(16)}`;
    if (c.lexical_type === 'loop') return `loop at ${short(dump.files[c.file])}:${c.line}`;
    return `${short(dump.files[c.file])}:${c.line}`;
  };
  const byId = new Map(dump.contexts.map((c) => [c.ctx_id, c]));
  const pathOf = (c) => {
    const out = [];
    for (let x = c; x; x = x.parent == null ? null : byId.get(x.parent)) out.unshift(name(x));
    return ['<root>', ...out];
  };
  const want = path.join(';');
  const ctxs = new Set(path.length <= 1 ? [0] : dump.contexts.filter((c) => pathOf(c).join(';') === want).map((c) => c.ctx_id));
  assert.ok(ctxs.size >= 1, `no context ${want} in the dump`);
  return dump.profiles.map((p) => (p.summary ? null : p.values.filter(([c, m]) => ctxs.has(c) && m === mid).reduce((s, [, , v]) => s + v, 0)));
}

/** A profile's label as the page writes it ("NODE 0 / THREAD 2"). */
const labelOf = (dump, p) => p.id_tuple.map((id) => `${dump.id_names[id.kind]} ${id.logical_id}`).join(' / ');

test('the distribution panel pairs both runs\' profiles and shows each run\'s values', async () => {
  const { page, problems } = app;
  let { a, b, view } = await compareMeasured(page, ['compare-dist-200.m', 200, 3], ['compare-dist-500.m', 500, 4]);
  const [da, db] = [dumpJson(a), dumpJson(b)];
  const metricId = (d, scope) => d.metrics.find((m) => m.name === view.totals.base_metric).scopes.find((s) => s.scope === scope).prop_metric_id;

  /** The panel's pairs against both dumps on union node `node`. */
  async function check(node, exclusive, what) {
    const v = await waitView(page, (x) => x.distribution.loaded && x.distribution.loaded.node === node && x.distribution.loaded.exclusive === exclusive);
    const d = v.distribution;
    const info = await page.evaluate(([c, n]) => window.hpcscope.engine.call('compare_node_info', c, n), [v.comparison, node]);
    const scope = exclusive ? 'function' : 'execution';
    const vb = dumpValues(da, info.path, metricId(da, scope));
    const vn = dumpValues(db, info.path, metricId(db, scope));
    // 3 threads in the base run, 4 in the new one: three pairs and one profile only in new.
    assert.equal(d.count, 4, what);
    assert.equal(d.byPosition, false);
    assert.deepEqual(d.pairs.map((p) => [p.base_profile >= 0, p.new_profile >= 0]), [[true, true], [true, true], [true, true], [false, true]], what);
    for (const p of d.pairs) {
      if (p.base_profile >= 0) {
        assert.equal(labelOf(da, da.profiles[p.base_profile]), p.label, `${what}: base label`);
        assert.ok(near(p.base, vb[p.base_profile]), `${what} ${p.label}: base ${p.base} vs dump ${vb[p.base_profile]}`);
      } else assert.equal(p.base, null);
      assert.equal(labelOf(db, db.profiles[p.new_profile]), p.label, `${what}: new label`);
      assert.ok(near(p.new, vn[p.new_profile]), `${what} ${p.label}: new ${p.new} vs dump ${vn[p.new_profile]}`);
    }
    return v;
  }
  // The root first, before anything is selected.
  view = await check(0, false, 'root');
  assert.ok(view.distribution.pairs.some((p) => p.base !== null && p.base !== p.new), 'the runs differ per thread');

  // A frame three levels down, clicked in the flame graph.
  const f = view.flame.frames.filter((x) => x.depth === 3 && !x.added && !x.removed).sort((x, y) => y.width - x.width)[0];
  assert.ok(f, 'a frame in both runs at depth 3');
  const box = await page.locator('[data-testid="compare-canvas"]').boundingBox();
  await page.mouse.click(box.x + (f.x + f.width / 2) * box.width, box.y + 9 + 18 * f.depth);
  view = await check(f.node, false, f.name);
  await page.click('[data-testid="cmp-dist-exclusive"]');
  view = await check(f.node, true, `${f.name} exclusive`);
  await page.click('[data-testid="cmp-dist-exclusive"]');
  view = await check(f.node, false, f.name);

  // Arrow keys name each pair: profile, both values, change and ratio; the last has no base.
  await page.focus('[data-testid="cmp-dist-canvas"]');
  await page.keyboard.press('ArrowRight');
  view = await waitView(page, (x) => x.distribution.tooltip);
  const p0 = view.distribution.pairs[0];
  assert.match(view.distribution.tooltip, new RegExp(`^${p0.label}base.*new.*change[+−0].*ratio(×|—)`));
  assert.match(view.distribution.tooltip, /1 of 4$/);
  await page.keyboard.press('End');
  view = await waitView(page, (x) => x.distribution.tooltip && /4 of 4$/.test(x.distribution.tooltip));
  assert.match(view.distribution.tooltip, /baseno such profile/);
  await screenshot(page, 'compare-distribution-1600.png');
  // Hovering a bar names it too.
  const c = await page.locator('[data-testid="cmp-dist-canvas"]').boundingBox();
  await page.mouse.move(c.x + c.width - 12, c.y + 100);
  view = await waitView(page, (x) => x.distribution.tooltip && /4 of 4$/.test(x.distribution.tooltip));

  // Small windows keep the panel in view beside the table.
  await page.setViewportSize({ width: 800, height: 600 });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  await screenshot(page, 'compare-distribution-800.png');
  const small = await page.locator('[data-testid="cmp-dist-canvas"]').boundingBox();
  assert.ok(small && small.width >= 100 && small.y + small.height <= 600 && small.x + small.width <= 800, JSON.stringify(small));
  await page.setViewportSize({ width: 1600, height: 1000 });
  assert.deepEqual(problems, []);
});

test('a run against a copy of itself shows no change anywhere', async () => {
  const { page, problems } = app;
  const a = synth('compare-a.d', 1);
  const first = await dropSelect(page, a);
  const copy = await dropSelect(page, a);
  const view = await compare(page, first, copy);
  assert.equal(view.totals.base_total, view.totals.new_total);
  assert.deepEqual([view.contexts.added, view.contexts.removed], [0, 0]);
  const same = new Set(view.flame.frames.map((f) => f.colour));
  assert.equal(same.size, 1, [...same].join(' '));
  for (const f of view.flame.frames) assert.equal(f.base, f.new, f.name);
  for (const r of view.table.visible) {
    assert.equal(r.values[2].inclusive, 0, r.label);
    assert.equal(r.values[2].exclusive, 0, r.label);
  }
  assert.match(view.summary, /\(×1\.00\)/);
  assert.deepEqual(problems, []);
});

test('runs with no metric name in common: a chooser per run and a notice, not a blank view', async () => {
  const { page, problems } = app;
  const uf = await dropSelect(page, generated('ufsynth'));
  const db = await dropSelect(page, synth('compare-b.d', 2));
  const view = await compare(page, uf, db);
  assert.ok(view.notice && /no metric name in common/.test(view.notice), view.notice);
  assert.ok(await page.locator('[data-testid="compare-base-metric"]').isVisible());
  assert.ok(view.flame.rects > 0);
  assert.deepEqual(problems, []);
});

/** The generated XML-era database with its metrics taken out (metric tables, values, metric-db
 * files): a trace-only database, like the corpus's hpcviewer-bug-nometric. */
function withoutMetrics() {
  const name = 'xml-nometric.d';
  const dir = path.join(GENERATED, name);
  if (!made.has(name)) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.cpSync(generated('xml.d'), dir, { recursive: true });
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.metric-db')) fs.rmSync(path.join(dir, f));
    const xml = path.join(dir, 'experiment.xml');
    fs.writeFileSync(xml, fs.readFileSync(xml, 'utf8')
      .replace(/<MetricTable>[\s\S]*?<\/MetricTable>/, '<MetricTable>\n  </MetricTable>')
      .replace(/\s*<MetricDBTable>[\s\S]*?<\/MetricDBTable>/, '')
      .replace(/<M [^>]*\/>/g, ''));
    made.set(name, dir);
  }
  return dir;
}

test('a database without metrics cannot be compared and says why', async () => {
  const { page, problems } = app;
  const db = await page.evaluate(() => window.hpcscope.state().datasets.find((d) => d.root === 'compare-a.d').id);
  const dirs = [withoutMetrics()];
  if (hasCorpus()) dirs.push(path.join(CORPUS, 'hpctoolkit', 'xml', 'hpcviewer-bug-nometric'));
  for (const dir of dirs) {
    const none = await dropSelect(page, dir);
    const st = await page.evaluate(([a, b]) => window.hpcscope.compare(a, b), [db, none]);
    assert.match(st.error, /no metrics to compare/, dir);
    const shown = await page.locator('[data-testid="compare-error"]').innerText();
    assert.match(shown, /cannot be compared/, dir);
  }
  await screenshot(page, 'compare-no-metrics-1600.png');
  assert.deepEqual(problems, []);
});

test('an hpcrun measurement against the database made from it: equal everywhere', { skip: hasCorpus() ? false : 'corpus absent' }, async () => {
  const { page, problems } = app;
  const m = path.join(CORPUS, 'hpcrun', 'hpctoolkit-tests-loops-cputime-t.m');
  const d = path.join(CORPUS, 'hpctoolkit', 'v4', 'hpctoolkit-tests-loops-cputime-t.d');
  const idm = await dropSelect(page, m);
  const idd = await dropSelect(page, d);
  const view = await compare(page, idm, idd);
  const json = JSON.parse(cli('diff', '--json', m, d));
  assert.equal(view.totals.base_total, json.base_total);
  assert.ok(near(view.totals.base_total, view.totals.new_total), JSON.stringify(view.totals));
  for (const f of view.flame.frames) {
    assert.ok(near(f.base, f.new), `${f.name}: ${f.base} vs ${f.new}`);
    assert.ok(!f.added && !f.removed, f.name);
  }
  await checkFrames(page, view, cli('diff', '--format', 'folded', m, d), 'measurement -> database');
  await screenshot(page, 'compare-hpcrun-vs-db-1600.png');
  // Two different corpus runs (with and without loop structure), matched by function.
  const ns = await dropSelect(page, path.join(CORPUS, 'hpctoolkit', 'v4', 'hpctoolkit-tests-loops-cputime-t.nostruct.d'));
  let v2 = await compare(page, idd, ns);
  assert.ok(v2.contexts.added > 0 && v2.contexts.removed > 0);
  await page.check('[data-testid="compare-merged"]');
  v2 = await waitView(page, v => v.merged && v.flame.rects > 0);
  await screenshot(page, 'compare-struct-vs-nostruct-merged-1600.png');
  await page.setViewportSize({ width: 800, height: 600 });
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
  await screenshot(page, 'compare-struct-vs-nostruct-merged-800.png');
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.uncheck('[data-testid="compare-merged"]');
  await waitView(page, v => !v.merged);
  assert.deepEqual(problems, []);
});

test('the deep link carries the baseline (&base=URL)', async () => {
  const { url } = app;
  synth('compare-a.d', 1);
  synth('compare-b.d', 2);
  const data = await serve(GENERATED, 0, '127.0.0.1', { cors: true });
  // A page of its own, as in url.test.mjs (probes of absent files by URL are failed requests).
  const page = await app.page.context().newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    const root = `http://127.0.0.1:${data.address().port}/`;
    await page.goto(`${url}?compare#url=${encodeURIComponent(`${root}compare-b.d/`)}&base=${encodeURIComponent(`${root}compare-a.d/`)}&view=compare`);
    await page.waitForFunction(() => window.hpcscope && window.hpcscope.linkOpened);
    await page.evaluate(() => window.hpcscope.linkOpened);
    await page.evaluate(() => window.hpcscopeCompare.whenReady());
    const view = await waitView(page, v => v.flame && v.flame.rects > 0);
    const s = await page.evaluate(() => window.hpcscope.state());
    const byId = (id) => s.datasets.find((d) => d.id === id).root;
    assert.equal(s.view, 'compare');
    assert.equal(byId(view.dataset), 'compare-b.d');
    assert.equal(byId(view.base), 'compare-a.d');
    const link = await page.evaluate(() => window.hpcscope.link());
    const h = new URLSearchParams(new URL(link).hash.slice(1));
    assert.equal(h.get('base'), `${root}compare-a.d/`);
    assert.equal(h.get('url'), `${root}compare-b.d/`);
    assert.equal(h.get('view'), 'compare');
  } finally {
    await page.close();
    await new Promise((r) => data.close(r));
  }
  assert.deepEqual(problems, []);
});
