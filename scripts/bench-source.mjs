// Benchmark of the source view in headless Chromium: a database written by `hpcscope synth
// --sources` (200,000 contexts by default, 4 profiles) is dropped, then timed: the per-line table
// of a metric (built in the engine on a metric change), the hottest statement shown
// (`hpcscope.showSource()`: request, text and values, drawing), a context selected from the
// table with its file shown, and a 4 MB source file added and scrolled. Prints medians and the
// 100 ms target of a view step.
// Usage: bash scripts/build.sh && node scripts/bench-source.mjs [contexts]
import fs from 'node:fs';
import path from 'node:path';
import { start, ROOT } from '../tests/e2e/helpers.mjs';
import { cli } from '../tests/e2e/generated.mjs';

const contexts = Number(process.argv[2] || 200000);
const dir = path.join(ROOT, 'target', 'bench-source', `synth-${contexts}.d`);
if (!fs.existsSync(path.join(dir, 'meta.db'))) {
  fs.rmSync(dir, { recursive: true, force: true });
  cli('synth', '--ranks', '2', '--threads', '2', '--contexts', String(contexts), '--metrics', '2', '--samples', '0', '--sources', dir);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const verdict = (ms) => `[target < 100 ms] ${ms < 100 ? 'OK' : 'FAIL'}`;

const app = await start({ width: 1600, height: 1000 });
const { page, problems } = app;
await page.setInputFiles('#folder-input', dir);
await page.waitForFunction(() => window.hpcscope.state().datasets.length > 1 && !window.hpcscope.state().busy, null, { timeout: 300000 });
const id = await page.evaluate(() => window.hpcscope.state().selected);
await page.evaluate(() => window.hpcscope.showView('profile'));
await page.waitForFunction(() => window.hpcscopeProfile);
await page.evaluate(() => window.hpcscopeProfile.whenReady());
const n = await page.evaluate((i) => window.hpcscope.engine.call('profile_meta', i).then((m) => m.contexts), id);
console.log(`database: ${n.toLocaleString('en-US')} contexts, 4 profiles, sources in src/`);

const r = await page.evaluate(async (i) => {
  const e = window.hpcscope.engine;
  const out = { table: [], text: [], show: [], select: [] };
  // Alternating metrics: the engine keeps one metric's line table, so each call builds one.
  for (let k = 0; k < 7; k++) {
    const t0 = performance.now();
    await e.call('source_hottest', i, k % 2);
    out.table.push(performance.now() - t0);
  }
  const hot = await e.call('source_hottest', i, 0);
  for (let k = 0; k < 7; k++) {
    const t0 = performance.now();
    await e.call('source_text', i, hot.path, hot.line, 0);
    out.text.push(performance.now() - t0);
  }
  for (let k = 0; k < 7; k++) {
    const t0 = performance.now();
    await window.hpcscope.showSource();
    await new Promise(requestAnimationFrame);
    out.show.push(performance.now() - t0);
  }
  const panels = window.hpcscopeProfile.panels();
  const rows = [...document.querySelectorAll('.tt-row[data-cct]')].map((el) => Number(el.dataset.cct)).slice(0, 7);
  for (const c of rows) {
    const t0 = performance.now();
    await panels.select(c, 'table');
    await new Promise(requestAnimationFrame);
    out.select.push(performance.now() - t0);
  }
  out.lines = window.hpcscope.state().views.profile.source.line_count;
  return out;
}, id);
console.log(`line table of a metric (engine round trip): median ${median(r.table).toFixed(1)} ms, max ${Math.max(...r.table).toFixed(1)} ms  ${verdict(median(r.table))}`);
console.log(`source text and values (cached table, round trip): median ${median(r.text).toFixed(1)} ms  ${verdict(median(r.text))}`);
console.log(`showSource() of the hottest statement, drawn (${r.lines} lines): median ${median(r.show).toFixed(1)} ms  ${verdict(median(r.show))}`);
console.log(`a table row selected, its file shown with the other panels: median ${median(r.select).toFixed(1)} ms  ${verdict(median(r.select))}`);

// A 4 MB file added for the hottest statement's path, then scrolled.
const huge = path.join(ROOT, 'target', 'bench-source', 'huge.c');
if (!fs.existsSync(huge)) {
  const parts = [];
  for (let i = 0, len = 0; len < 4 << 20; i++) {
    parts.push(`    y = f(y, ${i}); /* a line of a large generated file */`);
    len += parts.at(-1).length + 1;
  }
  fs.writeFileSync(huge, parts.join('\n'));
}
const hot = await page.evaluate(() => window.hpcscope.state().views.profile.source);
await page.evaluate(() => window.hpcscope.showSource());
const t0 = Date.now();
const b64 = fs.readFileSync(huge).toString('base64');
await page.evaluate(async ([i, p, text]) => {
  const b = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  await window.hpcscope.engine.call('source_add', i, p, b, b.length);
}, [id, hot.path, b64]);
const addMs = Date.now() - t0;
const s = await page.evaluate(async (p) => {
  const t1 = performance.now();
  await window.hpcscope.showSource(p, 1);
  await new Promise(requestAnimationFrame);
  const showMs = performance.now() - t1;
  const el = document.querySelector('[data-testid="source-scroll"]');
  const scrolls = [];
  for (let k = 1; k <= 7; k++) {
    const t2 = performance.now();
    el.scrollTop = (el.scrollHeight * k) / 9;
    el.dispatchEvent(new Event('scroll'));
    await new Promise(requestAnimationFrame);
    scrolls.push(performance.now() - t2);
  }
  return { showMs, scrolls, lines: window.hpcscope.state().views.profile.source.line_count };
}, hot.path);
console.log(`4 MB file (${s.lines.toLocaleString('en-US')} lines) handed to the engine in ${addMs} ms (test harness transfer), shown in ${s.showMs.toFixed(1)} ms  ${verdict(s.showMs)}`);
console.log(`scrolling it: median redraw ${median(s.scrolls).toFixed(1)} ms  ${verdict(median(s.scrolls))}`);
if (problems.length) console.log('page problems:', problems);
await app.close();
