// One file read by URL (Worker side): its size and validators (ETag, Last-Modified) as first
// seen, the checks every ranged answer must pass (the asked range, the same file), and the
// asynchronous reads of trace steps over single-range servers: fetch() through a bounded pool of
// concurrent requests per origin. A 200 to a range request is aborted after its first bytes.

import { cannotRead, CORS_HINT } from './errors.js';

/** Concurrent requests per origin (a browser's own per-host limit over HTTP/1.1). */
export const POOL_SIZE = 6;

/** A FIFO of tasks running at most `limit` at once. */
export class FetchPool {
  constructor(limit = POOL_SIZE) {
    this.limit = limit;
    this.running = 0;
    this.queue = [];
  }

  /** Runs `task()` (returning a promise) when a slot is free; resolves to its result. */
  run(task) {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject });
      this.#next();
    });
  }

  #next() {
    while (this.running < this.limit && this.queue.length) {
      const { task, resolve, reject } = this.queue.shift();
      this.running++;
      Promise.resolve().then(task).then(resolve, reject).finally(() => {
        this.running--;
        this.#next();
      });
    }
  }
}

const pools = new Map();
/** The pool of `url`'s origin. */
export function poolOf(url) {
  const o = new URL(url).origin;
  let p = pools.get(o);
  if (!p) pools.set(o, (p = new FetchPool()));
  return p;
}

export class RemoteFile {
  /** `url` of `size` bytes, whose answers carried `etag` and `lastModified` (either may be
   *  empty: then it is not checked); `net` counts the requests (net-stats.js). */
  constructor(url, size, { etag = '', lastModified = '' } = {}, net = null) {
    this.url = url;
    this.size = size;
    this.etag = etag;
    this.lastModified = lastModified;
    this.net = net;
  }

  /** The error of a ranged answer that is not bytes `start..end` of this same file, or null.
   *  `header(name)` reads the answer's headers. */
  check(status, header, start, end) {
    const range = `bytes ${start}-${end - 1}`;
    if (status === 200) return cannotRead(this.url, `the server ignores HTTP Range requests (HTTP 200 with the whole file to a request for ${range})`);
    if (status !== 206) return cannotRead(this.url, `HTTP ${status} for ${range}`);
    const changed = this.changed(header);
    if (changed) return changed;
    const c = /bytes\s+(\d+)-(\d+)\/(\d+|\*)/.exec(header('content-range') || '');
    if (c && (Number(c[1]) !== start || Number(c[2]) !== end - 1)) {
      return cannotRead(this.url, `the server answered bytes ${c[1]}-${c[2]} to a request for ${range}`);
    }
    return null;
  }

  /** The error of an answer whose validators (ETag, Last-Modified, the size in Content-Range)
   *  say the file is no longer the one opened, or null. */
  changed(header) {
    const etag = header('etag') || '';
    if (this.etag && etag && etag !== this.etag) {
      return cannotRead(this.url, `the file changed on the server since it was opened (ETag ${this.etag} became ${etag}); reopen it`);
    }
    const lm = header('last-modified') || '';
    if (this.lastModified && lm && lm !== this.lastModified) {
      return cannotRead(this.url, `the file changed on the server since it was opened (Last-Modified ${this.lastModified} became ${lm}); reopen it`);
    }
    const c = /bytes\s+(\d+)-(\d+)\/(\d+|\*)/.exec(header('content-range') || '');
    if (c && c[3] !== '*' && Number(c[3]) !== this.size) {
      return cannotRead(this.url, `the file changed on the server since it was opened (${this.size} bytes, now ${c[3]}); reopen it`);
    }
    return null;
  }

  /** Bytes `start..end`, fetched asynchronously through the origin's pool. */
  read(start, end) {
    return poolOf(this.url).run(() => this.#fetch(start, end));
  }

  async #fetch(start, end) {
    const done = this.net ? this.net.begin(this.url) : () => {};
    const ctl = new AbortController();
    let got = 0;
    try {
      let res;
      try {
        res = await fetch(this.url, { headers: { Range: `bytes=${start}-${end - 1}` }, cache: 'no-store', signal: ctl.signal });
      } catch {
        throw cannotRead(this.url, CORS_HINT);
      }
      const err = this.check(res.status, (n) => res.headers.get(n), start, end);
      if (err) {
        // Never the whole object: what came with the headers is counted, the rest refused.
        got = await firstChunk(res);
        ctl.abort();
        done(got, { aborted: true, error: true });
        throw err;
      }
      const out = new Uint8Array(end - start);
      const reader = res.body.getReader();
      try {
        for (;;) {
          const { value, done: eof } = await reader.read();
          if (eof) break;
          if (got + value.length > out.length) throw cannotRead(this.url, `the answer to bytes ${start}-${end - 1} is longer than asked`);
          out.set(value, got);
          got += value.length;
        }
      } catch (e) {
        if (e.message?.startsWith('cannot read')) throw e;
        throw cannotRead(this.url, `the connection was dropped after ${got} of ${end - start} bytes of bytes ${start}-${end - 1}`);
      }
      if (got !== out.length) throw cannotRead(this.url, `the answer to bytes ${start}-${end - 1} ended after ${got} of ${end - start} bytes`);
      done(got);
      return out;
    } catch (e) {
      done(got, { error: true });
      throw e;
    }
  }
}

/** Reads the first chunk of an answer's body (0 if none), for counting before an abort. */
async function firstChunk(res) {
  try {
    const r = res.body?.getReader();
    if (!r) return 0;
    const { value } = await r.read();
    r.cancel().catch(() => {});
    return value ? value.length : 0;
  } catch {
    return 0;
  }
}
