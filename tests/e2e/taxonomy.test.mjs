// Metric taxonomies in the Profile view (www/views/metric-chooser.js): HPCToolkit GPU databases of
// the corpus whose metrics/default.yaml has 81 roots open with the taxonomy's first time-like
// root as the metric (re-derived here from the tree and the root values the table shows), at most
// the columns the taxonomy shows by default (those of its default metrics with values), and a
// metric tree (one row per root, hidden-by-default, formula and empty metrics marked, descriptions
// as tooltips). Choosing columns changes the table and
// is remembered for the dataset after a reload. A generated database (`hpcscope synth
// --taxonomy`: nested metrics, a hidden one, a ratio) and one without a taxonomy (every column, a
// flat chooser) run without ../shared/corpus. Screenshots at 1600x1000 and 800x600.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appForFile, showProfile, dropSelect, screenshot, hasCorpus, CORPUS } from './helpers.mjs';
import { cli, generated, GENERATED } from './generated.mjs';

const GPU_DBS = ['hpcviewer-derived-metrics.db', 'hpctoolkit-tests-loops-cuda-nvidiapc-t.d'];
const SKIP = hasCorpus() ? false : `skipping: ${CORPUS} absent`;

const app = appForFile({ width: 1600, height: 1000 });

const profileState = (page) => page.evaluate(() => window.hpcscope.state().views.profile);
const headerColumns = (page) => page.$$eval('.tt-header .tt-h.tt-num', (cs) => cs.map((c) => `${c.dataset.metric}${c.dataset.exclusive === 'true' ? 'e' : 'i'}`));
const ids = (cols) => cols.map((c) => `${c.metric}${c.exclusive ? 'e' : 'i'}`);

/** Reloads the page and drops `dir` again: what survives is what the browser remembered. */
async function reopen(page, dir) {
  await page.reload();
  await page.waitForFunction(() => window.hpcscope && window.hpcscope.state().datasets.length > 0, null, { timeout: 30000 });
  await page.evaluate(() => window.hpcscope.ready);
  await dropSelect(page, dir);
  return showProfile(page);
}

/**
 * Metrics of a taxonomy's variants in preorder (each root followed by its children), with
 * whether their node is a root.
 */
function preorderMetrics(t) {
  const out = [];
  const stack = [...t.roots].reverse().map((n) => [n, true]);
  const seen = new Set();
  while (stack.length) {
    const [n, root] = stack.pop();
    if (seen.has(n)) continue;
    seen.add(n);
    const node = t.nodes[n];
    for (const v of node.variants) if (v.metric != null) out.push({ metric: v.metric, root });
    stack.push(...[...node.children].reverse().map((c) => [c, false]));
  }
  return out;
}

/** 0: CPU time or cycles, 1: another time (seconds), 2: not a time (as the issue asks). */
function timeClass(name) {
  const n = name.toLowerCase();
  if (/cputime|realtime|cpu-clock|task-clock|papi_tot_cyc/.test(n) || /(^|::)cycles( |$)/.test(n)) return 0;
  return /\((sec|s|ms|us|ns)\)$/.test(n) ? 1 : 2;
}

/**
 * The first time-like metric of the tree with a value at the root: CPU time before other times,
 * a root (a parent showing its child's values) before a metric further down.
 */
function expectedDefault(meta, root) {
  const value = (m) => root[m] && (root[m].inclusive || root[m].exclusive);
  const cands = preorderMetrics(meta.taxonomy).filter((c) => value(c.metric));
  for (const cls of [0, 1]) {
    const of = cands.filter((c) => timeClass(meta.metrics[c.metric].name) === cls);
    const c = of.find((x) => x.root) || of[0];
    if (c) return c.metric;
  }
  return null;
}

/** The default columns re-derived from the taxonomy and the metrics' flags. */
function expectedColumns(meta) {
  return meta.taxonomy.default_columns.filter((m) => meta.metrics[m].has_values)
    .flatMap((m) => [{ metric: m, exclusive: false }, { metric: m, exclusive: true }])
    .filter((c) => (c.exclusive ? meta.metrics[c.metric].has_exclusive : meta.metrics[c.metric].has_inclusive));
}

async function openChooser(page) {
  await page.click('[data-testid="columns-button"]');
  await page.waitForSelector('[data-testid="metric-chooser"]:not([hidden]) .mc-row');
}

test('81-metric GPU databases: a time metric, the taxonomy\'s default columns, a readable metric tree, columns remembered', { skip: SKIP }, async (t) => {
  const { page, problems } = app;
  for (const name of GPU_DBS) {
    await t.test(name, async () => {
      const dir = path.join(CORPUS, 'hpctoolkit', 'v4', name);
      await page.setViewportSize({ width: 1600, height: 1000 });
      const id = await dropSelect(page, dir);
      const v = await showProfile(page);
      const meta = await page.evaluate((i) => window.hpcscope.engine.call('profile_meta', i), id);
      assert.ok(meta.taxonomy, 'the database has a taxonomy');
      assert.equal(meta.taxonomy.roots.length, 81);

      // A time metric is selected: the tree's first time-like root with a value.
      const want = expectedDefault(meta, v.table.root);
      assert.notEqual(want, null);
      assert.equal(v.metric, want, `${v.metricName} vs ${meta.metrics[want].name}`);
      assert.ok(timeClass(v.metricName) < 2, v.metricName);
      assert.equal(v.flame.metric, want);

      // At most the taxonomy's default columns: those of its default metrics that have values in
      // this database, each inclusive and exclusive where the metric has such values.
      const defaults = new Set(meta.taxonomy.default_columns);
      assert.ok(v.columns.length > 0);
      assert.ok(v.columns.every((c) => defaults.has(c.metric)), JSON.stringify(v.columns));
      assert.deepEqual(ids(v.columns).sort(), ids(expectedColumns(meta)).sort());
      const empty = meta.taxonomy.default_columns.filter((m) => !meta.metrics[m].has_values);
      assert.ok(empty.length > 0, 'some default metrics have no value in these runs');
      // A default metric left out has no value in any row the table shows.
      for (const r of v.table.visible) for (const m of empty) assert.ok(!r.values[m].inclusive && !r.values[m].exclusive, `${meta.metrics[m].name} at ${r.label}`);
      const hidden = meta.taxonomy.nodes.filter((n) => !n.visible).flatMap((n) => n.variants.map((x) => x.metric));
      assert.ok(hidden.length > 0 && hidden.every((m) => !v.columns.some((c) => c.metric === m)), 'hidden-by-default metrics have no column');
      for (const c of v.columns) {
        const x = meta.metrics[c.metric];
        assert.ok(c.exclusive ? x.has_exclusive : x.has_inclusive, `${x.name} ${c.exclusive}`);
      }
      assert.ok(v.columns.length <= 2 * defaults.size);
      // The table draws exactly those columns, the shown metric's first.
      const head = await headerColumns(page);
      assert.deepEqual([...head].sort(), ids(v.columns).sort());
      assert.equal(Number(head[0].slice(0, -1)), v.metric);

      // The metric tree: at first only the metrics with values, then a row per root, the hidden
      // ones marked, descriptions as tooltips.
      await openChooser(page);
      const rootRows = () => page.$$eval('[data-testid="metric-chooser"] .mc-row[data-depth="0"][data-node]', (rs) => rs.length);
      const tx = meta.taxonomy;
      const valued = tx.roots.filter((n) => tx.nodes[n].variants.some((x) => meta.metrics[x.metric]?.has_values)).length;
      assert.ok(valued > 0 && valued < 81);
      assert.equal(await rootRows(), valued);
      await screenshot(page, `taxonomy-${name}-chooser-1600.png`);
      await page.setViewportSize({ width: 800, height: 600 });
      await page.waitForTimeout(200);
      await screenshot(page, `taxonomy-${name}-chooser-800.png`);
      // The panel stays inside the window.
      const box = await page.locator('[data-testid="metric-chooser"]').boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= 800 && box.y + box.height <= 600, JSON.stringify(box));
      await page.setViewportSize({ width: 1600, height: 1000 });
      await page.uncheck('[data-testid="columns-with-values"]');
      assert.equal(await rootRows(), 81);
      const off = await page.$$eval('[data-testid="metric-chooser"] .mc-row.mc-off', (rs) => rs.length);
      assert.equal(off, meta.taxonomy.nodes.filter((n) => !n.visible).length);
      const described = meta.taxonomy.nodes.find((n) => n.description && n.description !== n.name && n.variants.length === 1);
      const tip = await page.getAttribute(`[data-testid="metric-chooser"] .mc-row[data-node="${meta.taxonomy.nodes.indexOf(described)}"] .mc-name`, 'title');
      assert.ok(tip.startsWith(described.description), `${tip} / ${described.description}`);
      // A formula metric with only exclusive values (GKER:STMEM = STMEM_ACUMU / COUNT) is marked
      // and offers no inclusive column.
      const ratio = meta.metrics.find((x) => x.derived && !x.has_inclusive);
      assert.ok(ratio, 'an exclusive-only formula metric');
      assert.ok(await page.isDisabled(`[data-testid="column-${ratio.index}-i"]`));
      assert.match(await page.innerText(`.mc-row[data-metric="${ratio.index}"]`), /formula/);
      await screenshot(page, `taxonomy-${name}-chooser-all-1600.png`);

      // Choosing columns: drop the shown metric's exclusive one, add a hidden metric's inclusive
      // one; the table follows at once.
      const m = v.metric;
      await page.uncheck(`[data-testid="column-${m}-e"]`);
      const extra = hidden.find((k) => meta.metrics[k].has_inclusive);
      await page.check(`[data-testid="column-${extra}-i"]`);
      let after = await profileState(page);
      assert.ok(!after.columns.some((c) => c.metric === m && c.exclusive));
      assert.ok(after.columns.some((c) => c.metric === extra && !c.exclusive));
      assert.deepEqual((await headerColumns(page)).sort(), ids(after.columns).sort());
      // Choosing the metric in the tree shows it in the flame graph.
      await page.click(`[data-testid="metric-radio-${extra}"]`);
      await page.waitForFunction((k) => window.hpcscope.state().views.profile.flame.metric === k, extra);
      assert.equal(await page.inputValue('[data-testid="metric-select"]'), String(extra));
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid="metric-chooser"]', { state: 'hidden' });
      await page.waitForTimeout(300);
      await screenshot(page, `taxonomy-${name}-columns-1600.png`);
      after = await profileState(page);

      // Remembered for this dataset after a reload.
      const again = await reopen(page, dir);
      assert.notDeepEqual(ids(after.columns).sort(), ids(expectedColumns(meta)).sort());
      assert.deepEqual(ids(again.columns), ids(after.columns));
      assert.deepEqual((await headerColumns(page)).sort(), ids(after.columns).sort());
      await page.setViewportSize({ width: 800, height: 600 });
      await page.waitForTimeout(300);
      await screenshot(page, `taxonomy-${name}-800.png`);
      await page.setViewportSize({ width: 1600, height: 1000 });
      assert.deepEqual(problems, []);
    });
  }
});

test('generated database with a taxonomy (hpcscope synth --taxonomy): tree, default columns, choice remembered', async () => {
  const { page, problems } = app;
  const dir = path.join(GENERATED, 'synth-taxonomy.d');
  if (!fs.existsSync(path.join(dir, 'metrics', 'default.yaml'))) {
    fs.rmSync(dir, { recursive: true, force: true });
    cli('synth', '--taxonomy', '--ranks', '1', '--threads', '2', '--metrics', '6', '--contexts', '200', '--samples', '200', dir);
  }
  await page.setViewportSize({ width: 1600, height: 1000 });
  const id = await dropSelect(page, dir);
  const v = await showProfile(page);
  const meta = await page.evaluate((i) => window.hpcscope.engine.call('profile_meta', i), id);
  const t = meta.taxonomy;
  assert.ok(t, 'taxonomy read');
  // CPUTIME is the last root's child, not the first metric of the tree: still the default.
  assert.equal(v.metricName, 'CPUTIME (sec)');
  assert.equal(v.metric, expectedDefault(meta, v.table.root));
  // Default columns: every visible metric's, not the hidden PAPI_TOT_INS's; IPC (a ratio,
  // render [number]) shows no percent of the root.
  assert.ok(meta.metrics.every((x) => x.has_values));
  assert.deepEqual(ids(v.columns).sort(), ids(expectedColumns(meta)).sort());
  const ins = meta.metrics.find((x) => x.name === 'PAPI_TOT_INS').index;
  assert.ok(!v.columns.some((c) => c.metric === ins));
  const ipc = meta.metrics.find((x) => x.name === 'IPC');
  assert.ok(ipc && ipc.derived && !ipc.percent);
  const ipcCell = page.locator(`.tt-header .tt-h[data-metric="${ipc.index}"]`).first();
  assert.equal(await ipcCell.count(), 1);
  // The tree: three roots, nested children (Misses under Counters), the hidden metric marked.
  await openChooser(page);
  const depths = await page.$$eval('[data-testid="metric-chooser"] .mc-row[data-depth][data-node]', (rs) => rs.map((r) => [r.innerText.split('\n')[0].trim(), Number(r.dataset.depth)]));
  assert.equal(depths.filter(([, d]) => d === 0).length, t.roots.length);
  assert.ok(depths.some(([n, d]) => n.startsWith('PAPI_L2_TCM') && d === 2), JSON.stringify(depths));
  assert.match(await page.innerText(`.mc-row[data-metric="${ins}"]`), /hidden by default/);
  await screenshot(page, 'taxonomy-generated-chooser-1600.png');
  // Show the hidden metric; it stays after a reload.
  await page.check(`[data-testid="column-${ins}-i"]`);
  await page.keyboard.press('Escape');
  const chosen = (await profileState(page)).columns;
  assert.ok(chosen.some((c) => c.metric === ins && !c.exclusive));
  const again = await reopen(page, dir);
  assert.deepEqual(ids(again.columns), ids(chosen));
  assert.ok((await headerColumns(page)).includes(`${ins}i`));
  await page.setViewportSize({ width: 800, height: 600 });
  await openChooser(page);
  await screenshot(page, 'taxonomy-generated-chooser-800.png');
  await page.keyboard.press('Escape');
  await page.setViewportSize({ width: 1600, height: 1000 });
  assert.deepEqual(problems, []);
});

test('without a taxonomy: every column by default, and the column chooser hides one', async () => {
  const { page, problems } = app;
  const dir = generated('synth.d');
  await dropSelect(page, dir);
  const v = await showProfile(page);
  const meta = await page.evaluate(() => window.hpcscope.engine.call('profile_meta', window.hpcscope.state().selected));
  assert.equal(meta.taxonomy, null);
  assert.equal(v.columns.length, 2 * meta.metrics.length);
  assert.equal((await headerColumns(page)).length, 2 * meta.metrics.length);
  assert.equal(await page.innerText('[data-testid="columns-button"]'), `Columns (${2 * meta.metrics.length})`);
  await openChooser(page);
  assert.equal(await page.$$eval('[data-testid="metric-chooser"] .mc-row[data-metric]', (rs) => rs.length), meta.metrics.length);
  const last = meta.metrics.length - 1;
  await page.uncheck(`[data-testid="column-${last}-e"]`);
  await page.keyboard.press('Escape');
  const after = await profileState(page);
  assert.equal(after.columns.length, 2 * meta.metrics.length - 1);
  assert.ok(!(await headerColumns(page)).includes(`${last}e`));
  assert.deepEqual(problems, []);
});
