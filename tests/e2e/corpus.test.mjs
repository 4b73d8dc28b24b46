// Drops every dataset folder of ../shared/corpus onto the page (real File objects through the
// folder picker, <input webkitdirectory>) and checks that the summary panel shows the right format
// and era for each, with no error banner and no console error. Skips when the corpus is absent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, screenshot, field, hasCorpus, CORPUS } from './helpers.mjs';

const SKIP = hasCorpus() ? false : `skipping: ${CORPUS} absent`;
if (SKIP) console.log(`${SKIP}`);

const sub = (dir) => fs.readdirSync(path.join(CORPUS, dir), { withFileTypes: true })
  .filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name)).sort();

/** Every dataset folder with the format and era corpus/README.md gives it. */
function datasets() {
  const out = [];
  const add = (dir, format, formatName, layout) => out.push({ dir, format, formatName, layout });
  for (const d of sub('hpctoolkit/v4')) add(d, 'hpctoolkit', 'HPCToolkit database', 'v4.0 final');
  for (const d of sub('hpctoolkit/v4-draft')) {
    add(d, 'hpctoolkit', 'HPCToolkit database',
      d.endsWith('small-may2022') ? 'v4.0 draft (May 2022)' : 'v4.0 draft (April 2022)');
  }
  for (const d of sub('hpctoolkit/prof2')) add(d, 'prof2', 'HPCToolkit database (prof2)', 'prof2 pre-release 1.0 (big-endian)');
  for (const d of sub('hpctoolkit/xml')) {
    add(d, 'hpctoolkit-xml', 'HPCToolkit XML database',
      d.endsWith('hatchet-cpi') ? 'experiment.xml v2.0' : 'experiment.xml v2.2');
  }
  for (const d of sub('hpcrun')) {
    add(d, 'hpcrun', 'hpcrun measurements',
      d.endsWith('vdso-v2') ? 'hpcrun profile 02.00b' : 'hpcrun profile 04.00b');
  }
  const uftrace = [];
  for (const d of sub('uftrace')) {
    if (fs.existsSync(path.join(CORPUS, d, 'uftrace.data'))) uftrace.push(path.join(d, 'uftrace.data'));
    else for (const e of sub(d)) if (fs.existsSync(path.join(CORPUS, e, 'uftrace.data'))) uftrace.push(path.join(e, 'uftrace.data'));
  }
  for (const d of uftrace) add(d, 'uftrace', 'uftrace recording', 'uftrace file version 4');
  return out;
}

let app;
before(async () => {
  if (!SKIP) app = await start();
});
after(async () => {
  await app?.close();
});

/** Drops one folder through the folder picker; resolves to the new dataset's summary. */
async function dropFolder(page, dir) {
  const n = await page.evaluate(() => window.hpcscope.state().datasets.length);
  await page.setInputFiles('#folder-input', path.join(CORPUS, dir));
  await page.waitForFunction((k) => {
    const s = window.hpcscope.state();
    return s.datasets.length > k && !s.busy;
  }, n, { timeout: 60000 });
  const s = await page.evaluate(() => window.hpcscope.state());
  return { state: s, added: s.datasets.slice(n) };
}

test('every corpus dataset folder shows its format and era', { skip: SKIP }, async () => {
  const { page, problems } = app;
  const all = datasets();
  assert.ok(all.length >= 50, `found only ${all.length} corpus datasets`);
  const failures = [];
  const statuses = {};
  for (const want of all) {
    const { state, added } = await dropFolder(page, want.dir);
    const name = path.basename(want.dir);
    const d = added.find((x) => x.root === name);
    if (!d || added.length !== 1) {
      failures.push(`${want.dir}: datasets ${JSON.stringify(added.map((x) => x.root))}`);
      continue;
    }
    statuses[d.status] = (statuses[d.status] || 0) + 1;
    // What the page shows: the summary panel of the (newly selected) dataset.
    assert.equal(state.selected, d.id);
    const shown = {
      format: await field(page, 'format'),
      layout: await field(page, 'layout'),
    };
    if (d.format !== want.format || shown.format !== want.formatName || shown.layout !== want.layout) {
      failures.push(`${want.dir}: shows ${shown.format} / ${shown.layout} (${d.format}), want ${want.formatName} / ${want.layout}`);
    }
    if (d.status === 'failed') failures.push(`${want.dir}: ${d.error && d.error.message}`);
    const listed = page.locator(`#dataset-list [data-id="${d.id}"]`);
    if ((await listed.getAttribute('data-layout')) !== want.layout) failures.push(`${want.dir}: list entry layout`);
  }
  const s = await page.evaluate(() => window.hpcscope.state());
  console.log(`${all.length} corpus datasets dropped; status: ${JSON.stringify(statuses)}`);
  assert.deepEqual(failures, []);
  assert.deepEqual(s.errors.map((e) => e.message), [], 'no error banner for valid corpus datasets');
  assert.equal(await page.locator('#banner').isVisible(), false);
  assert.deepEqual(problems, []);
});

test('the largest HPCToolkit database shows its summary in under a second', { skip: SKIP }, async () => {
  const { page, problems } = app;
  const dbs = sub('hpctoolkit/v4').map((d) => ({
    d,
    bytes: fs.readdirSync(path.join(CORPUS, d), { recursive: true })
      .map((f) => fs.statSync(path.join(CORPUS, d, f))).filter((st) => st.isFile())
      .reduce((a, st) => a + st.size, 0),
  })).sort((a, b) => b.bytes - a.bytes);
  const { d, bytes } = dbs[0];
  const t0 = performance.now();
  const { added } = await dropFolder(page, d);
  await page.waitForFunction((id) => window.hpcscope.state().views.summary.dataset === id, added[0].id);
  const ms = performance.now() - t0;
  const s = await page.evaluate(() => window.hpcscope.state());
  console.log(`largest HPCToolkit database ${d} (${bytes} bytes): summary shown ${ms.toFixed(0)} ms after the drop (engine ${s.lastOpenMs.toFixed(1)} ms in the worker)`);
  assert.equal(await field(page, 'layout'), 'v4.0 final');
  assert.ok(ms < 1000, `took ${ms} ms`);
  assert.deepEqual(problems, []);
});

test('screenshot after dropping a database', { skip: SKIP }, async () => {
  const { page } = app;
  await dropFolder(page, 'hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d');
  await page.evaluate(() => window.hpcscope.dismissErrors());
  const file = await screenshot(page, 'database.png');
  console.log(`screenshot: ${file}`);
  assert.ok(fs.statSync(file).size > 10000);
});
