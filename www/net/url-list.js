// Opening a database by URL (Worker side): the files of a folder from its hpcscope-index.json
// (`hpcscope index DIR`), else probed for the known file names; each file fetched whole when small,
// else probed for Range support (its size and validators kept) to be read on demand by
// range-reader.js and remote-file.js; multi-range support is probed once per origin.

import { cannotRead, CORS_HINT } from './errors.js';

/** Name of the file list `hpcscope index DIR` writes into a database folder. */
export const INDEX_NAME = 'hpcscope-index.json';
/** Files a folder URL is probed for when it has no index (HPCToolkit, hpcrun, uftrace). */
export const KNOWN_NAMES = ['meta.db', 'profile.db', 'cct.db', 'trace.db', 'experiment.xml',
  'experiment.mt', 'info', 'task.txt', 'default.opts', 'hpctoolkit_database.xml'];
/** Files up to this size are fetched whole; larger ones are read on demand. */
const WHOLE_LIMIT = 1 << 20;
/** A server that ignores Range may still serve a file this small whole. */
const NO_RANGE_LIMIT = 32 << 20;

/** fetch(), its network failure said as a cannotRead error. */
async function fetchChecked(url, init) {
  let res;
  try {
    res = await fetch(url, init);
  } catch (err) {
    throw cannotRead(url, CORS_HINT);
  }
  return res;
}

/**
 * One file's size and whether the server honours Range: a request for its first byte. A 206
 * carries the size in Content-Range, and the validators (ETag, Last-Modified) later answers must
 * match; a 200 is the whole body (kept when small, else an error).
 */
async function probeFile(url, noRangeLimit) {
  const ctl = new AbortController();
  const res = await fetchChecked(url, { headers: { Range: 'bytes=0-0' }, signal: ctl.signal, cache: 'no-store' });
  if (res.status === 206) {
    const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') || '');
    ctl.abort();
    if (!m) throw cannotRead(url, 'the server answered a Range request without a readable Content-Range header (behind CORS it must be listed in Access-Control-Expose-Headers)');
    const validators = { etag: res.headers.get('etag') || '', lastModified: res.headers.get('last-modified') || '' };
    return { size: Number(m[1]), ranged: true, validators };
  }
  if (res.status === 200) {
    const len = Number(res.headers.get('content-length') || NaN);
    if (len > noRangeLimit) {
      ctl.abort();
      throw cannotRead(url, `the server ignores HTTP Range requests (it answered 200 with the whole ${len}-byte file); serve the database with Range support (e.g. \`node scripts/serve.js\`, nginx, Apache)`);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > noRangeLimit) throw cannotRead(url, 'the server ignores HTTP Range requests and the file is too large to fetch whole');
    return { size: bytes.length, ranged: false, bytes };
  }
  ctl.abort();
  if (res.status === 404) return null;
  throw cannotRead(url, `HTTP ${res.status} ${res.statusText}`);
}

function lastSegment(u) {
  const parts = new URL(u).pathname.split('/').filter(Boolean);
  return decodeURIComponent(parts.pop() || 'download');
}

/**
 * The files of a database URL: [{path, url, size, lazy, bytes?}]. A folder URL (ending in '/',
 * or any URL with an index next to it) is listed from its `hpcscope-index.json`, or else probed
 * for the known file names; any other URL is one file.
 */
export async function listUrl(url, name, onProgress, limits = {}, net = null) {
  const lim = {
    whole: limits.wholeLimit ?? WHOLE_LIMIT,
    noRange: limits.noRangeLimit ?? NO_RANGE_LIMIT,
    net,
  };
  const u = new URL(url, self.location.href);
  const isFolder = u.pathname.endsWith('/');
  const folder = isFolder ? u.href : null;
  let base = folder;
  let entries = null;
  const tryIndex = async (b) => {
    const res = await fetchChecked(new URL(INDEX_NAME, b).href, { cache: 'no-store' });
    if (!res.ok) return null;
    const idx = await res.json().catch(() => null);
    if (!idx || !Array.isArray(idx.files)) throw cannotRead(new URL(INDEX_NAME, b).href, 'not an hpcscope index (expected {"files": [{path, size}]})');
    return idx.files.filter((f) => f && typeof f.path === 'string' && !f.path.split('/').includes('..'));
  };
  if (isFolder) {
    entries = await tryIndex(base);
  } else if (!/\.(db|xml|hpcrun|hpctrace|dat|txt|json|map|sym|opts)$/i.test(u.pathname)) {
    // A folder named without its trailing slash.
    base = u.href + '/';
    entries = await tryIndex(base).catch(() => null);
    if (!entries) base = null;
  }
  const root = name || (base ? lastSegment(base) : lastSegment(u.href));
  const out = [];
  // Files are described all at once: over a server with 20-100 ms per request, one after the
  // other would add up.
  let described = 0;
  const each = (names, one) => Promise.all(names.map(async (n) => {
    const d = await one(n);
    onProgress?.({ phase: 'reading', done: ++described, total: names.length, file: n.path ?? n });
    return d;
  }));
  if (base && entries) {
    const all = await each(entries, (f) => {
      const fu = new URL(f.path.split('/').map(encodeURIComponent).join('/'), base).href;
      return describe(fu, `${root}/${f.path}`, Number(f.size), lim);
    });
    return all.filter(Boolean);
  }
  if (isFolder) {
    out.push(...(await each(KNOWN_NAMES, (n) => describe(new URL(n, folder).href, `${root}/${n}`, NaN, lim))).filter(Boolean));
    if (!out.length) throw cannotRead(folder, `no ${INDEX_NAME} (write one with \`hpcscope index DIR\`) and none of ${KNOWN_NAMES.join(', ')}`);
    return out;
  }
  const d = await describe(u.href, root, NaN, lim);
  if (!d) throw cannotRead(u.href, 'HTTP 404 Not Found');
  return [d];
}

/** One file: small ones fetched whole now, others probed for Range support and read lazily. */
async function describe(url, path, size, lim) {
  if (Number.isFinite(size) && size <= lim.whole) {
    const res = await fetchChecked(url, { cache: 'no-store' });
    if (res.status === 404) return null;
    if (!res.ok) throw cannotRead(url, `HTTP ${res.status} ${res.statusText}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { path, url, size: bytes.length, lazy: false, bytes };
  }
  const p = await probeFile(url, lim.noRange);
  if (!p) return null;
  if (!p.ranged) return { path, url, size: p.size, lazy: false, bytes: p.bytes };
  if (p.size <= lim.whole) {
    const res = await fetchChecked(url, { cache: 'no-store' });
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { path, url, size: bytes.length, lazy: false, bytes };
  }
  return { path, url, size: p.size, lazy: true, validators: p.validators, multi: await multiRangeOf(url, lim.net) };
}

/** Whether each origin answers multi-range requests, as probed once (a promise per origin). */
const multiByOrigin = new Map();

/** Whether `url`'s origin answers multi-range requests, probed with the first file read from it. */
function multiRangeOf(url, net) {
  const origin = new URL(url).origin;
  if (!multiByOrigin.has(origin)) multiByOrigin.set(origin, probeMulti(url, net));
  return multiByOrigin.get(origin);
}

/** Whether the server answers two ranges in one request with a multipart/byteranges 206. A
 *  server without multi-range support (S3, CDNs) may send the whole file instead: that answer
 *  is aborted after its first bytes, which are counted in `net`. */
async function probeMulti(url, net) {
  const ctl = new AbortController();
  const done = net ? net.begin(url) : () => {};
  let got = 0;
  try {
    const res = await fetch(url, { headers: { Range: 'bytes=0-0,2-2' }, signal: ctl.signal, cache: 'no-store' });
    const ok = res.status === 206 && /multipart\/byteranges/i.test(res.headers.get('content-type') || '');
    if (!ok) {
      try {
        const r = res.body?.getReader();
        const first = r ? await r.read() : null;
        got = first?.value?.length ?? 0;
      } catch {
        // Only counting: nothing to report.
      }
    }
    ctl.abort();
    done(got, { aborted: !ok });
    return ok;
  } catch {
    done(got);
    return false;
  }
}
