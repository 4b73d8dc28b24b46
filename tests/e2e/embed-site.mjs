// Fixtures of the embedding tests (embed.test.mjs): the npm package packed and installed into an
// empty folder, a documentation-like page using two <hpcscope-view> elements on datasets the
// project generates, the native CLI for `hpcscope report --html`, and the numbers a profile view
// shows (flame graph and table) in one comparable shape.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT } from './helpers.mjs';
import { CSP } from '../../scripts/serve.js';

/**
 * A fresh folder outside the checkout (the package is installed as a user would, with no
 * node_modules or package.json of the repository above it), removed by removeSite().
 * `npm test` points TMPDIR into target/, so that one is not used; HPCSCOPE_EMBED_KEEP=1 keeps it.
 */
function tmpBase() {
  const t = os.tmpdir();
  const inside = !path.relative(ROOT, t).startsWith('..');
  return inside ? '/tmp' : t;
}
export const TMP = fs.mkdtempSync(path.join(tmpBase(), 'hpcscope-embed-'));

let binPath = null;
/** The native CLI of this checkout (`cargo build` first, so `report --html` is current). */
export function bin() {
  if (binPath) return binPath;
  if (process.env.HPCSCOPE_BIN) return (binPath = process.env.HPCSCOPE_BIN);
  execFileSync('cargo', ['build', '--quiet', '--bin', 'hpcscope'], { cwd: ROOT, stdio: 'inherit' });
  return (binPath = path.join(ROOT, 'target', 'debug', 'hpcscope'));
}

export function cli(...args) {
  return execFileSync(bin(), args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 }).toString('utf8');
}

/**
 * The package as `npm run package` makes it: dist-npm/ laid out from the built dist/ (minified,
 * scripts/package.mjs), then `npm pack ./dist-npm` into TMP.
 */
export function pack() {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'package.mjs')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const out = execFileSync('npm', ['pack', './dist-npm', '--json', '--pack-destination', TMP], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const [info] = JSON.parse(out.toString('utf8'));
  const tarball = path.join(TMP, info.filename);
  return { info, tarball, bytes: fs.statSync(tarball).size };
}

/** The docs page: two elements on different generated datasets and views, under the viewer's CSP. */
function docsPage() {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="${CSP}">
  <title>Tuning guide · example docs</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="docs.css">
  <script type="module" src="node_modules/hpcscope/www/embed/index.js"></script>
</head>
<body>
  <main class="doc">
    <h1>Where the solver spends its time</h1>
    <p>The profile below is the synthetic database of the tuning guide, metric 1; select a frame to
    see its share of the run.</p>
    <hpcscope-view id="a" src="data/synth.d/" view="profile" metric="1" height="460"></hpcscope-view>
    <p>Each rank's trace shows when it computes and when it waits.</p>
    <hpcscope-view id="b" src="data/app.m/" view="timeline" height="380"></hpcscope-view>
    <p>End of the example page.</p>
  </main>
</body>
</html>
`;
}

const DOCS_CSS = `body { margin: 0; background: #fff; color: #222; font: 16px/1.6 Georgia, serif; }
.doc { max-width: 1100px; margin: 0 auto; padding: 24px 32px; }
hpcscope-view { margin: 16px 0; }
`;

/**
 * Packs the package, installs the tarball into TMP/site (an empty folder with a package.json),
 * writes the generated datasets under TMP/site/data and the docs page. Returns {site, pack}.
 */
export function makeSite() {
  const packed = pack();
  const site = path.join(TMP, 'site');
  fs.mkdirSync(site);
  fs.writeFileSync(path.join(site, 'package.json'), JSON.stringify({ name: 'docs-site', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--offline', packed.tarball], { cwd: site, stdio: ['ignore', 'pipe', 'pipe'] });
  const data = path.join(site, 'data');
  cli('synth', '--ranks', '2', '--threads', '2', '--contexts', '300', '--metrics', '3', '--samples', '2000', path.join(data, 'synth.d'));
  cli('index', path.join(data, 'synth.d'));
  cli('fixture', 'hpcrun', path.join(data, 'app.m'));
  cli('index', path.join(data, 'app.m'));
  fs.writeFileSync(path.join(site, 'index.html'), docsPage());
  fs.writeFileSync(path.join(site, 'docs.css'), DOCS_CSS);
  return { site, packed };
}

/** Removes TMP (the packed tarball, the installed site, the reports) unless asked to keep it. */
export function removeSite() {
  if (process.env.HPCSCOPE_EMBED_KEEP) console.log(`kept ${TMP}`);
  else fs.rmSync(TMP, { recursive: true, force: true });
}

/**
 * The numbers a profile view state shows (hpcscope.state().views.profile, or an element's
 * viewState): metric, flame root and first frames, table root and first rows.
 */
export function profileNumbers(p) {
  return {
    metric: p.metricName,
    flameRoot: p.flame.root,
    frames: p.flame.frames.slice(0, 25).map((f) => [f.name, f.depth, f.inclusive, f.exclusive]),
    tableRoot: p.table.root,
    rows: p.table.visible.slice(0, 25).map((r) => [r.label, r.depth, r.values.map((v) => [v.inclusive, v.exclusive])]),
  };
}

/** Waits until element `sel`'s profile view has drawn its flame graph and table. */
export async function elementProfile(page, sel, timeout = 60000) {
  await page.waitForFunction((s) => {
    const el = document.querySelector(s);
    // Until the element's module has run (a report page under load), it is not upgraded yet.
    const v = el && typeof el.state === 'function' && el.state().viewState;
    return v && v.flame && v.flame.rects > 0 && v.table && v.table.visible.length > 0;
  }, sel, { timeout });
  return page.evaluate(async (s) => {
    const el = document.querySelector(s);
    await el.whenReady();
    return el.state();
  }, sel);
}
