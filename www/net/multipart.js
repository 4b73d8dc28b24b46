// Multi-range answers: the parts of an HTTP 206 body, from a multipart/byteranges body (RFC 9110,
// section 14.6) or a single part named by its Content-Range. Pure: bytes and header strings in,
// parts out.

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
