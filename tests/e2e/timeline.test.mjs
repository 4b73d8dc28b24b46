// The Trace tab: clicking the timeline at a chosen (row, time) shows the call path that a
// transcript gives for that trace line and time: HPCToolkit's own (golden YAML: trace samples +
// context tree, parsed here independently of hpcscope) for corpus traces, the native reader's
// (`hpcscope dump --json`) for a generated database and hpcrun measurement; an empty trace (the
// corpus database with sentinel min/max, else a generated measurement without samples) shows "no
// trace samples"; zoom, pan, keyboard, undo/redo and range selection change what state() reports
// (on a corpus database, else a generated one). Screenshots go to target/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { appForFile, screenshot, dropFolder, hasCorpus, CORPUS, ROOT, showTrace } from './helpers.mjs';
import { loadGolden } from './golden.mjs';
import { generated, transcript } from './generated.mjs';

const SKIP = hasCorpus() ? false : `skipping: ${CORPUS} absent`;
if (SKIP) console.log(SKIP);

const app = appForFile({ width: 1600, height: 1000 });

const tl = (page) => page.evaluate(() => window.hpcscope.state().views?.timeline ?? null);

/** Drops a folder (absolute path), selects it and shows the Trace tab; resolves to the timeline state. */
async function openTrace(page, dir) {
  await dropFolder(page, dir);
  await showTrace(page, { orEmpty: true });
  return tl(page);
}

/** Clicks the main canvas at row `r` (of the shown rows) and fraction `fx` of the width. */
async function clickCell(page, r, fx) {
  const st = await tl(page);
  const box = await page.getByTestId('timeline-canvas').boundingBox();
  const n = st.rows.last - st.rows.first + 1;
  const y0 = Math.floor((r * box.height) / n), y1 = Math.floor(((r + 1) * box.height) / n);
  await page.mouse.click(box.x + Math.floor(fx * box.width) + 0.5, box.y + (y0 + y1) / 2);
  const line = st.rows.labels[r];
  await page.waitForFunction((label) => {
    const c = window.hpcscope.state().views?.timeline?.crosshair;
    return c && c.label === label;
  }, line, { timeout: 10000 });
  return tl(page);
}

const CASES = [
  { dir: 'hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d', golden: 'hpctoolkit-tests-loops-cputime-t.d' },
  { dir: 'hpctoolkit/v4/hpctoolkit-tests-loops-cuda-nvidia-t.nostruct.d', golden: 'hpctoolkit-tests-loops-cuda-nvidia-t.nostruct.d' },
  { dir: 'hpctoolkit/v4/hpcviewer-loop-fork-cycles', golden: 'hpcviewer-loop-fork-cycles' },
  // The measurements hpcprof built loops-cputime-t.d from: same run, so the same paths.
  { dir: 'hpcrun/hpctoolkit-tests-loops-cputime-t.m', golden: 'hpctoolkit-tests-loops-cputime-t.d' },
];

/**
 * Opens the trace of `dir` and clicks cells of its first, middle and last rows: the crosshair's
 * sample and call path, and the side panel, equal what transcript `g` (loadGolden() or
 * transcript()) gives for that line and time.
 */
async function checkCallPaths(dir, g) {
  const { page, problems } = app;
  const st = await openTrace(page, dir);
  assert.equal(st.status, 'ok');
  // Small traces are read whole within the first picture's budget: it is final at once.
  assert.equal(st.exact, true, 'first frame exact');
  assert.equal(st.rows_exact, st.rows_shown);
  assert.equal(BigInt(st.start), g.range.min, 'run start');
  assert.equal(st.duration_ns, Number(g.range.max - g.range.min), 'run length');
  assert.equal(st.rows.total, g.traces.length, 'one row per trace line');
  let checked = 0;
  const rows = [...new Set([0, st.rows.total - 1, Math.floor(st.rows.total / 2)])];
  for (const r of rows) {
    for (const fx of [0.13, 0.5, 0.77]) {
      const s = await clickCell(page, r, fx);
      const cross = s.crosshair;
      // Rows are trace lines in file order; a reader may order lines differently from the
      // database (hpcrun: one file per thread), so match by label when it is unique.
      const same = g.traces.filter((t) => t.label === cross.label);
      const gi = same.length === 1 ? g.traces.indexOf(same[0]) : cross.line;
      assert.equal(g.traces[gi]?.label, cross.label, `golden trace for line ${cross.line}`);
      const at = BigInt(s.start) + BigInt(cross.time_ns);
      const want = g.sampleAt(gi, at);
      if (!want) {
        assert.equal(cross.sample_index, null, `${cross.label} at ${cross.time_ns}: no sample yet`);
        continue;
      }
      assert.equal(cross.sample_index, want.index, `${cross.label} at +${cross.time_ns} ns: sample index`);
      assert.equal(BigInt(s.start) + BigInt(cross.sample_offset_ns), want.t, 'sample time');
      const expected = g.framesOf(want.ctx);
      assert.deepEqual(cross.path, expected, `${cross.label} at +${cross.time_ns} ns (ctx ${want.ctx})`);
      // What the side panel shows, line by line.
      const shown = await page.getByTestId('timeline-callpath').locator('li').allInnerTexts();
      assert.deepEqual(shown.map((x) => x.trim()), expected.length ? expected : ['(no call frames: idle)']);
      const d = Math.min(s.depth, expected.length - 1);
      assert.equal(cross.function, expected.length ? expected[d] : null, 'function under the crosshair');
      checked++;
    }
  }
  assert.ok(checked >= 3, `checked ${checked} cells`);
  await screenshot(page, `timeline-${path.basename(dir)}.png`);
  assert.deepEqual(problems, []);
}

test('call paths at (row, time) equal HPCToolkit\'s transcripts of corpus traces', { skip: SKIP }, async (t) => {
  for (const c of CASES) {
    await t.test(`call path at (row, time) equals HPCToolkit's transcript: ${path.basename(c.dir)}`,
      () => checkCallPaths(path.join(CORPUS, c.dir), loadGolden(path.join(CORPUS, 'hpctoolkit', 'golden', `${c.golden}.yaml.xz`))));
  }
});

// A generated HPCToolkit database, hpcrun measurement (whose rows are the traces of one file per
// thread) and uftrace recording (one row per task, a sample per ENTRY and EXIT record), against
// the native reader's transcript of the same files.
for (const name of ['synth.d', 'synthapp.m', 'ufsynth']) {
  test(`call path at (row, time) equals \`hpcscope dump --json\`: generated ${name}`, async () => {
    const dir = generated(name);
    await checkCallPaths(dir, transcript(dir));
  });
}

// Recordings of tests/fixtures/uftrace holding LOST records (written as libmcount writes them,
// see that folder's README): the trace opens with the native reader's call paths, and a time inside
// a lost region shows the LOST frame in the crosshair's call path and the side panel.
for (const name of ['lost-single', 'lost-multi', 'lost-sched']) {
  test(`uftrace recording with LOST records: call paths and the lost region (${name})`, async () => {
    const { page, problems } = app;
    const dir = path.join(ROOT, 'tests', 'fixtures', 'uftrace', name, 'uftrace.data');
    const g = transcript(dir);
    await checkCallPaths(dir, g);
    // The widest interval of a sample whose call path holds LOST.
    let best = null;
    g.traces.forEach((tr, i) => tr.samples.forEach((smp, j) => {
      const next = tr.samples[j + 1];
      if (!next || !g.framesOf(smp.ctx).includes('LOST')) return;
      const w = next.t - smp.t;
      if (!best || w > best.w) best = { i, w, mid: smp.t + w / 2n };
    }));
    assert.ok(best, `${name}: the transcript has a sample inside a lost region`);
    const st = await tl(page);
    const r = st.rows.labels.indexOf(g.traces[best.i].label);
    assert.ok(r >= 0, `row of ${g.traces[best.i].label} shown`);
    const [t0, t1] = st.time_range_ns;
    const fx = (Number(best.mid - BigInt(st.start)) - t0) / (t1 - t0);
    const s = await clickCell(page, r, fx);
    assert.ok(s.crosshair.path.includes('LOST'), `${name} at +${s.crosshair.time_ns} ns: ${JSON.stringify(s.crosshair.path)}`);
    const shown = await page.getByTestId('timeline-callpath').locator('li').allInnerTexts();
    assert.ok(shown.some((x) => x.trim() === 'LOST'), `side panel: ${shown}`);
    await screenshot(page, `timeline-uftrace-${name}.png`);
    assert.deepEqual(problems, []);
  });
}

test('empty trace (sentinel min/max; without the corpus, lines without samples) shows "no trace samples"', async () => {
  const { page, problems } = app;
  const st = await openTrace(page, hasCorpus() ? path.join(CORPUS, 'hpctoolkit/v4/hpcviewer-d.x') : generated('synthapp-empty.m'));
  assert.equal(st.status, 'no-samples');
  const text = await page.getByTestId('timeline-empty').innerText();
  assert.match(text, /no trace samples/i);
  assert.equal(await page.locator('.tl-axis').isVisible(), false, 'no time axis for an empty trace');
  await screenshot(page, 'timeline-empty-trace.png');
  assert.deepEqual(problems, []);
});

test('zoom, pan, keyboard, range selection, undo/redo and depth change the view', async () => {
  const { page, problems } = app;
  const dir = hasCorpus() ? path.join(CORPUS, 'hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d') : generated('synth.d');
  // The one row whose label names thread 1, as the transcript labels the trace lines.
  const thread1 = hasCorpus() ? ['NODE 0 / CORE 0 / THREAD 1']
    : transcript(dir).traces.map((l) => l.label).filter((l) => /thread 1\b/i.test(l));
  assert.equal(thread1.length, 1);
  const st0 = await openTrace(page, dir);
  const full = st0.time_range_ns;
  assert.deepEqual(full, [0, st0.duration_ns]);
  const cv = page.getByTestId('timeline-canvas');
  const box = await cv.boundingBox();
  const settle = () => page.waitForFunction(() => !window.hpcscope.state().views.timeline.pending);
  // Wheel zooms around the pointer.
  await page.mouse.move(box.x + box.width / 4, box.y + box.height / 2);
  await page.mouse.wheel(0, -600);
  await settle();
  let s = await tl(page);
  assert.ok(s.time_range_ns[1] - s.time_range_ns[0] < full[1] / 2, `zoomed in: ${s.time_range_ns}`);
  const zoomed = s.time_range_ns;
  // Keyboard: right arrow pans by a tenth.
  await cv.focus();
  await page.keyboard.press('ArrowRight');
  await settle();
  s = await tl(page);
  const len = zoomed[1] - zoomed[0];
  assert.ok(Math.abs(s.time_range_ns[0] - (zoomed[0] + len / 10)) <= 2, `panned: ${s.time_range_ns} from ${zoomed}`);
  // '+' halves the span; undo restores, redo re-applies.
  await page.keyboard.press('+');
  await settle();
  const plus = (await tl(page)).time_range_ns;
  assert.ok(Math.abs(plus[1] - plus[0] - len / 2) <= 2);
  await page.keyboard.press('Control+z');
  s = await tl(page);
  assert.ok(Math.abs(s.time_range_ns[1] - s.time_range_ns[0] - len) <= 2, 'undo');
  await page.keyboard.press('Control+y');
  s = await tl(page);
  assert.deepEqual(s.time_range_ns, plus, 'redo');
  // Home shows the whole trace.
  await page.keyboard.press('Home');
  assert.deepEqual((await tl(page)).time_range_ns, full);
  // Drag pans.
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  const before = (await tl(page)).time_range_ns;
  await page.mouse.move(box.x + 600, box.y + 50);
  await page.mouse.down();
  await page.mouse.move(box.x + 400, box.y + 50, { steps: 4 });
  await page.mouse.up();
  s = await tl(page);
  assert.ok(s.time_range_ns[0] > before[0], `dragged left shows later times: ${s.time_range_ns} vs ${before}`);
  // Shift-drag selects a range: time and rows.
  await page.keyboard.press('Home');
  await page.keyboard.down('Shift');
  await page.mouse.move(box.x + box.width * 0.25, box.y + 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.45, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await settle();
  s = await tl(page);
  const f = (x) => x / full[1];
  assert.ok(Math.abs(f(s.time_range_ns[0]) - 0.25) < 0.01 && Math.abs(f(s.time_range_ns[1]) - 0.5) < 0.01, `${s.time_range_ns}`);
  assert.equal(s.rows.first, 0);
  assert.ok(s.rows.last < s.rows.total - 1, `rows narrowed: ${JSON.stringify(s.rows)}`);
  // Depth selector.
  await page.selectOption('[data-testid="timeline-depth"]', '0');
  await settle();
  assert.equal((await tl(page)).depth, 0);
  // Filter rows by label.
  await page.keyboard.press('Home');
  await page.fill('[data-testid="timeline-filter"]', 'thread 1');
  await page.waitForFunction(() => window.hpcscope.state().views.timeline.rows.total === 1);
  s = await tl(page);
  assert.deepEqual(s.rows.labels, thread1);
  await page.fill('[data-testid="timeline-filter"]', '');
  await page.waitForFunction(() => window.hpcscope.state().views.timeline.rows.total === 4);
  assert.deepEqual(problems, []);
});
