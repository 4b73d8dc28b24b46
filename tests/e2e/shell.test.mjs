// The page itself: the built-in example at start, the error banner for bad input (a random binary
// and a truncated meta.db) with no console error, keyboard use, and the page API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { appForFile, screenshot, field } from './helpers.mjs';

const app = appForFile();

test('the built-in example is shown at start', async () => {
  const { page } = app;
  const s = await page.evaluate(() => window.hpcscope.state());
  assert.equal(s.datasets.length, 1);
  const d = s.datasets[0];
  // The project's own writer's database, read like a dropped one.
  assert.equal(d.format, 'hpctoolkit');
  assert.equal(d.layout, 'v4.0 final');
  assert.equal(d.title, 'hpcscope example');
  assert.notEqual(d.status, 'failed');
  assert.deepEqual(s.errors, []);
  assert.equal(s.selected, d.id);
  assert.equal(s.view, 'summary');
  assert.equal(s.views.summary.dataset, d.id);
  // What the panel shows is what the engine said.
  assert.equal(await field(page, 'title'), d.title);
  assert.equal(await field(page, 'format'), d.format_name);
  assert.equal(await field(page, 'layout'), d.layout);
  const metrics = d.counts.find(([k]) => k === 'metrics');
  assert.ok(metrics && metrics[1] === 3, JSON.stringify(d.counts));
  const countText = await page.locator('#view [data-count="metrics"] .count-value').innerText();
  assert.equal(countText, String(metrics[1]));
  assert.equal(await page.locator('#dataset-list .dataset-item').count(), 1);
  await screenshot(page, 'start.png');
  const t = await page.evaluate(() => window.hpcscope.timings);
  console.log(`built-in example shown ${t.exampleShownMs.toFixed(0)} ms after navigation start`);
});

test('a random 1 MB binary and a truncated meta.db show an error banner naming each file', async () => {
  const { page, problems } = app;
  const random = crypto.randomBytes(1 << 20);
  random.write('RANDOMXX', 0); // never a magic we know
  // A meta.db cut inside its header: the General Properties pointer at 0x18 is missing.
  const meta = Buffer.concat([Buffer.from('HPCTOOLKITmeta'), Buffer.from([4, 0]), Buffer.alloc(6)]);
  await page.setInputFiles('#file-input', [
    { name: 'random.bin', mimeType: 'application/octet-stream', buffer: random },
  ]);
  await page.waitForFunction(() => window.hpcscope.state().errors.length >= 1);
  // The truncated database goes through a simulated drop of real File objects.
  await page.evaluate(async (bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'meta.db'));
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [...meta]);
  await page.waitForFunction(() => window.hpcscope.state().errors.length >= 2);
  const s = await page.evaluate(() => window.hpcscope.state());
  const byFile = Object.fromEntries(s.errors.map((e) => [e.file, e]));
  assert.equal(byFile['random.bin'].kind, 'unrecognized');
  assert.equal(byFile['meta.db'].kind, 'truncated');
  // The reader (or, without one, the header probe) names the structure and the offset.
  const metaErr = byFile['meta.db'];
  assert.match(metaErr.offset_hex, /^0x[0-9a-f]+$/);
  assert.ok(metaErr.offset < meta.length + 8, JSON.stringify(metaErr));
  assert.ok(metaErr.what.length > 3, JSON.stringify(metaErr));
  const banner = await page.locator('#banner').innerText();
  assert.match(banner, /random\.bin/);
  assert.match(banner, /meta\.db/);
  assert.ok(banner.includes(metaErr.offset_hex), banner);
  assert.ok(banner.includes(metaErr.what), banner);
  // The example is still there, and the broken database is listed with its error.
  assert.equal(s.datasets.length, 2);
  const broken = s.datasets.find((d) => d.root === '' && d.format === 'hpctoolkit');
  assert.equal(broken.status, 'failed');
  assert.equal(s.selected, broken.id);
  assert.match(await page.locator('#view [data-field="error"]').innerText(), /truncated/);
  await screenshot(page, 'errors.png');
  // Dismissing keeps the datasets.
  await page.click('#dismiss-all');
  const after = await page.evaluate(() => window.hpcscope.state());
  assert.equal(after.errors.length, 0);
  assert.equal(after.datasets.length, 2);
  assert.equal(await page.locator('#banner').isVisible(), false);
  assert.deepEqual(problems, []);
});

test('the page API opens [{path, bytes}] and the keyboard moves through datasets', async () => {
  const { page, problems } = app;
  const report = await page.evaluate(async () => {
    const info = new Uint8Array(64);
    info.set(new TextEncoder().encode('Ftrace!\0'), 0);
    new DataView(info.buffer).setUint32(8, 4, true); // file version
    new DataView(info.buffer).setUint16(12, 40, true); // header size
    info[14] = 1; // little-endian
    info[15] = 2; // 64-bit
    return window.hpcscope.open([
      { path: 'demo/uftrace.data/info', bytes: info },
      { path: 'demo/uftrace.data/1234.dat', bytes: new Uint8Array(16) },
    ]);
  });
  assert.equal(report.datasets.length, 1);
  assert.equal(report.datasets[0].format, 'uftrace');
  assert.equal(report.datasets[0].layout, 'uftrace file version 4');
  assert.equal(await field(page, 'layout'), 'uftrace file version 4');
  // Arrow keys in the dataset list change the selection; Delete closes a dataset.
  const before = await page.evaluate(() => window.hpcscope.state());
  await page.focus('#dataset-list .dataset-item.selected');
  await page.keyboard.press('ArrowUp');
  const mid = await page.evaluate(() => window.hpcscope.state());
  assert.equal(mid.selected, before.datasets[before.datasets.length - 2].id);
  await page.keyboard.press('Delete');
  await page.waitForFunction((n) => window.hpcscope.state().datasets.length === n, before.datasets.length - 1);
  assert.deepEqual(problems, []);
});

test('hpcscope.open(url) fetches the file and reports what it is', async () => {
  const { page, problems } = app;
  const report = await page.evaluate(() => window.hpcscope.open('www/style.css'));
  // A stylesheet is no performance data: the banner names the fetched file.
  assert.equal(report.datasets.length, 0);
  assert.equal(report.errors.length, 1);
  assert.equal(report.errors[0].file, 'style.css');
  assert.equal(report.errors[0].kind, 'unrecognized');
  assert.match(await page.locator('#banner').innerText(), /style\.css/);
  await page.evaluate(() => window.hpcscope.dismissErrors());
  // A missing URL rejects the promise and says why in the banner.
  const err = await page.evaluate(() => window.hpcscope.open('no/such/file.db').then(() => null, (e) => e.message));
  assert.match(err, /HTTP 404/);
  assert.match(await page.locator('#banner').innerText(), /HTTP 404/);
  await page.evaluate(() => window.hpcscope.dismissErrors());
  // The URL reader cancels speculative requests (they show as failed) and the 404 is logged.
  assert.deepEqual(problems.filter((p) => !p.includes('404') && !p.startsWith('request failed')), []);
  problems.length = 0;
});

test('dark colour scheme renders the same page', async () => {
  const { page } = app;
  await page.emulateMedia({ colorScheme: 'dark' });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(21, 24, 29)');
  await page.evaluate(() => window.hpcscope.select(window.hpcscope.state().datasets[0].id));
  await screenshot(page, 'dark.png');
  await page.emulateMedia({ colorScheme: 'light' });
});
