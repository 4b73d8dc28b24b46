// What `hpcscope.open` and an <hpcscope-view> element's `open()` accept, turned into the engine's
// input list: File / FileList / Blob, [{path|name, bytes|file}], or URLs of single files (fetched
// whole; a database folder URL goes to Engine.openUrl instead, read on demand).

/** Turns what `hpcscope.open` accepts into [{path, file} | {path, bytes}]. */
export async function normalizeInputs(input, base = location.href) {
  if (typeof input === 'string' || input instanceof URL) input = [input];
  if (input instanceof FileList) input = Array.from(input);
  if (input instanceof Blob) input = [input];
  if (!Array.isArray(input)) throw new TypeError('hpcscope.open expects files, [{path, bytes}] or a URL');
  const out = [];
  for (const item of input) {
    if (typeof item === 'string' || item instanceof URL) {
      const url = new URL(item, base);
      const res = await fetch(url);
      if (!res.ok) throw new Error(`cannot fetch ${url}: HTTP ${res.status}`);
      const name = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() || 'download');
      out.push({ path: name, bytes: new Uint8Array(await res.arrayBuffer()) });
    } else if (item instanceof Blob) {
      out.push({ path: item.webkitRelativePath || item.name || 'blob', file: item });
    } else if (item && (item.bytes || item.file)) {
      const path = item.path || item.name || (item.file && item.file.name);
      if (!path) throw new TypeError('each {bytes} input needs a path or name');
      out.push(item.file ? { path, file: item.file } : { path, bytes: item.bytes });
    } else {
      throw new TypeError('unsupported input to hpcscope.open');
    }
  }
  return out;
}
