// Hostile files and privacy (issue 9), in headless Chromium under the page's Content-Security-Policy
// (helpers.mjs counts CSP violations as problems):
//  - a database whose title, function names, file paths and folder name carry HTML/JS, control
//    characters, invalid UTF-8 and 1 MB of text shows them as text: no dialog, no script, no element;
//  - a 100,000-deep call path (generated database and generated uftrace recording) opens and the
//    flame graph, tree table and trace view render it;
//  - opening every dataset (each of the corpus when it is there, and each one the project generates)
//    makes no request outside the serving origin (workers included).
// Inputs are generated on the fly with the native CLI (`hpcscope synth`, `hpcscope fixture`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { start, dropFolder, hasCorpus, CORPUS, ROOT } from './helpers.mjs';
import { generatedDatasets } from './generated.mjs';

const TMP = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'hpcscope-e2e-security-'));

/** Runs the native CLI (`$HPCSCOPE_BIN`, else through cargo). */
function cli(...args) {
  const bin = process.env.HPCSCOPE_BIN;
  const [cmd, pre] = bin ? [bin, []] : ['cargo', ['run', '--quiet', '--bin', 'hpcscope', '--']];
  execFileSync(cmd, [...pre, ...args], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26,
  });
}

const IMG = '<img src=x onerror="window.__pwned=1;alert(1)">';
const SCRIPT = '</script><script>window.__pwned=2;alert(2)</script>';
const CTRL = 'ctl\u0001\u0007\u001b[31mred\u007f\u202eevil';
const BAD = 'bad@@@@utf8'; // @@@@ becomes ff fe c3 28 in meta.db
const LONG = `long:${'x'.repeat(1_000_000)}`; // 1 MB; readers cap C strings at 1 MiB
const FOLDER = '<img src=x onerror=alert(3)>';

let app;
let dialogs = [];
before(async () => {
  app = await start();
  app.page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
});
after(async () => {
  await app?.close();
  fs.rmSync(TMP, { recursive: true, force: true });
});

/** Drops folder `dir` through the folder picker; resolves to the new dataset's summary. */
async function dropOne(page, dir) {
  return (await dropFolder(page, dir, { timeout: 120000 })).added[0];
}

async function showView(page, id, ready) {
  await page.evaluate((v) => window.hpcscope.showView(v), id);
  await page.waitForFunction(ready, null, { timeout: 120000 });
  return page.evaluate(() => window.hpcscope.state());
}

async function noPayloadRan(page) {
  const r = await page.evaluate(() => ({
    pwned: window.__pwned,
    imgs: document.querySelectorAll('img[src="x"], img[onerror]').length,
    scripts: Array.from(document.scripts).map((s) => s.src.replace(location.origin, '')),
  }));
  assert.equal(r.pwned, undefined, 'no payload script ran');
  assert.equal(r.imgs, 0, 'no element made from a payload');
  assert.deepEqual(r.scripts, ['/www/app.js']);
  assert.deepEqual(dialogs, [], 'no dialog');
}

test('hostile names are shown as text and never run', async () => {
  const { page, problems } = app;
  const dir = path.join(TMP, FOLDER);
  const longFile = path.join(TMP, 'long.txt');
  fs.writeFileSync(longFile, LONG);
  cli('synth', '--ranks', '1', '--threads', '2', '--contexts', '80', '--metrics', '2', '--samples', '500',
    '--title', `${IMG} ${SCRIPT}`, '--name', IMG, '--name', SCRIPT, '--name', CTRL, '--name', BAD,
    '--name-file', longFile, dir);
  const meta = fs.readFileSync(path.join(dir, 'meta.db'));
  let at = meta.indexOf('@@@@');
  assert.ok(at > 0);
  while (at >= 0) {
    meta.set([0xff, 0xfe, 0xc3, 0x28], at);
    at = meta.indexOf('@@@@', at);
  }
  fs.writeFileSync(path.join(dir, 'meta.db'), meta);

  const d = await dropOne(page, dir);
  assert.equal(d.status, 'opened', JSON.stringify(d.error));
  assert.equal(d.root, FOLDER);
  // Summary panel and dataset list: the strings literally, as text.
  const text = await page.evaluate(() => document.body.textContent);
  assert.ok(text.includes(`${IMG} ${SCRIPT}`), 'title shown literally');
  const listed = await page.locator('#dataset-list').textContent();
  assert.ok(listed.includes(FOLDER), 'folder name shown literally in the dataset list');
  await noPayloadRan(page);

  // Profile view: the names reach the page intact (lossy only where the bytes are not UTF-8).
  const s = await showView(page, 'profile', () => {
    const v = window.hpcscope.state().views.profile;
    return v && v.flame && v.flame.rects > 0 && v.table && v.table.rows > 0;
  });
  const names = await page.evaluate(async (id) => (await window.hpcscope.engine.call('profile_meta', id)).names, s.selected);
  for (const want of [IMG, SCRIPT, CTRL, LONG]) assert.ok(names.includes(want), `name ${want.slice(0, 40)}`);
  assert.ok(names.some((n) => n.startsWith('bad') && n.endsWith('utf8') && n.includes('\ufffd')), 'invalid UTF-8 replaced');
  // Searching for the payload marks it in the flame graph and table; the DOM still holds no payload.
  const box = page.locator('#view input[type="search"]').first();
  if (await box.count()) {
    await box.fill('onerror');
    await box.press('Enter');
    await page.waitForTimeout(500);
  }
  await noPayloadRan(page);
  // Hovering the 1 MB name's frame shows the name's start and its length, at once: the tooltip,
  // which breaks text anywhere, does not lay out a million characters (nor the 1 MB file path).
  const fbox = await page.locator('[data-testid="flame-canvas"]').boundingBox();
  const centre = (f, depth0) => [fbox.x + (f.x + f.width / 2) * fbox.width, fbox.y + (f.depth - depth0) * 18 + 9];
  // Its frame is far under a pixel wide (random weight): "Go to match" zooms to its caller.
  const search = page.locator('#view input[type="search"]').first();
  await search.fill('long:xxxxxxxx');
  await search.press('Enter');
  const go = page.getByRole('button', { name: 'Go to match' });
  await go.waitFor({ state: 'visible', timeout: 20000 });
  await go.click();
  await page.waitForFunction(() => {
    const f = window.hpcscope.state().views.profile.flame;
    return f.frames.some((x) => x.name.startsWith('long:') && x.width > 0.5);
  }, null, { timeout: 20000 });
  await page.waitForTimeout(400);
  const prof = (await page.evaluate(() => window.hpcscope.state())).views.profile;
  const long = prof.flame.frames.find((f) => f.name === LONG);
  assert.ok(long, 'the 1 MB name has a frame');
  await page.mouse.move(fbox.x + 2, fbox.y + fbox.height - 2);
  const hoverAt = Date.now();
  await page.mouse.move(...centre(long, prof.flame.depth0));
  await page.waitForFunction(() => {
    const t = document.querySelector('[data-testid="flame-tooltip"]');
    return t && !t.hidden && /inclusive/.test(t.textContent) && /source/.test(t.textContent);
  }, null, { timeout: 20000 });
  const tipMs = Date.now() - hoverAt;
  const tip = await page.locator('[data-testid="flame-tooltip"]').textContent();
  assert.ok(tip.startsWith(`${LONG.slice(0, 2000)}… (1,000,005 characters)`), tip.slice(0, 80));
  assert.ok(tip.length < 10000, `tooltip holds ${tip.length} characters`);
  assert.ok(tipMs < 5000, `tooltip took ${tipMs} ms`);
  // The bottom-up table's row of the long name holds it whole (its cell clips it with CSS).
  const lengths = await page.evaluate(async (id) => {
    const w = await window.hpcscope.engine.call('table_window', id, 'bottomup', 0, 200);
    return w[5].map((l) => l.length); // [node, depth, flags, cct, values, labels]
  }, s.selected);
  assert.ok(lengths.includes(LONG.length), 'bottom-up table lists the 1 MB name');
  await showView(page, 'timeline', () => {
    const v = window.hpcscope.state().views.timeline;
    return v && v.status === 'ok';
  });
  await page.waitForTimeout(500);
  await noPayloadRan(page);
  assert.deepEqual(problems, []);
});

test('a 1 MB identifier name labels trace rows without stalling the timeline', async () => {
  const { page, problems } = app;
  const dir = path.join(TMP, 'long-id.d');
  cli('synth', '--ranks', '1', '--threads', '2', '--contexts', '60', '--metrics', '1', '--samples', '300', dir);
  // Point identifier kind 3 (THREAD) at a 1 MB name appended before meta.db's footer.
  const meta = fs.readFileSync(path.join(dir, 'meta.db'));
  const body = meta.subarray(0, meta.length - 8);
  const footer = meta.subarray(meta.length - 8);
  const sec = Number(meta.readBigUInt64LE(0x28));
  const names = Number(meta.readBigUInt64LE(sec));
  const name = Buffer.from(`THREAD${'\u202e<b>x</b>'.repeat(10)}${'t'.repeat(1_000_000)}\0`);
  const pad = Buffer.alloc((8 - ((body.length + name.length) % 8)) % 8);
  const out = Buffer.concat([body, name, pad, footer]);
  out.writeBigUInt64LE(BigInt(body.length), names + 8 * 3);
  fs.writeFileSync(path.join(dir, 'meta.db'), out);

  const d = await dropOne(page, dir);
  assert.equal(d.status, 'opened', JSON.stringify(d.error));
  const shownAt = Date.now();
  const s = await showView(page, 'timeline', () => {
    const v = window.hpcscope.state().views.timeline;
    return v && v.status === 'ok' && v.frames_painted > 0;
  });
  const ms = Date.now() - shownAt;
  const labels = s.views.timeline.rows.labels;
  assert.ok(labels.some((l) => l.includes('THREAD\u202e<b>x</b>') && l.length > 1_000_000), 'row label holds the name');
  assert.ok(ms < 20000, `timeline took ${ms} ms`);
  await noPayloadRan(page);
  assert.deepEqual(problems, []);
});

test('a 100,000-deep call path opens and renders (database and uftrace recording)', async () => {
  const { page, problems } = app;
  const db = path.join(TMP, 'deep.d');
  cli('synth', '--ranks', '1', '--threads', '1', '--contexts', '60', '--metrics', '1', '--samples', '400',
    '--chain', '100000', db);
  const rec = path.join(TMP, 'deep-uftrace', 'uftrace.data');
  cli('fixture', 'uftrace-deep', '--depth', '100000', rec);
  for (const dir of [db, rec]) {
    const d = await dropOne(page, dir);
    assert.equal(d.status, 'opened', `${dir}: ${JSON.stringify(d.error)}`);
    const s = await showView(page, 'profile', () => {
      const v = window.hpcscope.state().views.profile;
      return v && v.flame && v.flame.rects > 0 && v.table && v.table.rows > 0;
    });
    const p = s.views.profile;
    assert.ok(p.flame.maxDepth >= 100000, `${dir}: flame depth ${p.flame.maxDepth}`);
    const t = await showView(page, 'timeline', () => {
      const v = window.hpcscope.state().views.timeline;
      return v && v.status === 'ok';
    });
    assert.ok(t.views.timeline.max_depth >= 100000, `${dir}: trace depth ${t.views.timeline.max_depth}`);
    console.log(`${path.basename(dir)}: flame depth ${p.flame.maxDepth}, trace depth ${t.views.timeline.max_depth}`);
  }
  assert.deepEqual(problems, []);
});

test('opening every dataset (corpus and generated) requests nothing outside the serving origin', async () => {
  const seen = [];
  const own = await start({
    onContext: async (context) => {
      context.on('request', (r) => seen.push(r.url()));
      // route sees worker requests too.
      await context.route('**/*', (route) => {
        seen.push(route.request().url());
        route.continue();
      });
    },
  });
  try {
    const sub = (dir) => fs.readdirSync(path.join(CORPUS, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory()).map((e) => path.join(CORPUS, dir, e.name)).sort();
    const dirs = [];
    if (hasCorpus()) {
      for (const top of ['hpctoolkit/v4', 'hpctoolkit/v4-draft', 'hpctoolkit/prof2', 'hpctoolkit/xml', 'hpcrun']) {
        if (fs.existsSync(path.join(CORPUS, top))) dirs.push(...sub(top));
      }
      for (const d of sub('uftrace')) {
        if (fs.existsSync(path.join(d, 'uftrace.data'))) dirs.push(path.join(d, 'uftrace.data'));
        else for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          if (e.isDirectory() && fs.existsSync(path.join(d, e.name, 'uftrace.data'))) dirs.push(path.join(d, e.name, 'uftrace.data'));
        }
      }
      assert.ok(dirs.length >= 50, `${dirs.length} corpus datasets`);
    }
    const corpusCount = dirs.length;
    dirs.push(...generatedDatasets().map((d) => d.dir));
    for (const dir of dirs) await dropOne(own.page, dir);
    // And each view of the last one.
    for (const v of ['profile', 'timeline', 'summary']) await own.page.evaluate((id) => window.hpcscope.showView(id), v);
    await own.page.waitForTimeout(500);
    const origin = new URL(own.url).origin;
    const outside = [...new Set(seen)].filter((u) => !u.startsWith(`${origin}/`) && !/^(data|blob):/.test(u));
    console.log(`${corpusCount} corpus and ${dirs.length - corpusCount} generated datasets opened; ${new Set(seen).size} distinct requests, all to ${origin}`);
    assert.deepEqual(outside, []);
    assert.ok(seen.some((u) => u.endsWith('.wasm')), 'the wasm request (from the worker) was seen');
  } finally {
    await own.close();
  }
});
