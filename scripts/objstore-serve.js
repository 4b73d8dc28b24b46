// An object-store-like test server (S3, GCS, Azure Blob, CDNs): ONE byte range per request
// (`Range: bytes=a-b` gets a 206; a multi-range request gets the whole object with 200, as S3
// answers), every answer delayed by `latencyMs` before its headers, ETag and Last-Modified on
// every answer, CORS always on. Counts requests, bytes sent and concurrent requests; `faults`
// switches on the failures the error tests need (500 answers, connections dropped mid-body).
//   node scripts/objstore-serve.js DIR   (PORT, HOST, LATENCY_MS, MULTI=1 override defaults)
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerCors, requestedFile, byteRange, multipartBody } from './serve.js';

/**
 * Starts the server for `root`; resolves to the http.Server with `stats` ({requests, bytes,
 * ranged, whole, multi, inFlight, maxInFlight, aborted, log: [{path, range, method, t0, t1, bytes}]}: t0 when the
 * request came, t1 when its answer ended or was cut, in ms since `born`, the server's start as epoch ms) and `faults`, a mutable object read on
 * each request: `{status500: n, drop: n, match: RegExp}` answers the next n requests whose path
 * matches (all when no `match`) with HTTP 500, or cuts the next n ranged answers after half their
 * body. `multi: true` answers multi-range requests with a multipart/byteranges 206 instead.
 */
export function objstoreServe(root, { port = 0, host = '127.0.0.1', latencyMs = 0, multi = false } = {}) {
  const base = path.resolve(root);
  const stats = { requests: 0, bytes: 0, ranged: 0, whole: 0, multi: 0, inFlight: 0, maxInFlight: 0, aborted: 0, log: [], born: 0 };
  const faults = { status500: 0, drop: 0, match: null };
  const born = performance.now();
  stats.born = performance.timeOrigin + born;
  const server = http.createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
    stats.requests++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    let done = false;
    const entry = { path: req.url, range: req.headers.range || '', method: req.method, t0: performance.now() - born, t1: null, bytes: 0 };
    res.logEntry = entry;
    const finish = () => {
      if (!done) {
        done = true;
        stats.inFlight--;
        entry.t1 = performance.now() - born;
      }
    };
    res.on('close', () => {
      if (!res.writableFinished) stats.aborted++;
      finish();
    });
    // The last 10,000 requests, for tests asserting what was asked.
    if (stats.log.length >= 10000) stats.log.shift();
    stats.log.push(entry);
    setTimeout(() => answer(req, res), latencyMs);
  });

  function answer(req, res) {
    const exposed = 'content-range, content-length, accept-ranges, etag, last-modified';
    if (answerCors(req, res, 'range, if-match, if-range', exposed)) return;
    const { file, rel } = requestedFile(req, res, base) ?? {};
    if (!file) return;
    const hit = (n) => faults[n] > 0 && (!faults.match || faults.match.test(rel));
    if (hit('status500')) {
      faults.status500--;
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const head = {
        'content-type': 'application/octet-stream',
        'accept-ranges': 'bytes',
        etag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`,
        'last-modified': st.mtime.toUTCString(),
      };
      const spec = req.headers.range || '';
      const parts = /^bytes=(.+)$/.exec(spec)?.[1].split(',').map((p) => /^\s*(\d*)-(\d*)\s*$/.exec(p)) ?? [];
      if (parts.length > 1 && multi && parts.every((m) => m && m[1] !== '' && m[2] !== '')) {
        multipart(req, res, file, st.size, head, parts.map((m) => [Number(m[1]), Number(m[2])]));
        return;
      }
      const m = parts.length === 1 ? parts[0] : null;
      if (m && (m[1] !== '' || m[2] !== '')) {
        const r = byteRange(res, m, st.size);
        if (!r) return;
        const [a, b] = r;
        stats.ranged++;
        res.writeHead(206, { ...head, 'content-length': b - a + 1, 'content-range': `bytes ${a}-${b}/${st.size}` });
        if (req.method === 'HEAD') return res.end();
        if (hit('drop')) {
          faults.drop--;
          dropMidBody(res, file, a, b);
          return;
        }
        send(res, file, a, b);
        return;
      }
      // No range, or several (S3 answers a multi-range request with the whole object).
      stats.whole++;
      res.writeHead(200, { ...head, 'content-length': st.size });
      if (req.method === 'HEAD') return res.end();
      send(res, file, 0, st.size - 1);
    });
  }

  function send(res, file, a, b) {
    if (b < a) return res.end();
    const stream = fs.createReadStream(file, { start: a, end: b });
    stream.on('data', (c) => {
      stats.bytes += c.length;
      if (res.logEntry) res.logEntry.bytes += c.length;
    });
    res.on('close', () => stream.destroy());
    stream.pipe(res);
  }

  /** Sends half of bytes a..b, then closes the connection (a server or proxy failing mid-body). */
  function dropMidBody(res, file, a, b) {
    const half = Math.max(1, Math.floor((b - a + 1) / 2));
    const buf = Buffer.alloc(half);
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, buf, 0, half, a);
    } finally {
      fs.closeSync(fd);
    }
    stats.bytes += half;
    res.write(buf, () => res.socket?.destroy());
  }

  function multipart(req, res, file, size, head, ranges) {
    const boundary = `objstore-${Date.now().toString(36)}`;
    const body = multipartBody(file, size, 'application/octet-stream', ranges, boundary);
    stats.ranged++;
    stats.multi++;
    res.writeHead(206, { ...head, 'content-type': `multipart/byteranges; boundary=${boundary}`, 'content-length': body.length });
    if (req.method === 'HEAD') return res.end();
    stats.bytes += body.length;
    res.end(body);
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.stats = stats;
    server.faults = faults;
    // Keep-alive sockets would outlive close(): the tests stop the server between cases.
    server.keepAliveTimeout = 1000;
    server.listen(port, host, () => resolve(server));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] || '.';
  const port = Number(process.env.PORT || 8081);
  objstoreServe(root, {
    port,
    host: process.env.HOST || '127.0.0.1',
    latencyMs: Number(process.env.LATENCY_MS || 30),
    multi: !!process.env.MULTI,
  }).then((s) => {
    console.log(`objstore: serving ${root} at http://${s.address().address}:${s.address().port}/ (one range per request, ${process.env.LATENCY_MS || 30} ms per request)`);
  }, (e) => {
    console.error(`objstore: cannot serve on port ${port}: ${e.message}`);
    process.exit(1);
  });
}
