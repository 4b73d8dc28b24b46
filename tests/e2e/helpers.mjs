// Shared setup of the end-to-end tests: the static server on a free port over dist/, and Debian's
// Chromium driven by playwright-core (no browser download). Collects console errors and page
// errors so every test can assert there were none. Also what several tests do: drop a folder,
// find the trace sample in force at a time.
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.join(ROOT, 'dist');
export const CORPUS = path.resolve(ROOT, '..', 'shared', 'corpus');
export const SCREENSHOTS = path.join(ROOT, 'target', 'screenshots');

export const hasCorpus = () => fs.existsSync(CORPUS);

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

/** `onContext(context)` runs before the page opens (e.g. to watch every request). */
export async function start({ width = 1280, height = 800, onContext } = {}) {
  if (!fs.existsSync(path.join(DIST, 'pkg', 'hpcscope_bg.wasm'))) {
    throw new Error('dist/ is not built: run `bash scripts/build.sh` first');
  }
  const server = await serve(DIST, 0);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
      '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: { width, height } });
  if (onContext) await onContext(context);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  // Content-Security-Policy violations (index.html, scripts/serve.js) count as problems too.
  await page.exposeBinding('__cspViolation', (_, text) => problems.push(`csp: ${text}`));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => window.__cspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`)));
  await page.goto(url);
  await page.waitForFunction(() => window.hpcscope && window.hpcscope.state().datasets.length > 0, null, { timeout: 30000 });
  await page.evaluate(() => window.hpcscope.ready);
  return {
    page,
    url,
    problems,
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}

/** What most test files do: `start(options)` before their tests and `close()` after them. The object
 *  returned is filled in by the `before` hook with what `start` resolves to (`page`, `problems`,
 *  `url`, `close`), so tests read it as they would `start`'s result. */
export function appForFile(options) {
  const app = {};
  before(async () => {
    Object.assign(app, await start(options));
  });
  after(async () => {
    await app.close?.();
  });
  return app;
}

export async function screenshot(page, name) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, name);
  await page.screenshot({ path: file });
  return file;
}

/** Text of the summary panel's field `name` (data-field attribute). */
export function field(page, name) {
  return page.locator(`#view [data-field="${name}"]`).first().innerText();
}

/** The sample in force at time `t` among `samples` (sorted by `t`): the last one with `t` <= `t`,
 *  with its `index`; null before the first. */
export function sampleIn(samples, t) {
  let lo = 0, hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid].t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : { index: lo - 1, ...samples[lo - 1] };
}

/** Drops folder `dir` (an absolute path) through the folder picker and waits until the page has
 *  a new dataset and is no longer busy (`polling`: every so many ms instead of every frame);
 *  resolves to the page state, the datasets it added, and the times (Date.now()) of the drop and
 *  of the end of the wait. */
export async function dropFolder(page, dir, { timeout = 60000, polling } = {}) {
  const n = await page.evaluate(() => window.hpcscope.state().datasets.length);
  const droppedAt = Date.now();
  await page.setInputFiles('#folder-input', dir);
  await page.waitForFunction((k) => {
    const s = window.hpcscope.state();
    return s.datasets.length > k && !s.busy;
  }, n, polling ? { timeout, polling } : { timeout });
  const openedAt = Date.now();
  const state = await page.evaluate(() => window.hpcscope.state());
  return { state, added: state.datasets.slice(n), droppedAt, openedAt };
}

/** For the benchmarks: drops folder `dir`, then shows the new dataset's Profile tab until its flame
 *  graph has a root value (polling every 20 ms, 5 minutes at most). Resolves to the times
 *  (Date.now()) of the drop, of the opened summary and of the flame graph, the page state once
 *  opened and the flame graph's root; throws when the dataset did not open. */
export async function dropUntilFlame(page, dir) {
  const opened = await dropFolder(page, dir, { timeout: 300000, polling: 20 });
  const { state, droppedAt: t0, openedAt: tOpened } = opened;
  const d = state.datasets[state.datasets.length - 1];
  if (d.status !== 'opened') throw new Error(`dataset not opened: ${JSON.stringify(d)} ${JSON.stringify(state.errors)}`);
  await page.evaluate((id) => {
    window.hpcscope.select(id);
    window.hpcscope.showView('profile');
  }, d.id);
  await page.waitForFunction(() => {
    const v = window.hpcscope.state().views.profile;
    return v && v.flame && v.flame.root && v.flame.root.inclusive > 0;
  }, null, { timeout: 300000, polling: 20 });
  const tFlame = Date.now();
  const root = await page.evaluate(() => window.hpcscope.state().views.profile.flame.root);
  return { t0, tOpened, tFlame, state, root };
}

/** Drops folder `dir` as `dropFolder` does; resolves to the id of the dataset the page selects. */
export async function dropSelect(page, dir) {
  return (await dropFolder(page, dir)).state.selected;
}

/** Shows the Trace tab and waits (60 s at most) until it has painted a frame and has no window
 *  pending; `orEmpty`: or says the dataset has no samples or no trace; `orError`: or shows an error.
 *  Resolves to the view's state. */
export async function showTrace(page, { orEmpty = false, orError = false } = {}) {
  await page.evaluate(() => window.hpcscope.showView('timeline'));
  await page.waitForFunction((o) => {
    const t = window.hpcscope.state().views?.timeline;
    const empty = t && (t.status === 'no-samples' || t.status === 'no-trace');
    return t && ((o.orError && t.error) || (o.orEmpty && empty) || (t.status === 'ok' && t.frames_painted > 0 && !t.pending));
  }, { orEmpty, orError }, { timeout: 60000 });
  return page.evaluate(() => window.hpcscope.state().views.timeline);
}

/** Shows the Profile tab and waits until its flame graph and table are drawn; resolves to the
 *  view's state. */
export async function showProfile(page) {
  await page.evaluate(() => window.hpcscope.showView('profile'));
  await page.waitForFunction(() => window.hpcscopeProfile);
  await page.evaluate(() => window.hpcscopeProfile.whenReady());
  await page.waitForFunction(() => {
    const v = window.hpcscope.state().views.profile;
    return v && v.flame && v.flame.rects > 0 && v.table && v.table.root;
  });
  return page.evaluate(() => window.hpcscope.state().views.profile);
}
