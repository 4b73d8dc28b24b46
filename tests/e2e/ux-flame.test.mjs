// Defects a new user hits first (issue 16), part 2: "Go to match" selects the hottest match, not
// the first in tree order; the breadcrumb names every frame of the zoom path (never a raw id such
// as "#0"); in the flame graph a click selects without zooming, a double click or Enter zooms,
// the wheel zooms the axis around the pointer, a drag zooms to the dragged span and Escape goes
// back. On corpus data when ../shared is there, and on generated data always.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appForFile, showProfile, dropSelect, screenshot, hasCorpus, CORPUS, ROOT } from './helpers.mjs';
import { generated, corpusOrSynth, cli, GENERATED } from './generated.mjs';

const WITH_CORPUS = hasCorpus();
if (!WITH_CORPUS) console.log(`${CORPUS} absent: generated datasets only`);
const corpus = (rel) => path.join(CORPUS, rel);

const app = appForFile({ width: 1600, height: 1000 });

const profile = (page) => page.evaluate(() => window.hpcscope.state().views.profile);

/** A uftrace recording of main -> recurse x `depth` (hpcscope fixture uftrace-deep). */
function deepRecording(depth) {
  const dir = path.join(GENERATED, `deep-${depth}`, 'uftrace.data');
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  cli('fixture', 'uftrace-deep', '--depth', String(depth), dir);
  return dir;
}

const SEARCHES = () => [
  ...(WITH_CORPUS ? [
    { dir: corpus('uftrace/recorded-cxx/uftrace.data'), pattern: 'basic_string' },
    { dir: corpus('hpctoolkit/v4/hpcviewer-lmp-openmp'), pattern: 'omp' },
    { dir: corpus('hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d'), pattern: 'loop' },
  ] : []),
  { dir: generated('synth.d'), pattern: 'kernel_' },
];

test('"Go to match" selects the hottest match and the breadcrumb shows names', async () => {
  const { page, problems } = app;
  for (const { dir, pattern } of SEARCHES()) {
    const id = await dropSelect(page, dir);
    await showProfile(page);
    const info = await page.evaluate((p) => window.hpcscopeProfile.panels().search(p), pattern);
    assert.ok(info.frames >= 2, `${dir}: ${pattern} matches ${info.frames} frames`);
    // The largest inclusive value of a matching frame, from the flame layout of the whole tree.
    const m = (await profile(page)).metric;
    const best = await page.evaluate(async ([i, k, re]) => {
      const e = window.hpcscope.engine;
      await e.call('flame_config', i, k, false, true);
      const a = await e.call('flame_layout', i, 0, { x0: 0, x1: 1, depth0: 0, depth1: 100000, width_px: 1e9, min_width_px: 0 });
      const meta = await e.call('profile_meta', i);
      const rx = new RegExp(re, 'i');
      let v = -1;
      for (let j = 0; j < a[0].length; j++) if (rx.test(meta.names[a[4][j]]) && a[6][j] > v) v = a[6][j];
      return v;
    }, [id, m, pattern]);
    await page.getByRole('button', { name: 'Go to match' }).click();
    await page.waitForFunction(() => window.hpcscope.state().views.profile.selected);
    await page.waitForTimeout(300);
    const v = await profile(page);
    const sel = await page.evaluate(([i, n, k]) => window.hpcscope.engine.call('node_info', i, n, k), [id, v.selected.node, m]);
    assert.match(sel.name, new RegExp(pattern, 'i'));
    assert.equal(sel.inclusive, best, `${dir}: went to ${sel.name} (${sel.inclusive}), hottest match ${best}`);
    assert.ok(sel.inclusive > 0);
    for (const c of v.flame.breadcrumb) assert.doesNotMatch(c, /^#\d+$/, `${dir}: breadcrumb ${v.flame.breadcrumb}`);
    await page.evaluate(() => window.hpcscopeProfile.panels().search(''));
  }
  await screenshot(page, 'ux-go-to-match.png');
  assert.deepEqual(problems, []);
});

test('the breadcrumb of a deep zoom names its frames, root included', async () => {
  const { page, problems } = app;
  const id = await dropSelect(page, deepRecording(40));
  await showProfile(page);
  // The deepest frame: selecting it zooms to its parent with only the last levels drawn.
  const deepest = await page.evaluate(async (i) => {
    const e = window.hpcscope.engine;
    const a = await e.call('flame_layout', i, 0, { x0: 0, x1: 1, depth0: 0, depth1: 100000, width_px: 1e9, min_width_px: 0 });
    let j = 0;
    for (let k = 0; k < a[1].length; k++) if (a[1][k] > a[1][j]) j = k;
    return { node: a[0][j], depth: a[1][j] };
  }, id);
  assert.ok(deepest.depth >= 40, JSON.stringify(deepest));
  await page.evaluate((n) => window.hpcscopeProfile.panels().select(n, 'test'), deepest.node);
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.depth0 > 0);
  await page.waitForTimeout(200);
  const v = await profile(page);
  assert.ok(v.flame.breadcrumb.length >= 40, JSON.stringify(v.flame.breadcrumb));
  assert.equal(v.flame.breadcrumb[0], '<root>');
  assert.deepEqual(v.flame.breadcrumb.filter((c) => /^#\d+$/.test(c)), []);
  assert.ok(v.flame.breadcrumb.slice(2).every((c) => c === 'recurse'), JSON.stringify(v.flame.breadcrumb.slice(0, 5)));
  const crumbs = await page.locator('[data-testid="flame-breadcrumb"] .fg-crumb').allInnerTexts();
  assert.deepEqual(crumbs.filter((c) => /^#\d+$/.test(c)), []);
  assert.deepEqual(problems, []);
});

test('flame graph: click selects, double click and Enter zoom, wheel and drag zoom the axis', async () => {
  const { page, problems } = app;
  await dropSelect(page, corpusOrSynth('hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d'));
  let v = await showProfile(page);
  const canvas = page.getByTestId('flame-canvas');
  const box = await canvas.boundingBox();
  const at = (f) => [box.x + (f.x + f.width / 2) * box.width, box.y + f.depth * 18 + 9];
  const f2 = v.flame.frames.filter((f) => f.depth === 2).sort((a, b) => b.width - a.width)[0];
  // Click: selected (table and distribution follow), no zoom.
  await page.mouse.click(...at(f2));
  // The table follows once it has revealed the row (expanding its ancestors): wait for both.
  await page.waitForFunction((n) => {
    const p = window.hpcscope.state().views.profile;
    return p.selected?.node === n && p.table?.selected === n;
  }, f2.node);
  v = await profile(page);
  assert.equal(v.flame.zoom.node, 0);
  assert.equal(v.flame.selected, f2.node);
  assert.equal(v.table.selected, f2.node);
  // Double click: zoomed to it.
  await page.mouse.dblclick(...at(f2));
  await page.waitForFunction((n) => window.hpcscope.state().views.profile.flame.zoom.node === n, f2.node);
  // Escape back, Enter on the selected frame zooms again.
  await canvas.focus();
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.zoom.node !== 0 || true);
  await page.keyboard.press('Home');
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.zoom.node === 0);
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
  await page.waitForFunction((n) => window.hpcscope.state().views.profile.flame.zoom.node === n, f2.node);
  await page.keyboard.press('Home');
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.zoom.node === 0);
  await page.waitForTimeout(300);
  // Wheel up over the left quarter: the window narrows around the pointer.
  await page.mouse.move(box.x + box.width * 0.25, box.y + 30);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.window[1] - window.hpcscope.state().views.profile.flame.window[0] < 0.9);
  v = await profile(page);
  const [w0, w1] = v.flame.window;
  assert.ok(w0 < 0.25 && w1 > 0.25, `window ${w0}..${w1} keeps the pointer's place`);
  assert.ok(Math.abs((0.25 - w0) / (w1 - w0) - 0.25) < 0.01, `pointer stays at a quarter: ${w0}..${w1}`);
  await page.waitForTimeout(300);
  await screenshot(page, 'ux-flame-wheel.png');
  // Escape shows the whole width again; a drag over the middle fifth zooms to it.
  await canvas.focus();
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.window[1] - window.hpcscope.state().views.profile.flame.window[0] === 1);
  await page.mouse.move(box.x + box.width * 0.4, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + 40, { steps: 4 });
  await page.mouse.move(box.x + box.width * 0.6, box.y + 40, { steps: 4 });
  await page.mouse.up();
  await page.waitForFunction(() => window.hpcscope.state().views.profile.flame.window[0] > 0.3);
  v = await profile(page);
  assert.ok(Math.abs(v.flame.window[0] - 0.4) < 0.01 && Math.abs(v.flame.window[1] - 0.6) < 0.01, JSON.stringify(v.flame.window));
  assert.equal(v.flame.zoom.node, 0, 'a drag zooms the axis, not to a frame');
  await page.waitForTimeout(300);
  v = await profile(page);
  // Frames drawn are those of the window: their span covers it.
  assert.ok(v.flame.frames.some((f) => f.x <= 0.4 && f.x + f.width >= 0.6), 'the root spans the window');
  await screenshot(page, 'ux-flame-drag.png');
  assert.deepEqual(problems, []);
});

// The corpus C++ recording, else the repository's fixture recorded with uftrace 0.13 (four
// basic_string constructor symbols, C1/C2 of different signatures, that demangle to one name).
// The expected calls are those of uftrace's own report of that recording.
test('C++ overloads uftrace names alike are one row, as uftrace report shows them', async () => {
  const { page, problems } = app;
  const rec = WITH_CORPUS ? corpus('uftrace/recorded-cxx') : path.join(ROOT, 'tests', 'fixtures', 'uftrace', 'cxx-names');
  const report = fs.readFileSync(path.join(rec, 'expected', WITH_CORPUS ? 'report-call.txt' : 'report.txt'), 'utf8');
  const name = 'std::__cxx11::basic_string::basic_string';
  const line = report.split('\n').find((l) => l.trim().endsWith(`  ${name}`));
  assert.ok(line, `uftrace's report has a ${name} row`);
  const wantCalls = Number(line.trim().split(/\s+/)[4]);
  assert.ok(wantCalls > 1, line);
  const id = await dropSelect(page, path.join(rec, 'uftrace.data'));
  await showProfile(page);
  const rows = await page.evaluate(async ([i, n]) => {
    const e = window.hpcscope.engine;
    const meta = await e.call('profile_meta', i);
    const calls = meta.metrics.findIndex((m) => m.name === 'calls');
    const out = {};
    for (const kind of ['bottomup', 'flat']) {
      if (kind === 'flat') await e.call('table_expand_all', i, kind, 100000);
      const len = await e.call('table_len', i, kind);
      const w = await e.call('table_window', i, kind, 0, len);
      const depth = Array.from(w[1]);
      const values = Array.from(w[4]);
      const nm = meta.metrics.length;
      out[kind] = Array.from(w[5]).map((label, r) => ({ label, depth: depth[r], calls: values[(r * nm + calls) * 2 + 1] }))
        .filter((r) => r.label === n && (kind === 'flat' || r.depth === 1));
    }
    return out;
  }, [id, name]);
  assert.equal(rows.bottomup.length, 1, JSON.stringify(rows.bottomup));
  assert.equal(rows.bottomup[0].calls, wantCalls);
  assert.equal(rows.flat.length, 1, JSON.stringify(rows.flat));
  assert.equal(rows.flat[0].calls, wantCalls);
  assert.deepEqual(problems, []);
});
