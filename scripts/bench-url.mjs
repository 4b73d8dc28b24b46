// Benchmark of opening a large database by URL (issues 8 and 18): writes a synthetic HPCToolkit
// database of SIZE (default 10G) into /tmp with `hpcscope synth`, indexes it, and opens it by URL
// in headless Chromium through each server asked for, in turn, in one session:
//   multi   scripts/serve.js: Range and multi-range requests (nginx, Apache), no added latency;
//   single  scripts/objstore-serve.js: one range per request, a 200 with the whole object for a
//           multi-range request (S3, GCS, CDNs), LATENCY_MS (default 30) before every answer.
// For each it prints the time to the flame graph, to the first trace frame and to the exact frame
// (from the open and from opening the Trace tab), requests and bytes the server sent by then
// (share of the database), the Worker's netStats() and page memory; then a comparison table.
// Deletes the database afterwards, unless --keep (then a later run with the same BENCH_DIR reuses
// it instead of writing it again: `hpcscope synth` of 10 GB takes minutes). --shots saves the first and the exact window under
// target/screenshots/. Needs dist/ built (`npm run build`) and a release `hpcscope` binary.
// --log prints every request to the first trace frame (time, file, range, phase) and the number of
// busy periods.
//   node scripts/bench-url.mjs [SIZE] [--servers multi,single] [--runs N] [--keep] [--shots] [--log]
//   (HPCSCOPE_BIN, CHROMIUM, BENCH_DIR, DIST, LATENCY_MS, EXACT_TIMEOUT_MS override defaults)
// --before DIR also runs a second build of the viewer (a copy of an earlier dist/) before each run
// of this one, same servers, same session: before/after numbers under the same load.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.js';
import { objstoreServe } from './objstore-serve.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const VALUED = ['--servers', '--runs', '--before'];
const SIZE = args.find((a, i) => !a.startsWith('--') && !VALUED.includes(args[i - 1])) || '10G';
const SERVERS = opt('--servers', 'multi,single').split(',').filter(Boolean);
const RUNS = Number(opt('--runs', '1'));
const LATENCY_MS = Number(process.env.LATENCY_MS || 30);
const TIMEOUT_MS = Number(process.env.EXACT_TIMEOUT_MS || 120000);
const DIST = process.env.DIST || path.join(ROOT, 'dist');
const BEFORE = opt('--before', null);
const BIN = process.env.HPCSCOPE_BIN || path.join(ROOT, 'target', 'release', 'hpcscope');
const WORK = process.env.BENCH_DIR || fs.mkdtempSync('/tmp/hpcscope-bench-url-');
const DB = path.join(WORK, 'synth.d');
const say = (...a) => console.log('[bench-url]', ...a);

function freeBytes(dir) {
  const out = execFileSync('df', ['-B1', '--output=avail', dir]).toString().trim().split('\n').pop();
  return Number(out);
}

function dirBytes(dir) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

const KEEP = args.includes('--keep');
const cleanup = () => KEEP || fs.rmSync(WORK, { recursive: true, force: true });
process.on('SIGINT', () => { cleanup(); process.exit(130); });

/** The page side of one run: open, flame graph, Trace tab until its first frame. */
async function openAndShow(page, dbUrl, timeoutMs) {
  return page.evaluate(async ([u, timeout]) => {
    const t0 = performance.now();
    const epoch0 = performance.timeOrigin + t0;
    const report = await window.hpcscope.open(u);
    const tOpen = performance.now() - t0;
    const netOpen = await window.hpcscope.netStats();
    window.hpcscope.showView('profile');
    await new Promise((res) => requestAnimationFrame(res));
    while (!window.hpcscopeProfile) await new Promise((res) => setTimeout(res, 5));
    await window.hpcscopeProfile.whenReady();
    await new Promise((res) => requestAnimationFrame(res));
    const tFlame = performance.now() - t0;
    const netFlame = await window.hpcscope.netStats();
    const flame = window.hpcscope.state().views.profile;
    window.hpcscope.showView('timeline');
    const tTab = performance.now() - t0;
    let tl;
    for (;;) {
      tl = window.hpcscope.state().views.timeline;
      if (tl && (tl.frames_painted > 0 || tl.error || (tl.status && tl.status !== 'ok' && tl.status !== 'loading'))) break;
      if (performance.now() - t0 - tTab > timeout) break;
      await new Promise((res) => setTimeout(res, 5));
    }
    const tTrace = performance.now() - t0;
    const netTrace = await window.hpcscope.netStats();
    return {
      epoch0, tOpen, tFlame, tTab, tTrace, report, netOpen, netFlame, netTrace,
      first: { painted: (tl?.frames_painted ?? 0) > 0, exact: tl?.exact, rowsExact: tl?.rows_exact, rows: tl?.rows_shown },
      flameFrames: flame?.flame?.frames?.length ?? 0,
      timeline: { status: tl?.status, rows: tl?.rows?.total, frames: tl?.frames_painted, error: tl?.error },
    };
  }, [dbUrl, timeoutMs]);
}

async function runOnce(browser, mode, appUrl, total) {
  const data = mode === 'single'
    ? await objstoreServe(WORK, { latencyMs: LATENCY_MS })
    : await serve(WORK, 0, '127.0.0.1', { cors: true });
  const dbUrl = `http://127.0.0.1:${data.address().port}/synth.d/`;
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(appUrl);
    await page.evaluate(() => window.hpcscope.ready);
    const sent = () => ({ requests: data.stats.requests, bytes: data.stats.bytes });
    const logFrom = data.stats.log?.length ?? 0;
    const r = await openAndShow(page, dbUrl, TIMEOUT_MS);
    const atFirst = sent();
    if (args.includes('--log') && data.stats.log) printLog(mode, data.stats, logFrom, r);
    // What the server had been asked by the time the flame graph showed (its log has times).
    const toFlame = data.stats.log ? data.stats.log.slice(logFrom).filter((e) => data.stats.born + e.t0 <= r.epoch0 + r.tFlame) : null;
    const shot = (n) => args.includes('--shots') && page.screenshot({ path: path.join(ROOT, 'target', 'screenshots', `bench-url-${mode}-${n}.png`) });
    if (args.includes('--shots')) fs.mkdirSync(path.join(ROOT, 'target', 'screenshots'), { recursive: true });
    await shot('first-window');
    // The first window is refined in the background: time and transfer until it is exact.
    const exactT0 = Date.now();
    let exactMs = null;
    if (r.first.painted) {
      try {
        await page.waitForFunction(() => window.hpcscope.state().views.timeline.exact, null, { timeout: TIMEOUT_MS, polling: 50 });
        exactMs = Date.now() - exactT0;
      } catch {
        // Reported below as not reached.
      }
    }
    const atExact = sent();
    await shot('exact-window');
    const net = await page.evaluate(() => window.hpcscope.netStats());
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const m = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]));
    const pct = (b) => (100 * b / total).toFixed(4);
    const d = r.report.datasets[0] || {};
    const tag = `[${mode}]`;
    say(`${tag} dataset: ${d.format} ${d.layout}, status ${d.status}; errors ${JSON.stringify(r.report.errors.map((e) => e.message))}`);
    say(`${tag} open (probe + parse):   ${r.tOpen.toFixed(0)} ms (${r.netOpen.requests} requests, ${r.netOpen.bytes} bytes)`);
    say(`${tag} flame graph shown:      ${r.tFlame.toFixed(0)} ms (${r.flameFrames} frames drawn; ${r.netFlame.requests} requests, ${r.netFlame.bytes} bytes so far${toFlame ? `; server: ${toFlame.length} requests, ${toFlame.reduce((n, e) => n + e.bytes, 0)} bytes` : ''})`);
    const firstMs = r.tTrace - r.tTab;
    say(`${tag} first trace frame:      ${r.first.painted ? `${firstMs.toFixed(0)} ms after opening the Trace tab` : `NOT painted within ${TIMEOUT_MS} ms`} (status ${r.timeline.status}, ${r.timeline.rows} rows, ${r.first.exact ? 'exact' : `${r.first.rowsExact} of ${r.first.rows} rows exact`}${r.timeline.error ? `, error ${r.timeline.error}` : ''})`);
    say(`${tag}   server sent by then:  ${atFirst.requests} requests, ${atFirst.bytes} bytes = ${pct(atFirst.bytes)} % of ${total}`);
    const exactAfterTab = exactMs == null ? null : firstMs + exactMs;
    say(`${tag} exact trace frame:      ${exactAfterTab == null ? 'not reached' : `${exactAfterTab.toFixed(0)} ms after opening the Trace tab`}; server sent ${atExact.requests} requests, ${atExact.bytes} bytes = ${pct(atExact.bytes)} %`);
    say(`${tag} worker netStats:        ${JSON.stringify({ requests: net.requests, bytes: net.bytes, max_in_flight: net.max_in_flight, wait_ms: net.wait_ms && Math.round(net.wait_ms), whole_aborted_bytes: net.aborted_bytes })}`);
    if (data.stats.maxInFlight !== undefined) say(`${tag} server: most requests at once ${data.stats.maxInFlight}, whole-object answers ${data.stats.whole}, aborted ${data.stats.aborted}`);
    const heap = m.JSHeapUsedSize || 0;
    const wasm = net.wasm_memory_bytes || 0;
    say(`${tag} page JS heap ${(heap / 2 ** 20).toFixed(1)} MiB + worker wasm memory ${(wasm / 2 ** 20).toFixed(1)} MiB`);
    if (errors.length) say(`${tag} page errors: ${errors.join('; ')}`);
    return {
      mode, flameMs: r.tFlame, flameRequests: toFlame ? toFlame.length : null, firstMs: r.first.painted ? firstMs : null, exactMs: exactAfterTab,
      firstRequests: atFirst.requests, firstPct: 100 * atFirst.bytes / total, exactRequests: atExact.requests, exactPct: 100 * atExact.bytes / total,
    };
  } finally {
    await page.close();
    data.closeAllConnections?.();
    await new Promise((res) => data.close(res));
  }
}

async function main() {
  if (!fs.existsSync(path.join(DIST, 'pkg', 'hpcscope_bg.wasm'))) throw new Error('dist/ is not built: npm run build');
  if (!fs.existsSync(BIN)) {
    say('building the release binary');
    execFileSync('cargo', ['build', '--release', '--bin', 'hpcscope'], { cwd: ROOT, stdio: 'inherit' });
  }
  const want = parseSizeBytes(SIZE);
  const free = freeBytes(path.dirname(WORK));
  say(`free space at ${path.dirname(WORK)}: ${(free / 2 ** 30).toFixed(1)} GiB; database ${SIZE}; servers ${SERVERS.join(', ')} (single: ${LATENCY_MS} ms per request); ${RUNS} run(s) each`);
  const index = path.join(DB, 'hpcscope-index.json');
  if (fs.existsSync(index)) {
    say(`reusing ${DB} (kept by an earlier --keep run)`);
  } else {
    if (free < want * 1.1 + 2 ** 30) throw new Error(`not enough free disk for a ${SIZE} database`);
    const t = Date.now();
    execFileSync(BIN, ['synth', '--size', SIZE, DB], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync(BIN, ['index', DB], { stdio: 'ignore' });
    say(`wrote ${DB} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  const total = dirBytes(DB);
  say(`database: ${total} bytes`);
  for (const f of fs.readdirSync(DB)) say(`  ${f}: ${fs.statSync(path.join(DB, f)).size} bytes`);

  const app = await serve(DIST, 0);
  const before = BEFORE ? await serve(path.resolve(BEFORE), 0) : null;
  const builds = [...(before ? [['before', before]] : []), [before ? 'after' : '', app]];
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--enable-precise-memory-info'],
  });
  const results = [];
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const mode of SERVERS) {
        for (const [label, srv] of builds) {
          say(`--- run ${run}, ${mode} server${label ? `, ${label}` : ''}`);
          const r = await runOnce(browser, mode, `http://127.0.0.1:${srv.address().port}/`, total);
          results.push({ run, ...r, mode: label ? `${mode}/${label}` : mode });
        }
      }
    }
  } finally {
    await browser.close();
    await new Promise((res) => app.close(res));
    if (before) await new Promise((res) => before.close(res));
  }
  const ms = (x) => (x == null ? '-' : `${(x / 1000).toFixed(2)} s`);
  say('run  server         flame    req@flame  first frame  exact     requests@first  bytes@first  requests@exact  bytes@exact');
  for (const x of results) {
    say(`${String(x.run).padEnd(4)} ${x.mode.padEnd(14)} ${ms(x.flameMs).padEnd(8)} ${String(x.flameRequests ?? '-').padEnd(10)} ${ms(x.firstMs).padEnd(12)} ${ms(x.exactMs).padEnd(9)} ${String(x.firstRequests).padEnd(15)} ${x.firstPct.toFixed(3).padStart(7)} %    ${String(x.exactRequests).padEnd(15)} ${x.exactPct.toFixed(3).padStart(7)} %`);
  }
  say(`targets (single): flame < 2 s, first frame < 3 s, exact < 10 s, < 300 requests and < 1 % of the bytes to the first frame`);
}

/** The requests of the open, up to the first trace frame, one line each: when each started and
 *  ended (ms from the open), the file and range, and the phase it fell in; then the number of
 *  waves (periods with requests outstanding: a chain of dependent requests is one wave each). */
function printLog(mode, stats, from, r) {
  const at = (t) => stats.born + t - r.epoch0;
  const marks = [['open', r.tOpen], ['flame', r.tFlame], ['tab', r.tTab], ['trace', r.tTrace]];
  const phase = (t) => (marks.find(([, m]) => t <= m) || ['after'])[0];
  let waves = 0;
  let busyUntil = -Infinity;
  const perPhase = {};
  for (const e of stats.log.slice(from)) {
    const a = at(e.t0);
    const b = e.t1 == null ? NaN : at(e.t1);
    if (a > busyUntil) {
      waves++;
      const p = phase(a);
      perPhase[p] = (perPhase[p] || 0) + 1;
    }
    busyUntil = Math.max(busyUntil, Number.isNaN(b) ? a : b);
    say(`[${mode}] req ${a.toFixed(0).padStart(6)} .. ${b.toFixed(0).padStart(6)} ms  ${phase(a).padEnd(5)} ${e.path.split('/').pop().padEnd(22)} ${e.range}`);
  }
  say(`[${mode}] waves (busy periods): ${waves}, started in each phase ${JSON.stringify(perPhase)}; open ${r.tOpen.toFixed(0)} ms, flame ${r.tFlame.toFixed(0)} ms, tab ${r.tTab.toFixed(0)} ms, trace ${r.tTrace.toFixed(0)} ms`);
}

function parseSizeBytes(s) {
  const m = /^([\d.]+)([KMGT]?)$/i.exec(s.trim());
  if (!m) throw new Error(`bad size ${s}`);
  return Number(m[1]) * 2 ** (10 * ' KMGT'.indexOf((m[2] || ' ').toUpperCase()));
}

main().then(() => { cleanup(); say(KEEP ? `kept ${WORK}` : `deleted ${WORK}`); }, (e) => { cleanup(); console.error('[bench-url] failed:', e.stack || e.message); process.exit(1); });
