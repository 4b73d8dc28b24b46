// HPCToolkit's own transcripts of corpus databases (corpus hpctoolkit/golden/NAME.yaml.xz, written
// by hpctesttool: meta.db, profile.db, cct.db and trace.db as tagged YAML), parsed with the `yaml`
// package (tags ignored, aliases resolved to the objects they name, integers as BigInt so 64-bit
// timestamps keep every digit). The Rust tests read the same files through tests/common/golden.rs.
import { execFileSync } from 'node:child_process';
import YAML from 'yaml';
import { sampleIn } from './helpers.mjs';

/** The top-level sections (`meta`, `profile`, `context`, `trace`) of transcript `file`. */
export function readGolden(file, sections = ['meta', 'profile', 'trace']) {
  const text = execFileSync('xz', ['-dc', file], { maxBuffer: 1 << 30 }).toString('utf8');
  // cct.db's per-context values are the biggest part and no e2e test needs them: an entry runs from
  // its `key:` line at column 0 to the next line at column 0; anchors are all in `meta`.
  let keep = true;
  const kept = text.split('\n').filter((line) => {
    const m = /^([a-z_]+):/.exec(line);
    if (m) keep = sections.includes(m[1]);
    return keep;
  });
  const doc = YAML.parseDocument(kept.join('\n'), { intAsBigInt: true, uniqueKeys: false });
  const fatal = doc.errors[0];
  if (fatal) throw new Error(`${file}: ${fatal.message}`);
  return doc.toJS({ maxAliasCount: -1 });
}

const num = (v) => (v === null || v === undefined ? v : Number(v));

/** Profile `p`'s identifier tuple as hpctesttool labels it, without physical ids:
 * `NODE 0 / THREAD 0` ('' for the summary profile). */
export function profileLabel(g, p) {
  const names = g.meta.id_names.names;
  return (p.id_tuple?.ids ?? []).map((id) => `${names[num(id.kind)]} ${id.logical_id}`).join(' / ');
}

/** Per metric: name and the ids of its `sum / '$$'` statistics at execution (inclusive) and function
 * (exclusive) scope; the summary profile's values (ctx -> stat id -> value). */
export function summaryStats(g) {
  const stats = g.meta.metrics.metrics.map((m) => {
    const sumOf = (scope) => m.summaries.find((s) => s.combine === 'sum' && s.formula === '$$' && s.scope.scope_name === scope);
    return { name: m.name, exec: num(sumOf('execution')?.stat_metric_id ?? null), func: num(sumOf('function')?.stat_metric_id ?? null) };
  });
  const first = g.profile.profile_infos.profiles[0];
  const summary = new Map();
  if (first?.flags?.includes('is_summary')) {
    for (const [ctx, vals] of Object.entries(first.values ?? {})) {
      summary.set(Number(ctx), new Map(Object.entries(vals ?? {}).map(([k, v]) => [Number(k), Number(v)])));
    }
  }
  return { stats, summary, value: (c, id) => (id === null ? null : summary.get(c)?.get(id) ?? 0) };
}

/** Trace lines (label, samples {t: BigInt, ctx}), the time range, and the call frames in force on a
 * line at a time: the sample with the greatest timestamp <= t, then the call frames (contexts
 * reached by a call or inlined call, or naming a function) from the outermost down. */
export function traceModel(g) {
  const byCtx = new Map();
  const walk = (items, parent) => {
    for (const it of items ?? []) {
      const node = { it, parent, entry: parent === null };
      byCtx.set(num(it.ctx_id), node);
      walk(it.children, node);
    }
  };
  walk(g.meta.context.entry_points, null);
  const profiles = g.profile.profile_infos.profiles;
  const headers = g.trace?.ctx_traces ?? { traces: [] };
  const traces = (headers.traces ?? []).map((t) => ({
    label: profileLabel(g, profiles[num(t.prof_index)]),
    prof_index: num(t.prof_index),
    samples: (t.line ?? []).map((e) => ({ t: BigInt(e.timestamp), ctx: num(e.ctx_id) })),
  }));
  const r = headers.timestamp_range;
  const range = r ? { min: BigInt(r.min), max: BigInt(r.max) } : {};
  const nameOf = ({ it }) => {
    if (it.function?.name != null) return it.function.name;
    const short = (it.module?.path ?? '').split('/').pop();
    if (it.offset != null) return short ? `${short}+0x${it.offset.toString(16)}` : `0x${it.offset.toString(16)}`;
    return '<unknown>';
  };
  const isFrame = (n) => !n.entry && (n.it.relation !== 'lexical' || n.it.function != null);
  /** Call frames (names) of context `ctx`, outermost first; [] for the root (ctx 0). */
  const framesOf = (ctx) => {
    const out = [];
    for (let n = byCtx.get(ctx); n; n = n.parent) if (isFrame(n)) out.push(nameOf(n));
    return out.reverse();
  };
  /** The sample in force on trace `i` at absolute time `t` (BigInt), or null. */
  const sampleAt = (i, t) => sampleIn(traces[i].samples, t);
  return { traces, range, framesOf, sampleAt, maxFrames: Math.max(0, ...[...byCtx.keys()].map((c) => framesOf(c).length)) };
}

/** The trace model of transcript `file` (what timeline tests compare the trace view against). */
export const loadGolden = (file) => traceModel(readGolden(file, ['meta', 'profile', 'trace']));
