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
  const ready = (async () => {
    const wasm = await import('../pkg/hpcscope.js');
    await wasm.default();
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
        case 'call': {
          const [method, callArgs] = args;
          if (typeof session[method] !== 'function') throw new Error(`no engine method '${method}'`);
          value = session[method](...callArgs);
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
