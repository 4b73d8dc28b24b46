// A small HPCToolkit database made by `hpcscope synth` for the tests that serve one over HTTP
// (objstore.test.mjs, nginx.test.mjs): 48 trace lines of 480 KB (23 MB of trace.db, more than a
// file's 16 MiB block cache), indexed, under target/e2e-objstore/synth.d; made once.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { dropFolder, ROOT } from './helpers.mjs';

export const BIN = ['release', 'debug'].map((p) => path.join(ROOT, 'target', p, 'hpcscope')).find((p) => fs.existsSync(p));
export const WORK = path.join(ROOT, 'target', 'e2e-objstore');
export const DB = 'synth.d';
export const LINES = 48;
export const FILES = ['meta.db', 'profile.db', 'cct.db', 'trace.db'];

/** Writes the database unless it is there; its folder. */
export function ensureSynthDb() {
  const dir = path.join(WORK, DB);
  if (fs.existsSync(path.join(dir, 'hpcscope-index.json'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  const r = spawnSync(BIN, ['synth', '--ranks', String(LINES), '--threads', '1', '--contexts', '400', '--samples', '40000', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hpcscope synth failed: ${r.stderr}`);
  const ix = spawnSync(BIN, ['index', dir], { encoding: 'utf8' });
  if (ix.status !== 0) throw new Error(`hpcscope index failed: ${ix.stderr}`);
  return dir;
}

/** The exact trace frame of dataset `id` (rows 0..n-1, window [t0, t1) ns, 300 x n), through the
 *  Worker's step loop (timeline_begin, then timeline_refine until exact); packed, as an array. */
export function exactFrame(page, id, n, t0, t1) {
  return page.evaluate(async ([i, k, a, b]) => {
    const e = window.hpcscope.engine;
    const rows = Uint32Array.from({ length: k }, (_, r) => r);
    let [packed, p] = await e.call('timeline_begin', i, 0, rows, { t0_ns: a, t1_ns: b, width: 300, height: k, depth: 3 }, 2000);
    while (!p.exact) [packed, p] = await e.call('timeline_refine', i, 0, false, 2000);
    return Array.from(packed);
  }, [id, n, t0, t1]);
}

/** Opens the database folder in `page` as a user drops it (the folder picker); the new
 *  dataset's summary. */
export async function openBytes(page) {
  const { state } = await dropFolder(page, path.join(WORK, DB));
  return state.datasets.at(-1);
}

/** Run length of dataset `id` in ns, plus one (a window covering every sample). */
export function runNs(page, id) {
  return page.evaluate((i) => window.hpcscope.engine.call('timeline_meta', i).then((m) => m.duration_ns + 1), id);
}
