// Shared setup of the end-to-end tests: the static server on a free port over dist/, and Debian's
// Chromium driven by playwright-core (no browser download). Collects console errors and page
// errors so every test can assert there were none. Also what several tests do: drop a folder,
// find the trace sample in force at a time.
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
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
 *  a new dataset and is no longer busy; resolves to the page state and the datasets it added. */
export async function dropFolder(page, dir, { timeout = 60000 } = {}) {
  const n = await page.evaluate(() => window.hpcscope.state().datasets.length);
  await page.setInputFiles('#folder-input', dir);
  await page.waitForFunction((k) => {
    const s = window.hpcscope.state();
    return s.datasets.length > k && !s.busy;
  }, n, { timeout });
  const state = await page.evaluate(() => window.hpcscope.state());
  return { state, added: state.datasets.slice(n) };
}
