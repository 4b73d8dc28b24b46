// Metric and column choosers of the Profile view. With a metric taxonomy (HPCToolkit's
// metrics/default.yaml, read by src/formats/hpctoolkit/taxonomy), the metric <select> follows the
// taxonomy's tree order and a "Columns" panel shows the tree itself (roots, children, variants, the
// descriptions as tooltips) with, per metric, the one shown in the flame graph and its inclusive
// and exclusive table columns; the default columns are those the taxonomy shows by default, less
// metrics without a value in this dataset (no value at the root: none anywhere).
// Without a taxonomy the metrics are a flat list and every column is shown, as before. The chosen
// columns are remembered per dataset in localStorage, keyed by the dataset's identity.
import { h } from '../format.js';

const STORE_PREFIX = 'hpcscope.columns.v1:';
let choosers = 0;

/** Display label of metric `m` (its unit appended when the name lacks it). */
export function metricLabel(meta, m) {
  const x = meta.metrics[m];
  if (!x) return `metric ${m}`;
  return x.unit && !x.name.includes(x.unit) ? `${x.name} (${x.unit})` : x.name;
}

/** Tooltip of metric `m`: description, formulas of a formula metric. */
export function metricTitle(meta, m) {
  const x = meta.metrics[m];
  if (!x) return '';
  const lines = [x.description || x.name];
  if (x.derived) {
    if (x.formula_inclusive) lines.push(`inclusive = ${x.formula_inclusive}`);
    if (x.formula_exclusive) lines.push(`exclusive = ${x.formula_exclusive}`);
  }
  return lines.join('\n');
}

/**
 * The rows the choosers list, in order. With a taxonomy: each node once in preorder
 * `{node, depth, name, description, visible, hasChildren, parent, variants: [{name, metric}]}`,
 * then metrics no node shows (`node: null`, under an "Other metrics" heading). Without one: a row
 * per metric.
 */
export function metricRows(meta) {
  const rows = [];
  const t = meta.taxonomy;
  const seenMetric = new Set();
  if (t) {
    const seen = new Set();
    const stack = [...t.roots].reverse().map((n) => [n, 0, -1]);
    while (stack.length) {
      const [n, depth, parent] = stack.pop();
      const node = t.nodes[n];
      if (!node || seen.has(n)) continue;
      seen.add(n);
      const variants = node.variants
        .filter((v) => v.metric != null && v.metric < meta.metrics.length)
        .map((v) => ({ name: v.name, metric: v.metric, hidden: v.render.hidden }));
      for (const v of variants) seenMetric.add(v.metric);
      const index = rows.length;
      rows.push({
        node: n, depth, parent, name: node.name, description: node.description || node.short_description || '',
        visible: node.visible, hasChildren: node.children.length > 0, variants,
      });
      for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i], depth + 1, index]);
    }
  }
  const rest = meta.metrics.filter((x) => !seenMetric.has(x.index));
  for (const x of rest) {
    rows.push({
      node: null, depth: 0, parent: -1, name: metricLabel(meta, x.index), description: x.description || '',
      visible: true, hasChildren: false, other: !!t, variants: [{ name: '', metric: x.index, hidden: false }],
    });
  }
  return rows;
}

/** Both columns of metric `m` it has values for. */
function columnsOf(meta, m) {
  const x = meta.metrics[m];
  const out = [];
  if (!x) return out;
  if (x.has_inclusive !== false) out.push({ metric: m, exclusive: false });
  if (x.has_exclusive !== false) out.push({ metric: m, exclusive: true });
  return out;
}

/**
 * The columns shown before the user chooses: the taxonomy's default ones of metrics with values,
 * else every column.
 */
export function defaultColumns(meta) {
  const ms = meta.taxonomy
    ? meta.taxonomy.default_columns.filter((m) => meta.metrics[m]?.has_values !== false)
    : meta.metrics.map((x) => x.index);
  const cols = ms.flatMap((m) => columnsOf(meta, m));
  return cols.length ? cols : columnsOf(meta, meta.default_metric || 0);
}

/** A stable key for a dataset: its format, root, title and files (names and sizes). */
export function datasetKey(d, meta) {
  const files = (d?.files || []).map((f) => `${f.path}:${f.size}`).sort().join('\n');
  const text = [d?.format, d?.root, d?.title, files, meta.metrics.map((x) => x.name).join('\n')].join('\n');
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${d?.format || 'dataset'}:${d?.root || ''}:${hash.toString(16)}`;
}

/** The remembered columns of a dataset (dropping any the dataset lacks), or null. */
export function loadColumns(key, meta) {
  try {
    const raw = window.localStorage.getItem(STORE_PREFIX + key);
    const saved = raw ? JSON.parse(raw) : null;
    if (!saved || !Array.isArray(saved.columns)) return null;
    const ok = new Set(meta.metrics.flatMap((x) => columnsOf(meta, x.index)).map(colId));
    return saved.columns.filter((c) => ok.has(colId(c))).map((c) => ({ metric: c.metric, exclusive: !!c.exclusive }));
  } catch {
    return null;
  }
}

export function saveColumns(key, columns) {
  try {
    window.localStorage.setItem(STORE_PREFIX + key, JSON.stringify({ columns }));
  } catch {
    // Storage full or disabled: the choice lasts for this page only.
  }
}

const colId = (c) => `${c.metric}${c.exclusive ? 'e' : 'i'}`;

/** Fills the metric <select> in the choosers' order, children indented, grouping nodes disabled. */
export function fillMetricSelect(select, meta) {
  const opts = [];
  const listed = new Set();
  let otherGroup = null;
  for (const r of metricRows(meta)) {
    const pad = '\u00a0\u00a0\u00a0'.repeat(r.depth);
    if (r.other && !otherGroup) {
      otherGroup = h('optgroup', { label: 'Other metrics (not in the taxonomy)' });
      opts.push(otherGroup);
    }
    const add = (o) => (r.other ? otherGroup.append(o) : opts.push(o));
    const fresh = r.variants.filter((v) => !listed.has(v.metric));
    if (!fresh.length) {
      // A node grouping its children (or showing a metric listed above): a heading.
      add(h('option', { disabled: true, title: r.description }, `${pad}${r.name}`));
      continue;
    }
    for (const v of fresh) {
      listed.add(v.metric);
      // A node showing another metric's values (a parent showing its first child's) names both.
      const own = metricLabel(meta, v.metric);
      const node = r.node == null ? own : r.variants.length > 1 && v.name ? `${r.name} · ${v.name}` : r.name;
      const label = node === own || r.node == null || own.startsWith(r.name) ? node : `${node} · ${own}`;
      add(h('option', { value: String(v.metric), title: metricTitle(meta, v.metric) }, `${pad}${label}`));
    }
  }
  select.replaceChildren(...opts);
}

/**
 * The "Columns" button and its panel. `getMetric()` / `getColumns()` read the current choice;
 * `onMetric(m)` and `onColumns(cols)` apply a new one.
 */
export function createMetricChooser({ meta, getMetric, getColumns, onMetric, onColumns }) {
  const rows = metricRows(meta);
  const radioGroup = `mc-metric-${++choosers}`;
  const collapsed = new Set();
  let open = false;
  const count = h('span', { class: 'mc-count', 'data-testid': 'columns-count' });
  const button = h('button', {
    type: 'button', class: 'btn btn-small mc-button', 'data-testid': 'columns-button', 'aria-haspopup': 'dialog',
    'aria-expanded': 'false', title: meta.taxonomy ? 'The metric tree: choose the metric and the table columns' : 'Choose the table columns',
    onclick: () => setOpen(!open),
  }, meta.taxonomy ? 'Metrics & columns' : 'Columns', count);
  const filterIn = h('input', {
    type: 'search', class: 'mc-filter', placeholder: 'Filter metrics…', 'aria-label': 'Filter metrics',
    'data-testid': 'columns-filter',
  });
  const list = h('div', { class: 'mc-list', role: 'tree', 'aria-label': 'Metrics' });
  const act = (label, testid, title, fn) => h('button', { type: 'button', class: 'btn btn-small', 'data-testid': testid, title, onclick: fn }, label);
  const defaults = defaultColumns(meta);
  const t = meta.taxonomy;
  const withValues = t ? t.default_columns.filter((m) => meta.metrics[m]?.has_values !== false).length : 0;
  const note = t
    ? `${t.default_columns.length} of ${meta.metrics.length} metrics shown by default, ${withValues} of them with values (${t.source.split('/').slice(-2).join('/')})`
    : `${meta.metrics.length} metrics`;
  // Metrics without a value in this dataset are left out of the list unless asked for.
  const someEmpty = meta.metrics.some((x) => x.has_values === false);
  const valuedIn = h('input', { type: 'checkbox', checked: someEmpty, 'data-testid': 'columns-with-values', onchange: () => render() });
  const valued = someEmpty ? h('label', { class: 'mc-valued', title: 'Hide the metrics no context of this dataset has a value of' }, valuedIn, ' only metrics with values') : null;
  const panel = h('div', { class: 'mc-panel', role: 'dialog', 'aria-label': 'Metrics and columns', hidden: true, 'data-testid': 'metric-chooser' },
    h('div', { class: 'mc-head' },
      h('strong', {}, t ? 'Metrics and columns' : 'Columns'),
      h('span', { class: 'muted mc-note' }, note),
      h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close', onclick: () => setOpen(false) }, '×')),
    h('div', { class: 'mc-tools' }, filterIn, valued,
      act(t ? 'Defaults' : 'All', 'columns-defaults', t ? 'The columns shown when the dataset is first opened: those of the metrics the taxonomy shows by default that have values' : 'Every column', () => onColumns(defaults.slice())),
      t ? act('All', 'columns-all', 'Every column of every metric', () => onColumns(meta.metrics.flatMap((x) => columnsOf(meta, x.index)))) : null,
      act('Shown metric only', 'columns-only', 'The columns of the metric the flame graph shows', () => onColumns(columnsOf(meta, getMetric())))),
    h('div', { class: 'mc-cols muted', 'aria-hidden': 'true' }, h('span', {}, 'Metric'), h('span', {}, 'Flame'), h('span', {}, 'Incl.'), h('span', {}, 'Excl.')),
    list);

  function setOpen(v) {
    open = v;
    panel.hidden = !v;
    button.setAttribute('aria-expanded', String(v));
    if (v) {
      place();
      render();
      filterIn.focus();
    }
  }
  /** Under the button, inside the window (fixed: the toolbar may be narrower than the panel). */
  function place() {
    const r = button.getBoundingClientRect();
    const width = Math.min(640, window.innerWidth - 24);
    const top = r.bottom + 6;
    panel.style.width = `${width}px`;
    panel.style.left = `${Math.max(12, Math.min(r.left, window.innerWidth - width - 12))}px`;
    panel.style.top = `${top}px`;
    panel.style.maxHeight = `${Math.max(200, Math.min(640, window.innerHeight - top - 12))}px`;
  }
  const onKey = (e) => {
    if (open && e.key === 'Escape') {
      setOpen(false);
      button.focus();
    }
  };
  const outside = (e) => {
    if (open && !panel.contains(e.target) && !button.contains(e.target)) setOpen(false);
  };
  const onResize = () => open && place();
  document.addEventListener('pointerdown', outside, true);
  document.addEventListener('keydown', onKey);
  window.addEventListener('resize', onResize);
  filterIn.addEventListener('input', () => render());

  /**
   * Rows shown: those matching the filter (and with values, when asked) and their ancestors,
   * below no collapsed node.
   */
  function shownRows() {
    const q = filterIn.value.trim().toLowerCase();
    const onlyValued = someEmpty && valuedIn.checked;
    const filtered = q || onlyValued;
    const keep = rows.map(() => !filtered);
    if (filtered) {
      rows.forEach((r, i) => {
        const text = !q || r.name.toLowerCase().includes(q) || r.description.toLowerCase().includes(q);
        const valuedRow = !onlyValued || r.variants.some((v) => meta.metrics[v.metric]?.has_values !== false);
        if (text && valuedRow) {
          for (let k = i; k >= 0 && !keep[k]; k = rows[k].parent) keep[k] = true;
        }
      });
    }
    const hiddenBelow = (r) => {
      for (let p = r.parent; p >= 0; p = rows[p].parent) if (collapsed.has(p)) return true;
      return false;
    };
    return rows.map((r, i) => [r, i]).filter(([r, i]) => keep[i] && (q || !hiddenBelow(r)));
  }
  function emptyNote() {
    return h('div', { class: 'mc-group muted' }, valuedIn.checked && someEmpty ? 'No metric with values matches.' : 'No metric matches.');
  }

  function controls(m, chosen) {
    const x = meta.metrics[m];
    const radio = h('input', {
      type: 'radio', name: radioGroup, checked: m === getMetric(), 'data-testid': `metric-radio-${m}`,
      'aria-label': `Show ${x.name} in the flame graph`, onchange: () => onMetric(m),
    });
    const box = (exclusive) => {
      const has = exclusive ? x.has_exclusive !== false : x.has_inclusive !== false;
      const c = h('input', {
        type: 'checkbox', disabled: !has, checked: has && chosen.has(colId({ metric: m, exclusive })),
        'data-testid': `column-${m}-${exclusive ? 'e' : 'i'}`,
        'aria-label': `${x.name} ${exclusive ? 'exclusive' : 'inclusive'} column`,
        title: has ? '' : `${x.name} has no ${exclusive ? 'exclusive' : 'inclusive'} value`,
        onchange: () => toggleColumn({ metric: m, exclusive }, c.checked),
      });
      return c;
    };
    return [h('span', { class: 'mc-c' }, radio), h('span', { class: 'mc-c' }, box(false)), h('span', { class: 'mc-c' }, box(true))];
  }

  function toggleColumn(col, on) {
    const cols = getColumns().filter((c) => colId(c) !== colId(col));
    if (on) cols.push(col);
    onColumns(cols);
  }

  function render() {
    const chosen = new Set(getColumns().map(colId));
    const out = [];
    let otherHead = false;
    for (const [r, i] of shownRows()) {
      if (r.other && !otherHead) {
        otherHead = true;
        out.push(h('div', { class: 'mc-group muted' }, 'Other metrics (not in the taxonomy)'));
      }
      const indent = `padding-left:${4 + r.depth * 16}px`;
      const tog = h('span', {
        class: `mc-toggle${r.hasChildren ? '' : ' leaf'}`, 'aria-hidden': 'true',
        onclick: () => {
          if (!r.hasChildren) return;
          if (collapsed.has(i)) collapsed.delete(i);
          else collapsed.add(i);
          render();
        },
      }, r.hasChildren ? (collapsed.has(i) ? '▸' : '▾') : '');
      const tip = r.variants.length === 1 ? metricTitle(meta, r.variants[0].metric) || r.description : r.description;
      const name = h('span', { class: 'mc-name', style: indent, title: tip }, tog,
        h('span', { class: 'mc-label' }, r.name),
        r.visible ? null : h('span', { class: 'mc-badge', title: 'The taxonomy does not show this metric by default' }, 'hidden by default'),
        r.variants.length === 1 && meta.metrics[r.variants[0].metric]?.derived ? h('span', { class: 'mc-badge', title: tip }, 'formula') : null,
        r.variants.length === 1 && meta.metrics[r.variants[0].metric]?.has_values === false ? h('span', { class: 'mc-badge', title: 'No context of this dataset has a value of it' }, 'no values') : null);
      const attrs = { class: `mc-row${r.visible ? '' : ' mc-off'}`, role: 'treeitem', 'aria-level': String(r.depth + 1), 'data-depth': String(r.depth), 'data-node': r.node == null ? null : String(r.node) };
      if (r.variants.length === 1) {
        out.push(h('div', { ...attrs, 'data-metric': String(r.variants[0].metric) }, name, ...controls(r.variants[0].metric, chosen)));
        continue;
      }
      out.push(h('div', attrs, name, h('span', {}), h('span', {}), h('span', {})));
      for (const v of r.variants) {
        out.push(h('div', { class: 'mc-row mc-variant', role: 'treeitem', 'aria-level': String(r.depth + 2), 'data-metric': String(v.metric), 'data-variant': v.name },
          h('span', { class: 'mc-name', style: `padding-left:${22 + r.depth * 16}px`, title: metricTitle(meta, v.metric) },
            h('span', { class: 'mc-label' }, v.name || '(value)'),
            meta.metrics[v.metric]?.has_values === false ? h('span', { class: 'mc-badge' }, 'no values') : null), ...controls(v.metric, chosen)));
      }
    }
    list.replaceChildren(...(out.length ? out : [emptyNote()]));
  }

  function refresh() {
    const n = getColumns().length;
    count.textContent = ` (${n})`;
    if (open) render();
  }
  refresh();

  return {
    button,
    panel,
    refresh,
    setOpen,
    state: () => ({ open, rows: rows.length, shown: open ? list.querySelectorAll('.mc-row').length : 0 }),
    destroy() {
      document.removeEventListener('pointerdown', outside, true);
      document.removeEventListener('keydown', onKey);
      window.removeEventListener('resize', onResize);
    },
  };
}
