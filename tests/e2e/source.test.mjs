// The source view of the Profile tab: `hpcscope.showSource()` opens the file of the hottest
// statement, and selecting a flame frame or a table row opens the file at its line, with per-line
// inclusive and exclusive values equal to those computed here from the native reader's transcript
// (`hpcscope dump --json`: statements and loops summed per line, each cost counted once per line).
// A trace call-path entry's source button opens the file of its frame.
// Runs on the corpus database hpcviewer-inline (its sources in src/; without the corpus, the
// generated one instead) and on a generated database
// written with `hpcscope synth --sources` (dropped, and opened by URL, where src/ is fetched on
// demand); a missing file offers a file input; huge, binary and long-line files stay bounded.
// Screenshots at 1600x1000 and 800x600 go to target/screenshots/source-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appForFile, dropSelect, showProfile, screenshot, hasCorpus, CORPUS, showTrace } from './helpers.mjs';
import { cli, dumpJson, GENERATED } from './generated.mjs';
import { serve } from '../../scripts/serve.js';

const INLINE = path.join(CORPUS, 'hpctoolkit', 'v4', 'hpcviewer-inline.meta.db');

/** A generated database, with its sources in src/ when `sources`. Same seed: same tree. */
function synth(name, sources) {
  const dir = path.join(GENERATED, name);
  fs.rmSync(dir, { recursive: true, force: true });
  const args = ['synth', '--ranks', '1', '--threads', '2', '--contexts', '400', '--metrics', '2', '--samples', '300'];
  cli(...args, ...(sources ? ['--sources'] : []), dir);
  return dir;
}

/**
 * Per-line values of metric `m` from the transcript of `dir`: "path:line" -> {file, line, incl,
 * excl, stmt}, and the hottest statement (largest exclusive, first by file index and line).
 */
function expectedLines(dir, m) {
  const d = dumpJson(dir);
  const metric = d.metrics[m];
  const stat = (scope) => metric.summaries.find((s) => s.scope === scope && s.combine === 'sum' && s.formula.trim() === '$$').stat_metric_id;
  const [inc, exc] = [stat('execution'), stat('function')];
  const values = new Map(d.profiles.find((p) => p.summary).values.map(([c, id, v]) => [`${c}/${id}`, v]));
  const byCtx = new Map(d.contexts.map((c) => [c.ctx_id, c]));
  const key = (c) => (['line', 'loop', 'instruction'].includes(c.lexical_type) && c.entry_point == null && c.file != null && c.line > 0
    ? `${d.files[c.file]}:${c.line}` : null);
  const lines = new Map();
  for (const c of d.contexts) {
    const k = key(c);
    if (!k) continue;
    const e = lines.get(k) || { file: c.file, path: d.files[c.file], line: c.line, incl: 0, excl: 0, stmt: false };
    let outer = true;
    for (let p = c.parent; p != null; p = byCtx.get(p).parent) {
      if (key(byCtx.get(p)) === k) {
        outer = false;
        break;
      }
    }
    if (outer) e.incl += values.get(`${c.ctx_id}/${inc}`) || 0;
    if (c.lexical_type !== 'loop') {
      e.excl += values.get(`${c.ctx_id}/${exc}`) || 0;
      e.stmt = true;
    }
    lines.set(k, e);
  }
  const sorted = [...lines.values()].sort((a, b) => a.file - b.file || a.line - b.line);
  let hot = null;
  for (const e of sorted) if (e.stmt && e.excl > 0 && (!hot || e.excl > hot.excl)) hot = e;
  return { lines, hot, files: d.files };
}

const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b), 1);

const app = appForFile({ width: 1600, height: 1000 });

const sourceState = (page) => page.evaluate(() => window.hpcscope.state().views.profile.source);

/** Every annotated line of the shown file equals the transcript's values. */
async function checkFileValues(page, id, metric, exp, shownPath) {
  const doc = await page.evaluate(([i, p, m]) => window.hpcscope.engine.call('source_text', i, p, 1, m), [id, shownPath, metric]);
  const want = [...exp.lines.values()].filter((e) => e.path === shownPath);
  // Lines with a statement or loop scope (bits 1, 2); others only mark a function definition.
  const scoped = doc.lines.filter((v) => v.flags & 3);
  assert.equal(scoped.length, want.length, `${shownPath}: lines with scopes`);
  for (const e of want) {
    const got = doc.lines.find((v) => v.line === e.line);
    assert.ok(got, `${shownPath}:${e.line} annotated`);
    assert.ok(near(got.inclusive, e.incl), `${shownPath}:${e.line} inclusive ${got.inclusive} vs ${e.incl}`);
    assert.ok(near(got.exclusive, e.excl), `${shownPath}:${e.line} exclusive ${got.exclusive} vs ${e.excl}`);
  }
  return doc;
}

/** showSource() shows the hottest statement with its values; returns the source state. */
async function checkHottest(page, id, dir) {
  const view = await showProfile(page);
  const exp = expectedLines(dir, view.metric);
  assert.ok(exp.hot, 'the transcript has a hottest statement');
  await page.evaluate(() => window.hpcscope.showSource());
  const s = await sourceState(page);
  assert.equal(s.path, exp.hot.path);
  assert.equal(s.line, exp.hot.line);
  assert.equal(s.status, 'shown');
  assert.ok(near(s.current.exclusive, exp.hot.excl), `hottest exclusive ${s.current.exclusive} vs ${exp.hot.excl}`);
  const inFile = [...exp.lines.values()].filter((e) => e.path === s.path && (e.incl || e.excl));
  assert.equal(s.annotated_lines, inFile.length);
  // The shown line is drawn, marked current, with the file's text.
  const row = page.locator(`[data-testid="source-view"] .sv-row.sv-current`);
  assert.equal(await row.getAttribute('data-line'), String(exp.hot.line));
  await checkFileValues(page, id, view.metric, exp, s.path);
  return { s, exp, view };
}

/** Clicks flame frame `f` (state frames are fractions of the canvas width, rows of 18 px). */
async function clickFrame(page, f, depth0 = 0) {
  const box = await page.locator('[data-testid="flame-canvas"]').boundingBox();
  await page.mouse.click(box.x + (f.x + f.width / 2) * box.width, box.y + (f.depth - depth0) * 18 + 9);
}

test('hottest statement, flame frame and table row open their lines (hpcviewer-inline, else generated)', async () => {
  const { page, problems } = app;
  await page.setViewportSize({ width: 1600, height: 1000 });
  const dir = hasCorpus() ? INLINE : synth('synth-src.d', true);
  const id = await dropSelect(page, dir);
  const { s, exp, view } = await checkHottest(page, id, dir);
  if (hasCorpus()) {
    // The inner loop's header statement of the inlined function f.
    assert.match(s.path, /inline_f\.c$/);
    assert.equal(s.line, 14);
    assert.match(await page.locator('[data-testid="source-view"] .sv-current .sv-code').innerText(), /for \(j=ITER_IN; j>0; j--\)/);
  }
  await screenshot(page, 'source-inline-1600.png');

  // A flame frame of a statement in another file (hpcviewer-inline: main.c:11, the call of f).
  const base = (p) => p.split('/').pop();
  const frame = view.flame.frames.find((f) => (hasCorpus() ? f.name === 'main.c:11'
    : /^[\w.]+\.c:\d+$/.test(f.name) && f.name.split(':')[0] !== base(s.path)));
  assert.ok(frame, `frames: ${view.flame.frames.map((f) => f.name).join(', ')}`);
  const line = Number(frame.name.split(':')[1]);
  await clickFrame(page, frame);
  await page.waitForFunction((l) => window.hpcscope.state().views.profile.source?.line === l, line);
  const s2 = await sourceState(page);
  assert.equal(base(s2.path), frame.name.split(':')[0]);
  const e2 = exp.lines.get(`${s2.path}:${line}`);
  assert.ok(near(s2.current.inclusive, e2.incl) && near(s2.current.exclusive, e2.excl), JSON.stringify([s2.current, e2]));
  await checkFileValues(page, id, view.metric, exp, s2.path);

  // A table row with a source location other than the one shown.
  const row = await page.evaluate(async ([i, l]) => {
    for (const el of document.querySelectorAll('.tt-row[data-cct]')) {
      const loc = await window.hpcscope.engine.call('source_location', i, Number(el.dataset.cct));
      if (loc && loc.available && loc.line !== l) return { row: el.dataset.row, loc };
    }
    return null;
  }, [id, line]);
  assert.ok(row, 'a table row with an available source line');
  await page.click(`.tt-row[data-row="${row.row}"]`);
  await page.waitForFunction((l) => window.hpcscope.state().views.profile.source?.line === l, row.loc.line);
  assert.equal((await sourceState(page)).path, row.loc.path);

  await page.setViewportSize({ width: 800, height: 600 });
  await page.evaluate(() => window.hpcscope.showSource());
  await screenshot(page, 'source-inline-800.png');
  await page.setViewportSize({ width: 1600, height: 1000 });
  assert.deepEqual(problems, []);
});

test('generated database with src/: hottest statement, values, metric change', async () => {
  const { page, problems } = app;
  const dir = synth('synth-src.d', true);
  const id = await dropSelect(page, dir);
  const { s } = await checkHottest(page, id, dir);
  assert.equal(s.read_from, `synth-src.d/src${s.path}`);
  await screenshot(page, 'source-synth-1600.png');
  // Another metric: the values follow.
  await page.selectOption('[data-testid="metric-select"]', '1');
  await page.waitForFunction(() => window.hpcscope.state().views.profile.metric === 1);
  await page.waitForFunction((p) => window.hpcscope.state().views.profile.source?.path === p, s.path);
  const exp1 = expectedLines(dir, 1);
  await checkFileValues(page, id, 1, exp1, s.path);
  assert.deepEqual(problems, []);
});

test('a missing file says so and can be added; huge, binary and long-line files are bounded', async () => {
  const { page, problems } = app;
  const withSrc = path.join(GENERATED, 'synth-src.d');
  if (!fs.existsSync(withSrc)) synth('synth-src.d', true);
  const dir = synth('synth-nosrc.d', false);
  const id = await dropSelect(page, dir);
  const view = await showProfile(page);
  const exp = expectedLines(dir, view.metric);
  await page.evaluate(() => window.hpcscope.showSource());
  let s = await sourceState(page);
  assert.equal(s.status, 'missing');
  const missing = page.locator('[data-testid="source-missing"]');
  assert.match(await missing.innerText(), /is not available/);
  assert.match(await missing.innerText(), new RegExp(`src${exp.hot.path.replaceAll('.', '\\.')}`));
  await screenshot(page, 'source-missing-1600.png');
  // Add the file through the offered file input.
  await page.setInputFiles('[data-testid="source-file-input"]', path.join(withSrc, `src${exp.hot.path}`));
  await page.waitForFunction(() => window.hpcscope.state().views.profile.source?.status === 'shown');
  s = await sourceState(page);
  assert.equal(s.line, exp.hot.line);
  await checkFileValues(page, id, view.metric, exp, s.path);

  // Another recorded file, replaced by a 6 MB text with a 100,000-character line.
  const other = exp.files.find((f) => f.startsWith('/opt/synth/src/') && f !== exp.hot.path);
  const huge = path.join(GENERATED, 'huge-source.c');
  const lines = ['x'.repeat(100000)];
  for (let i = 0, len = lines[0].length; len < 6 << 20; i++) {
    lines.push(`    y = f(y, ${i}); /* padding line to make the file large */`);
    len += lines.at(-1).length + 1;
  }
  fs.writeFileSync(huge, lines.join('\n'));
  await page.evaluate(([p]) => window.hpcscope.showSource(p, 1), [other]);
  await page.setInputFiles('[data-testid="source-file-input"]', huge);
  await page.waitForFunction(() => window.hpcscope.state().views.profile.source?.status === 'shown');
  s = await sourceState(page);
  assert.equal(s.truncated, true);
  assert.equal(s.cut_lines, 1);
  assert.ok(s.rows_drawn > 10 && s.rows_drawn < 200, `rows drawn ${s.rows_drawn}`);
  const note = await page.locator('[data-testid="source-note"]').innerText();
  assert.match(note, /showing the first 4\.0 MB of 6\.0 MB/);
  assert.match(note, /1 line cut at 2,000 characters/);
  // Scrolling half way down redraws the rows in view only (counted, not timed).
  await page.locator('[data-testid="source-scroll"]').evaluate((el) => { el.scrollTop = el.scrollHeight / 2; });
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="source-view"] .sv-row')?.dataset.line) > 1000);
  s = await sourceState(page);
  assert.ok(s.rows_drawn > 10 && s.rows_drawn < 200, `rows drawn after scrolling a 4 MB file: ${s.rows_drawn}`);
  await screenshot(page, 'source-huge-1600.png');

  // A binary file for a third path.
  const third = exp.files.find((f) => f.startsWith('/opt/synth/src/') && f !== exp.hot.path && f !== other);
  const bin = path.join(GENERATED, 'binary-source.o');
  fs.writeFileSync(bin, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0, 0, 0]));
  await page.evaluate(([p]) => window.hpcscope.showSource(p, 3), [third]);
  await page.setInputFiles('[data-testid="source-file-input"]', bin);
  await page.waitForFunction(() => window.hpcscope.state().views.profile.source?.status === 'binary');
  assert.match(await missing.innerText(), /is not text/);
  assert.deepEqual(problems, []);
});

test('opened by URL: src/ files are fetched from the database folder on demand', async () => {
  const { page, problems } = app;
  const dir = path.join(GENERATED, 'synth-src.d');
  if (!fs.existsSync(dir)) synth('synth-src.d', true);
  const server = await serve(GENERATED, 0, '127.0.0.1', { cors: true });
  try {
    const url = `http://127.0.0.1:${server.address().port}/synth-src.d/`;
    const report = await page.evaluate((u) => window.hpcscope.open(u).then((r) => r.datasets.map((d) => d.id)), url);
    const id = report[0];
    const { s } = await checkHottest(page, id, dir);
    // Fetched into the engine under its recorded path (no src/ file was listed).
    assert.equal(s.read_from, s.path);
  } finally {
    await new Promise((r) => server.close(r));
  }
  // The URL reader aborts its probes of the top-level files once it has their size (that Chromium
  // counts as failed requests); no read under src/ may fail.
  const kept = problems.filter((p) => !/^request failed: .*\/synth-src\.d\/[^/]+$/.test(p));
  problems.splice(0, problems.length, ...kept);
  assert.deepEqual(problems, []);
});

test('a trace call-path entry opens its source line in the Profile tab', async () => {
  const { page, problems } = app;
  const dir = hasCorpus() ? INLINE : synth('synth-src.d', true);
  const id = await dropSelect(page, dir);
  await showTrace(page);
  // The crosshair on the first row at 40% of the run, where a sample is in force.
  const box = await page.getByTestId('timeline-canvas').boundingBox();
  await page.mouse.click(box.x + box.width * 0.4, box.y + 4);
  await page.waitForFunction(() => window.hpcscope.state().views.timeline.crosshair?.path.length > 0, null, { timeout: 10000 });
  const cross = await page.evaluate(() => window.hpcscope.state().views.timeline.crosshair);
  const info = await page.evaluate(([i, l, t]) => window.hpcscope.engine.call('timeline_call_path', i, l, t), [id, cross.line, cross.time_ns]);
  const loc = await page.evaluate(([i, n]) => window.hpcscope.engine.call('source_location', i, n), [id, info.context_node]);
  assert.ok(loc, `the sample's context ${info.context_node} has a source line`);
  const entries = page.getByTestId('timeline-callpath').locator('li');
  assert.equal(await entries.count(), info.frames.length);
  // The frame names read as before: the button adds no text.
  assert.deepEqual(await entries.allInnerTexts(), info.frames.map((f) => f.name));
  await entries.last().locator('.tl-src').click();
  await page.waitForFunction(() => window.hpcscope.state().view === 'profile');
  await page.waitForFunction(([p, l]) => {
    const s = window.hpcscope.state().views.profile?.source;
    return s && s.path === p && s.line === l;
  }, [loc.path, loc.line], { timeout: 30000 });
  const s = await sourceState(page);
  assert.equal(s.status, 'shown');
  assert.ok(s.current && (s.current.inclusive > 0 || s.current.exclusive > 0), JSON.stringify(s.current));
  await screenshot(page, 'source-from-trace-1600.png');
  assert.deepEqual(problems, []);
});
