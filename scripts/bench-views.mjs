// Benchmark of the profile views in headless Chromium on a synthetic calling-context tree of
// 1,000,000 contexts (built in the engine by `Session::open_synthetic`): layout of the visible
// flame graph, redraws during a zoom animation, and a sort of the top-down table expanded to
// 1,000,000 rows. Prints the numbers and the targets (50 ms, 16 ms, 200 ms).
// Usage: bash scripts/build.sh && node scripts/bench-views.mjs [contexts]
import { start } from '../tests/e2e/helpers.mjs';

const contexts = Number(process.argv[2] || 1000000);
const app = await start({ width: 1400, height: 900 });
const { page, problems } = app;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const open = await page.evaluate(async (n) => {
  const t0 = performance.now();
  const s = await window.hpcscope.engine.call('open_synthetic', n, 1);
  const ms = performance.now() - t0;
  const store = await import('/www/store.js');
  store.update((st) => ({ datasets: [...st.datasets, s], selected: s.id, view: 'profile' }));
  return { id: s.id, ms };
}, contexts);
console.log(`synthetic dataset: ${contexts.toLocaleString('en-US')} contexts built in ${open.ms.toFixed(0)} ms`);
await page.waitForFunction(() => window.hpcscopeProfile);
await page.evaluate(() => window.hpcscopeProfile.whenReady());
await page.waitForFunction(() => (window.hpcscope.state().views.profile?.flame?.rects || 0) > 0, null, { timeout: 120000 });

const r = await page.evaluate(async (id) => {
  const e = window.hpcscope.engine;
  const out = {};
  let t0 = performance.now();
  await e.call('flame_config', id, 0, true, true);
  out.mergedMs = performance.now() - t0;
  t0 = performance.now();
  await e.call('flame_config', id, 0, false, true);
  out.configMs = performance.now() - t0;
  const canvas = document.querySelector('[data-testid="flame-canvas"]');
  const w = canvas.clientWidth;
  const rows = Math.ceil(canvas.clientHeight / 18) + 1;
  const layouts = [];
  let rects = 0;
  for (let k = 0; k < 7; k++) {
    t0 = performance.now();
    const a = await e.call('flame_layout', id, 0, { x0: 0, x1: 1, depth0: 0, depth1: rows, width_px: w, min_width_px: 1 });
    layouts.push(performance.now() - t0);
    rects = a[0].length;
  }
  out.layouts = layouts;
  out.rects = rects;
  // A whole-depth layout too (every level, not only the visible rows).
  t0 = performance.now();
  const all = await e.call('flame_layout', id, 0, { x0: 0, x1: 1, depth0: 0, depth1: 1000, width_px: w, min_width_px: 1 });
  out.allDepthMs = performance.now() - t0;
  out.allDepthRects = all[0].length;
  return out;
}, open.id);
const layoutMed = median(r.layouts);
console.log(`flame config, once per metric/toggle: merged-lexical tree ${r.mergedMs.toFixed(0)} ms, CCT tree + left-heavy child order ${r.configMs.toFixed(0)} ms`);
console.log(`flame layout of the visible window (${r.rects} rects, round trip to the worker): median ${layoutMed.toFixed(1)} ms, max ${Math.max(...r.layouts).toFixed(1)} ms  [target < 50 ms] ${layoutMed < 50 ? 'OK' : 'FAIL'}`);
console.log(`flame layout of all depths (${r.allDepthRects} rects): ${r.allDepthMs.toFixed(1)} ms`);

// Zoom: click the widest frame at depth 2 and read the redraw times of the animation frames.
const v = await page.evaluate(() => window.hpcscope.state().views.profile);
const f = v.flame.frames.filter((x) => x.depth === 2).sort((a, b) => b.width - a.width)[0];
const box = await page.locator('[data-testid="flame-canvas"]').boundingBox();
await page.mouse.click(box.x + (f.x + f.width / 2) * box.width, box.y + 2 * 18 + 9);
await page.waitForFunction((n) => window.hpcscope.state().views.profile.flame.zoom.node === n, f.node);
await page.waitForTimeout(500);
const z = await page.evaluate(() => window.hpcscope.state().views.profile.flame);
console.log(`zoom animation: ${z.zoomFrames} redraws, slowest ${z.maxZoomDrawMs.toFixed(1)} ms (${v.flame.rects} rects)  [target < 16 ms] ${z.maxZoomDrawMs < 16 ? 'OK' : 'FAIL'}`);
console.log(`layout after the zoom (round trip): ${z.lastLayoutMs.toFixed(1)} ms`);

const t = await page.evaluate(async (id) => {
  const e = window.hpcscope.engine;
  let t0 = performance.now();
  const rows = await e.call('table_expand_all', id, 'topdown', 1000000);
  const expandMs = performance.now() - t0;
  const sorts = [];
  for (const [m, ex, desc] of [[0, true, true], [0, false, true], [0, false, false]]) {
    t0 = performance.now();
    await e.call('table_sort', id, 'topdown', m, ex, desc);
    sorts.push(performance.now() - t0);
  }
  t0 = performance.now();
  await e.call('table_window', id, 'topdown', 500000, 40);
  const windowMs = performance.now() - t0;
  return { rows, expandMs, sorts, windowMs };
}, open.id);
const sortMax = Math.max(...t.sorts);
console.log(`top-down table expanded to ${t.rows.toLocaleString('en-US')} rows in ${t.expandMs.toFixed(0)} ms`);
console.log(`table sort of ${t.rows.toLocaleString('en-US')} rows: ${t.sorts.map((x) => x.toFixed(0)).join(', ')} ms  [target < 200 ms] ${sortMax < 200 ? 'OK' : 'FAIL'}`);
console.log(`table window of 40 rows at row 500,000: ${t.windowMs.toFixed(1)} ms`);
if (problems.length) console.log('page problems:', problems);
await app.close();
