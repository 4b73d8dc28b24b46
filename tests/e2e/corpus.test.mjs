// Drops every dataset folder onto the page (real File objects through the folder picker,
// <input webkitdirectory>): those of ../shared/corpus when it is there, and always those the
// project generates with its own writers (generated.mjs); checks that the summary panel shows the
// right format and era for each, with no error banner and no console error. Without the corpus,
// the summary-speed test and the screenshot use a generated HPCToolkit database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appForFile, screenshot, field, dropFolder, hasCorpus, CORPUS } from './helpers.mjs';
import { generated, generatedDatasets } from './generated.mjs';

const WITH_CORPUS = hasCorpus();
if (!WITH_CORPUS) console.log(`${CORPUS} absent: generated datasets only`);

const sub = (dir) => fs.readdirSync(path.join(CORPUS, dir), { withFileTypes: true })
  .filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name)).sort();

/** Every corpus dataset folder (relative to CORPUS) with the format and era corpus/README.md gives it. */
function corpusDatasets() {
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

const app = appForFile();

test('every dataset folder (corpus and generated) shows its format and era', async () => {
  const { page, problems } = app;
  const corpus = WITH_CORPUS ? corpusDatasets() : [];
  if (WITH_CORPUS) assert.ok(corpus.length >= 50, `found only ${corpus.length} corpus datasets`);
  const all = [
    ...corpus.map((d) => ({ ...d, path: path.join(CORPUS, d.dir), root: path.basename(d.dir) })),
    ...generatedDatasets().map((d) => ({ ...d, path: d.dir, dir: `generated/${d.name}` })),
  ];
  // Every format the project writes is among the generated ones.
  assert.deepEqual([...new Set(generatedDatasets().map((d) => d.format))].sort(),
    ['dcpi', 'hpcrun', 'hpctoolkit', 'hpctoolkit-xml', 'prof2', 'uftrace']);
  const failures = [];
  const statuses = {};
  for (const want of all) {
    const { state, added } = await dropFolder(page, want.path);
    const d = added.find((x) => x.root === want.root);
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
  console.log(`${corpus.length} corpus and ${all.length - corpus.length} generated datasets dropped; status: ${JSON.stringify(statuses)}`);
  assert.deepEqual(failures, []);
  assert.deepEqual(s.errors.map((e) => e.message), [], 'no error banner for valid datasets');
  assert.equal(await page.locator('#banner').isVisible(), false);
  assert.deepEqual(problems, []);
});

test('the largest HPCToolkit database (corpus, else generated) shows its summary in under a second', async () => {
  const { page, problems } = app;
  const dirs = WITH_CORPUS ? sub('hpctoolkit/v4').map((d) => path.join(CORPUS, d)) : [generated('synth.d')];
  const dbs = dirs.map((d) => ({
    d,
    bytes: fs.readdirSync(d, { recursive: true })
      .map((f) => fs.statSync(path.join(d, f))).filter((st) => st.isFile())
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

test('screenshot after dropping a database', async () => {
  const { page } = app;
  await dropFolder(page, WITH_CORPUS ? path.join(CORPUS, 'hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d') : generated('synth.d'));
  await page.evaluate(() => window.hpcscope.dismissErrors());
  const file = await screenshot(page, 'database.png');
  console.log(`screenshot: ${file}`);
  assert.ok(fs.statSync(file).size > 10000);
});
