// XML-era HPCToolkit databases (experiment.xml v2.x) in the browser: every one of
// ../shared/corpus/hpctoolkit/xml and the generated one (`hpcscope fixture xml`, so the test runs
// in a fresh clone) is dropped through the folder picker and every view is checked. The values
// the flame graph and the tables show for the root and the top scopes equal the `<M n v>` values
// experiment.xml states (read here from the text, independently of hpcscope); the distribution
// across threads adds up to the shown frame's value; the bottom-up and flat tables total the root;
// where traces exist, the call path under a clicked cell equals the native reader's transcript
// (`hpcscope dump --json`). Screenshots at 1600x1000 and 800x600 go to target/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appForFile, dropFolder, screenshot, hasCorpus, CORPUS, showTrace } from './helpers.mjs';
import { generated, transcript } from './generated.mjs';

const XML_DIR = path.join(CORPUS, 'hpctoolkit', 'xml');
const SKIP = hasCorpus() ? false : `skipping: ${CORPUS} absent`;
if (SKIP) console.log(SKIP);

const STATS = ['Sum', 'Mean', 'StdDev', 'CfVar', 'Min', 'Max'];
const attrs = (tag) => Object.fromEntries([...tag.matchAll(/\s([\w-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
const unescape = (s) => s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"')
  .replaceAll('&apos;', "'").replaceAll('&amp;', '&');

/**
 * What experiment.xml states: per metric base name ("cycles" of "cycles:Sum (I)") the ids of its
 * summed inclusive and exclusive columns; per scope id its `<M>` values (id 0: the root's, those
 * written before the first scope); the metric-less databases give empty maps.
 */
function stated(dir) {
  const xml = fs.readFileSync(path.join(dir, 'experiment.xml'), 'utf8');
  const columns = new Map();
  // A metric with a view formula and no combine formula is a derived column hpcviewer computes
  // when shown (no `<M>` values): left to the derived-metric checks.
  for (const m of xml.matchAll(/<Metric\s[^>]*?(?:\/>|>[\s\S]*?<\/Metric>)/g)) {
    if (/<MetricFormula[^>]*t="view"/.test(m[0]) && !/<MetricFormula[^>]*t="combine"/.test(m[0])) continue;
    const a = attrs(m[0].slice(0, m[0].indexOf('>') + 1));
    let name = unescape(a.n);
    let kind = a.t === 'inclusive' ? 'incl' : a.t === 'exclusive' ? 'excl' : null;
    if (name.endsWith(' (I)')) { name = name.slice(0, -4); kind ??= 'incl'; }
    else if (name.endsWith(' (E)')) { name = name.slice(0, -4); kind ??= 'excl'; }
    const colon = name.lastIndexOf(':');
    const stat = colon >= 0 && STATS.includes(name.slice(colon + 1)) ? name.slice(colon + 1) : null;
    if (stat) name = name.slice(0, colon);
    if (!kind || (stat && stat !== 'Sum')) continue;
    if (!columns.has(name)) columns.set(name, { incl: null, excl: null });
    columns.get(name)[kind] ??= Number(a.i);
  }
  const values = new Map([[0, new Map()]]);
  const data = xml.slice(xml.indexOf('<SecCallPathProfileData'));
  let scope = 0;
  for (const t of data.matchAll(/<(\/?)(PF|Pr|L|C|S|A|M)\b[^>]*>/g)) {
    if (t[1]) { scope = -1; continue; }
    const a = attrs(t[0]);
    if (t[2] !== 'M') {
      scope = Number(a.i);
      values.set(scope, new Map());
    } else if (scope >= 0) values.get(scope).set(Number(a.n), Number(a.v));
  }
  const value = (ctx, id) => (id == null ? null : values.get(ctx)?.get(id) ?? 0);
  return { columns, values, value };
}

const app = appForFile({ width: 1600, height: 1000 });

/** Drops `dir`; resolves to the dataset the page selects. */
async function dropDataset(page, dir) {
  const { state } = await dropFolder(page, dir);
  return state.datasets.find((d) => d.id === state.selected);
}

const view = (page) => page.evaluate(() => window.hpcscope.state().views.profile);
const call = (page, ...args) => page.evaluate((a) => window.hpcscope.engine.call(...a), args);
const close = (a, b, rel) => Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), 1e-300);

async function showProfile(page, meta) {
  await page.evaluate(() => window.hpcscope.showView('profile'));
  await page.waitForFunction(() => window.hpcscopeProfile);
  await page.evaluate(() => window.hpcscopeProfile.whenReady());
  if (!meta.metrics.length) {
    await page.waitForFunction(() => window.hpcscope.state().views.profile?.treeOnly);
  } else {
    await page.waitForFunction(() => {
      const v = window.hpcscope.state().views.profile;
      return v && v.flame && v.flame.rects > 0 && v.table && v.table.root;
    });
  }
  return view(page);
}

async function selectMetric(page, m) {
  await page.selectOption('[data-testid="metric-select"]', String(m));
  await page.waitForFunction((k) => {
    const v = window.hpcscope.state().views.profile;
    return v.flame.metric === k && v.table.sort.metric === k;
  }, m);
  await page.waitForTimeout(100);
  return view(page);
}

/** Screenshots of the current view at 1600x1000 and 800x600; back to 1600x1000. */
async function shots(page, name) {
  await page.waitForTimeout(150);
  await screenshot(page, `${name}-1600.png`);
  await page.setViewportSize({ width: 800, height: 600 });
  await page.waitForTimeout(400);
  await screenshot(page, `${name}-800.png`);
  await page.setViewportSize({ width: 1600, height: 1000 });
  await page.waitForTimeout(300);
}

/** Opens the Trace tab; checks the call path under cells of the first and last rows. */
async function checkTrace(page, dir, name) {
  const st = await showTrace(page, { orEmpty: true });
  const g = transcript(dir);
  assert.equal(st.status, 'ok', `${name}: trace status`);
  assert.equal(st.rows.total, g.traces.length, `${name}: one row per trace line`);
  assert.equal(BigInt(st.start), g.traces.flatMap((l) => l.samples.map((s) => s.t)).reduce((a, b) => (b < a ? b : a)), `${name}: start`);
  let checked = 0;
  for (const r of [...new Set([0, st.rows.last - st.rows.first])]) {
    for (const fx of [0.3, 0.6]) {
      const s = await page.evaluate(() => window.hpcscope.state().views.timeline);
      const box = await page.getByTestId('timeline-canvas').boundingBox();
      const n = s.rows.last - s.rows.first + 1;
      const y = ((r + 0.5) * box.height) / n;
      await page.mouse.click(box.x + Math.floor(fx * box.width) + 0.5, box.y + y);
      await page.waitForFunction((label) => window.hpcscope.state().views?.timeline?.crosshair?.label === label, s.rows.labels[r]);
      const c = (await page.evaluate(() => window.hpcscope.state().views.timeline)).crosshair;
      const gi = g.traces.findIndex((l) => l.label === c.label);
      const want = g.sampleAt(gi >= 0 ? gi : c.line, BigInt(s.start) + BigInt(c.time_ns));
      if (!want) continue;
      assert.equal(c.sample_index, want.index, `${name} ${c.label} sample`);
      assert.deepEqual(c.path, g.framesOf(want.ctx), `${name} ${c.label} at +${c.time_ns} ns`);
      checked++;
    }
  }
  assert.ok(checked >= 1, `${name}: no trace cell checked`);
  await shots(page, `xml-${name}-timeline`);
}

/**
 * Drops XML-era database `dir` and checks every view against its experiment.xml.
 * Returns what was checked, for the log.
 */
async function checkDatabase(dir, name) {
  const { page, problems } = app;
  const x = stated(dir);
  const d = await dropDataset(page, dir);
  assert.equal(d.status, 'opened', `${name}: ${JSON.stringify(d.error)}`);
  assert.equal(d.format, 'hpctoolkit-xml');
  const meta = await call(page, 'profile_meta', d.id);
  let v = await showProfile(page, meta);
  const done = { metrics: 0, frames: 0, dist: 0, trace: false };
  if (!meta.metrics.length) {
    // No MetricTable at all: the tree alone, every scope of experiment.xml a row.
    assert.equal(x.columns.size, 0);
    assert.ok(v.treeOnly);
    assert.match(v.note, /records no metrics/);
    assert.equal(v.table.visible.length, x.values.size, `${name}: one row per scope and the root`);
    await shots(page, `xml-${name}-profile`);
    assert.deepEqual(problems, []);
    return done;
  }
  // Every metric with a summed inclusive column: the root row of the top-down table shows the
  // value experiment.xml states for the root, and the exclusive partner's.
  // (The table's first row, as the engine gives it to the table: all columns at once.)
  const nm = meta.metrics.length;
  const w0 = await call(page, 'table_window', d.id, 'topdown', 0, 1);
  const rootValues = Object.values(w0[4]);
  assert.equal(Object.values(w0[1])[0], 0, `${name}: first row is the root`);
  for (const [base, col] of x.columns) {
    const m = meta.metrics.findIndex((k) => k.name === base);
    assert.ok(m >= 0, `${name}: metric ${base} not shown (${meta.metrics.map((k) => k.name)})`);
    if (col.incl == null) continue;
    assert.equal(rootValues[m * 2], x.value(0, col.incl), `${name} ${base}: root inclusive`);
    if (col.excl != null) assert.equal(rootValues[m * 2 + 1], x.value(0, col.excl), `${name} ${base}: root exclusive`);
    done.metrics++;
  }
  assert.equal(rootValues.length, nm * 2);
  const anyInclusive = [...x.columns.values()].some((c) => c.incl != null);
  assert.ok(done.metrics >= 1 || !anyInclusive, `${name}: no inclusive metric checked`);
  // The table's root row, where it is in view, shows the same.
  const rootRow = v.table.visible.find((r) => r.label === '<root>');
  if (rootRow) meta.metrics.forEach((_, m) => assert.equal(rootRow.values[m].inclusive, rootValues[m * 2], `${name} table root`));
  // The flame graph, for the default metric and the one with the largest root value: the root and
  // the frames of the top levels show the values stated for their scopes (node ids = XML ids).
  const rootOf = (m) => x.value(0, x.columns.get(meta.metrics[m].name)?.incl);
  let biggest = 0;
  meta.metrics.forEach((_, m) => { if ((rootOf(m) ?? 0) > (rootOf(biggest) ?? 0)) biggest = m; });
  for (const m of [...new Set([v.flame.metric, biggest])]) {
    if (v.flame.metric !== m) v = await selectMetric(page, m);
    const col = x.columns.get(meta.metrics[m].name) ?? { incl: null, excl: null };
    assert.equal(v.flame.root.inclusive, col.incl == null ? 0 : x.value(0, col.incl), `${name}: flame root`);
    const empty = !(v.flame.root.inclusive > 0);
    assert.equal(await page.getByTestId('flame-note').isVisible(), empty, `${name}: zero note`);
    for (const f of v.flame.frames.filter((k) => k.depth >= 1 && k.depth <= 4)) {
      const info = await call(page, 'node_info', d.id, f.node, m);
      if (!x.values.has(info.ctx_id) || col.incl == null) continue;
      assert.equal(f.inclusive, x.value(info.ctx_id, col.incl), `${name} ${f.name} (scope ${info.ctx_id}) inclusive`);
      done.frames++;
    }
    // Bottom-up and flat tables: the aggregate row is the root's total.
    for (const kind of ['bottomup', 'flat']) {
      const n = await call(page, 'table_len', d.id, kind);
      const w = await call(page, 'table_window', d.id, kind, 0, n);
      assert.equal(Object.values(w[4])[m * 2], v.flame.root.inclusive, `${name} ${kind} aggregate row`);
    }
  }
  if (!v.flame.frames.some((f) => f.depth >= 1) || !(v.flame.root.inclusive > 0)) {
    assert.ok(done.frames === 0);
  } else {
    assert.ok(done.frames >= 1, `${name}: no frame checked`);
  }
  // Distribution across threads of the widest top frame: the per-thread values add up to the
  // summary's (experiment.xml keeps six significant digits).
  // (Threads known only from their traces have no values: no distribution.)
  const threads = fs.readdirSync(dir).some((f) => f.endsWith('.metric-db') || f.endsWith('.mdb'))
    ? meta.profiles.filter((p) => !p.summary).length : 0;
  const top = v.flame.frames.filter((f) => f.depth === 1).sort((a, b) => b.width - a.width)[0];
  if (top) {
    await page.evaluate((n) => window.hpcscopeProfile.panels().select(n, 'test'), top.node);
    await page.waitForFunction((n) => window.hpcscope.state().views.profile.distribution.node === n, top.node);
    if (threads > 0) {
      await page.waitForFunction(() => window.hpcscope.state().views.profile.distribution.profiles > 0);
      const dist = (await view(page)).distribution;
      if (meta.metrics[v.flame.metric] && top.inclusive > 0) {
        assert.ok(close(dist.stats.sum, top.inclusive, 1e-5), `${name}: distribution sum ${dist.stats.sum} vs ${top.inclusive}`);
      }
      done.dist = dist.profiles;
    } else {
      await page.waitForFunction(() => /no per-profile values/.test(document.querySelector('[data-testid="dist-subject"]').textContent));
    }
  }
  await shots(page, `xml-${name}-profile`);
  const traced = fs.readdirSync(dir).some((f) => f.endsWith('.hpctrace') || f === 'experiment.mt');
  if (traced) {
    await checkTrace(page, dir, name);
    done.trace = true;
  }
  assert.deepEqual(problems, []);
  return done;
}

test('every XML-era database of the corpus opens with every view showing experiment.xml\'s values', { skip: SKIP }, async (t) => {
  const dbs = fs.readdirSync(XML_DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  assert.equal(dbs.length, 7);
  for (const name of dbs) {
    await t.test(name, async () => {
      const done = await checkDatabase(path.join(XML_DIR, name), name);
      console.log(`${name}: ${done.metrics} root values, ${done.frames} frames checked; distribution over ${done.dist} threads; trace ${done.trace}`);
    });
  }
});

test('the generated XML-era database (hpcscope fixture xml) opens with every view', async () => {
  const dir = generated('xml.d');
  const done = await checkDatabase(dir, 'generated');
  assert.ok(done.metrics >= 1 && done.frames >= 1 && done.dist >= 2 && done.trace, JSON.stringify(done));
});

test('view formulas of the generated XML-era database: computed columns in experiment.xml\'s number formats', async () => {
  const { page, problems } = app;
  const dir = generated('xml.d');
  const d = await dropDataset(page, dir);
  assert.equal(d.status, 'opened');
  const meta = await call(page, 'profile_meta', d.id);
  const at = (name) => meta.metrics.findIndex((k) => k.name === name);
  const self = at('SELF (%)');
  const ms = at('CPUTIME (ms)');
  const hidden = at('SELF');
  assert.ok(self >= 0 && ms >= 0 && hidden >= 0, meta.metrics.map((k) => k.name).join(', '));
  // experiment.xml's fmt and show-percent="0"; `SELF` has show="0": no default column.
  assert.deepEqual([meta.metrics[self].derived, meta.metrics[self].format, meta.metrics[self].percent], [true, '%6.2f %%', false]);
  assert.equal(meta.metrics[ms].format, '%.3e');
  assert.match(meta.metrics[self].formula_exclusive, /if CPUTIME \(sec\) \(E\) != 0/);
  assert.ok(meta.taxonomy.default_columns.includes(self) && !meta.taxonomy.default_columns.includes(hidden));
  await showProfile(page, meta);
  // Sort by SELF (%) exclusive: frames holding their own time come first, at 100 %.
  await page.click(`.tt-header .tt-h.tt-num[data-metric="${self}"][data-exclusive="true"]`);
  await page.waitForFunction((m) => {
    const s = window.hpcscope.state().views.profile.table.sort;
    return s.metric === m && s.exclusive;
  }, self);
  await page.waitForTimeout(200);
  const head = await page.$$eval('.tt-header .tt-h.tt-num', (cs) => cs.map((c) => [Number(c.dataset.metric), c.dataset.exclusive === 'true']));
  const col = (m, e) => head.findIndex(([k, x]) => k === m && x === e);
  assert.ok(col(self, true) >= 0 && col(ms, false) >= 0, JSON.stringify(head));
  const v = await view(page);
  let checked = 0;
  for (const r of v.table.visible.filter((k) => k.values[self].exclusive > 0).slice(0, 5)) {
    // Cells by column (data-col): the table puts only the columns near the view in the DOM.
    const cells = await page.$$eval(`.tt-row[data-row="${r.row}"] .tt-c.tt-num`, (cs) => Object.fromEntries(cs.map((c) => [c.dataset.col, [c.querySelector('.tt-v').textContent, c.querySelector('.tt-p').textContent]])));
    const [text, pct] = cells[col(self, true)];
    assert.match(text, /^ *\d+\.\d\d %$/, `${r.label}: ${text}`);
    assert.ok(Math.abs(parseFloat(text) - r.values[self].exclusive) <= 0.005, `${text} vs ${r.values[self].exclusive}`);
    assert.equal(pct, '', 'show-percent="0": no percent of the root');
    const [t2] = cells[col(ms, false)];
    assert.match(t2, /^\d\.\d{3}e[+-]\d\d$/, t2);
    assert.ok(Math.abs(parseFloat(t2) - r.values[ms].inclusive) <= 5e-4 * r.values[ms].inclusive, `${t2} vs ${r.values[ms].inclusive}`);
    // 100 * T (I) / T (I) where the frame has exclusive time.
    assert.equal(r.values[self].exclusive, 100);
    checked++;
  }
  assert.ok(checked >= 1, 'no row with a SELF (%) value in view');
  await shots(page, 'xml-generated-formulas');
  assert.deepEqual(problems, []);
});
