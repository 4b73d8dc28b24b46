// Synchronous HTTP range reads for Session.add_reader_batched / add_reader_deferred (Worker
// side: parsing cannot wait for a promise): one range per XHR, or many ranges per request as a
// multipart/byteranges answer (parsed by multipart.js), each answer checked against the file as
// first seen (remote-file.js) and counted in its NetStats (net-stats.js).

import { parseRanges } from './multipart.js';
import { cannotRead, CORS_HINT } from './errors.js';

/** A synchronous ranged GET of `file.url`: the XHR, done, its body counted. */
function send(file, range) {
  const done = file.net ? file.net.begin(file.url) : () => {};
  const r = new XMLHttpRequest();
  r.open('GET', file.url, false);
  r.responseType = 'arraybuffer';
  r.setRequestHeader('Range', `bytes=${range}`);
  try {
    r.send();
  } catch {
    done(0, { error: true });
    throw cannotRead(file.url, CORS_HINT);
  }
  if (r.status === 0) {
    done(0, { error: true });
    throw cannotRead(file.url, CORS_HINT);
  }
  const body = new Uint8Array(r.response || new ArrayBuffer(0));
  done(body.length, { error: r.status !== 206 });
  return { r, body };
}

/** A `read(start, end)` for Session.add_reader: synchronous XHR with a Range header, for a
 *  RemoteFile `file`. `onProgress(bytes)` is told the bytes fetched so far, every 100 ms. */
export function rangeReader(file, onProgress) {
  let lastNote = 0;
  return (start, end) => {
    const { r, body } = send(file, `${start}-${end - 1}`);
    const now = performance.now();
    if (onProgress && now - lastNote > 100) {
      lastNote = now;
      onProgress(file.net ? file.net.bytes : 0);
    }
    const err = file.check(r.status, (n) => r.getResponseHeader(n), start, end);
    if (err) throw err;
    if (body.length !== end - start) throw cannotRead(file.url, `the answer to bytes ${start}-${end - 1} has ${body.length} bytes`);
    return body;
  };
}

/** Longest Range header a multi-range request starts with, halved each time a server refuses it
 *  as too large (nginx and Apache accept 8 KiB header lines by default, Node 16 KiB headers,
 *  scripts/serve.js 256 KiB): a few refused requests once, then batches that fit. */
const MULTI_RANGE_CHARS = 64000;

/**
 * A `read_many(starts, ends)` for Session.add_reader_batched: many ranges with few synchronous
 * requests, `Range: bytes=a-b,c-d,...` answered by a `multipart/byteranges` 206 (the file's
 * origin answered so when probed). A server that answers one range (206 single part, covering
 * them) or refuses the header is handled; one that cannot do multi-range after all makes the
 * reader fall back to one request per range.
 */
export function multiRangeReader(file) {
  let maxChars = MULTI_RANGE_CHARS;
  let single = false;
  const one = rangeReader(file);
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
      const { r, body } = send(file, parts.join(','));
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
      const changed = file.changed((h) => r.getResponseHeader(h));
      if (changed) throw changed;
      const pieces = parseRanges(body, r.getResponseHeader('content-type') || '', r.getResponseHeader('content-range') || '');
      if (!pieces) {
        single = true;
        continue;
      }
      for (let k = i; k < j; k++) {
        const a = starts[k], len = ends[k] - a;
        const p = pieces.find((x) => x.start <= a && a + len <= x.start + x.bytes.length);
        if (!p) throw cannotRead(file.url, `the server's multi-range answer lacks bytes ${a}-${a + len - 1}`);
        out.set(p.bytes.subarray(a - p.start, a - p.start + len), pos);
        pos += len;
      }
      i = j;
    }
    return out;
  };
}
