// The Profile view: where the time goes. A shared toolbar (metric, profiles summed, search), the
// flame graph on top, and below it the top-down / bottom-up / flat table with the selected node's
// distribution across profiles. Selecting a node in one panel selects it in the others. Settings
// per dataset live in the store (`profileViews`) so they survive tab switches.
import { h } from '../format.js';
import { createFlameGraph } from './flame-graph.js';
import { createTreeTable } from './tree-table.js';
import { createDistribution } from './distribution.js';
import { createSourceView } from './source-view.js';
import { formatValue, formatPercent, parseIndexList } from './profile-format.js';
import { createMetricChooser } from './metric-chooser.js';

const TABLES = [
  ['topdown', 'Top-down'],
  ['bottomup', 'Bottom-up'],
  ['flat', 'Flat'],
];

const DEFAULTS = {
  metric: 0,
  selection: { kind: 'summary', indices: [] },
  merged: false,
  heavy: true,
  flip: false,
  colorMode: 'function',
  zoom: 0,
  selected: null,
  table: 'topdown',
  search: { pattern: '', regex: false, ignoreCase: true },
};

function mount(el, { engine, store }) {
  let current = null; // the built panel set for one dataset
  let building = null;
  const root = h('div', { class: 'profile', 'data-testid': 'profile-view' });
  el.append(root);
  el.classList.add('view-fill');

  function settingsOf(id) {
    const all = store.get().profileViews || {};
    return { ...DEFAULTS, ...(all[id] || {}) };
  }
  function saveSettings(id, patch) {
    const all = store.get().profileViews || {};
    // Written without notifying: these settings only matter when the view is rebuilt.
    all[id] = { ...(all[id] || {}), ...patch };
    store.get().profileViews = all;
  }

  async function build(id) {
    current?.destroy();
    current = null;
    root.replaceChildren(h('div', { class: 'empty muted' }, 'Loading profile…'));
    const meta = await engine.call('profile_meta', id);
    if (store.get().selected !== id) return;
    root.replaceChildren();
    if (!meta.metrics.length && meta.contexts >= 2) {
      current = buildTreeOnly(id, meta);
      await current.ready;
      return;
    }
    if (!meta.metrics.length || meta.contexts < 2) {
      root.append(h('div', { class: 'empty' }, h('p', {}, 'This dataset has no calling-context profile to show.')));
      current = { id, destroy() {}, state: () => ({ dataset: id, empty: true }) };
      return;
    }
    current = buildPanels(id, meta);
    await current.ready;
  }

  /**
   * A database that records no metric (hpcviewer's bug-nometric) still has a calling-context
   * tree: the top-down table shows it whole, with no value columns and no flame graph to size.
   */
  function buildTreeOnly(id, meta) {
    const note = h('p', { class: 'pv-note muted', 'data-testid': 'profile-note' },
      `This database records no metrics: its calling-context tree (${(meta.contexts - 1).toLocaleString('en-US')} contexts) is shown without values.`);
    const tableEl = h('div', { class: 'pv-table' });
    root.append(note, h('section', { class: 'pv-lower' }, h('div', { class: 'pv-table-col' }, tableEl)));
    const table = createTreeTable(tableEl, {
      engine, id, meta, kind: 'topdown', settings: { metric: 0, share: 0.5, sort: { metric: 0, exclusive: false, descending: true } },
      onSelect: () => {},
      onSettings: () => {},
    });
    const ready = engine.call('table_expand_all', id, 'topdown', 100000).then(() => table.refresh());
    return {
      id,
      ready,
      state: () => ({ dataset: id, treeOnly: true, note: note.textContent, table: table.state() }),
      destroy: () => table.destroy(),
    };
  }

  function buildPanels(id, meta) {
    const saved = (store.get().profileViews || {})[id];
    const set = settingsOf(id);
    if (!saved || saved.metric === undefined) set.metric = meta.default_metric || 0;
    const P = { id, meta, set, selected: set.selected, selectedName: null, search: null, table: null, destroyed: false };
    const save = (patch) => {
      Object.assign(set, patch);
      saveSettings(id, patch);
    };

    // ---- toolbar ----
    const metricSel = h('select', { 'data-testid': 'metric-select', 'aria-label': 'Metric' },
      meta.metrics.map((m) => h('option', { value: String(m.index) }, m.unit && !m.name.includes(m.unit) ? `${m.name} (${m.unit})` : m.name)));
    metricSel.value = String(set.metric);
    const chooser = createMetricChooser({
      meta,
      dataset: store.get().datasets.find((d) => d.id === id),
      getMetric: () => set.metric,
      onMetric: (m) => {
        metricSel.value = String(m);
        metricSel.dispatchEvent(new Event('change'));
      },
      onColumns: (cols) => P.table?.setColumns(cols),
    });
    const profSel = h('select', { 'data-testid': 'profile-select', 'aria-label': 'Profiles' });
    // In rank, thread order (`order`), not file order; positions in this list name subsets.
    const nonSummary = meta.profiles.filter((p) => !p.summary).sort((a, b) => a.order - b.order);
    profSel.append(h('option', { value: 'summary' }, meta.has_summary ? 'Summary (all profiles)' : 'Sum of all profiles'));
    if (nonSummary.length > 1) profSel.append(h('option', { value: 'subset' }, 'Sum of a subset…'));
    if (nonSummary.length <= 5000) {
      for (const p of nonSummary) profSel.append(h('option', { value: `p${p.index}` }, p.label));
    }
    const subsetIn = h('input', {
      type: 'text', class: 'pv-subset', placeholder: 'profiles, e.g. 0-3, 8', hidden: true,
      'data-testid': 'subset-input', 'aria-label': 'Profile subset (positions in the profile list)',
    });
    const sel = set.selection;
    profSel.value = sel.kind === 'profile' ? `p${sel.indices[0]}` : sel.kind;
    if (sel.kind === 'subset') {
      subsetIn.hidden = false;
      subsetIn.value = sel.text || '';
    }
    const searchIn = h('input', {
      type: 'search', class: 'pv-search', placeholder: 'Search functions…', value: set.search.pattern,
      'data-testid': 'search-input', 'aria-label': 'Search frame names',
    });
    const regexIn = h('input', { type: 'checkbox', 'data-testid': 'search-regex' });
    regexIn.checked = set.search.regex;
    const caseIn = h('input', { type: 'checkbox', 'data-testid': 'search-case' });
    caseIn.checked = !set.search.ignoreCase;
    const searchInfo = h('span', { class: 'pv-search-info', 'data-testid': 'search-info', 'aria-live': 'polite' });
    const nextBtn = h('button', { type: 'button', class: 'btn btn-small', hidden: true, title: 'Select the hottest match (largest inclusive value)', 'data-testid': 'search-go', onclick: async () => {
      const n = await engine.call('search_first', id);
      if (n >= 0) select(n, 'search');
    } }, 'Go to match');
    const toolbar = h('div', { class: 'pv-toolbar' },
      h('label', { class: 'pv-field' }, h('span', {}, 'Metric'), metricSel), chooser.button, chooser.panel,
      h('label', { class: 'pv-field' }, h('span', {}, 'Profiles'), profSel, subsetIn),
      h('div', { class: 'pv-field pv-search-box' }, searchIn,
        h('label', { title: 'Regular expression' }, regexIn, ' .*'),
        h('label', { title: 'Match case' }, caseIn, ' Aa'), nextBtn, searchInfo));

    // ---- panels ----
    const flameEl = h('section', { class: 'pv-flame', 'aria-label': 'Flame graph' });
    const tabsEl = h('div', { class: 'pv-tabs', role: 'tablist', 'aria-label': 'Tables' });
    const tableEl = h('div', { class: 'pv-table' });
    const distEl = h('aside', { class: 'pv-dist', 'aria-label': 'Distribution across profiles' });
    const srcEl = h('section', { class: 'pv-source', 'aria-label': 'Source', 'data-testid': 'source-view' });
    const lower = h('section', { class: 'pv-lower' }, h('div', { class: 'pv-table-col' }, tabsEl, tableEl), srcEl, distEl);
    root.append(toolbar, flameEl, lower);

    const flame = createFlameGraph(flameEl, {
      engine, id, meta, settings: set,
      onSelect: (n, src) => select(n, src),
      onSettings: save,
    });
    const dist = createDistribution(distEl, { engine, id, meta });
    const srcView = createSourceView(srcEl, {
      engine, id, metric: () => set.metric,
      url: () => store.get().datasets.find((d) => d.id === id)?.source_url || null,
    });

    function makeTable(kind) {
      P.table?.destroy();
      tableEl.replaceChildren();
      save({ table: kind });
      tabsEl.replaceChildren(...TABLES.map(([k, label]) => h('button', {
        type: 'button', role: 'tab', class: `pv-tab${k === kind ? ' active' : ''}`, 'aria-selected': String(k === kind),
        'data-table': k, onclick: () => {
          if (k === set.table) return;
          makeTable(k);
          openTable().then(() => P.selected != null && P.table.reveal(P.selected));
        },
      }, label)));
      P.table = createTreeTable(tableEl, {
        engine, id, meta, kind, settings: { metric: set.metric, share: set.share, columns: chooser.columns(), sort: set.sorts?.[kind] || { metric: set.metric, exclusive: false, descending: true } },
        onSelect: (n, src) => select(n, src),
        onSettings: (patch) => {
          if (patch.sort) save({ sorts: { ...(set.sorts || {}), [kind]: patch.sort } });
          if (patch.share) save({ share: patch.share });
        },
      });
    }
    makeTable(set.table);
    /** Shows the table; the first time a table is shown for a dataset, its hot path is open. */
    async function openTable() {
      const opened = set.opened || {};
      if (!opened[set.table]) {
        save({ opened: { ...opened, [set.table]: true } });
        await P.table.sortBy(set.metric, false, true);
        await P.table.hotPath(false);
      } else await P.table.refresh();
    }

    // ---- cross-selection ----
    async function select(node, source) {
      P.selected = node;
      save({ selected: node });
      const info = await engine.call('node_info', id, node, set.metric);
      P.selectedName = info.name;
      const jobs = [dist.show(node, info.name, set.metric), srcView.showNode(node)];
      if (source !== 'flame') jobs.push(flame.select(node));
      if (source !== set.table) jobs.push(P.table.reveal(node));
      await Promise.all(jobs);
    }

    // ---- toolbar actions ----
    metricSel.addEventListener('change', async () => {
      const m = Number(metricSel.value);
      save({ metric: m });
      chooser.ensure(m);
      await flame.setMetric(m);
      await P.table.sortBy(m, false, true);
      if (P.selected != null) await dist.show(P.selected, P.selectedName || '', m);
      await srcView.refresh();
      if (set.search.pattern) await runSearch();
    });

    async function applySelection() {
      const s = set.selection;
      await engine.call('profile_select', id, s.kind, s.indices);
    }
    async function changeSelection(s) {
      save({ selection: s });
      await applySelection();
      await flame.configure();
      await P.table.refresh();
      await srcView.refresh();
      if (set.search.pattern) await runSearch();
    }
    profSel.addEventListener('change', () => {
      const v = profSel.value;
      subsetIn.hidden = v !== 'subset';
      subsetIn.classList.remove('invalid');
      if (v === 'summary') changeSelection({ kind: 'summary', indices: [] });
      else if (v.startsWith('p')) changeSelection({ kind: 'profile', indices: [Number(v.slice(1))] });
      else subsetIn.focus();
    });
    subsetIn.addEventListener('change', () => {
      const pos = parseIndexList(subsetIn.value, nonSummary.length);
      subsetIn.classList.toggle('invalid', !pos || !pos.length);
      if (!pos || !pos.length) return;
      changeSelection({ kind: 'subset', indices: pos.map((i) => nonSummary[i].index), text: subsetIn.value });
    });

    let searchTimer = null;
    async function runSearch() {
      const search = { pattern: searchIn.value, regex: regexIn.checked, ignoreCase: !caseIn.checked };
      save({ search });
      const info = await engine.call('profile_search', id, search.pattern, search.regex, search.ignoreCase);
      P.search = info;
      searchInfo.classList.toggle('error', !!info.error);
      nextBtn.hidden = !search.pattern || !!info.error || !info.frames;
      if (!search.pattern) searchInfo.textContent = '';
      else if (info.error) searchInfo.textContent = `bad expression: ${info.error.split('\n').pop()}`;
      else if (!info.frames) searchInfo.textContent = 'no match';
      else {
        const unit = meta.metrics[set.metric]?.unit || '';
        searchInfo.textContent = `${info.frames} frame${info.frames === 1 ? '' : 's'} · ${formatValue(info.total, unit)} (${formatPercent(info.total, info.root_total)})`;
      }
      flame.setSearch(!!search.pattern && !info.error);
      await P.table.refresh();
    }
    searchIn.addEventListener('input', () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(runSearch, 180);
    });
    searchIn.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        clearTimeout(searchTimer);
        runSearch();
      }
    });
    regexIn.addEventListener('change', runSearch);
    caseIn.addEventListener('change', runSearch);

    const ready = (async () => {
      await applySelection();
      await flame.configure();
      await openTable();
      if (set.search.pattern) await runSearch();
      if (P.selected != null) await select(P.selected, 'restore');
    })();

    return {
      id,
      ready,
      select,
      /** The source view at `path`:`line`; no path: the hottest statement of the profile. */
      showSource: (path, line) => (path ? srcView.show(path, line) : srcView.showHottest()),
      search: async (pattern, regex = false, ignoreCase = true) => {
        searchIn.value = pattern;
        regexIn.checked = regex;
        caseIn.checked = !ignoreCase;
        await runSearch();
        return P.search;
      },
      state() {
        return {
          dataset: id,
          metric: set.metric,
          metricName: meta.metrics[set.metric]?.name,
          columns: chooser.columns(),
          selection: set.selection,
          selected: P.selected == null ? null : { node: P.selected, name: P.selectedName },
          search: P.search,
          flame: flame.state(),
          table: P.table.state(),
          distribution: dist.state(),
          source: srcView.state(),
        };
      },
      destroy() {
        P.destroyed = true;
        chooser.destroy();
        flame.destroy();
        P.table?.destroy();
        dist.destroy();
        srcView.destroy();
      },
    };
  }

  const api = {
    update(state) {
      if (state.selected == null) {
        current?.destroy();
        current = null;
        root.replaceChildren(h('div', { class: 'empty muted' }, 'No dataset selected.'));
        return;
      }
      if (current && current.id === state.selected) return;
      if (building && building.id === state.selected) return;
      const id = state.selected;
      const p = build(id).catch((err) => {
        root.replaceChildren(h('div', { class: 'callout callout-error' }, `Could not show this profile: ${err.message}`));
      });
      building = { id, p };
      p.finally(() => {
        if (building && building.id === id) building = null;
      });
    },
    /** Resolves when the panels of the selected dataset are drawn (tests, benchmarks). */
    async whenReady() {
      if (building) await building.p;
      if (current?.ready) await current.ready;
    },
    ...panelsApi(el, () => current, () => building),
  };
  return api;
}

/**
 * What a view of panel sets (Profile, Compare) answers about them: `shown()` is the panel set
 * shown or null, `pending()` the one being built or null.
 */
export function panelsApi(el, shown, pending) {
  return {
    state: () => (shown() ? shown().state() : { loading: !!pending() }),
    panels: shown,
    destroy() {
      shown()?.destroy();
      el.classList.remove('view-fill');
    },
  };
}

/** Whether dataset `d` is opened (the Profile and Compare tabs show then). */
export const isOpened = (d) => !!d && d.status === 'opened';

export default {
  id: 'profile',
  title: 'Profile',
  available: isOpened,
  mount,
};
