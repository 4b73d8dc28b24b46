// What the Worker's HTTP reads cost, per source (file URL) and in all: requests, bytes, requests
// in flight now and at most, time waiting (wall time with a request outstanding), and waves (requests
// started while none was outstanding): for netStats() and the page's progress line.

// Waves: a chain of requests each waiting for the one before counts one wave per request, a batch
// sent at once one wave; over a server that takes 20-100 ms per answer the waves say the wait
// better than the requests do.

/** Counters of one source. */
function sourceEntry(url) {
  return { url, requests: 0, bytes: 0, in_flight: 0, max_in_flight: 0, wait_ms: 0, aborted_bytes: 0, errors: 0, busySince: 0 };
}

export class NetStats {
  /** `onChange(summary)` is called (at most every 100 ms, and when the last request ends) while
   *  requests are outstanding. */
  constructor(onChange) {
    this.requests = 0;
    this.bytes = 0;
    this.aborted_bytes = 0;
    this.waves = 0;
    this.sources = new Map();
    this.onChange = onChange;
    this.lastNote = -Infinity; // the first request is always noted, however early it starts
  }

  source(url) {
    let s = this.sources.get(url);
    if (!s) this.sources.set(url, (s = sourceEntry(url)));
    return s;
  }

  /** A request to `url` starts; returns the function that ends it with `bytes` received. */
  begin(url) {
    const s = this.source(url);
    const now = performance.now();
    if (this.inFlight() === 0) this.waves++;
    if (s.in_flight === 0) s.busySince = now;
    s.in_flight++;
    s.max_in_flight = Math.max(s.max_in_flight, s.in_flight);
    s.requests++;
    this.requests++;
    this.#note(false);
    let ended = false;
    return (bytes, { aborted = false, error = false } = {}) => {
      if (ended) return;
      ended = true;
      s.in_flight--;
      if (s.in_flight === 0) s.wait_ms += performance.now() - s.busySince;
      s.bytes += bytes;
      this.bytes += bytes;
      if (aborted) {
        s.aborted_bytes += bytes;
        this.aborted_bytes += bytes;
      }
      if (error) s.errors++;
      this.#note(this.inFlight() === 0);
    };
  }

  inFlight() {
    let n = 0;
    for (const s of this.sources.values()) n += s.in_flight;
    return n;
  }

  #note(force) {
    if (!this.onChange) return;
    const now = performance.now();
    if (!force && now - this.lastNote < 100) return;
    this.lastNote = now;
    this.onChange(this.summary());
  }

  /** Totals and the sources reading now, for the progress line. */
  summary() {
    const reading = [...this.sources.values()].filter((s) => s.in_flight > 0).map((s) => s.url.split('/').pop());
    return { requests: this.requests, bytes: this.bytes, in_flight: this.inFlight(), reading };
  }

  /** Everything, as plain data: totals, and per source its counters (wait_ms includes the
   *  current wait). */
  snapshot() {
    const now = performance.now();
    const sources = [...this.sources.values()].map(({ busySince, ...s }) => ({
      ...s,
      wait_ms: s.wait_ms + (s.in_flight > 0 ? now - busySince : 0),
    }));
    return {
      requests: this.requests,
      bytes: this.bytes,
      aborted_bytes: this.aborted_bytes,
      waves: this.waves,
      in_flight: this.inFlight(),
      max_in_flight: sources.reduce((m, s) => Math.max(m, s.max_in_flight), 0),
      wait_ms: sources.reduce((m, s) => m + s.wait_ms, 0),
      sources,
    };
  }
}
