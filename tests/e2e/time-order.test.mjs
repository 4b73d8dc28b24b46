// The Time order tab: every call of a task is a box at its real start and duration, nested by
// depth. Its boxes are compared with calls rebuilt here from `hpcscope dump --json` (the trace
// samples and the context tree, read independently of the view's layout code) on a generated
// uftrace recording and a generated HPCToolkit database; zoom to one call, the hover text (the
// call as `uftrace replay` prints it), keyboard moves, click + Enter selecting the context in the
// Profile view, and the Trace view's "Time order of this row". With the corpus, the same on
// recorded-single-args against uftrace's own replay. Screenshots at 1600x1000 and 800x600.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { appForFile, screenshot, dropFolder, showProfile, hasCorpus, CORPUS, showTrace } from './helpers.mjs';
import { generated, transcript } from './generated.mjs';

const app = appForFile({ width: 1600, height: 1000 });

const to = (page) => page.evaluate(() => window.hpcscope.state().views?.timeorder ?? null);

/** Waits until the Time order view has laid out its current window. */
async function settled(page) {
  await page.waitForFunction(() => window.hpcscopeTimeOrder);
  await page.evaluate(() => window.hpcscopeTimeOrder.whenReady());
  await page.waitForFunction(() => {
    const v = window.hpcscope.state().views?.timeorder;
    return v && (v.status !== 'ok' || (v.frames > 0 && !v.pending));
  }, null, { timeout: 60000 });
  return to(page);
}

async function openTimeOrder(page, dir) {
  await dropFolder(page, dir);
  await page.evaluate(() => window.hpcscope.showView('timeorder'));
  return settled(page);
}

/** The call frames of context `ctx` of a transcript, outermost first: {ctx, name}. A frame is a
 *  context reached by a call or naming a function (generated.mjs's rule); frames are told apart
 *  by context, as two call sites of one function are two calls. */
function framesOf(tr, ctx) {
  const by = tr.byCtx ??= new Map(tr.dump.contexts.map((c) => [c.ctx_id, c]));
  const names = tr.framesOf(ctx);
  const ids = [];
  for (let c = by.get(ctx); c; c = by.get(c.parent)) {
    if (c.entry_point == null && (c.relation !== 'lexical' || c.function != null)) ids.push(c.ctx_id);
  }
  ids.reverse();
  assert.equal(ids.length, names.length);
  return ids.map((id, i) => ({ ctx: id, name: names[i] }));
}

/**
 * Calls of trace line `line` of a transcript: runs of samples whose call paths hold the same
 * frame at a depth (a frame is a name path prefix), with offsets from the run start in ns.
 */
function expectedCalls(tr, line) {
  const min = tr.range.min;
  const out = [];
  const stack = []; // {name, start}
  const samples = tr.traces[line].samples;
  for (const s of samples) {
    const path = framesOf(tr, s.ctx);
    const t = Number(s.t - min);
    let k = 0;
    while (k < stack.length && k < path.length && stack[k].ctx === path[k].ctx) k++;
    while (stack.length > k) {
      const c = stack.pop();
      out.push({ name: c.name, depth: stack.length, start: c.start, end: t });
    }
    for (let d = k; d < path.length; d++) stack.push({ ...path[d], start: t });
  }
  const last = Number(samples[samples.length - 1].t - min);
  while (stack.length) {
    const c = stack.pop();
    out.push({ name: c.name, depth: stack.length, start: c.start, end: last, open: true });
  }
  return out;
}

const key = (c) => `${c.depth}|${c.start}|${c.end}|${c.name}`;

/** uftrace replay's duration: three decimals of us (ms, s beyond). */
function replayDuration(ns) {
  const [unit, div] = ns < 1e6 ? ['us', 1e3] : ns < 1e9 ? ['ms', 1e6] : [' s', 1e9];
  return `${Math.floor(ns / div)}.${String(Math.floor((ns % div) / (div / 1000))).padStart(3, '0')} ${unit}`;
}

/** Points the mouse at the middle of box `b` (from state().boxes) of the canvas. */
async function at(page, b) {
  const r = await page.getByTestId('timeorder-canvas').boundingBox();
  const x0 = Math.max(0, b.x0), x1 = Math.min(r.width - 1, b.x1);
  return [r.x + (x0 + x1) / 2, r.y + b.y];
}

test('Time order of a generated uftrace task: boxes equal the dump\'s calls; hover, zoom, keys, click and Enter to the Profile', async () => {
  const { page, problems } = app;
  const dir = generated('ufsynth');
  const tr = transcript(dir);
  let v = await openTimeOrder(page, dir);
  assert.equal(v.status, 'ok');
  assert.equal(v.note, null, 'a uftrace recording needs no note');
  assert.equal(v.exact, true);
  const want = expectedCalls(tr, v.line);
  // The whole task is shown: boxes stand for every call once (merged ones for several), and
  // every box that is one call is one of the dump's calls.
  assert.equal(v.boxes.length, v.box_count, 'every box in state()');
  assert.equal(v.boxes.reduce((s, b) => s + b.count, 0), want.length);
  const wanted = new Set(want.map(key));
  const single = v.boxes.filter((b) => b.count === 1);
  assert.ok(single.length > 5, `${single.length} single boxes`);
  for (const b of single) assert.ok(wanted.has(key({ ...b, start: b.start_ns, end: b.end_ns })), `box ${key({ ...b, start: b.start_ns, end: b.end_ns })}`);
  assert.equal(v.max_depth, Math.max(...want.map((c) => c.depth)) + 1);
  await screenshot(page, 'time-order-1600.png');

  // Double click on a `compute` call zooms to it: it fills the view, and its callees show one box
  // each, at the dump's times.
  const compute = v.boxes.find((b) => b.name === 'compute' && b.count === 1 && b.x1 - b.x0 >= 3);
  assert.ok(compute, 'a compute call wide enough to click');
  const [cx, cy] = await at(page, compute);
  await page.mouse.dblclick(cx, cy);
  await page.waitForFunction((s) => {
    const t = window.hpcscope.state().views.timeorder;
    return t.time_range_ns[0] <= s.start_ns && t.time_range_ns[0] > s.start_ns - (s.end_ns - s.start_ns) * 0.1 && !t.pending;
  }, compute, { timeout: 20000 });
  v = await settled(page);
  const zoomed = v.boxes.find((b) => b.name === 'compute' && b.start_ns === compute.start_ns);
  const cw = (await page.getByTestId('timeorder-canvas').boundingBox()).width;
  assert.ok(zoomed && zoomed.x0 >= 0 && zoomed.x1 <= cw && zoomed.x1 - zoomed.x0 > 0.9 * cw, `compute spans the ${cw} px view: ${JSON.stringify(zoomed)}`);
  const inside = want.filter((c) => c.depth === compute.depth + 1 && c.start >= compute.start_ns && c.end <= compute.end_ns);
  assert.ok(inside.length > 0, 'compute calls something');
  for (const c of inside) {
    assert.ok(v.boxes.some((b) => b.count === 1 && b.name === c.name && b.start_ns === c.start && b.end_ns === c.end), `callee ${key(c)} shown`);
  }
  assert.equal(v.selected?.name, 'compute');

  // Hover: the call as uftrace replay prints it, its argument and return value (the generator's
  // compute(n) returns n (n + 1) / 2) and its duration.
  await page.mouse.move(cx - 1, cy);
  await page.mouse.move(800, cy);
  await page.waitForFunction(() => window.hpcscope.state().views.timeorder.tooltip_call?.name === 'compute', null, { timeout: 10000 });
  v = await to(page);
  const m = /^compute\((\d+)\) = (\d+);$/.exec(v.tooltip_call.text);
  assert.ok(m, `replay text ${v.tooltip_call.text}`);
  const n = Number(m[1]);
  assert.equal(Number(m[2]), (n * (n + 1)) / 2);
  assert.equal(v.tooltip_call.duration, replayDuration(compute.end_ns - compute.start_ns));
  assert.ok(v.tooltip.includes(`${v.tooltip_call.duration} | compute(${n}) = ${m[2]};`), v.tooltip);
  await screenshot(page, 'time-order-zoomed-1600.png');

  // Keys: up to the caller, down to its first callee, right to the next call at that depth.
  await page.getByTestId('timeorder-canvas').focus();
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => window.hpcscope.state().views.timeorder.selected?.depth === 0, null, { timeout: 10000 });
  v = await to(page);
  const caller = want.find((c) => c.depth === 0 && c.start <= compute.start_ns && c.end >= compute.end_ns);
  assert.equal(v.selected.name, caller.name);
  assert.equal(v.selected.start_ns, caller.start, 'the caller\'s real start, though it began before the view');
  assert.equal(v.selected.end_ns, caller.end);

  // Click selects a context; Enter shows it in the Profile view.
  v = await to(page);
  await page.mouse.click(...(await at(page, v.boxes.find((b) => b.name === 'compute' && b.start_ns === compute.start_ns))));
  await page.waitForFunction(() => window.hpcscope.state().views.timeorder.selected?.name === 'compute', null, { timeout: 10000 });
  const node = (await to(page)).selected.node;
  await page.keyboard.press('Enter');
  const pv = await showProfile(page);
  assert.equal(pv.selected?.node, node);
  assert.equal(pv.selected?.name, 'compute');
  assert.deepEqual(problems, []);
});

test('Time order of a sampled HPCToolkit trace, opened from the Trace view\'s call path; 800x600', async () => {
  const { page, problems } = app;
  const dir = generated('synth.d');
  const tr = transcript(dir);
  await dropFolder(page, dir);
  await showTrace(page);
  const cvs = await page.getByTestId('timeline-canvas').boundingBox();
  await page.mouse.click(cvs.x + cvs.width / 2, cvs.y + 5);
  await page.waitForFunction(() => window.hpcscope.state().views.timeline.crosshair?.path, null, { timeout: 10000 });
  const cross = (await page.evaluate(() => window.hpcscope.state().views.timeline));
  await page.getByTestId('timeline-timeorder').click();
  let v = await settled(page);
  assert.equal(v.line, cross.crosshair.line);
  assert.deepEqual(v.time_range_ns, cross.time_range_ns);
  assert.match(v.note, /sampled trace/);
  // Runs of samples, as the dump's samples give them; clipped at the window's edges.
  const [a, b] = v.time_range_ns;
  const want = expectedCalls(tr, v.line).filter((c) => c.start < b && c.end > a);
  assert.equal(v.boxes.length, v.box_count, 'every box in state()');
  assert.equal(v.boxes.reduce((s, x) => s + x.count, 0), want.length);
  const wanted = new Set(want.map(key));
  for (const x of v.boxes.filter((x) => x.count === 1 && x.flags === 0)) {
    assert.ok(wanted.has(key({ ...x, start: x.start_ns, end: x.end_ns })), `box ${key({ ...x, start: x.start_ns, end: x.end_ns })}`);
  }
  await page.setViewportSize({ width: 800, height: 600 });
  v = await settled(page);
  const r = await page.getByTestId('timeorder-canvas').boundingBox();
  assert.ok(r.width > 450 && r.height > 200, `canvas ${r.width}x${r.height} at 800x600`);
  await screenshot(page, 'time-order-800.png');
  await page.setViewportSize({ width: 1600, height: 1000 });
  assert.deepEqual(problems, []);

  // With the corpus: a recording with arguments, against uftrace's own replay.
  if (!hasCorpus()) return;
  const rec = path.join(CORPUS, 'uftrace', 'recorded-single-args');
  v = await openTimeOrder(page, path.join(rec, 'uftrace.data'));
  const replay = fs.readFileSync(path.join(rec, 'expected', 'replay.txt'), 'utf8').split('\n');
  const end = replay.find((l) => l.includes('} = 0; /* main */'));
  const main = v.boxes.find((x) => x.name === 'main' && x.depth === 0);
  await page.mouse.move(...(await at(page, main)));
  await page.waitForFunction(() => window.hpcscope.state().views.timeorder.tooltip_call?.name === 'main', null, { timeout: 10000 });
  v = await to(page);
  assert.equal(v.tooltip_call.text, 'main(1, 0x7ffe41a0fc38) = 0;');
  assert.equal(v.tooltip_call.duration, end.slice(0, end.indexOf('[')).trim());
  await screenshot(page, 'time-order-args-1600.png');
  assert.deepEqual(problems, []);
});
