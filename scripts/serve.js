// A tiny static file server for dist/ (no dependencies): `node scripts/serve.js [dir]`, port $PORT
// or 8080. Serves .wasm as application/wasm so the browser can compile it while it downloads.
// Answers HTTP Range requests (one range: 206 + Content-Range; several: a multipart/byteranges
// 206, as RFC 9110 section 14.6 describes) so the viewer can open large databases by URL, and with `cors` sends the CORS headers a page on another origin needs.
// Imported by the end-to-end tests and benchmarks, which start it on a free port.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

/**
 * The page's Content-Security-Policy (index.html carries the same in a <meta> tag for other
 * servers). Sent on every response so the Worker, whose policy comes from its own script's
 * response, is held to it too. connect-src stays open to http(s) because hpcscope.open(url) fetches
 * what the user asks for from any origin; only our own scripts can reach it (no inline script, no
 * eval), and they fetch nothing unasked (tests/e2e/security.test.mjs). The header adds what a <meta>
 * policy cannot say: frame-ancestors (documentation sites may embed the viewer).
 */
export const CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self' http: https: blob: data:; style-src 'self'; img-src 'self' data: blob:; font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; manifest-src 'none'";

/**
 * Starts a server for `root` on `port` (0: any free port); resolves to the http.Server, whose
 * `stats` counts requests and body bytes sent. Options: `cors` (allow any origin), `range`
 * (default true; false answers ranged requests with the whole file, like some servers do).
 */
export function serve(root, port = 0, host = '127.0.0.1', { cors = false, range = true, multi = true } = {}) {
  const base = path.resolve(root);
  const stats = { requests: 0, bytes: 0, ranged: 0, multi: 0 };
  // Range headers listing thousands of ranges are longer than Node's default 16 KiB limit.
  const server = http.createServer({ maxHeaderSize: 256 * 1024 }, (req, res) => {
    stats.requests++;
    res.setHeader('content-security-policy', `${CSP}; frame-ancestors *`);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    if (cors && answerCors(req, res, 'range', 'content-range, content-length, accept-ranges')) return;
    const { file } = requestedFile(req, res, base, 'index.html') ?? {};
    if (!file) return;
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const type = TYPES[path.extname(file)] || 'application/octet-stream';
      const spec = req.headers.range || '';
      if (range && multi && /^bytes=\d+-\d+(,\s*\d+-\d+)+$/.test(spec)) {
        multipart(req, res, file, st.size, type, spec, stats);
        return;
      }
      const m = range && /^bytes=(\d*)-(\d*)$/.exec(req.headers.range || '');
      if (m && (m[1] !== '' || m[2] !== '')) {
        const r = byteRange(res, m, st.size);
        if (!r) return;
        const [a, b] = r;
        stats.ranged++;
        res.writeHead(206, {
          'content-type': type,
          'content-length': b - a + 1,
          'content-range': `bytes ${a}-${b}/${st.size}`,
          'accept-ranges': 'bytes',
          'cache-control': 'no-cache',
        });
        if (req.method === 'HEAD') return res.end();
        stats.bytes += b - a + 1;
        fs.createReadStream(file, { start: a, end: b }).pipe(res);
        return;
      }
      res.writeHead(200, {
        'content-type': type,
        'content-length': st.size,
        'cache-control': 'no-cache',
        ...(range ? { 'accept-ranges': 'bytes' } : {}),
      });
      if (req.method === 'HEAD') return res.end();
      const stream = fs.createReadStream(file);
      stream.on('data', (c) => { stats.bytes += c.length; });
      stream.pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.stats = stats;
    server.listen(port, host, () => resolve(server));
  });
}

/** Sets the CORS headers a cross-origin viewer needs (`allow`: request headers it may send,
 * `expose`: response headers it may read); answers a preflight and returns true for one. */
export function answerCors(req, res, allow, expose) {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-allow-headers', allow);
  res.setHeader('access-control-expose-headers', expose);
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204).end();
  return true;
}

/**
 * The file under `base` that `req` names (`index` appended to a path ending in '/') and the
 * decoded path asked, or null after answering 400 (a bad escape) or 403 (a path outside `base`).
 */
export function requestedFile(req, res, base, index = '') {
  let rel;
  try {
    rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  } catch {
    res.writeHead(400).end('bad request');
    return null;
  }
  if (index && rel.endsWith('/')) rel += index;
  const file = path.resolve(base, '.' + rel);
  if (file !== base && !file.startsWith(base + path.sep)) {
    res.writeHead(403).end('forbidden');
    return null;
  }
  return { file, rel };
}

/** The bytes [a, b] one range `m` (a match of `(\d*)-(\d*)`: `a-b`, `a-` or `-n`) asks of a file of
 *  `size` bytes, clipped to it; null after answering 416 when none of it is in the file. */
export function byteRange(res, m, size) {
  const a = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
  const b = m[1] === '' || m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (a <= b && a < size) return [a, b];
  res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
  return null;
}

/** The multipart/byteranges body of bytes `ranges` ([a, b] pairs) of `file`: each range clipped to
 *  the file's `size`, one that starts past its end left out. Throws when the file cannot be read. */
export function multipartBody(file, size, type, ranges, boundary) {
  const chunks = [];
  const fd = fs.openSync(file, 'r');
  try {
    for (const [a, b0] of ranges) {
      const b = Math.min(b0, size - 1);
      if (a > b) continue;
      chunks.push(Buffer.from(`\r\n--${boundary}\r\ncontent-type: ${type}\r\ncontent-range: bytes ${a}-${b}/${size}\r\n\r\n`));
      const buf = Buffer.alloc(b - a + 1);
      fs.readSync(fd, buf, 0, buf.length, a);
      chunks.push(buf);
    }
  } finally {
    fs.closeSync(fd);
  }
  chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** A multipart/byteranges answer to `bytes=a-b,c-d,...` (ranges as asked, each clipped to the
 *  file; one that starts past the end is left out, all past the end is a 416). */
function multipart(req, res, file, size, type, spec, stats) {
  const ranges = spec.slice(6).split(',').map((p) => p.trim().split('-').map(Number));
  if (!ranges.some(([a, b]) => a < size && a <= b)) {
    res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
    return;
  }
  const boundary = `hpcscope-${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
  let body;
  try {
    body = multipartBody(file, size, type, ranges, boundary);
  } catch (e) {
    res.writeHead(500).end(String(e.message));
    return;
  }
  stats.ranged++;
  stats.multi++;
  res.writeHead(206, {
    'content-type': `multipart/byteranges; boundary=${boundary}`,
    'content-length': body.length,
    'accept-ranges': 'bytes',
    'cache-control': 'no-cache',
  });
  if (req.method === 'HEAD') return res.end();
  stats.bytes += body.length;
  res.end(body);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] || path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
  const port = Number(process.env.PORT || 8080);
  const host = process.env.HOST || '0.0.0.0';
  serve(root, port, host, { cors: !!process.env.CORS }).then((s) => {
    console.log(`hpcscope: serving ${root} at http://localhost:${s.address().port}/`);
  }, (e) => {
    console.error(`hpcscope: cannot serve on port ${port}: ${e.message}`);
    process.exit(1);
  });
}
