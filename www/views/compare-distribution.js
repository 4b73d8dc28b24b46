// Distribution panel of the Compare view (issue 17): the selected union context's value in every
// profile of both runs as base / new bar pairs, paired by label ("NODE 0 / THREAD 1", else by rank,
// thread position). Hover or arrow keys name the profile, both values, the change and the ratio.
import { h } from '../format.js';
import { drawPairedDistribution, hitDistribution } from '../render/distribution-draw.js';
import { formatValue, formatDelta, formatRatio } from './profile-format.js';
import { distributionParts } from './distribution.js';

/**
 * Pairs of the runs' non-summary profiles: [{label, base, new}] (profile indexes, -1 where a run
 * has none), the base run's in rank, thread order, then the new run's others. `byPosition`:
 * no label in common, paired by order instead.
 */
export function pairProfiles(baseProfiles, newProfiles) {
  const inOrder = (list) => list.filter((p) => !p.summary).sort((a, b) => a.order - b.order);
  const bs = inOrder(baseProfiles);
  const ns = inOrder(newProfiles);
  const byLabel = new Map(ns.map((p) => [p.label, p]));
  const common = bs.some((p) => byLabel.has(p.label));
  const pairs = [];
  if (!common && bs.length && ns.length) {
    for (let i = 0; i < Math.max(bs.length, ns.length); i++) {
      const b = bs[i];
      const n = ns[i];
      pairs.push({ label: b && n && b.label !== n.label ? `${b.label} ↔ ${n.label}` : (b || n).label, base: b ? b.index : -1, new: n ? n.index : -1 });
    }
    return { pairs, byPosition: true };
  }
  const used = new Set();
  for (const b of bs) {
    const n = byLabel.get(b.label);
    if (n) used.add(n.index);
    pairs.push({ label: b.label, base: b.index, new: n ? n.index : -1 });
  }
  for (const n of ns) if (!used.has(n.index)) pairs.push({ label: n.label, base: -1, new: n.index });
  return { pairs, byPosition: false };
}

/** `meta`: the comparison's (CompareMeta with base.profiles, new.profiles); `totals()`: the
 *  DiffTotals in force (unit); `names`: the union node names. */
export function createCompareDistribution(root, { engine, cid, meta, totals }) {
  const { pairs, byPosition } = pairProfiles(meta.base.profiles || [], meta.new.profiles || []);
  const S = { node: null, name: '', exclusive: false, loaded: null, base: null, now: null, layout: null, hover: -1, seq: 0, destroyed: false };
  const label = 'Value per profile in both runs (arrow keys name each pair)';
  const { exclIn, subject, canvas, tip, stats } = distributionParts('cmp-dist', label, (on) => {
    S.exclusive = on;
    load();
  });
  const legend = h('div', { class: 'cmp-dist-legend' },
    h('span', { class: 'cmp-dist-key base' }), 'base',
    h('span', { class: 'cmp-dist-key new' }), 'new');
  root.append(h('div', { class: 'dist-title' }, 'Distribution: base vs new'), subject,
    h('div', { class: 'dist-opts' }, legend, h('label', {}, exclIn, ' exclusive')),
    h('div', { class: 'dist-canvas-wrap' }, canvas, tip), stats);
  const ctx2d = canvas.getContext('2d');
  const unit = () => totals()?.unit || '';

  function showTip(i) {
    S.hover = i;
    if (i < 0 || !S.base || i >= pairs.length) {
      tip.hidden = true;
      return;
    }
    const b = S.base[i];
    const n = S.now[i];
    const u = unit();
    const val = (v) => (Number.isNaN(v) ? 'no such profile' : formatValue(v, u));
    const row = (k, v, cls) => h('div', { class: 'fg-tip-row' }, h('span', {}, k), h('b', cls ? { class: cls } : {}, v));
    const both = !Number.isNaN(b) && !Number.isNaN(n);
    tip.replaceChildren(
      h('div', { class: 'fg-tip-name' }, pairs[i].label),
      row('base', val(b)),
      row('new', val(n)),
      row('change', both ? formatDelta(n - b, u, Math.max(Math.abs(b), Math.abs(n))) : '—'),
      row('ratio', both ? formatRatio(b, n) : '—'),
      h('div', { class: 'fg-tip-row muted' }, `${i + 1} of ${pairs.length}`));
    tip.hidden = false;
    const L = S.layout;
    const x = L.x0 + ((i + 0.5) / L.n) * L.w;
    tip.style.left = `${Math.max(0, Math.min(x + 10, canvas.clientWidth - tip.offsetWidth))}px`;
    tip.style.top = `${L.y0 + L.h + 30}px`;
  }
  const larger = () => Float64Array.from(pairs, (_, i) => Math.max(S.base[i] || 0, S.now[i] || 0));
  canvas.addEventListener('mousemove', (e) => {
    const r = canvas.getBoundingClientRect();
    showTip(S.base ? hitDistribution(S.layout, larger(), e.clientX - r.left, e.clientY - r.top) : -1);
  });
  canvas.addEventListener('mouseleave', () => showTip(-1));
  canvas.addEventListener('blur', () => showTip(-1));
  canvas.addEventListener('keydown', (e) => {
    if (!S.base || !pairs.length) return;
    const n = pairs.length;
    const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -n, End: n };
    if (!(e.key in moves)) return;
    e.preventDefault();
    showTip(Math.max(0, Math.min(n - 1, S.hover < 0 ? 0 : S.hover + moves[e.key])));
  });

  async function load() {
    if (S.node == null) return;
    if (!pairs.length) {
      subject.textContent = 'Neither run has per-profile values.';
      return;
    }
    const seq = ++S.seq;
    const [bp, bv, np, nv] = await engine.call('compare_distribution', cid, S.node, S.exclusive);
    if (seq !== S.seq || S.destroyed) return;
    const at = (ps, vs) => {
      const m = new Map();
      for (let k = 0; k < ps.length; k++) m.set(ps[k], vs[k]);
      return m;
    };
    const mb = at(bp, bv);
    const mn = at(np, nv);
    // A profile a run has but without a value here is 0; a profile it lacks is NaN (no bar).
    S.base = Float64Array.from(pairs, (p) => (p.base < 0 ? NaN : mb.get(p.base) ?? 0));
    S.now = Float64Array.from(pairs, (p) => (p.new < 0 ? NaN : mn.get(p.new) ?? 0));
    S.loaded = { node: S.node, exclusive: S.exclusive };
    subject.textContent = `${S.name} (${S.exclusive ? 'exclusive' : 'inclusive'})`;
    draw();
  }

  function draw() {
    const r = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(120, Math.floor(r.width || 240));
    // The height is the stylesheet's (smaller in short windows).
    const height = Math.max(60, Math.floor(r.height || 150));
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    if (!S.base) return;
    const cs = getComputedStyle(root);
    const u = unit();
    S.layout = drawPairedDistribution(ctx2d, S.base, S.now, width, height, {
      dpr,
      baseColor: cs.getPropertyValue('--cmp-base').trim() || '#9aa5b4',
      newColor: cs.getPropertyValue('--accent').trim() || '#2f6fde',
      axisColor: cs.getPropertyValue('--muted').trim() || '#687385',
      caption: byPosition ? 'no profile label in common: paired by position' : 'profiles by rank, thread',
      first: pairs[0]?.label || '',
      last: pairs[pairs.length - 1]?.label || '',
      format: (v) => formatValue(v, u),
    });
    if (S.hover >= 0) showTip(S.hover);
    const sum = (a) => a.reduce((s, v) => s + (Number.isNaN(v) ? 0 : v), 0);
    const count = (a) => a.reduce((s, v) => s + (Number.isNaN(v) ? 0 : 1), 0);
    const max = (a) => a.reduce((m, v) => (v > m ? v : m), 0);
    const item = (k, v) => [h('dt', {}, k), h('dd', {}, v)];
    const nb = count(S.base);
    const nn = count(S.now);
    const paired = pairs.filter((p) => p.base >= 0 && p.new >= 0).length;
    stats.replaceChildren(
      ...item('profiles', `${nb} base, ${nn} new, ${paired} paired`),
      ...item('mean', `${formatValue(nb ? sum(S.base) / nb : 0, u)} → ${formatValue(nn ? sum(S.now) / nn : 0, u)}`),
      ...item('max', `${formatValue(max(S.base), u)} → ${formatValue(max(S.now), u)}`));
  }

  return {
    show(node, name) {
      S.node = node;
      S.name = name;
      return load();
    },
    /** Values changed (metric, normalisation): read them again. */
    reload: () => load(),
    redraw: () => draw(),
    state() {
      return {
        node: S.node,
        exclusive: S.exclusive,
        // The node and scope the values shown are of (null until the first arrive).
        loaded: S.loaded,
        byPosition,
        pairs: pairs.slice(0, 64).map((p, i) => ({
          label: p.label, base_profile: p.base, new_profile: p.new,
          base: S.base && !Number.isNaN(S.base[i]) ? S.base[i] : null,
          new: S.now && !Number.isNaN(S.now[i]) ? S.now[i] : null,
        })),
        count: pairs.length,
        tooltip: tip.hidden ? null : tip.textContent,
      };
    },
    destroy() {
      S.destroyed = true;
    },
  };
}
