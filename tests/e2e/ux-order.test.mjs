// Defects a new user hits first (issue 16), part 1: the Trace tab of a C++ recording (the
// repository's cxx-names fixture; the corpus's, whose records with empty-struct return values once
// broke the re-read, when there) is drawn; trace rows, the
// Profiles list and the distribution bars come in rank, thread order; the distribution names the
// bar under the pointer and has a value axis; the Summary shows a trace's time range as a
// duration and a date; table values are not clipped. Each on corpus data when ../shared is
// there, and on generated data (generated.mjs) always.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { appForFile, showProfile, dropFolder, screenshot, hasCorpus, CORPUS, ROOT, showTrace } from './helpers.mjs';
import { generated, corpusOrSynth, cli, GENERATED } from './generated.mjs';

const WITH_CORPUS = hasCorpus();
if (!WITH_CORPUS) console.log(`${CORPUS} absent: generated datasets only`);
const corpus = (rel) => path.join(CORPUS, rel);

const app = appForFile({ width: 1600, height: 1000 });

/** Drops a folder (absolute path); resolves to the selected (new) dataset's summary. */
async function dropShown(page, dir) {
  const { state } = await dropFolder(page, dir);
  return state.datasets.find((d) => d.id === state.selected);
}

/**
 * Sort key of a profile label ("NODE 0 / RANK 3 / THREAD 1", "THREAD 5"): its numbers, NODE last
 * (a node says where a rank ran, not which it is).
 */
function labelKey(label) {
  const parts = label.split(' / ').map((p) => /^(\S+) (\d+)/.exec(p)).filter(Boolean);
  const nodes = parts.filter((m) => m[1].toUpperCase() === 'NODE');
  return [...parts.filter((m) => m[1].toUpperCase() !== 'NODE'), ...nodes].map((m) => Number(m[2]));
}
function assertOrdered(labels, what) {
  for (let i = 1; i < labels.length; i++) {
    const a = labelKey(labels[i - 1]);
    const b = labelKey(labels[i]);
    let cmp = 0;
    for (let k = 0; k < Math.min(a.length, b.length) && !cmp; k++) cmp = a[k] - b[k];
    assert.ok(cmp <= 0, `${what}: "${labels[i - 1]}" before "${labels[i]}" in ${JSON.stringify(labels)}`);
  }
}

test('the Trace tab of a C++ recording is drawn, not an error', async () => {
  const recordings = [path.join(ROOT, 'tests', 'fixtures', 'uftrace', 'cxx-names', 'uftrace.data')];
  if (WITH_CORPUS) recordings.push(corpus('uftrace/recorded-cxx/uftrace.data'));
  for (const [k, rec] of recordings.entries()) await traceDrawn(rec, k ? 'ux-trace-cxx.png' : 'ux-trace-cxx-names.png');
});

/** Drops recording `rec`, shows its Trace tab and checks the picture and a call path. */
async function traceDrawn(rec, png) {
  const { page, problems } = app;
  const d = await dropShown(page, rec);
  assert.equal(d.format, 'uftrace');
  const t = await showTrace(page, { orEmpty: true, orError: true });
  assert.equal(t.error, null, `trace error: ${t.error}`);
  assert.equal(t.status, 'ok');
  assert.ok(t.frames_painted > 0 && t.exact, JSON.stringify(t));
  // A click in the middle of the first row gives a call path under main, as uftrace's replay.
  const box = await page.getByTestId('timeline-canvas').boundingBox();
  await page.mouse.click(box.x + box.width * 0.5, box.y + 10);
  await page.waitForFunction(() => window.hpcscope.state().views.timeline.crosshair?.path?.length > 0);
  const c = (await page.evaluate(() => window.hpcscope.state().views.timeline)).crosshair;
  assert.ok(c.path.includes('main'), JSON.stringify(c.path));
  assert.equal(await page.locator('#view .tl-status').innerText().then((s) => /error/.test(s)), false);
  await screenshot(page, png);
  assert.deepEqual(problems, []);
}

const ORDER_CASES = () => [
  ...(WITH_CORPUS ? [
    corpus('uftrace/recorded-threads/uftrace.data'),
    corpus('hpctoolkit/v4/hpcviewer-lmp-openmp'),
    corpus('hpcrun/hpctoolkit-tests-loops-cputime-t.m'),
  ] : []),
  generated('synth.d'),
  generated('ufsynth'),
];

test('trace rows, the Profiles list and unsorted distribution bars in rank, thread order', async () => {
  const { page, problems } = app;
  const withProfiles = [];
  for (const dir of ORDER_CASES()) {
    const d = await dropShown(page, dir);
    const t = await showTrace(page, { orEmpty: true, orError: true });
    if (t.status === 'ok') {
      const all = await page.evaluate(async (id) => {
        const meta = await window.hpcscope.engine.call('timeline_meta', id);
        const rows = await window.hpcscope.engine.call('timeline_rows', id, '', 0, 'none');
        return Array.from(rows.rows).map((l) => meta.rows[l].label);
      }, d.id);
      assertOrdered(all, `${dir} trace rows`);
      assertOrdered(t.rows.labels, `${dir} shown rows`);
    }
    await showProfile(page);
    const options = await page.locator('[data-testid="profile-select"] option').evaluateAll(
      (os) => os.filter((o) => /^p\d+$/.test(o.value)).map((o) => o.textContent));
    assertOrdered(options, `${dir} Profiles list`);
    if (options.length > 1) withProfiles.push(d.id);
  }
  assert.ok(withProfiles.length >= 1);
  for (const id of withProfiles) {
    await page.evaluate((i) => window.hpcscope.select(i), id);
    await showProfile(page);
    await page.uncheck('[data-testid="dist-sorted"]');
    const v = await page.evaluate(() => window.hpcscope.state().views.profile);
    const f = v.flame.frames.filter((x) => x.depth === 1).sort((a, b) => b.width - a.width)[0];
    await page.evaluate((n) => window.hpcscopeProfile.panels().select(n, 'test'), f.node);
    await page.waitForFunction(() => window.hpcscope.state().views.profile.distribution.profiles > 1);
    const dist = (await page.evaluate(() => window.hpcscope.state().views.profile)).distribution;
    assert.ok(Array.isArray(dist.shown) && dist.shown.length > 1, JSON.stringify(dist.shown));
    assertOrdered(dist.shown, `dataset ${id} distribution bars`);
    await page.check('[data-testid="dist-sorted"]');
  }
  assert.deepEqual(problems, []);
});

test('distribution bars name their profile and value on hover and keys, with an axis', async () => {
  const { page, problems } = app;
  await dropShown(page, corpusOrSynth('hpctoolkit/v4/hpcviewer-lmp-openmp'));
  const v0 = await showProfile(page);
  const f = v0.flame.frames.filter((x) => x.depth === 1).sort((a, b) => b.width - a.width)[0];
  await page.evaluate((n) => window.hpcscopeProfile.panels().select(n, 'test'), f.node);
  await page.waitForFunction(() => window.hpcscope.state().views.profile.distribution.shown.length > 1);
  const box = await page.getByTestId('dist-canvas').boundingBox();
  // The largest bar comes first when sorted: hovering near the left names it, with its value.
  await page.mouse.move(box.x + 48, box.y + box.height / 2);
  await page.waitForFunction(() => window.hpcscope.state().views.profile.distribution.tooltip);
  let dist = (await page.evaluate(() => window.hpcscope.state().views.profile)).distribution;
  const meta = await page.evaluate(() => window.hpcscope.engine.call('profile_meta', window.hpcscope.state().selected));
  const maxLabel = dist.shown[0];
  assert.ok(dist.tooltip.startsWith(maxLabel), `${dist.tooltip} vs ${maxLabel}`);
  assert.match(dist.tooltip, /inclusive/);
  assert.ok(meta.profiles.some((p) => p.label === maxLabel));
  await screenshot(page, 'ux-distribution-hover.png');
  // Keys: End names the last bar.
  await page.getByTestId('dist-canvas').focus();
  await page.keyboard.press('End');
  dist = (await page.evaluate(() => window.hpcscope.state().views.profile)).distribution;
  assert.ok(dist.tooltip.startsWith(dist.shown[Math.min(dist.profiles, 64) - 1]) || dist.profiles > 64, dist.tooltip);
  assert.match(dist.tooltip, new RegExp(`${dist.profiles} of ${dist.profiles}`));
  // The value axis: the canvas has ink in its left gutter (the labels) next to the bars.
  const ink = await page.getByTestId('dist-canvas').evaluate((c) => {
    const g = c.getContext('2d');
    const dpr = c.width / c.clientWidth;
    const px = g.getImageData(0, 0, Math.floor(40 * dpr), c.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
    return n;
  });
  assert.ok(ink > 50, `value axis labels: ${ink} inked pixels`);
  assert.deepEqual(problems, []);
});

test('the Summary shows a trace time range as a duration and a date', async () => {
  const { page, problems } = app;
  const d = await dropShown(page, corpusOrSynth('hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d'));
  await page.evaluate(() => window.hpcscope.showView('summary'));
  const raw = Object.fromEntries(d.facts)['time range'];
  assert.match(raw, /^\d+ \.\. \d+ ns/);
  const cell = page.locator('#view [data-fact="time range"]');
  const text = await cell.innerText();
  assert.doesNotMatch(text, /\d{10,}/, `raw nanoseconds shown: ${text}`);
  const [, a, b] = /^(\d+) \.\. (\d+) ns/.exec(raw);
  const secs = Number(BigInt(b) - BigInt(a)) / 1e9;
  assert.ok(text.includes(secs >= 1 ? `${secs.toFixed(3)} s` : 'ms'), `${text} for ${secs} s`);
  if (BigInt(a) > 10n ** 18n) {
    const day = new Date(Number(BigInt(a) / 1000000n)).toISOString().slice(0, 10);
    assert.ok(text.includes(day), `${text} lacks ${day}`);
  }
  assert.equal(await cell.getAttribute('title'), raw);
  await screenshot(page, 'ux-summary-time.png');
  assert.deepEqual(problems, []);
});

test('table values of a DCPI profile are not clipped', async () => {
  const { page, problems } = app;
  await dropShown(page, generated('dcpi'));
  await showProfile(page);
  await page.locator('.pv-tab[data-table="flat"]').click();
  await page.waitForFunction(() => window.hpcscope.state().views.profile.table.kind === 'flat');
  // The profile view may still show the dataset selected before the drop: wait for the DCPI table.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="table-flat"] .tt-row .tt-num')]
    .some((e) => /samples/.test(e.textContent)), null, { timeout: 30000 });
  const cells = await page.locator('[data-testid="table-flat"] .tt-num').evaluateAll((els) => els
    .filter((e) => e.closest('.tt-row'))
    .map((e) => ({ text: e.textContent, clipped: e.scrollWidth > e.clientWidth + 1 })));
  assert.ok(cells.some((c) => /samples/.test(c.text)), JSON.stringify(cells.slice(0, 4)));
  const clipped = cells.filter((c) => c.clipped);
  assert.deepEqual(clipped, [], `clipped cells: ${JSON.stringify(clipped.slice(0, 5))}`);
  await screenshot(page, 'ux-dcpi-table.png');
  assert.deepEqual(problems, []);
});

test('a table of 80 metric columns puts the columns near the view in the DOM and the far ones on scroll', async () => {
  const { page, problems } = app;
  const dir = path.join(GENERATED, 'wide-40.d');
  cli('synth', '--ranks', '1', '--threads', '1', '--contexts', '60', '--metrics', '40', '--samples', '0', dir);
  await dropFolder(page, dir);
  const v = await showProfile(page);
  const ncol = v.columns.length;
  assert.equal(ncol, 80);
  const table = '[data-testid="table-topdown"]';
  const cols = () => page.$$eval(`${table} .tt-row[data-row="0"] .tt-num`, (cs) => cs.map((c) => Number(c.dataset.col)));
  const near = await cols();
  assert.ok(near.length >= 8 && near.length < ncol / 2, `root row has cells of columns ${near}`);
  assert.equal(near[0], 0);
  // Scrolled to the right end: the last columns get their cells, with the engine's values.
  await page.$eval(table, (el) => { el.scrollLeft = el.scrollWidth; });
  await page.waitForFunction(([sel, last]) => !!document.querySelector(`${sel} .tt-row[data-row="0"] .tt-num[data-col="${last}"]`), [table, ncol - 1]);
  const far = await cols();
  assert.ok(!far.includes(0) && far.includes(ncol - 2), `after scrolling: columns ${far}`);
  const head = await page.$$eval('.tt-header .tt-h.tt-num', (cs) => cs.map((c) => [Number(c.dataset.metric), c.dataset.exclusive === 'true']));
  const [m, excl] = head[ncol - 2];
  assert.equal(excl, false);
  const root = (await page.evaluate(() => window.hpcscope.state().views.profile.table.root))[m].inclusive;
  assert.ok(root > 0);
  const cell = page.locator(`${table} .tt-row[data-row="0"] .tt-num[data-col="${ncol - 2}"]`);
  assert.equal(await cell.locator('.tt-p').innerText(), '100%');
  assert.notEqual(await cell.locator('.tt-v').innerText(), '');
  const [box, view] = [await cell.boundingBox(), await page.locator(table).boundingBox()];
  assert.ok(box.x >= view.x && box.x + box.width <= view.x + view.width + 1, 'the cell is in view');
  assert.deepEqual(problems, []);
});
