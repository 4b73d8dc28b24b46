// The viewer and a database served by a real nginx (Debian's nginx-light, which scripts/setup.sh
// installs), started here on a loopback port with its own configuration under target/: the page
// from dist/, the database (`hpcscope synth`) from another location on the same origin. nginx
// answers multi-range requests, so batches go as one request each; the dataset, its counts and
// its exact trace frames equal those of the bytes dropped. Skips, saying why, when nginx or the
// native binary is missing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { start, ROOT, DIST } from './helpers.mjs';
import { BIN, WORK, DB, LINES, ensureSynthDb, exactFrame, openBytes, runNs } from './synth-db.mjs';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p));
const SKIP = !NGINX ? 'skipping: nginx not installed (apt-get install nginx-light, or bash scripts/setup.sh)'
  : !BIN ? 'skipping: target/*/hpcscope not built (run cargo test or cargo build first)' : false;
if (SKIP) console.log(SKIP);
const CONF_DIR = path.join(ROOT, 'target', 'nginx-e2e');

let app;
let nginx;
let origin;

/** A free loopback port (taken and released: nginx binds it right after). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function config(port) {
  const mime = fs.existsSync('/etc/nginx/mime.types') ? 'include /etc/nginx/mime.types;' : 'types { text/html html; application/javascript js; text/css css; application/wasm wasm; application/json json; }';
  const p = (f) => path.join(CONF_DIR, f);
  return `daemon off;
master_process off;
worker_processes 1;
pid ${p('nginx.pid')};
error_log ${p('error.log')} warn;
events { worker_connections 64; }
http {
  ${mime}
  default_type application/octet-stream;
  access_log ${p('access.log')};
  client_body_temp_path ${p('tmp-body')};
  proxy_temp_path ${p('tmp-proxy')};
  fastcgi_temp_path ${p('tmp-fastcgi')};
  uwsgi_temp_path ${p('tmp-uwsgi')};
  scgi_temp_path ${p('tmp-scgi')};
  server {
    listen 127.0.0.1:${port};
    location / { root ${DIST}; }
    location /data/ { alias ${WORK}/; }
  }
}
`;
}

before(async () => {
  if (SKIP) return;
  ensureSynthDb();
  fs.rmSync(CONF_DIR, { recursive: true, force: true });
  fs.mkdirSync(CONF_DIR, { recursive: true });
  const port = await freePort();
  const conf = path.join(CONF_DIR, 'nginx.conf');
  fs.writeFileSync(conf, config(port));
  nginx = spawn(NGINX, ['-p', CONF_DIR, '-c', conf, '-e', path.join(CONF_DIR, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  nginx.stderr.on('data', (c) => { stderr += c; });
  origin = `http://127.0.0.1:${port}`;
  // Up when it answers (at most 10 s).
  for (let i = 0; ; i++) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited (${nginx.exitCode}): ${stderr}`);
    const ok = await fetch(`${origin}/index.html`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 100) throw new Error(`nginx did not answer on ${origin}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  app = await start();
});

after(async () => {
  await app?.close();
  if (nginx && nginx.exitCode === null) {
    nginx.kill('SIGTERM');
    await new Promise((r) => nginx.once('exit', r));
  }
});

test('nginx serves the viewer and a database: opened by URL with multi-range requests, exact trace frames', { skip: SKIP }, async () => {
  const page = await app.page.context().newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => window.hpcscope && window.hpcscope.state().datasets.length > 0, null, { timeout: 30000 });
  await page.evaluate(() => window.hpcscope.ready);
  const report = await page.evaluate((u) => window.hpcscope.open(u, undefined, { wholeLimit: 0 }), `${origin}/data/${DB}/`);
  assert.equal(report.errors.length, 0, JSON.stringify(report.errors));
  const d = report.datasets[0];
  assert.equal(d.status, 'opened');
  assert.equal(d.format, 'hpctoolkit');
  const local = await openBytes(page);
  assert.deepEqual(d.counts, local.counts);
  const dur = await runNs(page, d.id);
  assert.deepEqual(await exactFrame(page, d.id, LINES, 0, dur), await exactFrame(page, local.id, LINES, 0, dur));
  // The Trace tab paints the exact picture.
  await page.evaluate((id) => { window.hpcscope.select(id); window.hpcscope.showView('timeline'); }, d.id);
  await page.waitForFunction(() => window.hpcscope.state().views.timeline?.exact, null, { timeout: 60000 });
  assert.equal(await page.evaluate(() => window.hpcscope.state().views.timeline.error), null);
  // nginx answered multi-range requests: no single-range staging; nothing fetched whole.
  const net = await page.evaluate(() => window.hpcscope.netStats());
  assert.equal(net.staged.staged_reads, 0, JSON.stringify(net.staged));
  assert.equal(net.aborted_bytes, 0);
  const log = fs.readFileSync(path.join(CONF_DIR, 'access.log'), 'utf8');
  assert.match(log, /"GET \/data\/synth\.d\/trace\.db HTTP\/1\.1" 206 /);
  assert.deepEqual(problems, []);
  await page.close();
});
