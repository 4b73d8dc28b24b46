// Minifies the viewer's scripts and styles and lays out the npm package (issue 19: the tarball under
// 700 KB gzipped). File by file with esbuild: each ES module stays a module with the same name, the
// same imports and the same exports (no bundling: the element loads its Worker, styles and wasm
// relative to its own URL, and `hpcscope/wasm` stays importable), only smaller.
//   node scripts/package.mjs --dist   minifies dist/www/**/*.{js,css} and dist/pkg/hpcscope.js in
//                                     place, each with a linked source map (sources included), so
//                                     the served viewer and the e2e tests run the code the package
//                                     ships; scripts/build.sh runs it after copying www/ to dist/.
//   node scripts/package.mjs          lays out dist-npm/ from dist/ (the minified files without
//                                     their maps), pkg/*.d.ts, types/ and a package.json made from
//                                     the repository's (which is private); `npm pack ./dist-npm`
//                                     makes the tarball (`npm run package` does both).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(ROOT, 'dist-npm');

function* files(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

/** Minifies one .js (an ES module) or .css file in place, writing FILE.map beside it. */
async function minifyFile(file) {
  const css = file.endsWith('.css');
  const source = fs.readFileSync(file, 'utf8');
  const name = path.basename(file);
  const out = await transform(source, {
    loader: css ? 'css' : 'js',
    format: css ? undefined : 'esm',
    minify: true,
    legalComments: 'none',
    // Same language level as written: the viewer targets current browsers and nothing is lowered.
    target: 'esnext',
    sourcemap: 'external',
    sourcefile: name,
    sourcesContent: true,
  });
  const link = css ? `/*# sourceMappingURL=${name}.map */\n` : `//# sourceMappingURL=${name}.map\n`;
  // wasm-bindgen's glue names its types in a leading directive (read by Deno and TypeScript).
  const directive = /^\/\* @ts-self-types="[^"]+" \*\/\n/.exec(source)?.[0] || '';
  fs.writeFileSync(file, directive + out.code + link);
  const map = JSON.parse(out.map);
  if (directive) map.mappings = `;${map.mappings}`; // the map starts one line lower
  fs.writeFileSync(`${file}.map`, JSON.stringify(map));
  return { before: source.length, after: out.code.length };
}

async function minifyDist() {
  const www = path.join(DIST, 'www');
  if (!fs.existsSync(www)) throw new Error('dist/ is not built (bash scripts/build.sh)');
  const list = [...files(www)].filter((f) => /\.(js|css)$/.test(f));
  list.push(path.join(DIST, 'pkg', 'hpcscope.js'));
  let before = 0;
  let after = 0;
  for (const f of list) {
    const r = await minifyFile(f);
    before += r.before;
    after += r.after;
  }
  console.log(`[package] minified ${list.length} files in dist/ (each with a .map): ${before} -> ${after} bytes`);
}

/** A minified file without its source-map link (the maps stay out of the package). */
function withoutMapLink(text) {
  return text.replace(/\n?(\/\/# sourceMappingURL=\S+|\/\*# sourceMappingURL=\S+ \*\/)\n?$/, '\n');
}

function copy(from, to, edit) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  if (edit) fs.writeFileSync(to, edit(fs.readFileSync(from, 'utf8')));
  else fs.copyFileSync(from, to);
}

/** The published manifest: the repository's package.json less what only the repository uses. */
function manifest() {
  const repo = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const { private: _private, scripts: _scripts, devDependencies: _dev, ...pkg } = repo;
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function layout() {
  if (!fs.existsSync(path.join(DIST, 'www', 'embed', 'index.js.map'))) {
    throw new Error('dist/ is not built with minified files (bash scripts/build.sh)');
  }
  fs.rmSync(OUT, { recursive: true, force: true });
  fs.mkdirSync(OUT);
  fs.writeFileSync(path.join(OUT, 'package.json'), manifest());
  copy(path.join(DIST, 'index.html'), path.join(OUT, 'index.html'));
  for (const f of files(path.join(DIST, 'www'))) {
    // embed/report.js is the page side of `hpcscope report --html`, bundled from www/ into the
    // report template (scripts/build-report.mjs); nothing in the package loads it.
    if (f.endsWith('.map') || f === path.join(DIST, 'www', 'embed', 'report.js')) continue;
    const to = path.join(OUT, path.relative(DIST, f));
    copy(f, to, /\.(js|css)$/.test(f) ? withoutMapLink : null);
  }
  copy(path.join(DIST, 'pkg', 'hpcscope.js'), path.join(OUT, 'pkg', 'hpcscope.js'), withoutMapLink);
  copy(path.join(DIST, 'pkg', 'hpcscope_bg.wasm'), path.join(OUT, 'pkg', 'hpcscope_bg.wasm'));
  // The glue's types (hpcscope_bg.wasm.d.ts types the raw wasm exports for bundlers that import
  // the .wasm itself, which this web-target glue never does).
  copy(path.join(ROOT, 'pkg', 'hpcscope.d.ts'), path.join(OUT, 'pkg', 'hpcscope.d.ts'));
  for (const f of files(path.join(ROOT, 'types'))) copy(f, path.join(OUT, path.relative(ROOT, f)));
  // The package's page on the registry is the embedding guide (the repository's README is about
  // building and running the viewer from a checkout).
  copy(path.join(ROOT, 'docs', 'embedding.md'), path.join(OUT, 'README.md'));
  let n = 0;
  let bytes = 0;
  for (const f of files(OUT)) {
    n += 1;
    bytes += fs.statSync(f).size;
  }
  console.log(`[package] dist-npm/ ready: ${n} files, ${bytes} bytes; npm pack ./dist-npm makes the tarball`);
}

if (process.argv.includes('--dist')) await minifyDist();
else layout();
