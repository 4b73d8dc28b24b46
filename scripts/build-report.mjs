// Writes dist/report-template.html, the page `hpcscope report --html OUT DIR` fills with a
// dataset: the viewer bundled by esbuild into two scripts (the page side, www/embed/report.js, and
// the engine Worker, www/worker.js with the wasm glue), the optimised wasm and the CSS, packed
// zlib-compressed and base64-encoded into the page, plus a small inline loader allowed by its hash
// in the page's Content-Security-Policy. The CLI replaces the {{...}} markers (see
// src/cli/report_html.rs); everything else stays byte for byte, so the hashes stay valid.
// `node scripts/build-report.mjs [DIST]` (default dist/, after pkg/ is built).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.resolve(process.argv[2] || path.join(ROOT, 'dist'));

/** One minified script of `entry` and everything it imports (dynamic imports too). */
async function bundle(entry) {
  const out = await build({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    target: 'es2022',
    legalComments: 'none',
    // The glue's default wasm path (import.meta.url) is never used: the wasm is handed over.
    logOverride: { 'empty-import-meta': 'silent' },
  });
  return out.outputFiles[0].contents;
}

const sha256 = (text) => `'sha256-${crypto.createHash('sha256').update(text).digest('base64')}'`;

// Runs inline: unpacks the viewer, makes Blob URLs of the scripts and starts the page script.
const LOADER = `(async()=>{const box=document.getElementById('hpcscope-report-error');try{` +
  `const el=document.getElementById('hpcscope-viewer');const parts=JSON.parse(el.dataset.files);` +
  `const s=el.textContent.replace(/\\s+/g,'');let bytes;if(Uint8Array.fromBase64)bytes=Uint8Array.fromBase64(s);` +
  `else{const b=atob(s);bytes=new Uint8Array(b.length);for(let i=0;i<b.length;i++)bytes[i]=b.charCodeAt(i);}` +
  `const all=new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'))).arrayBuffer());` +
  `const got={};let off=0;for(const p of parts){got[p.path]=all.subarray(off,off+p.size);off+=p.size;}` +
  `const url=(b)=>URL.createObjectURL(new Blob([b],{type:'text/javascript'}));` +
  `window.hpcscopeReportAssets={worker:url(got['worker.js']),wasm:got['hpcscope_bg.wasm'],css:new TextDecoder().decode(got['style.css'])};` +
  `const sc=document.createElement('script');sc.src=url(got['report.js']);document.head.append(sc);` +
  `}catch(e){box.hidden=false;box.textContent='This report could not be shown: '+e.message;}})();`;

const STYLE = `*{box-sizing:border-box}html,body{margin:0}` +
  `body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;background:#f6f7f9;color:#1d232b;padding:12px 16px 16px}` +
  `header{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 14px;margin:0 0 10px}` +
  `h1{font-size:18px;margin:0;word-break:break-word}.meta{color:#687385;font-size:12.5px}` +
  `.note{color:#b26a00;font-size:12.5px;margin:0 0 8px}#hpcscope-report-error{color:#c62f2f;margin:8px 0}` +
  `hpcscope-view{--hpcscope-height:calc(100vh - 92px);min-height:320px}` +
  `@media (prefers-color-scheme:dark){body{background:#15181d;color:#e3e7ee}.meta{color:#98a2b3}}`;

function csp() {
  return [
    "default-src 'none'",
    `script-src ${sha256(LOADER)} blob: 'wasm-unsafe-eval'`,
    'worker-src blob:',
    "connect-src 'none'",
    `style-src ${sha256(STYLE)}`,
    'img-src data: blob:',
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "manifest-src 'none'",
  ].join('; ');
}

async function main() {
  const wasmPath = path.join(ROOT, 'pkg', 'hpcscope_bg.wasm');
  if (!fs.existsSync(wasmPath)) throw new Error('pkg/ is not built (scripts/build.sh builds it first)');
  const parts = [
    ['report.js', await bundle('www/embed/report.js')],
    ['worker.js', await bundle('www/worker.js')],
    ['style.css', Buffer.concat([fs.readFileSync(path.join(ROOT, 'www/style.css')), fs.readFileSync(path.join(ROOT, 'www/embed/element.css'))])],
    ['hpcscope_bg.wasm', fs.readFileSync(wasmPath)],
  ];
  const packed = zlib.deflateSync(Buffer.concat(parts.map(([, b]) => Buffer.from(b))), { level: 9 }).toString('base64');
  const files = JSON.stringify(parts.map(([p, b]) => ({ path: p, size: b.length })));
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp()}">
<meta name="generator" content="hpcscope {{VERSION}}">
<title>{{TITLE}} · hpcscope report</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>{{TITLE}}</h1><span class="meta">{{META}}</span></header>
{{NOTES}}<div id="hpcscope-report-error" role="alert" hidden></div>
<hpcscope-view views="{{VIEWS}}" view="{{VIEW}}"></hpcscope-view>
<script type="application/octet-stream" id="hpcscope-data" data-files="{{DATA_FILES}}">{{DATA}}</script>
<script type="application/octet-stream" id="hpcscope-viewer" data-files="${files.replaceAll('"', '&quot;')}">${packed}</script>
<script>${LOADER}</script>
</body>
</html>
`;
  fs.mkdirSync(DIST, { recursive: true });
  const out = path.join(DIST, 'report-template.html');
  fs.writeFileSync(out, html);
  const sizes = parts.map(([p, b]) => `${p} ${b.length}`).join(', ');
  console.log(`[build] ${path.relative(ROOT, out)}: ${html.length} bytes (${sizes}; packed ${packed.length} base64)`);
}

main().catch((err) => {
  console.error(`[build] report template: ${err.message}`);
  process.exit(1);
});
