// The Compare view (issue 17) on generated runs (two hpcrun measurements of one synthetic program
// with different sample and thread counts, `hpcscope fixture hpcrun`; databases written by
// `hpcscope synth`) and, with the corpus, on an hpcrun measurement
// against the database hpcprof made from it: the totals, the differential flame graph's frames and
// the delta CSV equal what `hpcscope diff` prints; a run against a copy of itself shows no change
// anywhere; the delta tables sort by delta; normalisation and the width toggle; mismatched inputs
// say so; `hpcscope.compare` and the `&base=` deep link. Screenshots at 1600x1000 and 800x600
// go to target/screenshots/compare-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, screenshot, hasCorpus, CORPUS } from './helpers.mjs';
import { cli, generated, GENERATED } from './generated.mjs';
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

let app;
before(async () => {
  app = await start({ width: 1600, height: 1000 });
});
after(async () => {
  await app?.close();
});

const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1e-300);

async function dropFolder(page, dir) {
  const n = await page.evaluate(() => window.hpcscope.state().datasets.length);
  await page.setInputFiles('#folder-input', dir);
  await page.waitForFunction((k) => {
    const s = window.hpcscope.state();
    return s.datasets.length > k && !s.busy;
  }, n, { timeout: 60000 });
  return page.evaluate(() => window.hpcscope.state().selected);
}

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
  const a = measured('compare-300.m', 300, 4);
  const b = measured('compare-600.m', 600, 3);
  const ida = await dropFolder(page, a);
  const idb = await dropFolder(page, b);
  let view = await compare(page, ida, idb);
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

test('a run against a copy of itself shows no change anywhere', async () => {
  const { page, problems } = app;
  const a = synth('compare-a.d', 1);
  const first = await dropFolder(page, a);
  const copy = await dropFolder(page, a);
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
  const uf = await dropFolder(page, generated('ufsynth'));
  const db = await dropFolder(page, synth('compare-b.d', 2));
  const view = await compare(page, uf, db);
  assert.ok(view.notice && /no metric name in common/.test(view.notice), view.notice);
  assert.ok(await page.locator('[data-testid="compare-base-metric"]').isVisible());
  assert.ok(view.flame.rects > 0);
  assert.deepEqual(problems, []);
});

test('a database without metrics cannot be compared and says why', { skip: hasCorpus() ? false : 'corpus absent' }, async () => {
  const { page, problems } = app;
  const none = await dropFolder(page, path.join(CORPUS, 'hpctoolkit', 'xml', 'hpcviewer-bug-nometric'));
  const db = await page.evaluate(() => window.hpcscope.state().datasets.find((d) => d.root === 'compare-a.d').id);
  const st = await page.evaluate(([a, b]) => window.hpcscope.compare(a, b), [db, none]);
  assert.match(st.error, /no metrics to compare/);
  const shown = await page.locator('[data-testid="compare-error"]').innerText();
  assert.match(shown, /cannot be compared/);
  await screenshot(page, 'compare-no-metrics-1600.png');
  assert.deepEqual(problems, []);
});

test('an hpcrun measurement against the database made from it: equal everywhere', { skip: hasCorpus() ? false : 'corpus absent' }, async () => {
  const { page, problems } = app;
  const m = path.join(CORPUS, 'hpcrun', 'hpctoolkit-tests-loops-cputime-t.m');
  const d = path.join(CORPUS, 'hpctoolkit', 'v4', 'hpctoolkit-tests-loops-cputime-t.d');
  const idm = await dropFolder(page, m);
  const idd = await dropFolder(page, d);
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
  const ns = await dropFolder(page, path.join(CORPUS, 'hpctoolkit', 'v4', 'hpctoolkit-tests-loops-cputime-t.nostruct.d'));
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
