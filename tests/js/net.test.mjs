// The Worker's HTTP layer without a browser: a ranged answer is checked against the file as it
// was opened (the range asked for, ETag, Last-Modified, size), the request pool never runs more
// than its limit at once, and NetStats counts requests, bytes, concurrency and waiting per source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RemoteFile, FetchPool } from '../../www/net/remote-file.js';
import { NetStats } from '../../www/net/net-stats.js';

const URL_ = 'http://127.0.0.1:9/db/trace.db';
const headers = (h) => (n) => h[n] ?? null;

test('ranged answers are checked against the file as opened', () => {
  const f = new RemoteFile(URL_, 1000, { etag: '"a1"', lastModified: 'Tue, 25 Nov 2025 10:00:00 GMT' });
  const ok = { etag: '"a1"', 'last-modified': 'Tue, 25 Nov 2025 10:00:00 GMT', 'content-range': 'bytes 100-199/1000' };
  assert.equal(f.check(206, headers(ok), 100, 200), null);
  const msg = (status, h, a = 100, b = 200) => f.check(status, headers(h), a, b)?.message ?? null;
  assert.match(msg(200, ok), /^cannot read http:\/\/127\.0\.0\.1:9\/db\/trace\.db: the server ignores HTTP Range/);
  assert.match(msg(500, ok), /HTTP 500 for bytes 100-199/);
  assert.match(msg(206, { ...ok, etag: '"b2"' }), /changed on the server since it was opened \(ETag "a1" became "b2"\)/);
  assert.match(msg(206, { ...ok, 'last-modified': 'Tue, 25 Nov 2025 11:00:00 GMT' }), /changed on the server.*Last-Modified/);
  assert.match(msg(206, { ...ok, 'content-range': 'bytes 100-199/2000' }), /1000 bytes, now 2000/);
  assert.match(msg(206, { ...ok, 'content-range': 'bytes 0-99/1000' }), /answered bytes 0-99 to a request for bytes 100-199/);
  // Validators the server does not send (or CORS hides) are not checked.
  assert.equal(f.check(206, headers({ 'content-range': 'bytes 100-199/1000' }), 100, 200), null);
  const bare = new RemoteFile(URL_, 1000);
  assert.equal(bare.check(206, headers({ ...ok, etag: '"zz"' }), 100, 200), null);
});

test('the pool runs at most its limit at once, in order', async () => {
  const pool = new FetchPool(3);
  let running = 0;
  let most = 0;
  const order = [];
  const tasks = Array.from({ length: 10 }, (_, i) => pool.run(async () => {
    running++;
    most = Math.max(most, running);
    order.push(i);
    await new Promise((r) => setTimeout(r, 5 + (i % 3)));
    running--;
    if (i === 7) throw new Error('seven');
    return i * 2;
  }));
  const got = await Promise.allSettled(tasks);
  assert.equal(most, 3);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(got.map((g) => g.status === 'fulfilled' ? g.value : g.reason.message), [0, 2, 4, 6, 8, 10, 12, 'seven', 16, 18]);
});

test('NetStats counts per source: requests, bytes, most in flight, time waiting', async () => {
  const notes = [];
  const net = new NetStats((s) => notes.push(s));
  const a = net.begin('http://x/a.db');
  const b = net.begin('http://x/a.db');
  const c = net.begin('http://x/b.db');
  assert.equal(net.inFlight(), 3);
  await new Promise((r) => setTimeout(r, 30));
  a(100);
  b(50, { aborted: true, error: true });
  c(7);
  c(1000); // ended once only
  const s = net.snapshot();
  assert.equal(s.requests, 3);
  assert.equal(s.bytes, 157);
  assert.equal(s.aborted_bytes, 50);
  assert.equal(s.in_flight, 0);
  assert.equal(s.max_in_flight, 2);
  const [sa, sb] = s.sources;
  assert.deepEqual([sa.url, sa.requests, sa.bytes, sa.max_in_flight, sa.errors], ['http://x/a.db', 2, 150, 2, 1]);
  assert.deepEqual([sb.url, sb.requests, sb.bytes, sb.max_in_flight, sb.errors], ['http://x/b.db', 1, 7, 1, 0]);
  // Both waited ~30 ms, with their requests overlapping: counted once per source.
  assert.ok(sa.wait_ms >= 25 && sa.wait_ms < 1000, String(sa.wait_ms));
  assert.ok(s.wait_ms >= 50, String(s.wait_ms));
  // The page heard of the start and of the end (nothing in flight).
  assert.equal(notes[0].in_flight, 1);
  assert.deepEqual(notes.at(-1), { requests: 3, bytes: 157, in_flight: 0, reading: [] });
});

test('NetStats counts waves: requests started while none was outstanding', () => {
  const net = new NetStats(null);
  // A batch sent at once is one wave, whatever the files and however its requests end.
  const batch = ['a', 'b', 'a', 'c'].map((f) => net.begin(`http://x/${f}.db`));
  batch[1](10);
  // One begun while others are still out joins their wave (a pool's queued request).
  const joined = net.begin('http://x/b.db');
  for (const end of [...batch, joined]) end(1);
  assert.equal(net.snapshot().waves, 1);
  // A chain, each request waiting for the one before: one wave each.
  for (let i = 0; i < 3; i++) net.begin('http://x/a.db')(5);
  const s = net.snapshot();
  assert.equal(s.waves, 4);
  assert.equal(s.requests, 8);
});
