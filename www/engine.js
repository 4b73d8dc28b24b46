// The engine: the only module that touches the wasm package. On the page, `Engine` starts a
// dedicated Worker (worker.js) and forwards calls to it; inside the Worker, `serveWorker()` loads
// the wasm package, holds the Rust `Session` and answers. Only bytes and plain results cross: file
// bytes in, summaries and typed arrays out (typed arrays are transferred, not copied).

/** Files at or above this size are read lazily from their Blob in the Worker instead of copied. */
const BLOB_THRESHOLD = 32 * 1024 * 1024;

/**
 * Page side. Every call returns a promise. `onProgress({phase, done, total, file})` is called while
 * files are read. If the Worker dies (a trap in wasm), the engine restarts it and replays the opens
 * that succeeded, so datasets already shown stay usable; their ids are kept.
 */
export class Engine {
  constructor() {
    this.nextCall = 1;
    this.calls = new Map();
    /** Calls that changed the session ([op, args]), replayed in order after a Worker restart so
     *  dataset ids come out the same. */
    this.history = [];
    this.ready = this.#startWorker();
  }

  #startWorker() {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e) => this.#onMessage(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.#failAll(new Error(`engine worker failed: ${e.message || 'unknown error'}`));
    };
    return this.#post('hello', []);
  }

  #onMessage(msg) {
    const call = this.calls.get(msg.id);
    if (!call) return;
    if (msg.progress) {
      call.onProgress?.(msg.progress);
      return;
    }
    this.calls.delete(msg.id);
    if (msg.ok) call.resolve(msg.value);
    else {
      const err = new Error(msg.error);
      err.fatal = !!msg.fatal;
      call.reject(err);
    }
  }

  #failAll(err) {
    for (const call of this.calls.values()) call.reject(err);
    this.calls.clear();
  }

  #post(op, args, onProgress) {
    const id = this.nextCall++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, op, args });
    });
  }

  /** After a trap the wasm instance is unusable: start a fresh Worker and reopen what was open. */
  async #restart() {
    this.worker.terminate();
    this.#failAll(new Error('engine restarted'));
    this.ready = this.#startWorker();
    await this.ready;
    for (const [op, args] of this.history) await this.#post(op, args);
  }

  async #run(op, args, onProgress, replay) {
    await this.ready;
    try {
      const value = await this.#post(op, args, onProgress);
      if (replay) this.history.push([op, args]);
      return value;
    } catch (err) {
      if (err.fatal) await this.#restart();
      throw err;
    }
  }

  /**
   * Opens files: an array of {path, file} (File/Blob) or {path, bytes} (Uint8Array/ArrayBuffer).
   * Resolves to {datasets: [summary], errors: [error], ignored: [path]}.
   */
  openFiles(files, onProgress) {
    const list = files.map((f) => ({ path: f.path, file: f.file, bytes: f.bytes }));
    return this.#run('openFiles', [list], onProgress, true);
  }

  openExample() {
    return this.#run('openExample', [], undefined, true);
  }

  /**
   * Opens a database folder or file by URL, read on demand with HTTP Range requests in the Worker
   * (see `openUrl` below). `name` overrides the dataset folder name. Same answer as openFiles.
   */
  openUrl(url, name, onProgress, limits = {}) {
    return this.#run('openUrl', [String(url), name || '', limits], onProgress, true);
  }

  /** Requests and bytes the Worker fetched for URL datasets: {requests, bytes}. */
  netStats() {
    return this.#run('netStats', []);
  }

  /** Forgets a dataset in the engine. */
  remove(id) {
    return this.#run('call', ['remove', [id]], undefined, true);
  }

  /**
   * Calls a method of the Rust Session by name: views use this for their data, e.g.
   * `engine.call('flame_rects', id, x0, x1)`. Typed arrays come back transferred.
   */
  call(method, ...args) {
    // Calls that add or remove datasets are replayed after a restart; queries need not be.
    const changesSession = method.startsWith('open_') || method === 'remove';
    return this.#run('call', [method, args], undefined, changesSession);
  }
}

// ------------------------------------------------------------------------------------------------
// Worker side.

/** Runs inside the dedicated Worker: loads the wasm package and answers Engine messages. */
export function serveWorker() {
  let session = null;
  let dead = null;
  let wasmMemory = null;
  const ready = (async () => {
    const wasm = await import('../pkg/hpcscope.js');
    const exportsOf = await wasm.default();
    wasmMemory = exportsOf && exportsOf.memory;
    session = new wasm.Session();
    self.hpcscopeVersion = wasm.Session.version();
  })();

  const transferables = (v) => {
    if (ArrayBuffer.isView(v)) return [v.buffer];
    if (Array.isArray(v)) return v.flatMap((x) => (ArrayBuffer.isView(x) ? [x.buffer] : []));
    return [];
  };

  async function openFiles(id, files) {
    const total = files.reduce((s, f) => s + (f.file ? f.file.size : byteLength(f.bytes)), 0);
    let done = 0;
    for (const f of files) {
      self.postMessage({ id, progress: { phase: 'reading', done, total, file: f.path } });
      if (f.file && f.file.size >= BLOB_THRESHOLD) {
        session.add_blob(f.path, f.file);
        done += f.file.size;
      } else {
        const bytes = f.file ? new Uint8Array(await f.file.arrayBuffer()) : toU8(f.bytes);
        session.add_file(f.path, bytes);
        done += bytes.length;
      }
    }
    self.postMessage({ id, progress: { phase: 'parsing', done, total, file: '' } });
    const t0 = performance.now();
    const report = session.open_pending();
    report.elapsed_ms = performance.now() - t0;
    return report;
  }

  const net = { requests: 0, bytes: 0 };
  async function openUrlOp(id, url, name, limits) {
    const files = await listUrl(url, name, (p) => self.postMessage({ id, progress: p }), limits);
    const total = files.reduce((s, f) => s + (f.lazy ? 0 : f.size), 0);
    let done = 0;
    for (const f of files) {
      self.postMessage({ id, progress: { phase: 'reading', done, total, file: f.path } });
      if (f.lazy) {
        const note = (p) => self.postMessage({ id, progress: p });
        session.add_reader_batched(f.path, f.size, rangeReader(f.url, f.size, net, note), f.multi ? multiRangeReader(f.url, f.size, net) : undefined);
      } else {
        session.add_file(f.path, f.bytes);
        done += f.size;
      }
    }
    self.postMessage({ id, progress: { phase: 'parsing', done, total, file: '', fetched: net.bytes } });
    const t0 = performance.now();
    const report = session.open_pending();
    report.elapsed_ms = performance.now() - t0;
    report.net = { ...net };
    return report;
  }

  // Trace steps over dropped files stop at reads they want done asynchronously (see
  // Session.timeline_begin in src/wasm.rs): each is read into one reused buffer, staged, and the
  // step goes on until its time is up. A synchronous read (FileReaderSync) would leave a new
  // buffer for the garbage collector each time: GBs of them while zoomed out.
  const STEPS = new Set(['timeline_begin', 'timeline_refine']);
  // Buffers of finished reads, for the next ones (steps of the main view and the minimap may
  // read at the same time, each into its own buffer).
  const spareBufs = [];
  const keepAlive = new Set();
  async function readWanted({ stage, start, end, blob }) {
    const len = end - start;
    const part = blob.slice(start, end);
    let got;
    try {
      got = await readInto(part, len);
    } catch (err) {
      throw new Error(`cannot read bytes ${start}..${end} of ${blob.name || 'a dropped file'}: ${err && err.message ? err.message : err}`);
    }
    try {
      if (got.bytes.length !== len) throw new Error(`read of bytes ${start}..${end} of ${blob.name || 'a dropped file'} returned ${got.bytes.length} bytes`);
      session.stage_bytes(stage, start, got.bytes);
    } finally {
      if (got.reuse && spareBufs.length < 2) spareBufs.push(got.reuse);
    }
  }
  /** `len` bytes of `part`: a BYOB stream read into a reused buffer (`reuse`, to give back), or
   *  without BYOB support a buffer of its own. */
  async function readInto(part, len) {
    let reader = null;
    let stream = null;
    try {
      stream = part.stream();
      reader = stream.getReader({ mode: 'byob' });
    } catch {
      return { bytes: new Uint8Array(await part.arrayBuffer()), reuse: null };
    }
    keepAlive.add(part);
    keepAlive.add(stream);
    let buf = spareBufs.pop();
    if (!buf || buf.byteLength < len) buf = new ArrayBuffer(Math.max(len, 8 << 20));
    let got = 0;
    let done = false;
    try {
      while (got < len && !done) {
        const r = await reader.read(new Uint8Array(buf, got, len - got));
        // The buffer comes back transferred: go on with the returned one.
        if (r.value) buf = r.value.buffer;
        done = r.done;
        if (!done) got += r.value.byteLength;
      }
    } finally {
      if (!done) reader.cancel().catch(() => {});
      reader.releaseLock();
      // Alive until here (a collected Blob slice was suspected of stalling its stream).
      keepAlive.delete(part);
      keepAlive.delete(stream);
    }
    return { bytes: new Uint8Array(buf, 0, got), reuse: buf };
  }
  // Reads run one at a time: Chromium (156) was seen leaving one of two concurrent Blob stream
  // reads unanswered, about once in 15,000.
  let readQueue = Promise.resolve();
  function readOneAtATime(want) {
    const r = readQueue.then(() => readWanted(want));
    readQueue = r.catch(() => {});
    return r;
  }
  async function finishStep(value, args, t0) {
    const [id, slot] = args;
    const end = t0 + args[args.length - 1];
    while (value === null) {
      const want = session.take_wanted_read();
      if (!want) throw new Error('a trace step stopped without a read to wait for');
      await readOneAtATime(want);
      const left = end - performance.now();
      value = left > 0 ? session.timeline_continue(id, slot, left) : session.timeline_progress(id, slot);
    }
    return value;
  }

  self.onmessage = async (e) => {
    const { id, op, args } = e.data;
    try {
      await ready;
      if (dead) throw new Error(dead);
      let value;
      switch (op) {
        case 'hello':
          value = { version: self.hpcscopeVersion };
          break;
        case 'openFiles':
          value = await openFiles(id, args[0]);
          break;
        case 'openExample':
          value = session.open_example();
          break;
        case 'openUrl':
          value = await openUrlOp(id, args[0], args[1], args[2] || {});
          break;
        case 'netStats':
          value = { ...net, wasm_memory_bytes: wasmMemory ? wasmMemory.buffer.byteLength : null, blob: session.blob_reads() };
          break;
        case 'call': {
          const [method, callArgs] = args;
          if (typeof session[method] !== 'function') throw new Error(`no engine method '${method}'`);
          const t0 = performance.now();
          value = session[method](...callArgs);
          if (STEPS.has(method)) value = await finishStep(value, callArgs, t0);
          break;
        }
        default:
          throw new Error(`unknown engine operation '${op}'`);
      }
      self.postMessage({ id, ok: true, value }, transferables(value));
    } catch (err) {
      // A wasm trap (panic, out of bounds) leaves the instance unusable: say so, so the page can
      // restart the Worker instead of calling into a broken instance.
      const fatal = err instanceof WebAssembly.RuntimeError;
      if (fatal) dead = `engine stopped after an internal error: ${err.message}`;
      self.postMessage({ id, ok: false, fatal, error: String(err && err.message ? err.message : err) });
    }
  };
}

function byteLength(b) {
  return b ? b.byteLength : 0;
}

function toU8(b) {
  if (b instanceof Uint8Array) return b;
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (Array.isArray(b)) return Uint8Array.from(b);
  throw new Error('file bytes must be a Uint8Array or ArrayBuffer');
}

// ------------------------------------------------------------------------------------------------
// Opening by URL (Worker side): list the files, then read each on demand with Range requests.

/** Name of the file list `hpcscope index DIR` writes into a database folder. */
export const INDEX_NAME = 'hpcscope-index.json';
/** Files a folder URL is probed for when it has no index (HPCToolkit, hpcrun, uftrace). */
export const KNOWN_NAMES = ['meta.db', 'profile.db', 'cct.db', 'trace.db', 'experiment.xml',
  'experiment.mt', 'info', 'task.txt', 'default.opts', 'hpctoolkit_database.xml'];
/** Files up to this size are fetched whole; larger ones are read on demand. */
const WHOLE_LIMIT = 1 << 20;
/** A server that ignores Range may still serve a file this small whole. */
const NO_RANGE_LIMIT = 32 << 20;

function cannotRead(url, why) {
  return new Error(`cannot read ${url}: ${why}`);
}

const CORS_HINT = 'the request failed: network error, or blocked by CORS (a server on another ' +
  'origin must send Access-Control-Allow-Origin, allow the Range header and expose Content-Range)';

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
 * carries the size in Content-Range; a 200 is the whole body (kept when small, else an error).
 */
async function probeFile(url, noRangeLimit) {
  const ctl = new AbortController();
  const res = await fetchChecked(url, { headers: { Range: 'bytes=0-0' }, signal: ctl.signal, cache: 'no-store' });
  if (res.status === 206) {
    const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') || '');
    ctl.abort();
    if (!m) throw cannotRead(url, 'the server answered a Range request without a readable Content-Range header (behind CORS it must be listed in Access-Control-Expose-Headers)');
    return { size: Number(m[1]), ranged: true };
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

/** A `read(start, end)` for Session.add_reader: synchronous XHR with a Range header. */
export function rangeReader(url, size, net, onProgress) {
  let lastNote = 0;
  return (start, end) => {
    const r = new XMLHttpRequest();
    r.open('GET', url, false);
    r.responseType = 'arraybuffer';
    r.setRequestHeader('Range', `bytes=${start}-${end - 1}`);
    try {
      r.send();
    } catch (err) {
      throw cannotRead(url, CORS_HINT);
    }
    if (r.status === 0) throw cannotRead(url, CORS_HINT);
    const bytes = new Uint8Array(r.response || new ArrayBuffer(0));
    net.requests++;
    net.bytes += bytes.length;
    const now = performance.now();
    if (onProgress && now - lastNote > 100) {
      lastNote = now;
      onProgress({ phase: 'parsing', done: 0, total: 0, file: '', fetched: net.bytes });
    }
    if (r.status === 206) return bytes;
    if (r.status === 200) {
      if (bytes.length === size) return bytes.subarray(start, end);
      throw cannotRead(url, 'the server ignores HTTP Range requests (HTTP 200 to a ranged request)');
    }
    throw cannotRead(url, `HTTP ${r.status} for bytes ${start}-${end - 1}`);
  };
}

/** Longest Range header a multi-range request starts with, halved each time a server refuses it
 *  as too large (nginx and Apache accept 8 KiB header lines by default, Node 16 KiB headers,
 *  scripts/serve.js 256 KiB): a few refused requests once, then batches that fit. */
const MULTI_RANGE_CHARS = 64000;

/**
 * A `read_many(starts, ends)` for Session.add_reader_batched: many ranges with few synchronous
 * requests, `Range: bytes=a-b,c-d,...` answered by a `multipart/byteranges` 206. A server that
 * answers one range (206 single part, covering them) or refuses the header is handled; one that
 * cannot do multi-range at all makes the reader fall back to one request per range.
 */
export function multiRangeReader(url, size, net) {
  let maxChars = MULTI_RANGE_CHARS;
  let single = false;
  const one = rangeReader(url, size, net);
  return (starts, ends) => {
    const n = starts.length;
    let total = 0;
    for (let i = 0; i < n; i++) total += ends[i] - starts[i];
    const out = new Uint8Array(total);
    let pos = 0;
    let i = 0;
    while (i < n) {
      if (single) {
        const b = one(starts[i], ends[i]);
        out.set(b, pos);
        pos += b.length;
        i++;
        continue;
      }
      // As many ranges as fit the header.
      let j = i;
      let chars = 6;
      const parts = [];
      while (j < n) {
        const p = `${starts[j]}-${ends[j] - 1}`;
        if (parts.length && chars + p.length + 1 > maxChars) break;
        parts.push(p);
        chars += p.length + 1;
        j++;
      }
      const r = new XMLHttpRequest();
      r.open('GET', url, false);
      r.responseType = 'arraybuffer';
      r.setRequestHeader('Range', `bytes=${parts.join(',')}`);
      try {
        r.send();
      } catch (err) {
        throw cannotRead(url, CORS_HINT);
      }
      if (r.status === 0) throw cannotRead(url, CORS_HINT);
      const body = new Uint8Array(r.response || new ArrayBuffer(0));
      net.requests++;
      net.bytes += body.length;
      if ((r.status === 400 || r.status === 413 || r.status === 431) && parts.length > 1) {
        if (maxChars > 1000) maxChars = Math.floor(maxChars / 2);
        else single = true;
        continue;
      }
      if (r.status !== 206) {
        // No multi-range support after all: one range per request from now on.
        single = true;
        continue;
      }
      const pieces = parseRanges(body, r.getResponseHeader('content-type') || '', r.getResponseHeader('content-range') || '');
      if (!pieces) {
        single = true;
        continue;
      }
      for (let k = i; k < j; k++) {
        const a = starts[k], len = ends[k] - a;
        const p = pieces.find((x) => x.start <= a && a + len <= x.start + x.bytes.length);
        if (!p) throw cannotRead(url, `the server's multi-range answer lacks bytes ${a}-${a + len - 1}`);
        out.set(p.bytes.subarray(a - p.start, a - p.start + len), pos);
        pos += len;
      }
      i = j;
    }
    return out;
  };
}

/** Parts of a 206 answer: [{start, bytes}], from a multipart/byteranges body or a single part
 *  (Content-Range); null when neither can be read. */
export function parseRanges(body, type, contentRange) {
  const m = /multipart\/byteranges;\s*boundary="?([^";]+)"?/i.exec(type);
  if (!m) {
    const c = /bytes\s+(\d+)-(\d+)\//.exec(contentRange);
    return c ? [{ start: Number(c[1]), bytes: body }] : null;
  }
  const delim = new TextEncoder().encode(`--${m[1]}`);
  const out = [];
  const find = (from, pat) => {
    outer: for (let i = from; i <= body.length - pat.length; i++) {
      for (let k = 0; k < pat.length; k++) if (body[i + k] !== pat[k]) continue outer;
      return i;
    }
    return -1;
  };
  const crlf2 = new Uint8Array([13, 10, 13, 10]);
  const dec = new TextDecoder();
  let at = find(0, delim);
  while (at >= 0) {
    const headStart = at + delim.length;
    // "--" after the delimiter closes the body.
    if (body[headStart] === 45 && body[headStart + 1] === 45) break;
    const headEnd = find(headStart, crlf2);
    if (headEnd < 0) return null;
    const head = dec.decode(body.subarray(headStart, headEnd));
    const c = /content-range:\s*bytes\s+(\d+)-(\d+)\//i.exec(head);
    if (!c) return null;
    const start = Number(c[1]);
    const len = Number(c[2]) - start + 1;
    const from = headEnd + 4;
    if (from + len > body.length) return null;
    out.push({ start, bytes: body.subarray(from, from + len) });
    at = find(from + len, delim);
  }
  return out;
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
export async function listUrl(url, name, onProgress, limits = {}) {
  const lim = {
    whole: limits.wholeLimit ?? WHOLE_LIMIT,
    noRange: limits.noRangeLimit ?? NO_RANGE_LIMIT,
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
  if (base && entries) {
    let i = 0;
    for (const f of entries) {
      onProgress?.({ phase: 'reading', done: i++, total: entries.length, file: f.path });
      const fu = new URL(f.path.split('/').map(encodeURIComponent).join('/'), base).href;
      out.push(await describe(fu, `${root}/${f.path}`, Number(f.size), lim));
    }
    return out.filter(Boolean);
  }
  if (isFolder) {
    let i = 0;
    for (const n of KNOWN_NAMES) {
      onProgress?.({ phase: 'reading', done: i++, total: KNOWN_NAMES.length, file: n });
      const d = await describe(new URL(n, folder).href, `${root}/${n}`, NaN, lim);
      if (d) out.push(d);
    }
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
  return { path, url, size: p.size, lazy: true, multi: await probeMulti(url) };
}

/** Whether the server answers two ranges in one request with a multipart/byteranges 206 (a
 *  server without multi-range support may send the whole file instead: the answer is aborted
 *  at its headers). */
async function probeMulti(url) {
  const ctl = new AbortController();
  try {
    const res = await fetch(url, { headers: { Range: 'bytes=0-0,2-2' }, signal: ctl.signal, cache: 'no-store' });
    const ok = res.status === 206 && /multipart\/byteranges/i.test(res.headers.get('content-type') || '');
    ctl.abort();
    return ok;
  } catch {
    return false;
  }
}
