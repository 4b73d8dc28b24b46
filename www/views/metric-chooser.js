// Profile view: the metric taxonomy (metrics/default.yaml) as a tree, else the metrics, each with
// the flame graph's choice and its table columns (by default those of the taxonomy's default
// metrics with values, else all), kept per dataset in localStorage.
import { h } from '../format.js';

let choosers = 0;
const colId = (c) => `${c.metric}-${c.exclusive ? 'e' : 'i'}`;

/** The tree's nodes in preorder, then the metrics no node shows. */
function metricRows(meta) {
  const rows = [];
  const t = meta.taxonomy;
  const shown = new Set();
  const stack = t ? t.roots.map((n) => [n, 0, -1]).reverse() : [];
  while (stack.length) {
    const [n, depth, parent] = stack.pop();
    const node = t.nodes[n];
    if (rows.some((r) => r.node === n)) continue;
    const variants = node.variants.filter((v) => meta.metrics[v.metric ?? -1]);
    variants.forEach((v) => shown.add(v.metric));
    stack.push(...node.children.map((c) => [c, depth + 1, rows.length]).reverse());
    rows.push({ node: n, depth, parent, name: node.name, description: node.description, visible: node.visible, variants });
  }
  for (const x of meta.metrics) {
    if (!shown.has(x.index)) rows.push({ node: null, depth: 0, parent: -1, name: x.name, description: x.description, visible: true, other: !!t, variants: [{ metric: x.index }] });
  }
  return rows;
}

/** `onColumns(cols)` shows columns `[{metric, exclusive}]`; `onMetric(m)` shows metric `m`. */
export function createMetricChooser({ meta, dataset: d, getMetric, onMetric, onColumns }) {
  const t = meta.taxonomy;
  const rows = metricRows(meta);
  const group = `mc-${++choosers}`;
  const key = `hpcscope.columns.v1:${d?.format}:${d?.root}:${(d?.files || []).map((f) => `${f.path}=${f.size}`).join('|')}`;
  const valued = (m) => meta.metrics[m].has_values !== false;
  const colsOf = (m) => [false, true].filter((e) => meta.metrics[m][e ? 'has_exclusive' : 'has_inclusive'] !== false).map((exclusive) => ({ metric: m, exclusive }));
  const defaults = () => (t ? t.default_columns.filter(valued) : meta.metrics.map((x) => x.index)).flatMap(colsOf);
  const all = new Set(meta.metrics.flatMap((x) => colsOf(x.index)).map(colId));
  // Storage disabled or full: the choice lasts for this page.
  const ls = (v) => {
    try {
      return v ? localStorage.setItem(key, v) : JSON.parse(localStorage.getItem(key));
    } catch {
      return null;
    }
  };
  let cols = ls()?.filter((c) => all.has(colId(c))) || defaults();
  let open = false;
  const tip = (m) => {
    const x = meta.metrics[m];
    return [x.description || x.name, x.formula_inclusive && `inclusive = ${x.formula_inclusive}`, x.formula_exclusive && `exclusive = ${x.formula_exclusive}`].filter(Boolean).join('\n');
  };

  function set(next) {
    cols = next;
    ls(JSON.stringify(cols));
    count.textContent = ` (${cols.length})`;
    onColumns(cols);
    if (open) render();
  }

  const count = h('span', { class: 'muted' }, ` (${cols.length})`);
  const button = h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'columns-button', 'aria-expanded': 'false', onclick: () => toggle(!open) }, t ? 'Metrics & columns' : 'Columns', count);
  // Metrics without a value in this dataset are listed only when asked for.
  const someEmpty = meta.metrics.some((x) => !valued(x.index));
  const valuedIn = h('input', { type: 'checkbox', checked: someEmpty, 'data-testid': 'columns-with-values', onchange: () => render() });
  const list = h('div');
  const panel = h('div', { class: 'mc-panel', role: 'dialog', 'aria-label': 'Metrics and columns', hidden: true, 'data-testid': 'metric-chooser' },
    h('div', { class: 'mc-row muted' }, h('label', { class: 'mc-name' }, someEmpty ? [valuedIn, ' only metrics with values'] : null),
      h('span', {}, 'Flame'), h('span', {}, 'Incl.'), h('span', {}, 'Excl.'), h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close', onclick: () => toggle(false) }, '×')),
    list);

  function toggle(v) {
    open = v;
    panel.hidden = !v;
    button.setAttribute('aria-expanded', String(v));
    if (v) render();
  }
  const onKey = (e) => open && e.key === 'Escape' && toggle(false);
  document.addEventListener('keydown', onKey);

  /** A node's row (`m`: its metric, if one), or a variant's (`v` 1). */
  function row(r, m, name, v, marks) {
    const x = meta.metrics[m];
    const chosen = new Set(cols.map(colId));
    const box = (exclusive) => {
      const c = { metric: m, exclusive };
      return h('input', {
        type: 'checkbox', disabled: !all.has(colId(c)), checked: chosen.has(colId(c)), 'data-testid': `column-${colId(c)}`,
        'aria-label': `${x.name} ${exclusive ? 'exclusive' : 'inclusive'}`,
        onchange: (e) => set([...cols.filter((k) => colId(k) !== colId(c)), ...(e.target.checked ? [c] : [])]),
      });
    };
    return h('div', { class: `mc-row${r.visible ? '' : ' mc-off'}`, 'data-depth': v ? null : r.depth, 'data-node': v ? null : r.node, 'data-metric': m },
      h('span', { class: 'mc-name', style: `padding-left:${(r.depth + v) * 16}px`, title: x ? tip(m) : r.description }, name,
        ...[...marks, x && !valued(m) && 'no values'].filter(Boolean).map((k) => h('i', {}, k))),
      x ? [h('input', { type: 'radio', name: group, checked: m === getMetric(), 'data-testid': `metric-radio-${m}`, 'aria-label': `Show ${x.name}`, onchange: () => onMetric(m) }), box(false), box(true)] : null);
  }

  function render() {
    // Rows with values (when asked) and their ancestors.
    const keep = rows.map(() => false);
    rows.forEach((r, i) => {
      if (!valuedIn.checked || r.variants.some((v) => valued(v.metric))) for (let k = i; k >= 0 && !keep[k]; k = rows[k].parent) keep[k] = true;
    });
    list.replaceChildren(...rows.filter((r, i) => keep[i]).flatMap((r) => {
      const one = r.variants.length === 1 ? r.variants[0].metric : null;
      return [row(r, one, r.name, 0, [!r.visible && 'hidden by default', r.other && 'not in the taxonomy', meta.metrics[one]?.derived && 'formula']),
        ...(one == null ? r.variants.map((v) => row(r, v.metric, v.name || '(value)', 1, [])) : [])];
    }));
  }

  return {
    button,
    panel,
    columns: () => cols,
    /** Shows the columns of metric `m` if none is. */
    ensure(m) {
      if (!cols.some((c) => c.metric === m)) set([...cols, ...colsOf(m)]);
      else if (open) render();
    },
    destroy() {
      document.removeEventListener('keydown', onKey);
    },
  };
}
