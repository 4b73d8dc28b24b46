// A dropped uftrace recording whose task data are read from their Blobs (files of 32 MiB and up,
// www/worker-server.js) is streamed into the open piece by piece (Session::stream_begin): the
// browser reads the next piece while this one is decoded, and no task data is read
// synchronously. Generated with `hpcscope fixture uftrace` (two tasks of about 34 MB, with
// arguments and return values); the flame graph's root and the context count must equal the
// native reader's (`hpcscope dump --json`), and a copy whose first task file is cut inside a
// record must give the native reader's warning, naming the file and the record's offset.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { start, dropFolder, dropUntilFlame } from './helpers.mjs';
import { cli, GENERATED, transcript } from './generated.mjs';

const DIR = path.join(GENERATED, 'uftrace-big', 'uftrace.data');
const CUT = path.join(GENERATED, 'uftrace-big-cut', 'uftrace.data');
const BLOB_THRESHOLD = 32 << 20;

let app;
before(async () => {
  for (const d of [DIR, CUT]) fs.rmSync(path.dirname(d), { recursive: true, force: true });
  cli('fixture', 'uftrace', '--tasks', '2', '--iterations', '215000', DIR);
  fs.cpSync(DIR, CUT, { recursive: true });
  const dat = path.join(CUT, '5001.dat');
  fs.truncateSync(dat, fs.statSync(dat).size - 5);
  app = await start();
});
after(async () => {
  await app?.close();
});

const datSizes = (dir) => fs.readdirSync(dir).filter((f) => /^\d+\.dat$/.test(f)).map((f) => fs.statSync(path.join(dir, f)).size);

test('task data read from Blobs are streamed into the open, with the native reader\'s values', async () => {
  const { page, problems } = app;
  const sizes = datSizes(DIR);
  assert.equal(sizes.length, 2);
  assert.ok(sizes.every((s) => s >= BLOB_THRESHOLD), `task files of ${sizes} bytes are not read as Blobs`);
  const { root, state } = await dropUntilFlame(page, DIR);
  const tr = transcript(DIR);
  // The root's value: its children's (the dump lists the contexts below the root).
  const tops = tr.dump.contexts.filter((c) => c.parent == null);
  assert.equal(root.inclusive, tops.reduce((s, c) => s + tr.value(c.ctx_id, tr.stats[0].exec), 0));
  const d = state.datasets[state.datasets.length - 1];
  assert.equal(Object.fromEntries(d.counts).contexts, tr.dump.contexts.length);
  assert.deepEqual(d.warnings, []);
  // Only the files' first bytes (to tell their kind) were read synchronously.
  const blob = (await page.evaluate(() => window.hpcscope.netStats())).blob;
  assert.ok(blob.sync_bytes < 1 << 20, `${blob.sync_bytes} bytes read synchronously`);
  assert.deepEqual(problems, []);
});

test('a streamed task file cut inside a record gives the native reader\'s warning', async () => {
  const { page, problems } = app;
  const { added } = await dropFolder(page, CUT);
  assert.equal(added.length, 1);
  assert.equal(added[0].status, 'opened');
  // `hpcscope summary` prints each warning as "warning: <message>".
  const want = cli('summary', CUT).split('\n').filter((l) => l.includes('warning: ')).map((l) => l.split('warning: ')[1]);
  const cutAt = Math.floor(datSizes(CUT)[0] / 16) * 16;
  const w = added[0].warnings.find((x) => x.file.endsWith('5001.dat'));
  assert.ok(w, JSON.stringify(added[0].warnings));
  assert.equal(w.offset, cutAt);
  assert.match(w.message, /task record/);
  assert.deepEqual(added[0].warnings.map((x) => x.message), want);
  assert.deepEqual(problems, []);
});
