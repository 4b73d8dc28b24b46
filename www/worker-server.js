// The engine, Worker side: loads the wasm package (the only module that imports it), holds the
// Rust `Session` and answers the page's `Engine` (engine.js): dropped files, URLs (www/net/) and
// Session calls, including trace steps that stop for asynchronous reads (src/session/timeline.rs).

import { listUrl } from './net/url-list.js';
import { rangeReader, multiRangeReader } from './net/range-reader.js';
import { RemoteFile } from './net/remote-file.js';
import { NetStats } from './net/net-stats.js';
import { fetchSource } from './net/source-fetch.js';

// Dropped files: small ones copied, large ones read from their Blob; trace steps stop for
// asynchronous reads of Blobs and of single-range servers (Session::timeline_begin).

/** Files at or above this size are read lazily from their Blob in the Worker instead of copied. */
const BLOB_THRESHOLD = 32 * 1024 * 1024;

/** Runs inside the dedicated Worker: loads the wasm package and answers Engine messages. */
export function serveWorker() {
  let session = null;
  let dead = null;
  let wasmMemory = null;
  // Started by the first message: a `hello` may carry the compiled engine (a WebAssembly.Module
  // or bytes) when pkg/ cannot be fetched next to this script (reports opened from file://).
  let ready = null;
  const start = (compiled) => (async () => {
    const wasm = await import('../pkg/hpcscope.js');
    const exportsOf = await wasm.default(compiled ? { module_or_path: compiled } : undefined);
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
    // uftrace task data read as Blobs are streamed in and decoded piece by piece
    // (Session::stream_begin): the browser reads the next piece while this one is decoded. A
    // failed read ends that: the open then reads the files not fed whole itself (and names what
    // fails).
    const blobs = new Map(files.map((f) => [f.path, f.file]));
    try {
      for (const path of session.stream_begin().split('\n')) if (path) await feedFile(path, blobs.get(path));
    } catch {
      /* the open reads what was not fed whole */
    }
    const report = session.open_pending();
    report.elapsed_ms = performance.now() - t0;
    return report;
  }

  /** Feeds `blob` to the open, read as one stream into two buffers in turn: one is decoded while
   *  the other fills. Without BYOB readers this throws, and the open reads the file itself. */
  async function feedFile(path, blob) {
    const reader = blob.stream().getReader({ mode: 'byob' });
    let spare = new ArrayBuffer(4 << 20);
    let next = reader.read(new Uint8Array(new ArrayBuffer(4 << 20)));
    try {
      for (let r = await next; !r.done; r = await next) {
        next = reader.read(new Uint8Array(spare));
        if (!session.stream_feed(path, r.value)) throw new Error(`${path} not fed`);
        spare = r.value.buffer;
      }
    } catch (err) {
      reader.cancel().catch(() => {});
      throw err;
    }
  }

  // HTTP reads of every URL dataset; while requests are outstanding the page is told (its
  // progress line), unasked.
  const net = new NetStats((summary) => self.postMessage({ net: summary }));
  async function openUrlOp(id, url, name, limits) {
    const files = await listUrl(url, name, (p) => self.postMessage({ id, progress: p }), limits, net);
    const total = files.reduce((s, f) => s + (f.lazy ? 0 : f.size), 0);
    let done = 0;
    let deferred = 0;
    for (const f of files) {
      self.postMessage({ id, progress: { phase: 'reading', done, total, file: f.path } });
      if (f.lazy) {
        const file = new RemoteFile(f.url, f.size, f.validators, net);
        const note = (fetched) => self.postMessage({ id, progress: { phase: 'parsing', done: 0, total: 0, file: '', fetched } });
        // Servers with multi-range requests get batches in one request; the others (object
        // stores, CDNs) get the open's and the trace steps' reads asynchronously, many at once.
        if (f.multi) {
          session.add_reader_batched(f.path, f.size, rangeReader(file, note), multiRangeReader(file));
        } else {
          const stage = session.add_reader_deferred(f.path, f.size, rangeReader(file, note), file);
          if (f.head) session.stage_bytes(stage, 0, f.head);
          deferred++;
        }
      } else {
        session.add_file(f.path, f.bytes);
        done += f.size;
      }
    }
    if (deferred) await prefetchOpen(id);
    self.postMessage({ id, progress: { phase: 'parsing', done, total, file: '', fetched: net.bytes } });
    const t0 = performance.now();
    const report = session.open_pending();
    report.elapsed_ms = performance.now() - t0;
    report.net = { requests: net.requests, bytes: net.bytes };
    return report;
  }

  // The open of files on single-range servers, planned (Session::open_prefetch): each round
  // rehearses the open, whose reads name the ranges they want; those are fetched at once through
  // the origin's pool and staged, and the next round gets one level further down the open's chain
  // of reads (file headers, then sections, then the summary profile and the checks' samples...).
  // The open itself then reads what was staged instead of one synchronous request after another.
  // A failed fetch ends the planning: the open's own read of those bytes reports the error.
  const OPEN_ROUNDS = 12;
  async function prefetchOpen(id) {
    let last = '';
    for (let round = 0; round < OPEN_ROUNDS; round++) {
      if (!session.open_prefetch()) return;
      const wants = session.take_wanted_reads();
      const key = wants.map(keyOf).join(' ');
      // Nothing new wanted (bytes that cannot be staged): the open reads them itself.
      if (!wants.length || key === last) return;
      last = key;
      self.postMessage({ id, progress: { phase: 'reading', done: 0, total: 0, file: '', fetched: net.bytes } });
      let failed = false;
      const stage = (w, bytes) => {
        try {
          session.stage_bytes(w.stage, w.start, bytes);
        } catch {
          failed = true;
        }
      };
      await Promise.all(wants.map((w) => w.source.read(w.start, w.end).then((bytes) => stage(w, bytes), () => { failed = true; })));
      if (failed) return;
    }
  }

  // Trace steps over dropped files stop at reads they want done asynchronously (see
  // Session::timeline_begin in src/session/timeline.rs): each is read into one reused buffer, staged, and the
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
  // Ranges of single-range URLs being fetched for trace steps (their promise, by
  // "stage:start:end"), and failed ones ({err, at}): a call still wanting a range that failed
  // since it began gets the error; one that failed before is fetched again.
  const remoteReads = new Map();
  const remoteFailed = new Map();
  const keyOf = (w) => `${w.stage}:${w.start}:${w.end}`;
  function failure(key, since) {
    const f = remoteFailed.get(key);
    if (!f) return null;
    remoteFailed.delete(key);
    return f.at >= since ? f.err : null;
  }
  function fetchWanted(w, since) {
    const key = keyOf(w);
    const err = failure(key, since);
    if (err) throw err;
    let p = remoteReads.get(key);
    if (!p) {
      p = w.source.read(w.start, w.end)
        .then((bytes) => session.stage_bytes(w.stage, w.start, bytes), (e) => { remoteFailed.set(key, { err: e, at: performance.now() }); })
        .finally(() => remoteReads.delete(key));
      remoteReads.set(key, p);
    }
    return p;
  }
  /** Starts every remote read a step wants (those in flight already are not asked twice) and
   *  waits for the first to arrive: the step goes on with what it brings, and asks again. A
   *  read that failed since `since` (the call's start) fails the call. */
  async function fetchSomeWanted(wants, since) {
    await Promise.race(wants.map((w) => fetchWanted(w, since)));
    for (const w of wants) {
      const err = failure(keyOf(w), since);
      if (err) throw err;
    }
  }
  async function finishStep(value, args, t0) {
    const [id, slot] = args;
    const end = t0 + args[args.length - 1];
    while (value === null) {
      const wants = session.take_wanted_reads();
      if (!wants.length) throw new Error('a trace step stopped without a read to wait for');
      const remote = wants.filter((w) => !w.blob);
      if (remote.length) await fetchSomeWanted(remote, t0);
      else await readOneAtATime(wants[0]);
      const left = end - performance.now();
      value = left > 0 ? session.timeline_refine(id, slot, true, left) : session.timeline_progress(id, slot);
    }
    return value;
  }

  self.onmessage = async (e) => {
    const { id, op, args } = e.data;
    try {
      ready ??= start(op === 'hello' ? args[0] : undefined);
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
        case 'fetchSource': {
          // [dataset id, dataset URL, recorded path, candidate paths]: the source view's file.
          const [dsId, base, path, candidates] = args;
          const got = await fetchSource(base, candidates);
          if (got) session.source_add(dsId, path, got.bytes, got.size);
          value = { found: got ? got.path : null };
          break;
        }
        case 'netStats':
          value = { ...net.snapshot(), wasm_memory_bytes: wasmMemory ? wasmMemory.buffer.byteLength : null, blob: session.blob_reads(), staged: session.remote_staged_reads() };
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
