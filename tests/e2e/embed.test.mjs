// Embedding end to end (docs/embedding.md): the npm package as `npm run package` makes it
// (dist-npm/ laid out from the minified dist/, `npm pack ./dist-npm`), installed into an empty
// folder, serves a documentation-like page with two <hpcscope-view> elements on generated
// datasets (a profile and a trace) under the viewer's Content-Security-Policy: both render, they
// share no state, removing one terminates its Worker, the package's engine API answers without
// the page shell. Then `hpcscope report --html` pages open from file:// with the network off and
// show the same numbers as the viewer: on a generated database always, on a corpus database when
// ../shared/corpus is there; over --max-mb the trace is left out, then nothing is written.
// Screenshots at 1600x1000 and 800x600 go to target/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.js';
import { start, hasCorpus, CORPUS, SCREENSHOTS } from './helpers.mjs';
import { spawnSync } from 'node:child_process';
import { TMP, bin, cli, makeSite, removeSite, profileNumbers, elementProfile } from './embed-site.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
/** Issue 19: the package under 700 KB gzipped without data. The tarball `npm pack ./dist-npm` writes
 *  is one gzip stream of every file, so its size is the bound's measure: 688,463 bytes on
 *  2026-11-28 (main d27c28e: cold sorts through src/sort.rs, one block cache for every backend,
 *  wasm-opt -Oz twice, the scripts minified file by file; see scripts/build.sh and
 *  scripts/package.mjs). 11.5 KB to spare: the wasm is ~86% of it, and opt-level "z" (smaller,
 *  much slower) is not taken. */
const PACKAGE_MAX_BYTES = 700_000;

let browser;
let fixture;
let server;
let siteUrl;

before(async () => {
  fixture = makeSite();
  server = await serve(fixture.site, 0);
  siteUrl = `http://127.0.0.1:${server.address().port}/`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
      '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  if (server) await new Promise((r) => server.close(r));
  removeSite();
});

/** A page with console errors, page errors, failed requests and CSP violations collected. */
async function newPage({ width = 1600, height = 1000, offline = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  if (offline) await context.setOffline(true);
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  context.on('request', (r) => requests.push(r.url()));
  await page.exposeBinding('__cspViolation', (_, text) => problems.push(`csp: ${text}`));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation',
    (e) => window.__cspViolation(`${e.violatedDirective} ${e.blockedURI}`), true));
  return { page, context, problems, requests };
}

async function shot(page, name) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, name) });
}

test('npm pack: a complete package, gzipped size within the bound', () => {
  const { info, bytes } = fixture.packed;
  const files = info.files.map((f) => f.path);
  console.log(`${info.filename}: ${bytes} bytes packed (${(bytes / 1024).toFixed(1)} KiB; bound ${PACKAGE_MAX_BYTES} bytes, ${PACKAGE_MAX_BYTES - bytes} to spare), ${info.unpackedSize} unpacked, ${files.length} files`);
  assert.ok(bytes < PACKAGE_MAX_BYTES, `${bytes} bytes`);
  for (const f of ['package.json', 'README.md', 'index.html', 'www/embed/index.js', 'www/embed/element.js', 'www/embed/element.css', 'www/engine.js',
    'www/worker.js', 'www/style.css', 'pkg/hpcscope.js', 'pkg/hpcscope_bg.wasm', 'pkg/hpcscope.d.ts', 'types/hpcscope.d.ts']) {
    assert.ok(files.includes(f), `${f} missing from the package`);
  }
  assert.ok(!files.some((f) => /^(src|tests|dist|target|scripts|docs)\/|\.map$/.test(f)), files.join(' '));
  const site = path.join(fixture.site, 'node_modules/hpcscope');
  const installed = JSON.parse(fs.readFileSync(path.join(site, 'package.json'), 'utf8'));
  assert.equal(installed.exports['.'].default, './www/embed/index.js');
  assert.equal(installed.types, './types/hpcscope.d.ts');
  // Publishable (the repository's package.json is private) and without the repository's scripts.
  assert.equal(installed.private, undefined);
  assert.equal(installed.scripts, undefined);
  assert.equal(installed.devDependencies, undefined);
  // Every script and style is minified (the sources open with comment lines, the shipped files
  // hold none) and links no source map the package does not hold; the modules keep their exports.
  for (const f of files.filter((x) => /\.(js|css)$/.test(x) && !x.endsWith('.d.ts'))) {
    const text = fs.readFileSync(path.join(site, f), 'utf8');
    assert.ok(!/sourceMappingURL/.test(text), `${f} links a source map`);
    assert.ok(!/^\s*(\/\/|\/\*(?! @ts-self-types=))/m.test(text), `${f} is not minified: ${text.slice(0, 80)}`);
  }
  const entry = fs.readFileSync(path.join(site, 'www/embed/index.js'), 'utf8');
  for (const name of ['createEngine', 'HpcscopeView', 'defineElement']) assert.match(entry, new RegExp(`\\b${name}\\b`), `export ${name}`);
});

/** Runs `body(page)` on a fresh page of the docs site, which must report no problem. */
async function onSite(body) {
  const { page, problems } = await newPage();
  await page.goto(siteUrl);
  await body(page);
  assert.deepEqual(problems, []);
  await page.context().close();
}

test('two elements on a docs page render their own datasets and share no state', () => onSite(async (page) => {
  const a = await elementProfile(page, '#a');
  await page.waitForFunction(() => {
    const v = document.querySelector('#b').state().viewState;
    return v && v.status === 'ok' && v.frames_painted > 0 && v.exact;
  }, null, { timeout: 60000 });
  const b = await page.evaluate(() => document.querySelector('#b').state());
  assert.equal(a.view, 'profile');
  assert.equal(a.datasets[0].root, 'synth.d');
  assert.equal(b.view, 'timeline');
  assert.equal(b.datasets[0].format, 'hpcrun');
  // The metric attribute is honoured; the flame graph's root is the table's root.
  const meta = await page.evaluate((id) => document.querySelector('#a').engine.call('profile_meta', id), a.datasets[0].id);
  assert.equal(a.viewState.metric, 1);
  assert.equal(a.viewState.metricName, meta.metrics[1].name);
  assert.equal(a.viewState.flame.root.inclusive, a.viewState.table.root[1].inclusive);
  assert.ok(b.viewState.rows.total > 0);
  // One Worker each; no page-wide leftovers.
  assert.equal(page.workers().length, 2);
  assert.equal(await page.evaluate(() => typeof window.hpcscopeProfile), 'undefined');
  // Selecting a frame in one element leaves the other as it was.
  const frame = a.viewState.flame.frames.find((f) => f.depth === 2);
  await page.evaluate((n) => document.querySelector('#a').view().panels().select(n, 'test'), frame.node);
  await page.waitForFunction((n) => document.querySelector('#a').state().viewState.selected?.node === n, frame.node);
  const b2 = await page.evaluate(() => document.querySelector('#b').state());
  assert.deepEqual(b2.viewState.crosshair, b.viewState.crosshair);
  assert.deepEqual(b2.viewState.time_range_ns, b.viewState.time_range_ns);
  assert.equal(b2.datasets[0].root, 'app.m');
  await shot(page, 'embed-docs-1600x1000.png');
  await page.setViewportSize({ width: 800, height: 600 });
  await page.waitForTimeout(300);
  await shot(page, 'embed-docs-800x600.png');
  await page.evaluate(() => document.querySelector('#b').scrollIntoView());
  await shot(page, 'embed-docs-800x600-trace.png');
}));

test('removing an element terminates its Worker; the other keeps working', () => onSite(async (page) => {
  await elementProfile(page, '#a');
  await page.waitForFunction(() => document.querySelector('#b').state().datasets.length === 1, null, { timeout: 60000 });
  assert.equal(page.workers().length, 2);
  const closed = new Promise((resolve) => page.workers().forEach((w) => w.once('close', () => resolve(w))));
  const engineOfB = await page.evaluateHandle(() => document.querySelector('#b').engine);
  await page.evaluate(() => document.querySelector('#b').remove());
  await closed;
  assert.equal(page.workers().length, 1);
  assert.equal(await engineOfB.evaluate((e) => e.terminated), true);
  await assert.rejects(engineOfB.evaluate((e) => e.call('summaries')), /terminated/);
  const left = await page.evaluate(async () => {
    const el = document.querySelector('#a');
    return { running: el.workerRunning, datasets: (await el.engine.call('summaries')).length };
  });
  assert.deepEqual(left, { running: true, datasets: 1 });
  // Moving an element keeps its engine (removed and inserted in one task).
  await page.evaluate(() => {
    const el = document.querySelector('#a');
    document.body.append(el);
  });
  await page.waitForTimeout(100);
  assert.equal(page.workers().length, 1);
  assert.equal(await page.evaluate(() => document.querySelector('#a').workerRunning), true);
}));

test('an element shows the Time order view of its line and t0/t1 attributes', () => onSite(async (page) => {
  await page.waitForFunction(() => document.querySelector('#b').state().viewState?.status === 'ok', null, { timeout: 60000 });
  const meta = await page.evaluate(() => {
    const b = document.querySelector('#b');
    return b.engine.call('timeline_meta', b.state().datasets[0].id);
  });
  const line = meta.rows[meta.rows.length - 1].line;
  const [t0, t1] = [Math.round(meta.duration_ns * 0.2), Math.round(meta.duration_ns * 0.6)];
  await page.evaluate(([l, a, z]) => {
    const e = document.createElement('hpcscope-view');
    e.id = 'c';
    for (const [k, v] of Object.entries({ src: 'data/app.m/', view: 'timeorder', line: l, t0: a, t1: z, height: 300 })) e.setAttribute(k, String(v));
    document.querySelector('main').append(e);
  }, [line, t0, t1]);
  await page.waitForFunction(() => {
    const v = document.querySelector('#c').state().viewState;
    return v && v.status === 'ok' && v.frames > 0 && !v.pending;
  }, null, { timeout: 60000 });
  const c = await page.evaluate(() => document.querySelector('#c').state());
  assert.equal(c.view, 'timeorder');
  assert.equal(c.viewState.line, line);
  assert.deepEqual(c.viewState.time_range_ns, [t0, t1]);
  assert.ok(c.viewState.box_count > 0);
  await page.evaluate(() => document.querySelector('#c').scrollIntoView());
  await shot(page, 'embed-timeorder-1600x1000.png');
}));

test('the package engine API answers without the page shell', () => onSite(async (page) => {
  const a = await elementProfile(page, '#a');
  const got = await page.evaluate(async () => {
    const { createEngine } = await import('/node_modules/hpcscope/www/embed/index.js');
    const engine = createEngine();
    const { datasets } = await engine.open('data/synth.d/');
    const id = datasets[0].id;
    const flame = await engine.flame(id, { metric: 1, widthPx: 1000 });
    const table = await engine.table(id, { kind: 'topdown', metric: 1, count: 5 });
    const folded = await engine.export(id, 'folded', '');
    const csv = await engine.export(id, 'csv', '');
    const summaries = await engine.summaries();
    engine.terminate();
    return {
      root: flame.rects[0], rects: flame.rects.length, table: table.rows[0], length: table.length,
      folded: folded.text.split('\n').length, csv: csv.text.split('\n')[0], title: summaries[0].title,
    };
  });
  assert.equal(got.root.inclusive, a.viewState.flame.root.inclusive);
  assert.equal(got.table.values[1].inclusive, a.viewState.table.root[1].inclusive);
  assert.ok(got.rects > 10 && got.length > 1 && got.folded > 10, JSON.stringify(got));
  assert.match(got.csv, /,/);
  assert.equal(got.title, a.datasets[0].title);
}));

/** The viewer's profile numbers for the dataset under `dir` (opened by URL from a data server). */
async function viewerNumbers(dir) {
  const dataServer = await serve(path.dirname(dir), 0, '127.0.0.1', { cors: true });
  const ctx = await start({ width: 1600, height: 1000 });
  try {
    const url = `http://127.0.0.1:${dataServer.address().port}/${path.basename(dir)}/`;
    await ctx.page.evaluate((u) => window.hpcscope.open(u), url);
    await ctx.page.evaluate(() => window.hpcscope.showView('profile'));
    await ctx.page.waitForFunction(() => window.hpcscopeProfile, null, { timeout: 30000 });
    await ctx.page.evaluate(() => window.hpcscopeProfile.whenReady());
    await ctx.page.waitForFunction(() => window.hpcscope.state().views.profile?.table?.visible?.length > 0, null, { timeout: 30000 });
    const p = await ctx.page.evaluate(() => window.hpcscope.state().views.profile);
    // Opening by URL probes each file's size and Range support, then aborts the probe: the
    // browser reports those requests as failed.
    assert.deepEqual(ctx.problems.filter((m) => !m.startsWith(`request failed: ${url}`)), []);
    return profileNumbers(p);
  } finally {
    await ctx.close();
    await new Promise((r) => dataServer.close(r));
  }
}

/** Writes the report of `dir`, opens it from file:// offline; returns its numbers and page. */
async function openReport(dir, name, extra = []) {
  const out = path.join(TMP, `${name}.html`);
  const said = cli('report', '--html', out, ...extra, dir);
  console.log(said.trim());
  const size = fs.statSync(out).size;
  assert.match(said, new RegExp(`wrote .*: ${size} bytes .*limit 50\\.0 MB`));
  const opened = await newPage({ offline: true });
  await opened.page.goto(pathToFileURL(out).href);
  await opened.page.evaluate(() => window.hpcscopeReportReady);
  const state = await elementProfile(opened.page, 'hpcscope-view');
  return { ...opened, state, size, out };
}

async function checkReport(dir, name) {
  const want = await viewerNumbers(dir);
  const { page, context, problems, requests, state, size } = await openReport(dir, name);
  assert.deepEqual(profileNumbers(state.viewState), want);
  assert.ok(size < 50e6);
  // Nothing left the file: the page, its Blob URLs and data: only.
  assert.deepEqual(requests.filter((u) => !/^(file|blob|data):/.test(u)), []);
  await shot(page, `embed-report-${name}-1600x1000.png`);
  await page.setViewportSize({ width: 800, height: 600 });
  await page.waitForTimeout(300);
  await shot(page, `embed-report-${name}-800x600.png`);
  assert.deepEqual(problems, []);
  await context.close();
  return state;
}

test('a report of a generated database opens from file:// offline with the viewer\'s numbers', async () => {
  const dir = path.join(fixture.site, 'data', 'synth.d');
  const state = await checkReport(dir, 'synth');
  assert.equal(state.datasets[0].root, 'synth.d');
  // A real database too, when the corpus is there.
  if (hasCorpus()) await checkReport(path.join(CORPUS, 'hpctoolkit', 'v4', 'hpctoolkit-tests-loops-cputime-t.d'), 'corpus');
  // The trace went in: the Trace tab shows it.
  const { page, context, problems } = await openReport(dir, 'synth-trace');
  await page.evaluate(() => document.querySelector('hpcscope-view').shadowRoot.querySelector('[data-view="timeline"]').click());
  await page.waitForFunction(() => {
    const v = document.querySelector('hpcscope-view').state().viewState;
    return v && v.status === 'ok' && v.exact && v.rows.total > 0;
  }, null, { timeout: 60000 });
  assert.equal(await page.evaluate(() => document.querySelector('hpcscope-view').state().viewState.rows.total), 4);
  await shot(page, 'embed-report-synth-trace-1600x1000.png');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a report is bounded by --max-mb: the trace is left out first, then nothing is written', async () => {
  const dir = path.join(fixture.site, 'data', 'synth.d');
  const report = (name, ...args) => {
    const out = path.join(TMP, `${name}.html`);
    const r = spawnSync(bin(), ['report', '--html', out, ...args, dir], { encoding: 'utf8' });
    return { ...r, out, size: fs.existsSync(out) ? fs.statSync(out).size : null };
  };
  const full = report('bound-full');
  const noTrace = report('bound-views', '--views', 'summary,profile');
  assert.equal(full.status, 0, full.stderr);
  assert.ok(full.size - noTrace.size > 10000, `${full.size} vs ${noTrace.size}`);
  // Between the two: written without the trace, saying so on stderr and on the page.
  const mid = ((full.size + noTrace.size) / 2e6).toFixed(6);
  const dropped = report('bound-dropped', '--max-mb', mid);
  console.log(`--max-mb ${mid}: ${dropped.stdout.trim()} | ${dropped.stderr.trim()}`);
  assert.equal(dropped.status, 0, dropped.stderr);
  assert.ok(dropped.size <= Number(mid) * 1e6, `${dropped.size}`);
  assert.match(dropped.stderr, /note: left out synth\.d\/trace\.db \(0\.1 MB\): the report would be over --max-mb/);
  assert.match(dropped.stdout, new RegExp(`: ${dropped.size} bytes .*views: summary profile histogram$`, 'm'));
  const { page, context, problems } = await newPage({ offline: true });
  await page.goto(pathToFileURL(dropped.out).href);
  await page.evaluate(() => window.hpcscopeReportReady);
  await elementProfile(page, 'hpcscope-view');
  assert.match(await page.textContent('.note'), /Left out to keep this page small: synth\.d\/trace\.db/);
  const tabs = await page.evaluate(() => [...document.querySelector('hpcscope-view').shadowRoot.querySelectorAll('[data-view]')].map((b) => b.dataset.view));
  assert.deepEqual(tabs, ['summary', 'profile']);
  await shot(page, 'embed-report-bounded-1600x1000.png');
  assert.deepEqual(problems, []);
  await context.close();
  // Below the page without its trace: refused, nothing written.
  const refused = report('bound-refused', '--max-mb', ((noTrace.size - 1000) / 1e6).toFixed(6));
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /over its limit of [\d.]+ MB \(even without the trace, /);
  assert.equal(refused.size, null);
});
