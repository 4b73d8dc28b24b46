// The Compare view (issue 17): the selected dataset (the new run) against a baseline among the
// other open datasets: toolbar, both totals, the differential flame graph (compare-flame.js), delta
// tables (tree-table.js in its compare form) and both runs' per-profile values (compare-distribution.js).
// Settings per new-run id live in the store (`compareViews[id]`).
import { h } from '../format.js';
import { download } from '../export.js';
import { createCompareFlame, changeClass } from './compare-flame.js';
import { createTreeTable } from './tree-table.js';
import { createCompareDistribution } from './compare-distribution.js';
import { formatValue, formatDelta, formatRatio } from './profile-format.js';
import { displayName } from './summary.js';
import { panelsApi, isOpened } from './profile.js';

// The toolbar picks the baseline, the metric of each run, normalisation, function-level matching
// and exports the delta CSV; `compareViews[id]` holds base, metric pair, normalize, merged,
// widthNew, heavy, zoom and table.

const TABLES = [
  ['topdown', 'Top-down'],
  ['bottomup', 'Bottom-up'],
  ['flat', 'Flat'],
];
const NORMALIZE = [
  ['none', 'as recorded'],
  ['scaled', 'base scaled to new total'],
  ['percent', '% of each root'],
];

/** Settings of the comparison shown for new-run `id` (a copy), and a writer that keeps them. */
export function compareSettings(store, id) {
  const all = store.get().compareViews || {};
  return { normalize: 'none', merged: false, widthNew: true, heavy: true, zoom: 0, table: 'topdown', ...(all[id] || {}) };
}
export function saveCompareSettings(store, id, patch) {
  const all = store.get().compareViews || {};
  // Written without notifying, like the profile view's settings; `base` changes go through
  // store.update (hpcscope.compare) so the view rebuilds.
  all[id] = { ...(all[id] || {}), ...patch };
  store.get().compareViews = all;
}

/** A dataset's name in the compare view: its display name, with its folder when another open
 *  dataset has the same name (two runs of one program). */
function runName(state, d) {
  if (!d) return '';
  const name = displayName(d);
  const twin = state.datasets.some((x) => x.id !== d.id && displayName(x) === name);
  return twin && d.root ? `${name} (${d.root.split('/').pop()})` : name;
}

/** The baseline of new-run `id`: the saved one while it is open, else the dataset opened before it. */
function baselineOf(state, id) {
  const opened = state.datasets.filter((d) => d.status === 'opened' && d.id !== id);
  const saved = (state.compareViews || {})[id]?.base;
  if (opened.some((d) => d.id === saved)) return saved;
  const before = opened.filter((d) => d.id < id);
  return (before.length ? before[before.length - 1] : opened[0])?.id ?? null;
}

function mount(el, { engine, store }) {
  let current = null;
  let building = null;
  const root = h('div', { class: 'profile compare', 'data-testid': 'compare-view' });
  el.append(root);
  el.classList.add('view-fill');

  function message(text, cls = 'empty') {
    root.replaceChildren(h('div', { class: cls, 'data-testid': 'compare-message' }, text));
  }

  /** The toolbar's baseline picker (shown also when the comparison cannot be made). */
  function baselinePicker(state, id, base) {
    const others = state.datasets.filter((d) => d.status === 'opened' && d.id !== id);
    const sel = h('select', { 'data-testid': 'compare-base', 'aria-label': 'Baseline' },
      others.map((d) => h('option', { value: String(d.id) }, runName(state, d))));
    sel.value = String(base);
    sel.addEventListener('change', () => {
      saveCompareSettings(store, id, { base: Number(sel.value), zoom: 0 });
      store.update({});
    });
    return h('label', { class: 'pv-field' }, h('span', {}, 'Baseline'), sel);
  }

  async function build(state, id, base) {
    current?.destroy();
    current = null;
    message('Comparing…', 'empty muted');
    const set = compareSettings(store, id);
    saveCompareSettings(store, id, { base });
    const save = (patch) => {
      Object.assign(set, patch);
      saveCompareSettings(store, id, patch);
    };
    let opened;
    try {
      opened = await engine.call('compare_open', base, id, !!set.merged);
    } catch (err) {
      if (store.get().selected !== id) return;
      root.replaceChildren(h('div', { class: 'pv-toolbar' }, baselinePicker(state, id, base)),
        h('div', { class: 'callout callout-error', 'data-testid': 'compare-error' }, `These runs cannot be compared: ${err.message}`));
      current = { id, base, error: err.message, destroy() {}, state: () => ({ dataset: id, base, error: err.message }) };
      return;
    }
    if (store.get().selected !== id) return;
    current = buildPanels(state, id, base, opened, set, save);
    await current.ready;
  }

  function buildPanels(state, id, base, meta, set, save) {
    const cid = meta.id;
    const P = { id, base, cid, meta, totals: null, tmeta: null, table: null, flame: null, selected: set.selected ?? null, destroyed: false, note: '' };
    const pairs = meta.pairs;
    const pairLabel = (p) => {
      const b = meta.base.metrics[p.base];
      const n = meta.new.metrics[p.new];
      return b.name === n.name ? n.name : `${b.name} ↔ ${n.name}`;
    };
    if (!set.pair) set.pair = meta.default_pair || pairs[0] || { base: 0, new: 0 };
    const pairSel = h('select', { 'data-testid': 'compare-metric', 'aria-label': 'Metric' },
      pairs.map((p, i) => h('option', { value: String(i) }, pairLabel(p))),
      h('option', { value: 'each' }, 'different metric of each run…'));
    const baseSel = h('select', { 'data-testid': 'compare-base-metric', 'aria-label': 'Metric of the base run' },
      meta.base.metrics.map((m) => h('option', { value: String(m.index) }, m.name)));
    const newSel = h('select', { 'data-testid': 'compare-new-metric', 'aria-label': 'Metric of the new run' },
      meta.new.metrics.map((m) => h('option', { value: String(m.index) }, m.name)));
    const eachBox = h('span', { class: 'pv-field', hidden: true }, h('span', {}, 'base'), baseSel, h('span', {}, 'new'), newSel);
    const k = pairs.findIndex((p) => p.base === set.pair.base && p.new === set.pair.new);
    pairSel.value = k >= 0 ? String(k) : 'each';
    eachBox.hidden = k >= 0;
    baseSel.value = String(set.pair.base);
    newSel.value = String(set.pair.new);
    const normSel = h('select', { 'data-testid': 'compare-normalize', 'aria-label': 'Normalisation' },
      NORMALIZE.map(([v, label]) => h('option', { value: v }, label)));
    normSel.value = set.normalize;
    const mergedIn = h('input', { type: 'checkbox', 'data-testid': 'compare-merged' });
    mergedIn.checked = !!set.merged;
    mergedIn.addEventListener('change', () => {
      save({ merged: mergedIn.checked, zoom: 0 });
      rebuild();
    });
    const csvBtn = h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'compare-export-csv', title: 'Download the delta table (every context of both runs) as CSV' }, 'Delta CSV');
    csvBtn.addEventListener('click', () => exportCsv().catch((err) => store.addErrors([{ kind: 'export', file: '', what: err.message, message: err.message }])));
    const toolbar = h('div', { class: 'pv-toolbar' },
      baselinePicker(state, id, base),
      h('label', { class: 'pv-field' }, h('span', {}, 'Metric'), pairSel), eachBox,
      h('label', { class: 'pv-field' }, h('span', {}, 'Values'), normSel),
      h('label', { class: 'pv-field fg-toggle', title: 'Match functions, folding loops and source lines into them' }, mergedIn, ' match functions only'),
      csvBtn);
    const summary = h('div', { class: 'cmp-summary', 'data-testid': 'compare-summary', 'aria-live': 'polite' });
    const notice = h('div', { class: 'callout callout-warn', 'data-testid': 'compare-notice', hidden: true });
    const flameEl = h('section', { class: 'pv-flame', 'aria-label': 'Differential flame graph' });
    const tabsEl = h('div', { class: 'pv-tabs', role: 'tablist', 'aria-label': 'Delta tables' });
    const tableEl = h('div', { class: 'pv-table' });
    const distEl = h('aside', { class: 'pv-dist', 'aria-label': 'Distribution across profiles, both runs', 'data-testid': 'compare-distribution' });
    root.replaceChildren(toolbar, summary, notice, flameEl,
      h('section', { class: 'pv-lower' }, h('div', { class: 'pv-table-col' }, tabsEl, tableEl), distEl));
    const dist = createCompareDistribution(distEl, { engine, cid, meta, totals: () => P.totals });

    P.flame = createCompareFlame(flameEl, {
      engine, cid, names: meta.names, settings: set, totals: () => P.totals,
      onSelect: (n) => select(n, 'flame'),
      onSettings: save,
    });

    function renderSummary() {
      const t = P.totals;
      const unit = t.unit || '';
      const b = t.base_total * t.base_factor;
      const n = t.new_total * t.new_factor;
      const bd = state.datasets.find((d) => d.id === base);
      const nd = state.datasets.find((d) => d.id === id);
      summary.replaceChildren(
        h('span', {}, h('span', { class: 'muted' }, 'base '), h('b', {}, bd ? runName(state, bd) : meta.base.title), ` ${formatValue(b, unit)}`),
        h('span', { class: 'muted' }, ' → '),
        h('span', {}, h('span', { class: 'muted' }, 'new '), h('b', {}, nd ? runName(state, nd) : meta.new.title), ` ${formatValue(n, unit)}`),
        h('span', { class: changeClass(b, n), 'data-testid': 'compare-delta' }, ` ${formatDelta(n - b, unit, Math.max(Math.abs(b), Math.abs(n)))} (${formatRatio(b, n)})`),
        h('span', { class: 'muted' }, ` · ${t.base_metric === t.new_metric ? t.new_metric : `${t.base_metric} ↔ ${t.new_metric}`}` +
          ` · ${meta.matched.toLocaleString('en-US')} contexts in both, ${meta.removed.toLocaleString('en-US')} only in base, ${meta.added.toLocaleString('en-US')} only in new`));
      const notes = [];
      if (!pairs.length) notes.push('The runs have no metric name in common: pick one metric of each run.');
      if (meta.entries_hidden) notes.push('One run has no thread entry points: both runs’ entry points are folded into the root.');
      notice.hidden = !notes.length;
      notice.textContent = notes.join(' ');
    }

    function makeTable(kind) {
      P.table?.destroy();
      tableEl.replaceChildren();
      save({ table: kind });
      tabsEl.replaceChildren(...TABLES.map(([k, label]) => h('button', {
        type: 'button', role: 'tab', class: `pv-tab${k === kind ? ' active' : ''}`, 'aria-selected': String(k === kind), 'data-table': k,
        onclick: () => {
          if (k === set.table) return;
          makeTable(k);
          openTable().then(() => P.selected != null && P.table.reveal(P.selected));
        },
      }, label)));
      P.table = createTreeTable(tableEl, {
        engine, id: cid, meta: P.tmeta, kind, compare: true,
        settings: { sort: { metric: 2, exclusive: kind !== 'topdown', descending: true } },
        onSelect: (n) => select(n, kind),
        onSettings: () => {},
      });
    }
    async function openTable() {
      await P.table.sortBy(2, set.table !== 'topdown', true);
      if (set.table === 'topdown') {
        await engine.call('table_expand', cid, 'topdown', 0);
        await P.table.refresh();
      }
    }

    async function select(node, source) {
      P.selected = node;
      save({ selected: node });
      const jobs = [];
      if (source !== 'flame') jobs.push(P.flame.select(node));
      if (source !== set.table) jobs.push(P.table.reveal(node));
      jobs.push(showDistribution(node));
      await Promise.all(jobs);
    }
    /** The distribution panel on union node `node` (the root until something is selected). */
    async function showDistribution(node) {
      const info = await engine.call('compare_node_info', cid, node);
      if (P.destroyed || (P.selected ?? 0) !== node) return;
      await dist.show(node, node === 0 ? 'whole run' : info.name);
    }

    /** Sums the chosen metrics into the union tree and redraws everything. */
    async function applyMetric() {
      P.totals = await engine.call('compare_metric', cid, set.pair.base, set.pair.new, set.normalize);
      P.tmeta = await engine.call('profile_meta', cid);
      if (P.destroyed) return;
      renderSummary();
      await P.flame.configure();
      makeTable(set.table);
      await Promise.all([openTable(), showDistribution(P.selected ?? 0)]);
    }
    pairSel.addEventListener('change', () => {
      eachBox.hidden = pairSel.value !== 'each';
      if (pairSel.value === 'each') return;
      save({ pair: pairs[Number(pairSel.value)] });
      baseSel.value = String(set.pair.base);
      newSel.value = String(set.pair.new);
      applyMetric();
    });
    for (const s of [baseSel, newSel]) {
      s.addEventListener('change', () => {
        save({ pair: { base: Number(baseSel.value), new: Number(newSel.value) } });
        applyMetric();
      });
    }
    normSel.addEventListener('change', () => {
      save({ normalize: normSel.value });
      applyMetric();
    });

    async function exportCsv() {
      const out = await engine.call('compare_export_csv', cid);
      const name = (d) => (d ? d.root.split('/').pop() || displayName(d) : 'run').replace(/[^\w.-]+/g, '_');
      const bd = state.datasets.find((d) => d.id === base);
      const nd = state.datasets.find((d) => d.id === id);
      const file = `${name(bd)}-vs-${name(nd)}${out.extension}`;
      download(out.text, file, out.mime);
      return { ...out, name: file };
    }

    const ready = (async () => {
      await applyMetric();
      if (P.selected != null) await select(P.selected, 'restore');
    })();

    return {
      id,
      base,
      ready,
      select,
      exportCsv,
      state() {
        return {
          dataset: id,
          base,
          comparison: cid,
          totals: P.totals,
          pair: set.pair,
          normalize: set.normalize,
          merged: !!set.merged,
          contexts: { union: meta.contexts, matched: meta.matched, removed: meta.removed, added: meta.added },
          summary: summary.textContent,
          notice: notice.hidden ? null : notice.textContent,
          selected: P.selected,
          flame: P.flame.state(),
          table: P.table ? P.table.state() : null,
          distribution: dist.state(),
        };
      },
      destroy() {
        P.destroyed = true;
        P.flame.destroy();
        P.table?.destroy();
        dist.destroy();
      },
    };
  }

  function rebuild() {
    const s = store.get();
    const id = s.selected;
    const base = baselineOf(s, id);
    const p = build(s, id, base).catch((err) => {
      root.replaceChildren(h('div', { class: 'callout callout-error', 'data-testid': 'compare-error' }, `Could not compare: ${err.message}`));
    });
    building = { id, base, p };
    p.finally(() => {
      if (building && building.id === id && building.base === base) building = null;
    });
  }

  const api = {
    update(state) {
      const id = state.selected;
      if (id == null) {
        current?.destroy();
        current = null;
        message('No dataset selected.', 'empty muted');
        return;
      }
      const base = baselineOf(state, id);
      if (base == null) {
        current?.destroy();
        current = null;
        message('Open a second dataset to compare this one with: the selected dataset is the new run, the other the baseline.');
        return;
      }
      if (current && current.id === id && current.base === base) return;
      if (building && building.id === id && building.base === base) return;
      rebuild();
    },
    /** Resolves when the panels of the comparison shown are drawn (tests, benchmarks). */
    async whenReady() {
      while (building) await building.p;
      if (current?.ready) await current.ready;
    },
    ...panelsApi(el, () => current, () => building),
  };
  return api;
}

export default {
  id: 'compare',
  title: 'Compare',
  available: isOpened,
  mount,
};
