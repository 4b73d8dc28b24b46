// Opening a database by URL (Worker side): the files of a folder from its hpcscope-index.json,
// else probed for the known names; each fetched whole when small, else probed for Range support
// (first bytes, size, validators kept) to be read on demand by range-reader.js and remote-file.js.
// Multi-range support is probed once per origin, on the smallest file the index lists.

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
/** Bytes a lazily read file is probed with: its header (and what follows) comes with its size,
 *  for the open's first reads (worker-server.js stages them). */
export const HEAD_BYTES = 64 << 10;
/** A multi-range probe's answer is read to its end up to this many bytes (else aborted). */
const ERROR_BODY_LIMIT = 64 << 10;

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

/** A GET of the whole of `url`, counted in `net`: the answer, and its body when 2xx (else null). */
async function fetchWhole(url, net) {
  const done = net ? net.begin(url) : () => {};
  try {
    const res = await fetchChecked(url, { cache: 'no-store' });
    const bytes = res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
    done(bytes ? bytes.length : 0, { error: !res.ok && res.status !== 404 });
    return { res, bytes };
  } catch (e) {
    done(0, { error: true });
    throw e;
  }
}

/**
 * One file's size and whether the server honours Range: a request for its first `HEAD_BYTES`
 * bytes. A 206 carries the size in Content-Range, and the validators (ETag, Last-Modified) later
 * answers must match; its body is kept as `head` (the file's first bytes). A 200 is the whole body
 * (kept when small, else an error).
 */
async function probeFile(url, noRangeLimit, net) {
  const ctl = new AbortController();
  const done = net ? net.begin(url) : () => {};
  let res;
  try {
    res = await fetchChecked(url, { headers: { Range: `bytes=0-${HEAD_BYTES - 1}` }, signal: ctl.signal, cache: 'no-store' });
  } catch (e) {
    done(0, { error: true });
    throw e;
  }
  if (res.status === 206) {
    const c = /bytes\s+(\d+)-(\d+)\/(\d+)\s*$/.exec(res.headers.get('content-range') || '');
    if (!c) {
      ctl.abort();
      done(0, { error: true });
      throw cannotRead(url, 'the server answered a Range request without a readable Content-Range header (behind CORS it must be listed in Access-Control-Expose-Headers)');
    }
    const validators = { etag: res.headers.get('etag') || '', lastModified: res.headers.get('last-modified') || '' };
    // The first bytes, unless the answer is not what was asked (then only the size is kept).
    let head = null;
    if (Number(c[1]) === 0) {
      try {
        head = new Uint8Array(await res.arrayBuffer());
      } catch {
        head = null;
      }
      if (head && head.length !== Number(c[2]) + 1) head = null;
    } else {
      ctl.abort();
    }
    done(head ? head.length : 0);
    return { size: Number(c[3]), ranged: true, validators, head };
  }
  if (res.status === 200) {
    const len = Number(res.headers.get('content-length') || NaN);
    if (len > noRangeLimit) {
      ctl.abort();
      done(0, { aborted: true, error: true });
      throw cannotRead(url, `the server ignores HTTP Range requests (it answered 200 with the whole ${len}-byte file); serve the database with Range support (e.g. \`node scripts/serve.js\`, nginx, Apache)`);
    }
    let bytes;
    try {
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      done(0, { error: true });
      throw cannotRead(url, `the connection was dropped: ${e.message || e}`);
    }
    done(bytes.length);
    if (bytes.length > noRangeLimit) throw cannotRead(url, 'the server ignores HTTP Range requests and the file is too large to fetch whole');
    return { size: bytes.length, ranged: false, bytes };
  }
  ctl.abort();
  done(0, { error: res.status !== 404 });
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
  let indexLength = null;
  const tryIndex = async (b) => {
    const { bytes } = await fetchWhole(new URL(INDEX_NAME, b).href, lim.net);
    if (!bytes) return null;
    indexLength = bytes.length;
    let idx = null;
    try {
      idx = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      idx = null;
    }
    if (!idx || !Array.isArray(idx.files)) throw cannotRead(new URL(INDEX_NAME, b).href, 'not an hpcscope index (expected {"files": [{path, size}]})');
    return idx.files.filter((f) => f && typeof f.path === 'string' && !f.path.split('/').includes('..'));
  };
  // A folder's multi-range support is probed on its index while the index is fetched (the
  // probe, not a simple request, waits for a CORS preflight: two round trips, which the index's
  // and the files' probes cover). A whole answer settles it only if it is the index as fetched
  // (a compressed one may come from a server that does answer ranges of other files); one that
  // settles nothing leaves it to a file.
  const origin = u.origin;
  const onIndex = isFolder && !multiByOrigin.has(origin)
    ? probeMulti(new URL(INDEX_NAME, base).href, lim.net)
    : null;
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
    // Else on the smallest file, at once (a server without it answers with the whole file,
    // which is cheap for that one).
    const smallest = entries.filter((f) => Number(f.size) >= 3).sort((a, b) => Number(a.size) - Number(b.size))[0];
    const decide = async () => {
      const v = await onIndex;
      if (v === true || v === false) return v;
      // The index, whole and as fetched: the server ignored the two ranges.
      if (v && v.whole === indexLength) return false;
      const fu = smallest && new URL(smallest.path.split('/').map(encodeURIComponent).join('/'), base).href;
      return fu ? (await probeMulti(fu, lim.net)) === true : false;
    };
    if (!multiByOrigin.has(origin) && entries.some((f) => Number(f.size) > lim.whole)) multiByOrigin.set(origin, decide());
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
    const { res, bytes } = await fetchWhole(url, lim.net);
    if (res.status === 404) return null;
    if (!bytes) throw cannotRead(url, `HTTP ${res.status} ${res.statusText}`);
    return { path, url, size: bytes.length, lazy: false, bytes };
  }
  // A file the index says is large: its multi-range probe (once per origin) goes with its own.
  const multi = Number.isFinite(size) ? multiRangeOf(url, lim.net) : null;
  const p = await probeFile(url, lim.noRange, lim.net);
  if (!p) return null;
  if (!p.ranged) return { path, url, size: p.size, lazy: false, bytes: p.bytes };
  if (p.size <= lim.whole) {
    if (p.head && p.head.length === p.size) return { path, url, size: p.size, lazy: false, bytes: p.head };
    const { res, bytes } = await fetchWhole(url, lim.net);
    if (!bytes) throw cannotRead(url, `HTTP ${res.status} ${res.statusText}`);
    return { path, url, size: bytes.length, lazy: false, bytes };
  }
  return { path, url, size: p.size, lazy: true, validators: p.validators, head: p.head, multi: await (multi ?? multiRangeOf(url, lim.net)) };
}

/** Whether each origin answers multi-range requests, as probed once (a promise per origin). */
const multiByOrigin = new Map();

/** Whether `url`'s origin answers multi-range requests, probed with the first file read from it. */
function multiRangeOf(url, net) {
  const origin = new URL(url).origin;
  if (!multiByOrigin.has(origin)) multiByOrigin.set(origin, probeMulti(url, net).then((v) => v === true));
  return multiByOrigin.get(origin);
}

/** Whether the server answers two ranges in one request with a multipart/byteranges 206: true;
 *  false when it answers one range; `{whole: length}` when it answers with the whole body
 *  (Content-Length; no multi-range support, unless that body was compressed); null when the
 *  answer settles nothing (an error, no such file). A server without multi-range support (S3,
 *  CDNs) may send the whole file: that answer is aborted after its first bytes, which are
 *  counted in `net`. */
async function probeMulti(url, net) {
  const ctl = new AbortController();
  const done = net ? net.begin(url) : () => {};
  let got = 0;
  try {
    const res = await fetch(url, { headers: { Range: 'bytes=0-0,2-2' }, signal: ctl.signal, cache: 'no-store' });
    const ok = res.status === 206 && /multipart\/byteranges/i.test(res.headers.get('content-type') || '');
    const answer = ok || res.status === 206 ? ok : res.status === 200 ? { whole: Number(res.headers.get('content-length') ?? NaN) } : null;
    // Every answer but a whole file (a multipart 206, a one-range 206, a 404 for a folder
    // without an index) is short and read to its end: aborting it would show as a failed
    // request. A whole file is aborted after its first bytes, which are counted.
    const whole = !ok && res.status === 200;
    let ended = false;
    try {
      const r = res.body?.getReader();
      for (;;) {
        const chunk = r ? await r.read() : { done: true };
        if (chunk.done) { ended = true; break; }
        got += chunk.value?.length ?? 0;
        if (whole || got > ERROR_BODY_LIMIT) break;
      }
    } catch {
      // Only counting: nothing to report.
    }
    if (!ended) ctl.abort();
    done(got, { aborted: !ended });
    return answer;
  } catch {
    done(got);
    return null;
  }
}
