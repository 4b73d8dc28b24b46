// Opening by URL, embedding and deep links: a corpus database served by a second local server
// (another origin, with Range support and CORS) is opened by URL with every file read through
// Range requests; a page on a third origin embeds the viewer in an <iframe> and opens databases
// by postMessage (URL and buffers); a deep link reopens the same node and time range; a server
// without Range support gives an error naming the URL. Skips when the corpus is absent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { start, hasCorpus, CORPUS } from './helpers.mjs';
import { serve } from '../../scripts/serve.js';

const SKIP = hasCorpus() ? false : `skipping: ${CORPUS} absent`;
if (SKIP) console.log(SKIP);

const DB = 'hpctoolkit-tests-loops-cputime-t.d';
let env;
let data; // corpus server: CORS + Range
let plain; // corpus server without Range support
let host; // the embedding page's server
let dataUrl;

before(async () => {
  if (SKIP) return;
  env = await start();
  data = await serve(path.join(CORPUS, 'hpctoolkit', 'v4'), 0, '127.0.0.1', { cors: true });
  dataUrl = `http://127.0.0.1:${data.address().port}/${DB}/`;
  plain = await serve(path.join(CORPUS, 'hpctoolkit', 'v4'), 0, '127.0.0.1', { cors: true, range: false });
  host = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>docs</title><h1>A documentation page</h1>
<iframe id="viewer" src="${env.url}" width="1000" height="700"></iframe>
<script>
  window.replies = [];
  window.viewerReady = new Promise((r) => addEventListener('message', (e) => { if (e.data && e.data.type === 'ready') r(); }));
  addEventListener('message', (e) => { if (e.data && e.data.type !== 'ready') window.replies.push(e.data); });
</script>`);
  });
  await new Promise((r) => host.listen(0, '127.0.0.1', r));
});

after(async () => {
  if (SKIP) return;
  await env.close();
  for (const s of [data, plain, host]) await new Promise((r) => s.close(r));
});

test('open a database folder by URL, every file read with Range requests', { skip: SKIP }, async () => {
  const { page } = env;
  const before = { ...data.stats };
  const report = await page.evaluate((u) => window.hpcscope.open(u, undefined, { wholeLimit: 0 }), dataUrl);
  assert.equal(report.errors.length, 0, JSON.stringify(report.errors));
  assert.equal(report.datasets.length, 1);
  const d = report.datasets[0];
  assert.equal(d.status, 'opened');
  assert.equal(d.format, 'hpctoolkit');
  assert.equal(d.layout, 'v4.0 final');
  assert.equal(d.root, DB);
  // Same counts as when the files are dropped: compare with opening the bytes.
  const files = ['meta.db', 'profile.db', 'cct.db', 'trace.db'].filter((f) => fs.existsSync(path.join(CORPUS, 'hpctoolkit/v4', DB, f)));
  const buffers = files.map((f) => ({ path: `${DB}/${f}`, bytes: Array.from(fs.readFileSync(path.join(CORPUS, 'hpctoolkit/v4', DB, f))) }));
  const byBytes = await page.evaluate((b) => window.hpcscope.open(b.map((x) => ({ path: x.path, bytes: Uint8Array.from(x.bytes) }))), buffers);
  assert.deepEqual(d.counts, byBytes.datasets[0].counts);
  assert.ok(data.stats.ranged - before.ranged >= files.length, `ranged requests: ${data.stats.ranged - before.ranged}`);
  const net = await page.evaluate(() => window.hpcscope.netStats());
  assert.ok(net.requests > 0 && net.bytes > 0, JSON.stringify(net));
});

test('a server without Range support gives an error naming the URL', { skip: SKIP }, async () => {
  const { page } = env;
  const url = `http://127.0.0.1:${plain.address().port}/${DB}/trace.db`;
  const msg = await page.evaluate((u) => window.hpcscope.open(u, undefined, { wholeLimit: 0, noRangeLimit: 16 }).then(() => 'opened', (e) => e.message), url);
  assert.match(msg, /ignores HTTP Range/);
  assert.ok(msg.includes(url), msg);
  const banner = await page.evaluate(() => window.hpcscope.state().errors.map((e) => e.message));
  assert.ok(banner.some((m) => m.includes(url)), JSON.stringify(banner));
  await page.evaluate(() => window.hpcscope.dismissErrors());
  // A small file from the same server opens whole.
  const ok = await page.evaluate((u) => window.hpcscope.open(u).then((r) => r.datasets.length), `http://127.0.0.1:${plain.address().port}/${DB}/`);
  assert.equal(ok, 1);
});

test('embedded in an iframe on another origin, opens by postMessage', { skip: SKIP }, async () => {
  const page = await env.page.context().newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${host.address().port}/`);
  await page.evaluate(() => window.viewerReady);
  const frame = page.frames().find((f) => f.url().startsWith(env.url));
  assert.ok(frame, 'viewer frame');
  await page.evaluate((u) => document.getElementById('viewer').contentWindow.postMessage({ type: 'open', url: u, requestId: 7 }, '*'), dataUrl);
  await page.waitForFunction(() => window.replies.length >= 1, null, { timeout: 30000 });
  const r1 = await page.evaluate(() => window.replies[0]);
  assert.equal(r1.type, 'opened', JSON.stringify(r1));
  assert.equal(r1.requestId, 7);
  assert.equal(r1.datasets[0].root, DB);
  assert.equal(r1.datasets[0].format, 'hpctoolkit');
  // Buffers: the host page fetched the files itself.
  await page.evaluate(async (u) => {
    const names = ['meta.db', 'profile.db', 'cct.db'];
    const buffers = await Promise.all(names.map(async (n) => ({ name: n, bytes: await (await fetch(u + n)).arrayBuffer() })));
    document.getElementById('viewer').contentWindow.postMessage({ type: 'open', buffers, name: 'posted', requestId: 8 }, '*', buffers.map((b) => b.bytes));
  }, dataUrl);
  await page.waitForFunction(() => window.replies.length >= 2, null, { timeout: 30000 });
  const r2 = await page.evaluate(() => window.replies[1]);
  assert.equal(r2.type, 'opened', JSON.stringify(r2));
  assert.equal(r2.datasets[0].root, 'posted');
  assert.equal(r2.datasets[0].status, 'opened');
  const shown = await frame.evaluate(() => window.hpcscope.state().datasets.map((d) => d.root));
  assert.ok(shown.includes(DB) && shown.includes('posted'), JSON.stringify(shown));
  // A bad request is answered with an error.
  await page.evaluate(() => document.getElementById('viewer').contentWindow.postMessage({ type: 'open', requestId: 9 }, '*'));
  await page.waitForFunction(() => window.replies.length >= 3, null, { timeout: 30000 });
  const r3 = await page.evaluate(() => window.replies[2]);
  assert.equal(r3.type, 'error');
  assert.equal(r3.requestId, 9);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a deep link reopens the same node, zoom and time range', { skip: SKIP }, async () => {
  const page = await env.page.context().newPage();
  const link = `${env.url}#url=${encodeURIComponent(dataUrl)}&view=profile&metric=0&node=9&zoom=3`;
  await page.goto(link);
  await page.waitForFunction(() => window.hpcscope && window.hpcscope.linkOpened);
  await page.evaluate(() => window.hpcscope.linkOpened);
  await page.waitForFunction(() => window.hpcscopeProfile && window.hpcscope.state().views.profile?.selected?.node === 9, null, { timeout: 30000 });
  const st = await page.evaluate(() => window.hpcscope.state());
  assert.equal(st.view, 'profile');
  assert.equal(st.views.profile.selected.node, 9);
  assert.equal(st.views.profile.flame.zoom.node, 3);
  // The trace view at a time range, then the link the page makes of it.
  const t = await page.evaluate(async () => {
    window.hpcscope.showView('timeline');
    return null;
  });
  assert.equal(t, null);
  await page.waitForFunction(() => window.hpcscope.state().views.timeline?.status === 'ok', null, { timeout: 30000 });
  const full = await page.evaluate(() => window.hpcscope.state().views.timeline.time_range_ns);
  await page.close();

  const t0 = Math.round(full[1] * 0.25);
  const t1 = Math.round(full[1] * 0.5);
  const page2 = await env.page.context().newPage();
  await page2.goto(`${env.url}#url=${encodeURIComponent(dataUrl)}&view=timeline&node=9&t0=${t0}&t1=${t1}`);
  await page2.waitForFunction(() => window.hpcscope && window.hpcscope.linkOpened);
  await page2.evaluate(() => window.hpcscope.linkOpened);
  await page2.waitForFunction(() => window.hpcscope.state().views.timeline?.status === 'ok', null, { timeout: 30000 });
  const range = await page2.evaluate(() => window.hpcscope.state().views.timeline.time_range_ns);
  assert.deepEqual(range, [t0, t1]);
  // The page's own link carries the same picture, and the hash follows it.
  const made = await page2.evaluate(() => window.hpcscope.link());
  const h = new URLSearchParams(made.split('#')[1]);
  assert.equal(h.get('url'), dataUrl);
  assert.equal(h.get('view'), 'timeline');
  assert.equal(h.get('node'), '9');
  assert.equal(Number(h.get('t0')), t0);
  assert.equal(Number(h.get('t1')), t1);
  await page2.waitForFunction((m) => location.href === m, made, { timeout: 5000 });
  // Reopening the page's own link shows the profile node again.
  const page3 = await env.page.context().newPage();
  await page3.goto(made.replace('view=timeline', 'view=profile'));
  await page3.evaluate(() => window.hpcscope.linkOpened);
  await page3.waitForFunction(() => window.hpcscope.state().views.profile?.selected?.node === 9, null, { timeout: 30000 });
  await page2.close();
  await page3.close();
});

test('the Export menu downloads folded stacks and speedscope JSON of the selected dataset', { skip: SKIP }, async () => {
  const page = await env.page.context().newPage();
  await page.goto(`${env.url}#url=${encodeURIComponent(dataUrl)}&view=profile`);
  await page.evaluate(() => window.hpcscope.linkOpened);
  await page.waitForFunction(() => window.hpcscopeProfile && window.hpcscope.state().views.profile?.flame, null, { timeout: 30000 });
  const grab = async (format) => {
    const [dl] = await Promise.all([
      page.waitForEvent('download'),
      page.selectOption('#export-format', format),
    ]);
    const file = await dl.path();
    return { name: dl.suggestedFilename(), text: fs.readFileSync(file, 'utf8') };
  };
  const folded = await grab('folded');
  assert.equal(folded.name, `${DB}.folded`);
  const sum = folded.text.trim().split('\n').reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  // The lines sum to the flame graph's root (the summary's inclusive value of the metric shown).
  const root = await page.evaluate(() => window.hpcscope.state().views.profile.flame.frames.find((f) => f.depth === 0)?.inclusive);
  assert.ok(root > 0);
  assert.ok(Math.abs(sum - root) <= root * 1e-9, `${sum} vs ${root}`);
  const ss = await grab('speedscope');
  assert.equal(ss.name, `${DB}.speedscope.json`);
  const j = JSON.parse(ss.text);
  assert.equal(j.$schema, 'https://www.speedscope.app/file-format-schema.json');
  assert.equal(j.profiles[0].type, 'sampled');
  assert.ok(j.profiles.some((p) => p.type === 'evented'), 'traced dataset has evented profiles');
  await page.close();
});
