// Distribution panel of the profile view: the selected node's value for the chosen metric in
// every profile (rank, thread, GPU stream), as bars in rank, thread order or sorted, with a value
// axis, min / mean / max and the imbalance (max over mean) to see load imbalance at a glance.
// Hovering a bar (or moving along them with the arrow keys) names its profile and value.
import { h } from '../format.js';
import { drawDistribution, distributionStats, hitDistribution } from '../render/distribution-draw.js';
import { formatValue } from './profile-format.js';

/**
 * The parts of a distribution panel, test ids prefixed `tid`: the exclusive checkbox (its changes
 * go to `onExclusive(checked)`), the subject line, the canvas (described as `label`), its
 * tooltip and the statistics.
 */
export function distributionParts(tid, label, onExclusive) {
  const exclIn = h('input', { type: 'checkbox', 'data-testid': `${tid}-exclusive` });
  exclIn.addEventListener('change', () => onExclusive(exclIn.checked));
  const subject = h('div', { class: 'dist-subject muted', 'data-testid': `${tid}-subject` }, 'Select a frame or row.');
  const canvas = h('canvas', { class: 'dist-canvas', role: 'img', tabindex: '0', 'data-testid': `${tid}-canvas`, 'aria-label': label });
  const tip = h('div', { class: 'fg-tip dist-tip', role: 'tooltip', hidden: true, 'data-testid': `${tid}-tooltip` });
  const stats = h('dl', { class: 'dist-stats', 'data-testid': `${tid}-stats` });
  return { exclIn, subject, canvas, tip, stats };
}

export function createDistribution(root, { engine, id, meta }) {
  const S = { node: null, metric: 0, exclusive: false, sorted: true, values: null, profiles: null, name: '', destroyed: false, seq: 0, shown: null, layout: null, hover: -1 };
  const nonSummary = meta.profiles.filter((p) => !p.summary).length;

  const sortedIn = h('input', { type: 'checkbox', 'data-testid': 'dist-sorted' });
  sortedIn.checked = S.sorted;
  sortedIn.addEventListener('change', () => {
    S.sorted = sortedIn.checked;
    draw();
  });
  const { exclIn, subject, canvas, tip, stats } = distributionParts('dist', 'Value per profile (arrow keys name each bar)', (on) => {
    S.exclusive = on;
    load();
  });
  const title = h('div', { class: 'dist-title' }, 'Distribution across profiles');
  const opts = h('div', { class: 'dist-opts' },
    h('label', {}, sortedIn, ' sorted'), h('label', {}, exclIn, ' exclusive'));
  root.append(title, subject, opts, h('div', { class: 'dist-canvas-wrap' }, canvas, tip), stats);
  const ctx2d = canvas.getContext('2d');
  const unitOf = () => meta.metrics[S.metric]?.unit || '';
  const labelOf = (p) => meta.profiles[p]?.label ?? `profile ${p}`;

  /** Names bar `i` of the shown order (-1 hides the tooltip). */
  function showTip(i) {
    S.hover = i;
    if (i < 0 || !S.shown) {
      tip.hidden = true;
      return;
    }
    const { profiles, values } = S.shown;
    tip.replaceChildren(
      h('div', { class: 'fg-tip-name' }, labelOf(profiles[i])),
      h('div', { class: 'fg-tip-row' }, h('span', {}, S.exclusive ? 'exclusive' : 'inclusive'),
        h('b', {}, formatValue(values[i], unitOf())), h('span', { class: 'muted' }, `${i + 1} of ${values.length}`)));
    tip.hidden = false;
    const L = S.layout;
    const x = L.x0 + ((i + 0.5) / L.n) * L.w;
    tip.style.left = `${Math.max(0, Math.min(x + 10, canvas.clientWidth - tip.offsetWidth))}px`;
    tip.style.top = `${L.y0 + L.h + 30}px`;
  }
  canvas.addEventListener('mousemove', (e) => {
    const b = canvas.getBoundingClientRect();
    showTip(S.shown ? hitDistribution(S.layout, S.shown.values, e.clientX - b.left, e.clientY - b.top) : -1);
  });
  canvas.addEventListener('mouseleave', () => showTip(-1));
  canvas.addEventListener('blur', () => showTip(-1));
  canvas.addEventListener('keydown', (e) => {
    if (!S.shown || !S.shown.values.length) return;
    const n = S.shown.values.length;
    const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -n, End: n };
    if (!(e.key in moves)) return;
    e.preventDefault();
    showTip(Math.max(0, Math.min(n - 1, (S.hover < 0 ? 0 : S.hover + moves[e.key]))));
  });

  async function load() {
    if (S.node == null) return;
    if (nonSummary < 1) {
      subject.textContent = 'This dataset has no per-profile values.';
      return;
    }
    const seq = ++S.seq;
    const [profiles, values] = await engine.call('distribution', id, S.metric, S.node, S.exclusive);
    if (seq !== S.seq || S.destroyed) return;
    if (!profiles.length) {
      // Profiles without values of their own (threads known only from their traces).
      subject.textContent = 'This dataset has no per-profile values.';
      S.profiles = null;
      S.values = null;
      stats.replaceChildren();
      draw();
      return;
    }
    S.profiles = profiles;
    S.values = values;
    draw();
  }

  function draw() {
    const r = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(120, Math.floor(r.width || 240));
    const height = 150;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.height = `${height}px`;
    if (!S.values) return;
    const cs = getComputedStyle(root);
    // Shown order: largest first, or the profiles' rank, thread order (meta order).
    const pos = Array.from(S.values.keys());
    if (S.sorted) pos.sort((a, b) => S.values[b] - S.values[a]);
    else pos.sort((a, b) => (meta.profiles[S.profiles[a]]?.order ?? a) - (meta.profiles[S.profiles[b]]?.order ?? b));
    S.shown = { profiles: pos.map((i) => S.profiles[i]), values: Float64Array.from(pos, (i) => S.values[i]) };
    const unit = unitOf();
    S.layout = drawDistribution(ctx2d, S.shown.values, width, height, {
      dpr, color: cs.getPropertyValue('--accent').trim() || '#2f6fde',
      axisColor: cs.getPropertyValue('--muted').trim() || '#687385',
      caption: S.sorted ? 'profiles, largest first' : 'profiles by rank, thread',
      first: S.shown.profiles.length ? labelOf(S.shown.profiles[0]) : '',
      last: S.shown.profiles.length ? labelOf(S.shown.profiles[S.shown.profiles.length - 1]) : '',
      format: (v) => formatValue(v, unit),
    });
    if (S.hover >= S.shown.values.length) showTip(-1);
    else if (S.hover >= 0) showTip(S.hover);
    const st = distributionStats(S.values);
    const item = (k, v) => [h('dt', {}, k), h('dd', {}, v)];
    let argmax = 0;
    for (let i = 1; i < S.values.length; i++) if (S.values[i] > S.values[argmax]) argmax = i;
    const maxLabel = S.values.length ? meta.profiles[S.profiles[argmax]]?.label : '';
    stats.replaceChildren(
      ...item('profiles', String(st.n)),
      ...item('min', formatValue(st.min, unit)),
      ...item('mean', formatValue(st.mean, unit)),
      ...item('max', `${formatValue(st.max, unit)}${maxLabel ? ` (${maxLabel})` : ''}`),
      ...item('max / mean', st.mean > 0 ? st.imbalance.toFixed(2) : '–'));
  }

  return {
    show(node, name, metric) {
      S.node = node;
      S.metric = metric;
      S.name = name;
      subject.textContent = `${name} — ${meta.metrics[metric]?.name || ''} (${S.exclusive ? 'exclusive' : 'inclusive'})`;
      return load();
    },
    setMetric(metric) {
      S.metric = metric;
      return load();
    },
    state() {
      const st = S.values ? distributionStats(S.values) : null;
      return {
        node: S.node, metric: S.metric, exclusive: S.exclusive, sorted: S.sorted, profiles: S.values ? S.values.length : 0, stats: st,
        values: S.values ? Array.from(S.values).slice(0, 64) : [],
        // Labels of the bars as shown (first 64) and what the tooltip names now.
        shown: S.shown ? S.shown.profiles.slice(0, 64).map(labelOf) : [],
        tooltip: tip.hidden ? null : tip.textContent,
      };
    },
    destroy() {
      S.destroyed = true;
    },
  };
}
