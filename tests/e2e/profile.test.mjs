// The Profile view on HPCToolkit databases dropped through the folder picker: the values the
// flame graph and the top-down table show for the root and the top frames equal HPCToolkit's own
// transcript (golden YAML, summary profile, execution and function scopes) for real databases, and
// the native reader's transcript (`hpcscope dump --json`) for a generated one; bottom-up and flat
// totals equal the root's; search finds a known function. Screenshots of every panel are saved
// under target/screenshots/. Without the corpus, the real-database comparisons skip and the view
// tests run on a generated database (generated.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appForFile, showProfile, dropSelect, screenshot, dropFolder, hasCorpus, CORPUS } from './helpers.mjs';
import { generated, transcript } from './generated.mjs';
import { readGolden, summaryStats } from './golden.mjs';

const SKIP = hasCorpus() ? false : `skipping: ${CORPUS} absent`;
if (SKIP) console.log(SKIP);
/** A real database when the corpus is there, else the generated one. */
const dbDir = (name) => (hasCorpus() ? path.join(CORPUS, 'hpctoolkit', 'v4', name) : generated('synth.d'));

const DBS = ['hpctoolkit-tests-small.d', 'hpctoolkit-tests-loops-cputime-t.d', 'hpcviewer-inline.meta.db'];

/** HPCToolkit's transcript of corpus database `name`: per metric its inclusive/exclusive stat ids,
 * and the summary profile's values (golden.mjs). */
const golden = (name) => summaryStats(readGolden(path.join(CORPUS, 'hpctoolkit', 'golden', `${name}.yaml.xz`), ['meta', 'profile']));

const app = appForFile({ width: 1400, height: 900 });


const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1e-300);

/**
 * Drops database `dir` and checks the values the flame graph, the top-down table and the
 * bottom-up and flat tables show against transcript `g` (golden() or transcript()).
 */
async function checkShownValues(name, dir, g) {
  const { page, problems } = app;
  const id = await dropSelect(page, dir);
  let view = await showProfile(page);
  const meta = await page.evaluate((i) => window.hpcscope.engine.call('profile_meta', i), id);
  assert.equal(meta.metrics.length, g.stats.length);
  const metricsChecked = Math.min(meta.metrics.length, 3);
  for (let m = 0; m < metricsChecked; m++) {
    const st = g.stats[m];
    assert.equal(meta.metrics[m].name, st.name);
    if (view.flame.metric !== m) {
      await page.selectOption('[data-testid="metric-select"]', String(m));
      await page.waitForFunction((k) => {
        const v = window.hpcscope.state().views.profile;
        return v.flame.metric === k && v.table.sort.metric === k;
      }, m);
      await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
      view = await page.evaluate(() => window.hpcscope.state().views.profile);
    }
    // Flame graph: the root and the frames of the top three levels.
    const top = view.flame.frames.filter((f) => f.depth <= 3);
    assert.ok(top.length >= 2, `${name}: frames ${JSON.stringify(top)}`);
    for (const f of top) {
      const info = await page.evaluate(([i, n, k]) => window.hpcscope.engine.call('node_info', i, n, k), [id, f.node, m]);
      const incl = g.value(info.ctx_id, st.exec);
      const excl = g.value(info.ctx_id, st.func);
      if (incl !== null) assert.equal(f.inclusive, incl, `${name} ${st.name} ${f.name} (ctx ${info.ctx_id}) inclusive`);
      if (excl !== null) assert.equal(f.exclusive, excl, `${name} ${st.name} ${f.name} (ctx ${info.ctx_id}) exclusive`);
    }
    assert.equal(view.flame.root.inclusive, g.value(0, st.exec));
    // Top-down table: root row and its visible children.
    const rootRow = view.table.visible[0];
    assert.equal(rootRow.label, '<root>');
    assert.equal(rootRow.values[m].inclusive, g.value(0, st.exec));
    for (const r of view.table.visible.slice(0, 8)) {
      if (r.cct === null) continue;
      const info = await page.evaluate(([i, n, k]) => window.hpcscope.engine.call('node_info', i, n, k), [id, r.cct, m]);
      assert.equal(r.values[m].inclusive, g.value(info.ctx_id, st.exec), `${name} row ${r.label}`);
      if (st.func !== null) assert.equal(r.values[m].exclusive, g.value(info.ctx_id, st.func), `${name} row ${r.label} excl`);
    }
    // Bottom-up and flat: the aggregate row shows the root total and the top-level exclusive
    // values add up to it.
    const root = g.value(0, st.exec);
    for (const kind of ['bottomup', 'flat']) {
      const n = await page.evaluate(([i, k]) => window.hpcscope.engine.call('table_len', i, k), [id, kind]);
      const w = await page.evaluate(([i, k, c]) => window.hpcscope.engine.call('table_window', i, k, 0, c), [id, kind, n]);
      const nm = meta.metrics.length;
      const depth = Object.values(w[1]);
      const values = Object.values(w[4]);
      assert.equal(values[m * 2], root, `${name} ${kind} aggregate row`);
      let sum = 0;
      depth.forEach((d, r) => { if (d === 1) sum += values[(r * nm + m) * 2 + 1]; });
      if (st.func !== null) assert.ok(near(sum, root), `${name} ${st.name} ${kind}: ${sum} vs ${root}`);
    }
  }
  assert.deepEqual(problems, []);
}

/** Shows table `kind` ("bottomup", "flat"), clicks its row `row` and asks for its hot path. */
async function hotPathIn(page, kind, row) {
  await page.locator(`.pv-tab[data-table="${kind}"]`).click();
  await page.waitForFunction((k) => window.hpcscope.state().views.profile.table.kind === k, kind);
  await page.locator(`[data-testid="table-${kind}"] .tt-row`).nth(row).click();
  await page.locator('[data-testid="table-hot-path"]').click();
  await page.waitForTimeout(400);
}

test('real databases: shown values equal HPCToolkit\'s golden YAML', { skip: SKIP }, async (t) => {
  for (const name of DBS) {
    await t.test(`${name}: shown root and top-frame values equal the golden YAML`,
      () => checkShownValues(name, path.join(CORPUS, 'hpctoolkit', 'v4', name), golden(name)));
  }
});

// A generated HPCToolkit database and hpcrun measurement (whose summary profile the reader sums
// from the threads' profiles), against the native reader's transcript of the same files.
for (const name of ['synth.d', 'synthapp.m']) {
  test(`generated ${name}: shown root and top-frame values equal \`hpcscope dump --json\``, async () => {
    const dir = generated(name);
    const g = transcript(dir);
    assert.ok(g.stats.length >= 2 && g.stats.every((st) => st.exec !== null && st.func !== null), JSON.stringify(g.stats));
    await checkShownValues(name, dir, g);
  });
}

test('tables, search, zoom, tooltip and distribution on a database (real, else generated); screenshots', async () => {
  const { page, problems } = app;
  const id = await dropSelect(page, dbDir('hpctoolkit-tests-loops-cputime-t.d'));
  await showProfile(page);
  await page.selectOption('[data-testid="metric-select"]', '0');
  await page.waitForTimeout(200);
  await screenshot(page, 'profile-flame-topdown.png');

  // Search: a known function is found, highlighted in the flame graph and the total shown.
  await page.fill('[data-testid="search-input"]', 'main');
  await page.press('[data-testid="search-input"]', 'Enter');
  await page.waitForFunction(() => {
    const v = window.hpcscope.state().views.profile;
    return v.search && v.search.pattern === 'main' && v.flame.frames.some((f) => f.match);
  });
  let v = await page.evaluate(() => window.hpcscope.state().views.profile);
  assert.ok(v.search.frames >= 1);
  assert.ok(v.search.total > 0 && v.search.total <= v.search.root_total);
  assert.match(await page.locator('[data-testid="search-info"]').innerText(), /frame/);
  await screenshot(page, 'profile-search.png');
  await page.fill('[data-testid="search-input"]', '');
  await page.press('[data-testid="search-input"]', 'Enter');
  await page.waitForFunction(() => !window.hpcscope.state().views.profile.flame.frames.some((f) => f.match));

  // Hover: the tooltip names the frame with its values.
  v = await page.evaluate(() => window.hpcscope.state().views.profile);
  const box = await page.locator('[data-testid="flame-canvas"]').boundingBox();
  const deep = v.flame.frames.filter((f) => f.depth === 3).sort((a, b) => b.width - a.width)[0];
  const px = box.x + (deep.x + deep.width / 2) * box.width;
  const py = box.y + deep.depth * 18 + 9;
  await page.mouse.move(px, py);
  await page.waitForFunction(() => {
    const t = document.querySelector('[data-testid="flame-tooltip"]');
    return t && !t.hidden && /inclusive/.test(t.innerText) && /source|module/.test(t.innerText);
  });
  const tipText = await page.locator('[data-testid="flame-tooltip"]').innerText();
  assert.ok(tipText.includes(deep.name), tipText);
  await screenshot(page, 'profile-tooltip.png');

  // Double click to zoom (a click only selects): the frame becomes the zoom root, the
  // breadcrumb shows the path.
  await page.mouse.dblclick(px, py);
  await page.waitForFunction((n) => window.hpcscope.state().views.profile.flame.zoom.node === n, deep.node);
  await page.waitForTimeout(400);
  v = await page.evaluate(() => window.hpcscope.state().views.profile);
  assert.equal(v.flame.zoom.name, deep.name);
  assert.ok(v.flame.breadcrumb.length >= 3, JSON.stringify(v.flame.breadcrumb));
  assert.ok(v.flame.zoomFrames > 0);
  // The selection reached the top-down table and the distribution.
  assert.equal(v.table.selected, deep.node);
  assert.equal(v.distribution.node, deep.node);
  await screenshot(page, 'profile-zoomed.png');
  // Breadcrumb back to the root.
  await page.locator('[data-testid="flame-breadcrumb"] .fg-crumb').first().click();
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.zoom.node === 0);

  // Merged lexical levels and module colours.
  await page.check('[data-testid="flame-merge"]');
  await page.selectOption('[data-testid="flame-color"]', 'module');
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.merged);
  await page.waitForTimeout(300);
  v = await page.evaluate(() => window.hpcscope.state().views.profile);
  assert.ok(!v.flame.frames.some((f) => /^loop at /.test(f.name)), 'loops folded');
  await screenshot(page, 'profile-merged-modules.png');

  // Bottom-up and flat tables.
  await hotPathIn(page, 'bottomup', 1);
  await screenshot(page, 'profile-bottomup.png');
  await hotPathIn(page, 'flat', 0);
  v = await page.evaluate(() => window.hpcscope.state().views.profile);
  assert.ok(v.table.visible.length >= 3);
  await screenshot(page, 'profile-flat.png');

  // Keyboard: arrows move the selection in the table, and the selection follows in the flame
  // graph and the distribution.
  const before = v.table.selectedRow;
  await page.locator('[data-testid="table-flat"]').press('ArrowDown');
  await page.waitForFunction((r) => window.hpcscope.state().views.profile.table.selectedRow === r + 1, before);
  await page.waitForTimeout(300);
  v = await page.evaluate(() => window.hpcscope.state().views.profile);
  if (v.table.selected !== null) assert.equal(v.distribution.node, v.table.selected);
  assert.deepEqual(problems, []);
});

test('distribution across the threads of a multi-threaded database (real, else generated)', async () => {
  const { page, problems } = app;
  const dir = dbDir('hpcviewer-lmp-openmp');
  if (!fs.existsSync(dir)) return;
  await dropFolder(page, dir);
  await showProfile(page);
  const v0 = await page.evaluate(() => window.hpcscope.state().views.profile);
  const f = v0.flame.frames.filter((x) => x.depth === 2).sort((a, b) => b.width - a.width)[0];
  await page.evaluate((n) => window.hpcscopeProfile.panels().select(n, 'test'), f.node);
  await page.waitForFunction(() => window.hpcscope.state().views.profile.distribution.profiles > 1);
  const v = await page.evaluate(() => window.hpcscope.state().views.profile);
  // The per-profile values add up to the summary's value of that frame (sum statistic).
  const sum = v.distribution.stats.sum;
  assert.ok(near(sum, f.inclusive), `${sum} vs ${f.inclusive}`);
  await screenshot(page, 'profile-distribution.png');

  // One profile: the flame root shows that profile's value (the distribution's root value).
  const id = await page.evaluate(() => window.hpcscope.state().selected);
  const m = v.flame.metric;
  const [profs, vals] = await page.evaluate(([i, k]) => window.hpcscope.engine.call('distribution', i, k, 0, false), [id, m]);
  const p = Object.values(profs);
  const val = Object.values(vals);
  let k = 0;
  for (let j = 1; j < val.length; j++) if (val[j] > val[k]) k = j;
  await page.selectOption('[data-testid="profile-select"]', `p${p[k]}`);
  await page.waitForFunction((want) => window.hpcscope.state().views.profile.flame.root?.inclusive === want, val[k]);
  // A subset of all profiles sums to the summary's total.
  await page.selectOption('[data-testid="profile-select"]', 'subset');
  await page.fill('[data-testid="subset-input"]', `0-${p.length - 1}`);
  await page.press('[data-testid="subset-input"]', 'Enter');
  await page.locator('[data-testid="subset-input"]').blur();
  await page.waitForFunction(() => window.hpcscope.state().views.profile.selection.kind === 'subset');
  await page.waitForTimeout(300);
  const sub = await page.evaluate(() => window.hpcscope.state().views.profile);
  const total = val.reduce((a, b) => a + b, 0);
  assert.ok(near(sub.flame.root.inclusive, total), `${sub.flame.root.inclusive} vs ${total}`);
  assert.ok(near(sub.flame.root.inclusive, v0.flame.root.inclusive), 'subset of all = summary');
  await page.selectOption('[data-testid="profile-select"]', 'summary');
  assert.deepEqual(problems, []);
});
