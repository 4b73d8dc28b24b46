// Source files of a database opened by URL (Worker side): hpcprof's copies under the database's
// src/ folder, fetched on demand for the source view, at most `limit` bytes of each (a Range
// request; a server without Range support has its answer cut there), never outside the folder.

import { cannotRead, CORS_HINT } from './errors.js';

/** Most bytes of a source file fetched (the engine shows no more). */
export const SOURCE_LIMIT = 4 << 20;

/** The folder URL a dataset URL stands for: itself when it ends in '/', else its parent when it
 *  names a file ("…/meta.db"), else the folder without its trailing slash. */
export function folderOf(url) {
  const u = new URL(url);
  if (u.pathname.endsWith('/')) return u.href;
  if (/\.[a-z0-9]+$/i.test(u.pathname.split('/').pop() || '')) return new URL('.', u).href;
  return `${u.href}/`;
}

/**
 * Tries each candidate path (relative to the dataset's folder) in turn; the first found is
 * `{bytes, size, path}`, else null. Paths with '..' or an absolute form are refused.
 */
export async function fetchSource(base, candidates, limit = SOURCE_LIMIT) {
  const folder = folderOf(base);
  for (const c of candidates) {
    if (typeof c !== 'string' || !c || c.startsWith('/') || c.split('/').includes('..')) continue;
    const url = new URL(c.split('/').map(encodeURIComponent).join('/'), folder).href;
    if (!url.startsWith(folder)) continue;
    let res;
    try {
      res = await fetch(url, { headers: { Range: `bytes=0-${limit - 1}` }, cache: 'no-store' });
    } catch {
      throw cannotRead(url, CORS_HINT);
    }
    if (res.status === 404 || res.status === 403 || res.status === 416) continue;
    if (!res.ok) throw cannotRead(url, `HTTP ${res.status} ${res.statusText}`);
    let size = NaN;
    const range = /\/(\d+)\s*$/.exec(res.headers.get('content-range') || '');
    if (res.status === 206 && range) size = Number(range[1]);
    else if (res.status === 200) size = Number(res.headers.get('content-length') || NaN);
    const bytes = await readAtMost(res, limit);
    if (!Number.isFinite(size)) size = bytes.length;
    return { bytes, size, path: c };
  }
  return null;
}

/** The first `limit` bytes of a response body; the rest is not downloaded. */
async function readAtMost(res, limit) {
  const reader = res.body.getReader();
  const parts = [];
  let got = 0;
  while (got < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
  }
  if (got >= limit) reader.cancel().catch(() => {});
  const out = new Uint8Array(Math.min(got, limit));
  let at = 0;
  for (const p of parts) {
    const take = Math.min(p.length, out.length - at);
    out.set(p.subarray(0, take), at);
    at += take;
    if (at >= out.length) break;
  }
  return out;
}
