// The engine, page side: `Engine` starts the dedicated Worker (worker.js, which runs
// worker-server.js: the only module that imports the wasm package) and forwards calls to it. Only
// bytes and plain results cross: file bytes in, summaries and typed arrays out (typed arrays are
// transferred, not copied).

/**
 * Page side. Every call returns a promise. `onProgress({phase, done, total, file})` is called while
 * files are read. If the Worker dies (a trap in wasm), the engine restarts it and replays the opens
 * that succeeded, so datasets already shown stay usable; their ids are kept.
 *
 * Options, for pages that cannot load worker.js and pkg/ from their server (a report opened from
 * file://): `createWorker()` makes the Worker (e.g. from a Blob URL of a bundled worker), `wasm` is
 * the engine's compiled `WebAssembly.Module` (or its bytes), handed to the Worker with `hello`.
 */
export class Engine {
  constructor({ createWorker = null, wasm = null } = {}) {
    this.nextCall = 1;
    this.calls = new Map();
    /** Calls that changed the session ([op, args]), replayed in order after a Worker restart so
     *  dataset ids come out the same. */
    this.history = [];
    /** Called with `{requests, bytes, in_flight, reading}` while the Worker has HTTP reads
     *  outstanding (and once when they end). */
    this.onNet = null;
    this.createWorker = createWorker
      || (() => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
    this.wasm = wasm;
    /** Set by terminate(): the Worker is gone for good. */
    this.terminated = false;
    this.ready = this.#startWorker();
  }

  #startWorker() {
    this.worker = this.createWorker();
    this.worker.onmessage = (e) => this.#onMessage(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.#failAll(new Error(`engine worker failed: ${e.message || 'unknown error'}`));
    };
    return this.#post('hello', this.wasm ? [this.wasm] : []);
  }

  /** Stops the Worker (and frees its wasm memory); calls in flight and later ones fail. */
  terminate() {
    if (this.terminated) return;
    this.terminated = true;
    this.worker.terminate();
    this.#failAll(new Error('engine terminated'));
  }

  #onMessage(msg) {
    if (msg.net) {
      this.onNet?.(msg.net);
      return;
    }
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
    if (this.terminated) return Promise.reject(new Error('engine terminated'));
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
      if (err.fatal && !this.terminated) await this.#restart();
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

  /** Fetches source file `path` of dataset `id` from candidate paths under its URL `base` into
   *  the engine (the source view); resolves to {found: the path found, or null}. */
  fetchSource(id, base, path, candidates) {
    return this.#run('fetchSource', [id, String(base), path, candidates]);
  }

  /** What the Worker's HTTP reads for URL datasets cost: {requests, bytes, aborted_bytes,
   *  in_flight, max_in_flight, wait_ms, sources: [{url, requests, bytes, in_flight,
   *  max_in_flight, wait_ms, aborted_bytes, errors}], wasm_memory_bytes, blob}. */
  netStats() {
    return this.#run('netStats', []);
  }

  /** Forgets a dataset in the engine. */
  remove(id) {
    return this.#run('call', ['remove', [id]], undefined, true);
  }

  /**
   * Calls a method of the Rust Session by name: views use this for their data, e.g.
   * `engine.call('flame_layout', id, zoom, viewport)` (a record argument as a plain object with
   * the Rust field names). Typed arrays come back transferred.
   */
  call(method, ...args) {
    // Calls that add or remove datasets are replayed after a restart; queries need not be.
    const changesSession = method.startsWith('open_') || method === 'remove';
    return this.#run('call', [method, args], undefined, changesSession);
  }
}
