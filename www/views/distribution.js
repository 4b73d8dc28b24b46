// Distribution panel of the profile view: the selected node's value for the chosen metric in
// every profile (rank, thread, GPU stream), as bars in profile order or sorted, with min / mean /
// max and the imbalance (max over mean) to see load imbalance at a glance.
import { h } from '../format.js';
import { drawDistribution, distributionStats } from '../render/distribution-draw.js';
import { formatValue } from './profile-format.js';

export function createDistribution(root, { engine, id, meta }) {
  const S = { node: null, metric: 0, exclusive: false, sorted: true, values: null, profiles: null, name: '', destroyed: false, seq: 0 };
  const nonSummary = meta.profiles.filter((p) => !p.summary).length;

  const sortedIn = h('input', { type: 'checkbox', 'data-testid': 'dist-sorted' });
  sortedIn.checked = S.sorted;
  sortedIn.addEventListener('change', () => {
    S.sorted = sortedIn.checked;
    draw();
  });
  const exclIn = h('input', { type: 'checkbox', 'data-testid': 'dist-exclusive' });
  exclIn.addEventListener('change', () => {
    S.exclusive = exclIn.checked;
    load();
  });
  const title = h('div', { class: 'dist-title' }, 'Distribution across profiles');
  const subject = h('div', { class: 'dist-subject muted', 'data-testid': 'dist-subject' }, 'Select a frame or row.');
  const canvas = h('canvas', { class: 'dist-canvas', role: 'img', 'aria-label': 'Value per profile', 'data-testid': 'dist-canvas' });
  const stats = h('dl', { class: 'dist-stats', 'data-testid': 'dist-stats' });
  const opts = h('div', { class: 'dist-opts' },
    h('label', {}, sortedIn, ' sorted'), h('label', {}, exclIn, ' exclusive'));
  root.append(title, subject, opts, canvas, stats);
  const ctx2d = canvas.getContext('2d');

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
    const height = 130;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.height = `${height}px`;
    if (!S.values) return;
    const cs = getComputedStyle(root);
    drawDistribution(ctx2d, S.values, width, height, {
      sorted: S.sorted, dpr, color: cs.getPropertyValue('--accent').trim() || '#2f6fde',
      axisColor: cs.getPropertyValue('--muted').trim() || '#687385',
    });
    const st = distributionStats(S.values);
    const unit = meta.metrics[S.metric]?.unit || '';
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
      return { node: S.node, metric: S.metric, exclusive: S.exclusive, sorted: S.sorted, profiles: S.values ? S.values.length : 0, stats: st, values: S.values ? Array.from(S.values).slice(0, 64) : [] };
    },
    destroy() {
      S.destroyed = true;
    },
  };
}
