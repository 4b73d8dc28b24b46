// Benchmark of the Time order view in headless Chromium on a generated uftrace recording of one
// task with about a million records (`hpcscope fixture uftrace --tasks 1 --iterations N`, written
// under /tmp and deleted afterwards): the layout of the whole task (exact: every record read),
// of a window in its middle, and the details a hover asks for (a leaf call, and `main`, which
// spans the whole task), as engine round trips from the page; then a real mouse hover until
// the tooltip shows. Prints medians of 7 runs and the load average.
// Usage: bash scripts/build.sh && node scripts/bench-time-order.mjs [iterations]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { start, dropFolder } from '../tests/e2e/helpers.mjs';
import { cli } from '../tests/e2e/generated.mjs';

const iterations = Number(process.argv[2] || 30000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hpcscope-bench-to-'));
const data = path.join(dir, 'uftrace.data');
cli('fixture', 'uftrace', '--tasks', '1', '--iterations', String(iterations), data);
const bytes = fs.readdirSync(data).reduce((s, f) => s + fs.statSync(path.join(data, f)).size, 0);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;
const app = await start({ width: 1600, height: 1000 });
const { page, problems } = app;
try {
  const t0 = Date.now();
  const { state } = await dropFolder(page, data, { timeout: 600000 });
  console.log(`recording: ${iterations} iterations, ${(bytes / 1e6).toFixed(1)} MB, opened in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const id = state.selected;
  const r = await page.evaluate(async (id) => {
    const e = window.hpcscope.engine;
    const meta = await e.call('timeline_meta', id);
    const line = meta.rows[0].line;
    const records = meta.rows[0].samples;
    // The calls of the line over offsets [t0, t1) ns at 1600 px.
    const order = (t0, t1) => e.call('time_order', id, { line, t0_ns: t0, t1_ns: t1, width: 1600 });
    const runs = async (f) => {
      const out = [];
      for (let k = 0; k < 7; k++) {
        const t = performance.now();
        await f();
        out.push(performance.now() - t);
      }
      return out;
    };
    // The first layout reads the task (up to ~1M records) and keeps its calls; later windows
    // are cut from them.
    let t = performance.now();
    const first = await order(0, meta.duration_ns + 1);
    const firstMs = performance.now() - t;
    const info = first[2];
    const whole = await runs(() => order(info.line_start_ns, info.line_end_ns + 1));
    const mid = (info.line_start_ns + info.line_end_ns) / 2;
    const span = (info.line_end_ns - info.line_start_ns) / 1000;
    const windowRuns = await runs(() => order(mid, mid + span));
    const [times, cells, winfo] = await order(mid, mid + span);
    // A leaf (the deepest box) and the outermost call (clipped: its real bounds are searched).
    let leaf = 0, outer = -1;
    for (let i = 0; i < winfo.boxes; i++) {
      if (cells[i * 5] > cells[leaf * 5] && !(cells[i * 5 + 2] & 8)) leaf = i;
      if (outer < 0 && cells[i * 5] === 0) outer = i;
    }
    const leafRuns = await runs(() => e.call('time_order_call', id, leaf));
    // The outermost call spans the window: its bounds are known from the kept calls (a task
    // over the limit searches them once, then remembers them).
    t = performance.now();
    await e.call('time_order_call', id, outer);
    const outerFirst = performance.now() - t;
    const outerRuns = await runs(() => e.call('time_order_call', id, outer));
    const leafCall = await e.call('time_order_call', id, leaf);
    const outerCall = await e.call('time_order_call', id, outer);
    return { records, firstMs, boxes: info.boxes, exact: info.exact, whole, windowRuns, wboxes: winfo.boxes, leafRuns, outerFirst, outerRuns, leafCall, outerCall, times: times.length };
  }, id);
  console.log(`task: ${r.records.toLocaleString('en-US')} records`);
  console.log(`first time order of the task (reads every record, keeps the calls): ${ms(r.firstMs)}`);
  console.log(`time order of the whole task (${r.boxes} boxes, ${r.exact ? 'exact' : 'sampled'}): median ${ms(median(r.whole))}, max ${ms(Math.max(...r.whole))}`);
  console.log(`time order of 1/1000 of the task (${r.wboxes} boxes): median ${ms(median(r.windowRuns))}`);
  console.log(`hover details of a leaf (${r.leafCall.text}): median ${ms(median(r.leafRuns))}`);
  console.log(`hover details of ${r.outerCall.name} (spans the window): first ${ms(r.outerFirst)}, then median ${ms(median(r.outerRuns))}`);

  // The view itself: open the tab on the whole task, then hover a box until the tooltip shows.
  await page.evaluate(() => window.hpcscope.showView('timeorder'));
  await page.waitForFunction(() => window.hpcscopeTimeOrder);
  await page.evaluate(() => window.hpcscopeTimeOrder.whenReady());
  const v = await page.evaluate(() => window.hpcscope.state().views.timeorder);
  console.log(`view: whole task laid out and drawn, last layout ${ms(v.last_layout_ms)} (${v.box_count} boxes)`);
  const cv = await page.getByTestId('timeorder-canvas').boundingBox();
  const hovers = [];
  for (let k = 0; k < 7; k++) {
    const b = v.boxes[(k * 37) % v.boxes.length];
    const x = cv.x + Math.max(0, Math.min(cv.width - 1, (b.x0 + b.x1) / 2));
    await page.mouse.move(cv.x + 1, cv.y + 2);
    await page.waitForFunction(() => window.hpcscope.state().views.timeorder.tooltip == null);
    const t = Date.now();
    await page.mouse.move(x, cv.y + b.y);
    await page.waitForFunction(() => window.hpcscope.state().views.timeorder.tooltip != null, null, { timeout: 60000 });
    hovers.push(Date.now() - t);
  }
  console.log(`mouse hover to tooltip shown (7 boxes): median ${median(hovers)} ms, max ${Math.max(...hovers)} ms`);
  console.log(`load average: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (${os.cpus().length} cores)`);
  if (problems.length) console.log('page problems:', problems);
} finally {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
