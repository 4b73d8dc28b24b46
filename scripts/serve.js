// A tiny static file server for dist/ (no dependencies): `node scripts/serve.js [dir]`, port $PORT
// or 8080. Serves .wasm as application/wasm so the browser can compile it while it downloads.
// Imported by the end-to-end tests, which start it on a free port.
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

/** Starts a server for `root` on `port` (0: any free port); resolves to the http.Server. */
export function serve(root, port = 0, host = '127.0.0.1') {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.resolve(base, '.' + rel);
    if (file !== base && !file.startsWith(base + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, {
        'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
        'content-length': st.size,
        'cache-control': 'no-cache',
        'content-security-policy': `${CSP}; frame-ancestors *`,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] || path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
  const port = Number(process.env.PORT || 8080);
  const host = process.env.HOST || '0.0.0.0';
  serve(root, port, host).then((s) => {
    console.log(`hpcscope: serving ${root} at http://localhost:${s.address().port}/`);
  }, (e) => {
    console.error(`hpcscope: cannot serve on port ${port}: ${e.message}`);
    process.exit(1);
  });
}
