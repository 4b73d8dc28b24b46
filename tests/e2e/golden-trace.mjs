// Reads HPCToolkit's own transcript of a database (corpus golden/NAME.yaml.xz, written by
// hpctesttool) to compute, independently of hpcscope, the call path in force on a trace line at a
// time: the sample with the greatest timestamp <= t, then the call frames (contexts reached by a
// call or inlined call, or naming a function) from the outermost down.
import { execFileSync } from 'node:child_process';

/** The sample in force at time `t` among `samples` (sorted by `t`): the last one with `t` <= `t`,
 *  with its `index`; null before the first. */
export function sampleIn(samples, t) {
  let lo = 0, hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid].t <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : { index: lo - 1, ...samples[lo - 1] };
}

const unquote = (s) => {
  s = s.trim();
  if (s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
  if (s.startsWith('"') && s.endsWith('"')) return JSON.parse(s);
  return s;
};

/** Parses NAME.yaml.xz: trace lines (label, samples), the time range, and helpers. */
export function loadGolden(path) {
  const text = execFileSync('xz', ['-dc', path], { maxBuffer: 1 << 30 }).toString('utf8');
  const anchors = new Map();
  const byCtx = new Map();
  const traces = [];
  let range = {};
  let cur = null;
  const stack = [];
  // A long name/path value continues on deeper lines (folded with a space), or starts on the next
  // line when it does not fit at all.
  let pending = null; // {obj, field, col}
  for (const raw of text.split('\n')) {
    if (pending) {
      const t = raw.trimStart();
      const col = raw.length - t.length;
      if (col > pending.col && t && !t.startsWith('- ') && !t.includes(': ') && !t.endsWith(':')) {
        const v = t.replace(/^'|'$/g, '');
        pending.obj[pending.field] = pending.obj[pending.field] ? `${pending.obj[pending.field]} ${v}` : v;
        continue;
      }
      pending = null;
    }
    const m = raw.match(/^(\s*)- (?:&(id\d+) )?!(\S+)/);
    if (m) {
      const col = m[1].length, tag = m[3];
      if (tag === 'meta.db/v4/Function' || tag === 'meta.db/v4/Module') {
        cur = { kind: tag.endsWith('Function') ? 'function' : 'module' };
        anchors.set(m[2], cur);
      } else if (tag === 'meta.db/v4/Context' || tag === 'meta.db/v4/EntryPoint') {
        while (stack.length && stack[stack.length - 1].col >= col) stack.pop();
        cur = { kind: tag.endsWith('Context') ? 'context' : 'entry', parent: stack.length ? stack[stack.length - 1].item : null };
        stack.push({ col, item: cur });
      } else if (tag === 'trace.db/v4/ContextTrace') {
        const lab = raw.match(/for \{(.*)\}\s*$/);
        cur = { kind: 'trace', label: lab ? lab[1].replace(/ \[0x[0-9a-f]+\]/g, '') : '', samples: [] };
        traces.push(cur);
      } else if (tag === 'trace.db/v4/ContextTraceElement') {
        cur = { kind: 'elem' };
        traces[traces.length - 1].samples.push(cur);
      } else cur = null;
      continue;
    }
    const f = raw.match(/^\s*([a-z_]+):\s*(.*)$/);
    if (!f) continue;
    const [, key, val] = f;
    if ((key === 'min' || key === 'max') && /^\d+$/.test(val)) range[key] = BigInt(val);
    if (!cur) continue;
    if (cur.kind === 'function' && key === 'name') {
      cur.name = unquote(val);
      pending = { obj: cur, field: 'name', col: raw.length - raw.trimStart().length };
    } else if (cur.kind === 'module' && key === 'path') {
      cur.path = unquote(val);
      pending = { obj: cur, field: 'path', col: raw.length - raw.trimStart().length };
    } else if (cur.kind === 'context' || cur.kind === 'entry') {
      if (key === 'ctx_id') {
        cur.ctx = Number(val);
        byCtx.set(cur.ctx, cur);
      } else if (key === 'relation') cur.relation = val.split(' ').pop();
      else if (key === 'function' && val.startsWith('*')) cur.fn = val.slice(1);
      else if (key === 'module' && val.startsWith('*')) cur.mod = val.slice(1);
      else if (key === 'offset' && /^\d+$/.test(val)) cur.offset = Number(val);
    } else if (cur.kind === 'trace' && key === 'prof_index') cur.prof_index = Number(val);
    else if (cur.kind === 'elem') {
      if (key === 'timestamp') cur.t = BigInt(val);
      else if (key === 'ctx_id') cur.ctx = Number(val);
    }
  }
  const nameOf = (it) => {
    if (it.fn && anchors.get(it.fn)?.name != null) return anchors.get(it.fn).name;
    const mod = it.mod ? anchors.get(it.mod)?.path ?? '' : '';
    const short = mod.split('/').pop();
    if (it.offset != null) return short ? `${short}+0x${it.offset.toString(16)}` : `0x${it.offset.toString(16)}`;
    return '<unknown>';
  };
  const isFrame = (it) => it.kind === 'context' && (it.relation !== 'lexical' || it.fn != null);
  /** Call frames (names) of context `ctx`, outermost first; [] for the root (ctx 0). */
  const framesOf = (ctx) => {
    const out = [];
    for (let it = byCtx.get(ctx); it; it = it.parent) if (isFrame(it)) out.push(nameOf(it));
    return out.reverse();
  };
  /** The sample in force on trace `i` at absolute time `t` (BigInt), or null. */
  const sampleAt = (i, t) => sampleIn(traces[i].samples, t);
  return { traces, range, framesOf, sampleAt, maxFrames: Math.max(0, ...[...byCtx.keys()].map((c) => framesOf(c).length)) };
}
