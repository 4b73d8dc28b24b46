// The page side of a single-file report (`hpcscope report --html`), bundled into one script its
// inline loader starts from a Blob URL. No server, no network: the Worker from a Blob URL, the wasm
// compiled once and handed to each Worker, styles as a constructed sheet, and the dataset's files
// decoded from the page (zlib, base64) into Blobs the element opens.
import { configure, defineElement } from './element.js';

/** Bytes of base64 text (Uint8Array.fromBase64 where the browser has it). */
export function fromBase64(text) {
  const s = text.replace(/\s+/g, '');
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s);
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Inflates zlib-compressed bytes (the 'deflate' format of DecompressionStream). */
export async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * The files packed in `<script type="application/octet-stream" id=ID data-files='[{path, size}]'>`:
 * base64 of the zlib-compressed concatenation, in list order. Resolves to [{path, bytes}].
 */
export async function unpack(el) {
  const files = JSON.parse(el.dataset.files);
  const all = await inflate(fromBase64(el.textContent));
  const total = files.reduce((s, f) => s + f.size, 0);
  if (total !== all.length) throw new Error(`report data holds ${all.length} bytes, its list says ${total}`);
  let off = 0;
  return files.map((f) => {
    const bytes = all.subarray(off, off + f.size);
    off += f.size;
    return { path: f.path, bytes };
  });
}

function fail(err) {
  const box = document.getElementById('hpcscope-report-error');
  if (box) {
    box.hidden = false;
    box.textContent = `This report could not be shown: ${err && err.message ? err.message : err}`;
  }
  throw err;
}

async function start() {
  const assets = window.hpcscopeReportAssets;
  if (!assets) throw new Error('the report loader did not run');
  const wasm = await WebAssembly.compile(assets.wasm);
  configure({
    css: assets.css,
    createWorker: () => new Worker(assets.worker, { name: 'hpcscope-engine' }),
    wasm,
  });
  defineElement();
  const data = document.getElementById('hpcscope-data');
  const files = data ? await unpack(data) : [];
  // Blobs: the element's Worker reads them without another copy per element.
  const blobs = files.map((f) => ({ path: f.path, file: new Blob([f.bytes]) }));
  const elements = [...document.querySelectorAll('hpcscope-view')];
  const reports = await Promise.all(elements.map((el) => el.open(blobs)));
  window.hpcscopeReport = { elements, files: files.map((f) => ({ path: f.path, size: f.bytes.length })), reports };
  return window.hpcscopeReport;
}

window.hpcscopeReportReady = start().catch(fail);
