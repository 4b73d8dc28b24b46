// Benchmark of every view step on every corpus dataset in headless Chromium, driven as a user
// drives it (tab clicks, mouse clicks and double clicks on the flame graph, Home, the metric
// menu, a table header, typing a search, the wheel and the pointer on the trace and time-order
// canvases, the source view). A step is timed from the input to the first animation frame at
// which the page state shows its result. Prints each step's median per dataset, then the worst
// median of each step over the corpus against the 100 ms target of a view step (issue 16).
// Usage: bash scripts/build.sh && node scripts/bench-corpus-views.mjs [repeats] [name-filter]
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { start, dropFolder, CORPUS, hasCorpus } from '../tests/e2e/helpers.mjs';

if (!hasCorpus()) {
  console.log(`${CORPUS} absent: nothing to measure`);
  process.exit(0);
}
const REPEATS = Number(process.argv[2] || 5);
const FILTER = process.argv[3] || '';
const TARGET_MS = 100;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Every dataset folder of the corpus: databases, measurements, uftrace recordings. */
function datasets() {
  const out = [];
  for (const era of ['v4', 'v4-draft', 'prof2', 'xml']) {
    for (const d of fs.readdirSync(path.join(CORPUS, 'hpctoolkit', era))) out.push(path.join('hpctoolkit', era, d));
  }
  for (const d of fs.readdirSync(path.join(CORPUS, 'hpcrun'))) out.push(path.join('hpcrun', d));
  const walk = (rel, depth) => {
    for (const e of fs.readdirSync(path.join(CORPUS, rel), { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const r = path.join(rel, e.name);
      if (e.name === 'uftrace.data') out.push(r);
      else if (depth < 3) walk(r, depth + 1);
    }
  };
  walk('uftrace', 0);
  return out.filter((d) => d.includes(FILTER)).sort();
}

const app = await start({ width: 1600, height: 1000 });
const { page, problems } = app;
const state = () => page.evaluate(() => window.hpcscope.state());
const view = (id) => page.evaluate((v) => window.hpcscope.state().views[v] ?? null, id);

/** Runs `act`, then waits (polling each animation frame) until `done(arg)` holds in the page;
 *  the milliseconds between, NaN after 20 s. */
async function step(act, done, arg) {
  const t0 = performance.now();
  await act();
  try {
    await page.waitForFunction(done, arg, { polling: 'raf', timeout: 20000 });
  } catch (e) {
    if (process.env.DEBUG) console.log(e.message);
    return NaN;
  }
  return performance.now() - t0;
}
const profileReady = () => {
  const v = window.hpcscope.state().views.profile;
  // A database without metrics shows its tree alone (no flame graph); an empty recording a note.
  return !!v && (v.empty || ((v.flame ? v.flame.rects > 0 : v.treeOnly) && v.table && v.table.root));
};

/** A click at the centre of `selector` as the mouse gives it (the box is read before the step
 *  starts: Playwright's own click waits for the element to hold still over two frames); scrolled
 *  into view first (a table column can be scrolled out of sight). */
async function clicker(selector) {
  const el = page.locator(selector).first();
  await el.scrollIntoViewIfNeeded();
  const b = await el.boundingBox();
  return () => page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
}
/** Shows tab `id` (timed: no). */
const showTab = async (id) => (await clicker(`#tab-${id}`))();

async function tabAvailable(id) {
  return page.evaluate((v) => {
    const b = document.getElementById(`tab-${v}`);
    return !!b && !b.hidden && !b.disabled && b.getAttribute('aria-disabled') !== 'true';
  }, id);
}

/** The pixel centre of flame frame `f` on the flame canvas (icicle: the root row on top). */
async function frameCentre(f) {
  const fl = (await view('profile')).flame;
  const box = await page.locator('[data-testid="flame-canvas"]').boundingBox();
  const [x0, x1] = fl.window;
  const left = Math.max(f.x, x0), right = Math.min(f.x + f.width, x1);
  return { x: box.x + ((left + right) / 2 - x0) / (x1 - x0) * box.width, y: box.y + (f.depth - fl.depth0 + 0.5) * 18 };
}

async function profileSteps(rec) {
  for (let k = 0; k < REPEATS; k++) {
    await showTab('summary');
    rec('profile tab', await step(await clicker('#tab-profile'), profileReady));
  }
  // Flame graph: click selects, double click zooms, Escape zooms out; on the widest frames below
  // the root, taking turns so that each click changes the selection.
  const shown = await view('profile');
  if (shown.treeOnly || shown.empty) return;
  const frames = (await view('profile')).flame.frames.filter((f) => f.depth >= 1 && f.depth <= 4 && f.width > 0.02)
    .sort((a, b) => b.width - a.width).slice(0, 2);
  for (let k = 0; k < REPEATS && frames.length === 2; k++) {
    const f = frames[k % 2];
    const c = await frameCentre(f);
    const ms = await step(() => page.mouse.click(c.x, c.y), (n) => window.hpcscope.state().views.profile.selected?.node === n, f.node);
    rec('flame click (select)', ms);
    rec('flame double click (zoom)', await step(() => page.mouse.dblclick(c.x, c.y),
      (n) => { const v = window.hpcscope.state().views.profile; return v.flame.zoom.node === n && v.flame.rects > 0; }, f.node));
    rec('flame Home (zoom out)', await step(() => page.keyboard.press('Home'),
      () => window.hpcscope.state().views.profile.flame.zoom.node === 0));
  }
  // The metric menu, when there are two metrics or more.
  const options = await page.locator('[data-testid="metric-select"] option').evaluateAll((os) => os.map((o) => o.value));
  for (let k = 0; k < REPEATS && options.length > 1; k++) {
    const m = options[(k + 1) % 2];
    rec('metric change', await step(() => page.$eval('[data-testid="metric-select"]', (el, v) => {
      el.value = v;
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }, m),
      (want) => { const v = window.hpcscope.state().views.profile; return String(v.metric) === want && v.flame.metric === v.metric; }, m));
  }
  // Sorting the top-down table by its first columns in turn.
  const heads = page.locator('[data-testid="table-topdown"] .tt-header button.tt-h');
  const nHeads = await heads.count();
  for (let k = 0; k < REPEATS && nHeads > 1; k++) {
    const hd = heads.nth(k % 2);
    const want = { metric: Number(await hd.getAttribute('data-metric')), exclusive: (await hd.getAttribute('data-exclusive')) === 'true' };
    rec('table sort', await step(await clicker(`[data-testid="table-topdown"] .tt-header .tt-h.tt-num[data-metric="${want.metric}"][data-exclusive="${want.exclusive}"]`), (w) => {
      const t = window.hpcscope.state().views.profile.table;
      return t.sort.metric === w.metric && t.sort.exclusive === w.exclusive;
    }, want));
  }
  // Typing a search (the first letters of a frame name), then clearing it.
  const name = frames[0]?.name || (await view('profile')).flame.frames[1]?.name;
  const pattern = name ? name.replace(/[^A-Za-z0-9_]/g, '').slice(0, 4) : '';
  for (let k = 0; k < REPEATS && pattern; k++) {
    const p = k % 2 ? pattern.slice(0, 2) : pattern;
    await page.fill('[data-testid="search-input"]', p);
    rec('search (Enter)', await step(() => page.keyboard.press('Enter'), (want) => { const v = window.hpcscope.state().views.profile; return v.search && v.search.pattern === want; }, p));
  }
  await page.fill('[data-testid="search-input"]', '');
  await page.press('[data-testid="search-input"]', 'Enter');
  // The source view at the hottest statement, where the dataset has its sources.
  const hasSource = await page.evaluate(() => window.hpcscope.showSource().then((r) => !!r && !!window.hpcscope.state().views.profile.source, () => false));
  for (let k = 0; k < REPEATS && hasSource; k++) {
    await page.evaluate(() => window.hpcscopeProfile.panels().showSource('no-such-file.c', 1).catch(() => null));
    rec('source view (hottest statement)', await step(() => page.evaluate(() => window.hpcscope.showSource()),
      () => (window.hpcscope.state().views.profile.source?.annotated_lines || 0) > 0));
  }
}

/** Whether canvas view `id` (the Trace tab `timeline`, the Time order tab `timeorder`) shows the
 *  result of step `kind`: a tab shown (an empty trace settles on its message), a zoom away from
 *  [t0, t1], a tooltip. Runs in the page. */
const canvasDone = ({ id, kind, t0, t1 }) => {
  const v = window.hpcscope.state().views[id];
  if (!v) return false;
  const settled = id === 'timeline' ? v.frames_painted > 0 && v.exact && !v.pending && !v.refining : v.frames > 0 && !v.pending;
  if (kind === 'tab') return v.status !== 'loading' && v.status !== 'none' && (v.status !== 'ok' || settled);
  if (kind === 'zoom') return (v.time_range_ns[0] !== t0 || v.time_range_ns[1] !== t1) && settled;
  return !!v.tooltip;
};

/** The steps of a canvas view over time: showing its tab, the wheel zoom at `at` (a fraction of
 *  the canvas width, pixels from its top), a hover at `hoverAt(view, box, k)` (pixels). */
async function canvasSteps(rec, { id, label, canvas, at, hoverAt }) {
  for (let k = 0; k < REPEATS; k++) {
    await showTab('summary');
    rec(`${label} tab`, await step(await clicker(`#tab-${id}`), canvasDone, { id, kind: 'tab' }));
  }
  if ((await view(id))?.status !== 'ok') return;
  const box = await page.locator(`[data-testid="${canvas}"]`).boundingBox();
  for (let k = 0; k < REPEATS; k++) {
    const [t0, t1] = (await view(id)).time_range_ns;
    rec(`${label} wheel zoom`, await step(async () => {
      await page.mouse.move(box.x + box.width * at[0], box.y + at[1]);
      await page.mouse.wheel(0, k % 2 ? 300 : -300);
    }, canvasDone, { id, kind: 'zoom', t0, t1 }));
  }
  for (let k = 0; k < REPEATS; k++) {
    const p = hoverAt(await view(id), box, k);
    if (!p) break;
    await page.mouse.move(box.x + box.width + 5, box.y + box.height + 5);
    rec(`${label} hover (tooltip)`, await step(() => page.mouse.move(p.x, p.y), canvasDone, { id, kind: 'hover' }));
  }
}

const traceSteps = (rec) => canvasSteps(rec, {
  id: 'timeline', label: 'trace', canvas: 'timeline-canvas', at: [0.4, 20],
  hoverAt: (v, box, k) => ({ x: box.x + box.width * (0.2 + 0.1 * k), y: box.y + 10 }),
});

const timeOrderSteps = (rec) => canvasSteps(rec, {
  id: 'timeorder', label: 'time order', canvas: 'timeorder-canvas', at: [0.3, 40],
  hoverAt: (v, box) => {
    const b = v.boxes.find((x) => x.x1 - x.x0 > 4);
    return b && { x: box.x + (b.x0 + b.x1) / 2, y: box.y + b.y };
  },
});

const all = new Map(); // step -> [{dataset, median}]
console.log(`hpcscope corpus view steps: ${REPEATS} repeats each, 1600x1000, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const rel of datasets()) {
  const times = new Map();
  const rec = (name, ms) => {
    if (Number.isNaN(ms)) console.log(`${rel}: ${name}: no result within 20 s`);
    else times.set(name, [...(times.get(name) || []), ms]);
  };
  const t0 = performance.now();
  let opened;
  try {
    opened = await dropFolder(page, path.join(CORPUS, rel), { timeout: 120000 });
  } catch (err) {
    console.log(`${rel}: did not open (${err.message.split('\n')[0]})`);
    continue;
  }
  const openMs = performance.now() - t0;
  const d = opened.added[opened.added.length - 1];
  if (!d || d.status !== 'opened') {
    console.log(`${rel}: ${d ? d.status : 'no dataset'} (${JSON.stringify((await state()).errors?.slice(-1))})`);
    continue;
  }
  await page.evaluate((id) => window.hpcscope.select(id), d.id);
  if (await tabAvailable('profile')) await profileSteps(rec);
  if (await tabAvailable('timeline')) await traceSteps(rec);
  if (await tabAvailable('timeorder')) await timeOrderSteps(rec);
  const parts = [...times].map(([name, xs]) => {
    const m = median(xs);
    all.set(name, [...(all.get(name) || []), { rel, m }]);
    return `${name} ${m.toFixed(0)}`;
  });
  console.log(`${rel} (open ${openMs.toFixed(0)} ms): ${parts.join(', ')} ms`);
  // Forget the dataset so the page does not grow over the run.
  await page.evaluate((id) => window.hpcscope.remove(id), d.id);
}

console.log('\nworst median of each step over the corpus:');
let over = 0;
for (const [name, xs] of all) {
  const worst = xs.reduce((a, b) => (b.m > a.m ? b : a));
  if (worst.m >= TARGET_MS) over++;
  console.log(`  ${name.padEnd(34)} ${worst.m.toFixed(0).padStart(5)} ms  (${worst.rel}; ${xs.length} datasets) [target < ${TARGET_MS} ms] ${worst.m < TARGET_MS ? 'OK' : 'OVER'}`);
}
console.log(over ? `${over} step(s) over ${TARGET_MS} ms` : `every step under ${TARGET_MS} ms (median)`);
if (problems.length) console.log(`page problems: ${problems.join('; ')}`);
await app.close();
