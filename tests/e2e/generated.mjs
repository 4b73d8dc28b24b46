// Datasets the project writes with its own writers (`hpcscope synth`, `hpcscope fixture`: an
// HPCToolkit v4 database, prof2 databases, an XML-era database, an hpcrun measurement folder, a
// uftrace recording and a DCPI profile), generated under target/e2e-generated/ the first time a
// test process asks for one, so the end-to-end tests run without ../shared/corpus.
// `transcript(dir)` reads `hpcscope dump --json` of a dataset: the native reader's account of its
// values and trace samples, which the values the browser shows are compared with.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { CORPUS, ROOT, hasCorpus, sampleIn } from './helpers.mjs';

export const GENERATED = path.join(ROOT, 'target', 'e2e-generated');

let binPath = null;
/**
 * The native CLI: `$HPCSCOPE_BIN`, else the newer of target/{release,debug}/hpcscope (an old
 * release build may lack a fixture kind), else one built now.
 */
export function bin() {
  if (binPath) return binPath;
  if (process.env.HPCSCOPE_BIN) return (binPath = process.env.HPCSCOPE_BIN);
  const found = ['release', 'debug'].map((p) => path.join(ROOT, 'target', p, 'hpcscope'))
    .filter((p) => fs.existsSync(p))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  if (found) return (binPath = found);
  execFileSync('cargo', ['build', '--quiet', '--bin', 'hpcscope'], { cwd: ROOT, stdio: 'inherit' });
  return (binPath = path.join(ROOT, 'target', 'debug', 'hpcscope'));
}

/** Runs the native CLI; resolves to its standard output. */
export function cli(...args) {
  return execFileSync(bin(), args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 }).toString('utf8');
}

/**
 * Each generated dataset: how to write it into its folder, the path to drop or open (`open`,
 * relative to that folder; the folder itself when absent), the dataset's root name once dropped,
 * and the format, format name and era the summary panel must show for it.
 */
const RECIPES = {
  // Four threads of one rank, loops, inlined code, a trace of 2,000 samples per thread.
  'synth.d': {
    write: (dir) => cli('synth', '--ranks', '1', '--threads', '4', '--contexts', '200', '--metrics', '3', '--samples', '2000', dir),
    root: 'synth.d', format: 'hpctoolkit', formatName: 'HPCToolkit database', layout: 'v4.0 final',
  },
  'prof2-be.d': {
    write: (dir) => cli('fixture', 'prof2', dir),
    root: 'prof2-be.d', format: 'prof2', formatName: 'HPCToolkit database (prof2)', layout: 'prof2 pre-release 1.0 (big-endian)',
  },
  'prof2-le.d': {
    write: (dir) => cli('fixture', 'prof2', '--little-endian', dir),
    root: 'prof2-le.d', format: 'prof2', formatName: 'HPCToolkit database (prof2)', layout: 'prof2 pre-release 1.0 (little-endian)',
  },
  // An XML-era database (experiment.xml, per-thread metric-db and hpctrace files).
  'xml.d': {
    write: (dir) => cli('fixture', 'xml', '--size', '200000', '--threads', '2', dir),
    root: 'xml.d', format: 'hpctoolkit-xml', formatName: 'HPCToolkit XML database', layout: 'experiment.xml v2.2',
  },
  'synthapp.m': {
    write: (dir) => cli('fixture', 'hpcrun', dir),
    root: 'synthapp.m', format: 'hpcrun', formatName: 'hpcrun measurements', layout: 'hpcrun profile 04.00b',
  },
  // The same program measured with no samples at all: trace lines without samples.
  'synthapp-empty.m': {
    write: (dir) => cli('fixture', 'hpcrun', '--samples', '0', dir),
    root: 'synthapp-empty.m', format: 'hpcrun', formatName: 'hpcrun measurements', layout: 'hpcrun profile 04.00b',
  },
  ufsynth: {
    write: (dir) => cli('fixture', 'uftrace', path.join(dir, 'uftrace.data')),
    open: 'uftrace.data', root: 'uftrace.data', format: 'uftrace', formatName: 'uftrace recording', layout: 'uftrace file version 4',
  },
  // A profile is a dataset of its own, named by its path.
  dcpi: {
    write: (dir) => cli('fixture', 'dcpi', path.join(dir, 'solver.prof')),
    root: 'dcpi/solver.prof', format: 'dcpi', formatName: 'DCPI profile', layout: 'DCPI profile',
  },
};

const made = new Set();

/** Absolute path of generated dataset `name` (a key of RECIPES), written on first use. */
export function generated(name) {
  const recipe = RECIPES[name];
  if (!recipe) throw new Error(`no generated dataset ${name}`);
  const dir = path.join(GENERATED, name);
  if (!made.has(name)) {
    // Written afresh once per test process, so it always comes from the current writers.
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    recipe.write(dir);
    made.add(name);
  }
  return recipe.open ? path.join(dir, recipe.open) : dir;
}

/** The corpus dataset at `rel` (a path under ../shared/corpus), or, in a clone without the
 *  corpus, the generated synthetic database. */
export function corpusOrSynth(rel) {
  return hasCorpus() ? path.join(CORPUS, rel) : generated('synth.d');
}

/** Every generated dataset: {name, dir (to drop), root, format, formatName, layout}. */
export function generatedDatasets() {
  return Object.entries(RECIPES).map(([name, r]) => ({
    name, dir: generated(name), root: r.root, format: r.format, formatName: r.formatName, layout: r.layout,
  }));
}

/**
 * `hpcscope dump --json DIR`, with integers beyond 2^53 (trace timestamps) read as BigInt:
 * JSON numbers would round them.
 */
export function dumpJson(dir) {
  const text = cli('dump', '--json', dir).replace(/([:[,])(\d{16,})(?=[,\]}])/g, '$1"$2"');
  return JSON.parse(text, (_, v) => (typeof v === 'string' && /^\d{16,}$/.test(v) ? BigInt(v) : v));
}

/** A timestamp of the dump as BigInt (null stays null). */
const big = (v) => (v == null ? null : BigInt(v));

/**
 * The dump of a dataset in the shape of golden.mjs's `loadGolden` and of profile.test's
 * `golden`: trace lines (label, samples {t, ctx}), the time range, the call frames of a context,
 * the sample in force at a time; per metric the summary statistic ids of its execution
 * (inclusive) and function (exclusive) sums, and the summary profile's values by context.
 */
export function transcript(dir) {
  const d = dumpJson(dir);
  const byCtx = new Map(d.contexts.map((c) => [c.ctx_id, c]));
  const short = (p) => p.split('/').pop();
  const nameOf = (c) => {
    if (c.function != null) return d.functions[c.function].name;
    const mod = c.module != null ? short(d.modules[c.module]) : '';
    if (c.offset != null) return mod ? `${mod}+0x${c.offset.toString(16)}` : `0x${c.offset.toString(16)}`;
    return '<unknown>';
  };
  // Call frames: contexts reached by a call or inlined call, or naming a function (not entry
  // points, loops and lines), as HPCToolkit's own transcript is read in golden.mjs.
  const isFrame = (c) => c.entry_point == null && (c.relation !== 'lexical' || c.function != null);
  const framesOf = (ctx) => {
    const out = [];
    for (let c = byCtx.get(ctx); c; c = byCtx.get(c.parent)) if (isFrame(c)) out.push(nameOf(c));
    return out.reverse();
  };
  const label = (p) => (p.id_tuple ?? []).map((id) => `${d.id_names[id.kind] ?? '?'} ${id.logical_id}`).join(' / ');
  const traces = (d.trace?.lines ?? []).map((l) => ({
    label: label(d.profiles[l.prof_index]),
    samples: l.samples.map(([t, ctx]) => ({ t: big(t), ctx })),
  }));
  const sampleAt = (i, t) => sampleIn(traces[i].samples, t);
  const sumOf = (m, scope) => m.summaries.find((s) => s.scope === scope && s.formula === '$$' && s.combine === 'sum')?.stat_metric_id ?? null;
  const stats = d.metrics.map((m) => ({ name: m.name, exec: sumOf(m, 'execution'), func: sumOf(m, 'function') }));
  const summary = new Map();
  for (const [ctx, id, v] of d.profiles.find((p) => p.summary)?.values ?? []) {
    if (!summary.has(ctx)) summary.set(ctx, new Map());
    summary.get(ctx).set(id, Number(v));
  }
  return {
    dump: d,
    traces,
    range: d.trace ? { min: big(d.trace.min), max: big(d.trace.max) } : {},
    framesOf,
    sampleAt,
    stats,
    summary,
    value: (c, id) => (id === null ? null : summary.get(c)?.get(id) ?? 0),
  };
}
