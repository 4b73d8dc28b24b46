// A DCPI profile (seed 003), written here from the grammar, dropped on the page: the summary shows
// its header lines (the unknown one included) and the Address histogram view draws its samples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appForFile, screenshot } from './helpers.mjs';

/** Header lines, `samples` padded to 4 bytes, then little-endian chunks and footer. */
function dcpiProfile(lines, chunks) {
  let head = lines.map((l) => `${l}\n`).join('') + 'samples';
  while ((head.length + 1) % 4) head += ' ';
  head += '\n';
  const words = [];
  let offsets = 0;
  let samples = 0;
  for (const [offset, counts] of chunks) {
    words.push(offset, counts.length, ...counts);
    offsets += counts.filter((c) => c > 0).length;
    samples += counts.reduce((a, b) => a + b, 0);
  }
  words.push(offsets, samples);
  const body = Buffer.alloc(words.length * 4);
  words.forEach((w, i) => body.writeUInt32LE(w, i * 4));
  return Buffer.concat([Buffer.from(head, 'ascii'), body]);
}

const app = appForFile();

test('a DCPI profile opens and its address histogram is drawn', async () => {
  const { page, problems } = app;
  const bytes = dcpiProfile([
    'image 3a5f09c2', 'epoch 9703141230', 'platform alpha', 'event cycles', 'period 65536',
    'tsize 4096', 'cpuspeed 300', 'path /usr/bin/solver', 'tstart 120000000', 'future-key kept as is',
  ], [[0x40, [5, 0, 7]], [0x100, [100]]]);
  await page.setInputFiles('#file-input', [
    { name: 'solver.prof', mimeType: 'application/octet-stream', buffer: bytes },
  ]);
  await page.waitForFunction(() => window.hpcscope.state().datasets.some((d) => d.format === 'dcpi'));
  const s = await page.evaluate(() => window.hpcscope.state());
  const d = s.datasets.find((x) => x.format === 'dcpi');
  assert.equal(d.status, 'opened');
  assert.equal(d.layout, 'DCPI profile');
  assert.equal(d.title, '/usr/bin/solver');
  assert.deepEqual(d.warnings, []);
  const facts = Object.fromEntries(d.facts);
  assert.equal(facts['future-key (unknown line, kept)'], 'kept as is');
  assert.equal(facts['total samples'], '112');
  await page.evaluate((id) => window.hpcscope.select(id), d.id);
  await page.evaluate(() => window.hpcscope.showView('histogram'));
  await page.waitForFunction(() => (window.hpcscope.state().views.histogram || {}).bins > 0);
  const h = await page.evaluate(() => window.hpcscope.state().views.histogram);
  assert.equal(h.dataset, d.id);
  assert.equal(h.total, 112);
  assert.equal(h.max, 100);
  // 0x120000040 ..= 0x120000100 is 193 addresses: fewer than the bins asked for, one per address.
  assert.equal(h.bins, 193);
  assert.deepEqual(h.peak, { start: 0x120000100, end: 0x120000100, samples: 100 });
  assert.match(await page.locator('#view [data-field="histogram-info"]').innerText(), /112 samples in 193 bins; peak 100/);
  // Hovering the peak bar names its range.
  const box = await page.locator('#view canvas[data-field="histogram"]').boundingBox();
  await page.mouse.move(box.x + box.width - 14, box.y + box.height / 2);
  assert.match(await page.locator('#view [data-field="histogram-info"]').innerText(), /0x120000100–0x120000100: 100 samples/);
  await screenshot(page, 'dcpi-histogram.png');
  assert.deepEqual(problems, []);
});
