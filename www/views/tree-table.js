// Tree table of the profile view (top-down, bottom-up, flat): one row per node, the chosen metric
// columns with percent of the root, sortable headers, expand/collapse, hot path, keyboard. Virtual:
// only the rows in the scroll window are fetched, and only cells near the columns in view are in the DOM.
import { h } from '../format.js';
import { formatValue, formatPercent, formatDelta, formatRatio, formatPrintf } from './profile-format.js';

const ROW_H = 24;
const NAME_W = 340;
const MIN_COL_W = 132;

/**
 * Width of the metric columns: room for the widest value a cell prints (four digits, an SI
 * prefix and the unit: "-8.888k samples") beside its percent, so no value is clipped.
 */
function columnWidth(metrics) {
  const g = document.createElement('canvas').getContext('2d');
  g.font = '12.5px system-ui, -apple-system, "Segoe UI", sans-serif';
  let w = MIN_COL_W;
  for (const m of metrics) {
    const text = formatValue(-8.888e6, m.unit);
    // value + gap (6) + percent (44) + padding (16) + a margin for fonts wider than measured.
    w = Math.max(w, Math.ceil(g.measureText(text).width * 1.08) + 6 + 44 + 16 + 6);
  }
  return Math.min(w, 240);
}
const INDENT_W = 14;
/** Width the name column keeps for the toggle and the label however deep the row. */
const LABEL_MIN_W = 200;

/**
 * `compare`: the table of a comparison (metrics 0, 1, 2 are base, new and delta; src/session/
 * compare.rs): columns stay in that order, percents are of the base run's root (the new run's for
 * new values), deltas are signed, and two ratio columns (new / base) follow.
 */
export function createTreeTable(root, { engine, id, meta, kind, settings, onSelect, onSettings, compare = false }) {
  const nm = meta.metrics.length;
  const COL_W = columnWidth(meta.metrics);
  const S = {
    kind,
    len: 0,
    start: 0,
    win: null, // {start, node, depth, flags, cct, values, labels}
    rootValues: null,
    selectedRow: -1,
    selectedCct: null,
    sort: settings.sort || { metric: settings.metric || 0, exclusive: false, descending: true },
    share: settings.share ?? 0.5,
    lastSortMs: 0,
    lastWindowMs: 0,
    nameW: NAME_W,
    /** Width of the name column as laid out, and the metric columns in the DOM [first, end). */
    nameColW: NAME_W,
    colRange: [0, 0],
    /** The scroll box's width and horizontal scroll, kept from its resize and scroll events so
     *  that a render does not force a layout to read them. */
    viewW: 0,
    scrollLeft: 0,
    indentW: INDENT_W,
    destroyed: false,
    seq: 0,
    pending: false,
    /** Chosen columns [{metric, exclusive}], in the chooser's order. */
    columns: settings.columns || Array.from({ length: nm }, (_, m) => [{ metric: m, exclusive: false }, { metric: m, exclusive: true }]).flat(),
  };

  // ---- DOM ----
  const shareIn = h('input', {
    type: 'number', min: '1', max: '100', step: '5', value: String(Math.round(S.share * 100)),
    class: 'tt-share', 'aria-label': 'Hot path threshold (percent of parent)', 'data-testid': 'table-share',
  });
  shareIn.addEventListener('change', () => {
    const v = Math.max(1, Math.min(100, Number(shareIn.value) || 50));
    S.share = v / 100;
    onSettings({ share: S.share });
  });
  const hotBtn = h('button', {
    type: 'button', class: 'btn btn-small', 'data-testid': 'table-hot-path',
    title: 'Expand the hot path below the selected row (H)', onclick: () => hotPath(true),
  }, 'Hot path');
  const expandBtn = h('button', {
    type: 'button', class: 'btn btn-small', title: 'Expand every row (up to 100,000 rows)',
    onclick: () => run(() => engine.call('table_expand_all', id, S.kind, 100000)),
  }, 'Expand all');
  const status = h('span', { class: 'tt-status muted', 'data-testid': 'table-status' });
  // Without metrics (a tree alone) there is no hot path to follow.
  const hot = nm ? [hotBtn, h('label', { class: 'tt-share-label' }, 'at ≥ ', shareIn, ' %')] : [];
  const tools = h('div', { class: 'tt-tools' }, ...hot, expandBtn, status);

  /** Chosen columns in display order: those of the metric sorted by come first (a comparison's
   *  stay base, new, delta). */
  const order = () => (compare ? S.columns
    : [...S.columns.filter((c) => c.metric === S.sort.metric), ...S.columns.filter((c) => c.metric !== S.sort.metric)]);
  function headCells() {
    const cells = [h('div', { class: 'tt-h tt-name', style: 'width:var(--tt-name-w)' }, kind === 'flat' ? 'Scope' : kind === 'bottomup' ? 'Function ← callers' : 'Calling context')];
    for (const { metric: m, exclusive } of order()) {
      const x = meta.metrics[m];
      cells.push(h('button', {
        type: 'button', class: 'tt-h tt-num', style: `width:${COL_W}px`,
        'data-metric': String(m), 'data-exclusive': String(exclusive),
        title: `Sort by ${x.name} (${exclusive ? 'exclusive' : 'inclusive'})`,
        'aria-label': `${x.name} ${exclusive ? 'exclusive' : 'inclusive'}`,
        onclick: () => sortBy(m, exclusive),
      }, h('span', { class: 'tt-metric' }, compare ? x.name.split(':')[0] : x.name), h('span', { class: 'tt-scope' }, exclusive ? 'exclusive' : 'inclusive')));
    }
    if (compare) {
      for (const exclusive of [false, true]) {
        cells.push(h('div', { class: 'tt-h tt-num', style: `width:${COL_W}px`, title: 'new / base' },
          h('span', { class: 'tt-metric' }, 'ratio'), h('span', { class: 'tt-scope' }, exclusive ? 'exclusive' : 'inclusive')));
      }
    }
    return cells;
  }
  const header = h('div', { class: 'tt-header' }, headCells());
  const spacer = h('div', { class: 'tt-spacer' });
  const rowsEl = h('div', { class: 'tt-rows', role: 'rowgroup' });
  const body = h('div', { class: 'tt-body' }, spacer, rowsEl);
  const scroll = h('div', {
    class: 'tt-scroll', tabindex: '0', role: 'treegrid', 'data-testid': `table-${kind}`,
    'aria-label': `${kind} table. Up and down move, right expands, left collapses, H expands the hot path.`,
  }, header, body);
  root.append(tools, scroll);
  // The name column takes the width the metric columns leave (at least NAME_W).
  function fitColumns() {
    const ncol = S.columns.length + (compare ? 2 : 0);
    const nameW = Math.max(NAME_W, (scroll.clientWidth || 0) - ncol * COL_W - 2);
    S.nameColW = nameW;
    scroll.style.setProperty('--tt-name-w', `${nameW}px`);
    const total = `${nameW + ncol * COL_W}px`;
    header.style.width = total;
    body.style.width = total;
  }
  fitColumns();
  /** The metric columns (of `n`) worth cells: those in view and half a view either side. */
  function columnRange(n) {
    const w = S.viewW || 1600;
    const left = S.scrollLeft - S.nameColW;
    return [Math.max(0, Math.floor((left - w / 2) / COL_W)), Math.min(n, Math.ceil((left + 1.5 * w) / COL_W))];
  }
  const ro = new ResizeObserver(() => {
    S.viewW = scroll.clientWidth;
    fitColumns();
    render();
  });
  ro.observe(scroll);

  // ---- engine ----
  async function run(op) {
    await op();
    await refresh();
  }

  async function refresh() {
    const seq = ++S.seq;
    S.len = await engine.call('table_len', id, S.kind);
    const first = await engine.call('table_window', id, S.kind, 0, 1);
    if (seq !== S.seq || S.destroyed) return;
    S.rootValues = first[4];
    spacer.style.height = `${S.len * ROW_H}px`;
    await fetchWindow(true);
  }

  async function fetchWindow(force = false) {
    const top = scroll.scrollTop;
    const viewH = scroll.clientHeight || 400;
    const start = Math.max(0, Math.floor(top / ROW_H) - 5);
    const count = Math.ceil(viewH / ROW_H) + 12;
    if (!force && S.win && S.win.start === start && S.win.count === count) return;
    const seq = ++S.seq;
    const t0 = performance.now();
    const w = await engine.call('table_window', id, S.kind, start, count);
    if (seq !== S.seq || S.destroyed) return;
    S.lastWindowMs = performance.now() - t0;
    S.win = { start, count, node: w[0], depth: w[1], flags: w[2], cct: w[3], values: w[4], labels: w[5] };
    render();
  }

  scroll.addEventListener('scroll', () => {
    S.scrollLeft = scroll.scrollLeft;
    if (S.pending) return;
    S.pending = true;
    requestAnimationFrame(() => {
      S.pending = false;
      if (S.destroyed) return;
      const [a, b] = columnRange(S.colRange[2] ?? 0);
      if (a !== S.colRange[0] || b !== S.colRange[1]) render();
      fetchWindow();
    });
  });

  function render() {
    const w = S.win;
    if (!w) return;
    rowsEl.style.transform = `translateY(${w.start * ROW_H}px)`;
    const rows = [];
    const rv = S.rootValues || [];
    const cols = order();
    const ncol = cols.length + (compare ? 2 : 0);
    const [first, end] = columnRange(ncol);
    S.colRange = [first, end, ncol];
    const gap = first ? h('div', { class: 'tt-gap', style: `width:${first * COL_W}px` }) : null;
    // Deep call paths (50 levels and more are common) would indent labels out of the name
    // column: the step per level shrinks (down to 3 px) so the deepest shown row still fits.
    const room = S.nameW - Math.min(LABEL_MIN_W, S.nameW / 2);
    let deepest = 0;
    for (let k = 0; k < w.depth.length; k++) deepest = Math.max(deepest, w.depth[k]);
    S.indentW = deepest ? Math.max(3, Math.min(INDENT_W, room / deepest)) : INDENT_W;
    for (let k = 0; k < w.node.length; k++) {
      const row = w.start + k;
      const f = w.flags[k];
      const hasKids = f & 1;
      const open = f & 2;
      const cells = [];
      const tog = h('span', {
        class: `tt-toggle${hasKids ? '' : ' leaf'}`, 'aria-hidden': 'true',
        onclick: (e) => {
          e.stopPropagation();
          if (hasKids) toggleRow(row, open);
        },
      }, hasKids ? (open ? '▾' : '▸') : '');
      const indent = Math.round(Math.min(room, w.depth[k] * S.indentW));
      cells.push(h('div', { class: 'tt-c tt-name', style: `width:var(--tt-name-w);padding-left:${6 + indent}px`, title: `${w.labels[k]} (depth ${w.depth[k]})` },
        tog, h('span', { class: 'tt-label' }, w.labels[k])));
      if (gap) cells.push(gap.cloneNode());
      for (let j = first; j < Math.min(end, cols.length); j++) {
        const { metric: m, exclusive } = cols[j];
        const e = exclusive ? 1 : 0;
        const v = w.values[(k * nm + m) * 2 + e];
        const total = compare ? rv[m === 1 ? 2 : 0] : rv[m * 2];
        // A delta within rounding of the row's values is no change (sums in another order).
        const scale = compare ? Math.max(Math.abs(w.values[(k * nm) * 2 + e]), Math.abs(w.values[(k * nm + 1) * 2 + e])) : 0;
        const zero = !v || (compare && m === 2 && Math.abs(v) <= 1e-9 * scale);
        const info = meta.metrics[m];
        // The metric's own number format (taxonomy `format:`, experiment.xml `fmt=`) as
        // hpcviewer applies it, and its percent only when the metric asks for one.
        const text = zero ? '' : compare && m === 2 ? formatDelta(v, info.unit) : (info.format && formatPrintf(info.format, v)) ?? formatValue(v, info.unit);
        cells.push(h('div', { class: `tt-c tt-num${compare && m === 2 && !zero ? (v > 0 ? ' cmp-up' : ' cmp-down') : ''}`, style: `width:${COL_W}px`, 'data-col': String(j) },
          h('span', { class: 'tt-v' }, text),
          h('span', { class: 'tt-p' }, zero || info.percent === false ? '' : formatPercent(v, total))));
      }
      if (compare) {
        for (let e = 0; e < 2; e++) {
          if (cols.length + e < first || cols.length + e >= end) continue;
          const b = w.values[(k * nm) * 2 + e];
          const n = w.values[(k * nm + 1) * 2 + e];
          cells.push(h('div', { class: 'tt-c tt-num', style: `width:${COL_W}px`, 'data-col': String(cols.length + e) }, h('span', { class: 'tt-v' }, b || n ? formatRatio(b, n) : '')));
        }
      }
      const selected = row === S.selectedRow;
      rows.push(h('div', {
        class: `tt-row${selected ? ' selected' : ''}${f & 4 ? ' match' : ''}`, role: 'row',
        'aria-level': String(w.depth[k] + 1), 'aria-expanded': hasKids ? String(!!open) : null,
        'aria-selected': String(selected), 'data-row': String(row), 'data-cct': String(w.cct[k]),
        onclick: () => selectRow(row, true),
        ondblclick: () => hasKids && toggleRow(row, open),
      }, cells));
    }
    rowsEl.replaceChildren(...rows);
    for (const c of header.querySelectorAll('.tt-h.tt-num')) {
      const on = Number(c.dataset.metric) === S.sort.metric && (c.dataset.exclusive === 'true') === S.sort.exclusive;
      c.classList.toggle('sorted', on);
      c.setAttribute('aria-sort', on ? (S.sort.descending ? 'descending' : 'ascending') : 'none');
    }
    status.textContent = `${S.len.toLocaleString('en-US')} rows`;
  }

  function rowInfo(row) {
    const w = S.win;
    if (!w || row < w.start || row >= w.start + w.node.length) return null;
    const k = row - w.start;
    return { k, flags: w.flags[k], cct: w.cct[k], depth: w.depth[k] };
  }

  async function toggleRow(row, open) {
    await engine.call(open ? 'table_collapse' : 'table_expand', id, S.kind, row);
    await refresh();
  }

  function selectRow(row, publish) {
    S.selectedRow = row;
    const info = rowInfo(row);
    S.selectedCct = info && info.cct !== 0xffffffff ? info.cct : null;
    render();
    if (publish && S.selectedCct != null) onSelect(S.selectedCct, S.kind);
  }

  /** Sorts by a column; without `descending`, a second click on the same column flips it. */
  async function sortBy(metric, exclusive, descending) {
    const same = S.sort.metric === metric && S.sort.exclusive === exclusive;
    const reorder = S.sort.metric !== metric;
    S.sort = { metric, exclusive, descending: descending ?? (same ? !S.sort.descending : true) };
    if (reorder) header.replaceChildren(...headCells());
    onSettings({ sort: S.sort });
    const t0 = performance.now();
    await engine.call('table_sort', id, S.kind, metric, exclusive, S.sort.descending);
    S.lastSortMs = performance.now() - t0;
    S.selectedRow = -1;
    await refresh();
  }

  /** Expands the hot path below the selected row (or the root); selects where it stops. */
  async function hotPath(publish = true) {
    const row = Math.max(0, S.selectedRow);
    const end = await engine.call('table_hot_path', id, S.kind, row, S.share);
    await refresh();
    await scrollToRow(end);
    if (publish) selectRow(end, true);
  }

  async function scrollToRow(row) {
    const viewH = scroll.clientHeight || 400;
    const y = row * ROW_H;
    if (y < scroll.scrollTop || y + ROW_H > scroll.scrollTop + viewH) {
      scroll.scrollTop = Math.max(0, y - viewH / 3);
    }
    await fetchWindow(true);
  }

  scroll.addEventListener('keydown', async (e) => {
    const row = S.selectedRow;
    const info = rowInfo(row);
    let next = null;
    if (e.key === 'ArrowDown') next = Math.min(S.len - 1, row + 1);
    else if (e.key === 'ArrowUp') next = Math.max(0, row - 1);
    else if (e.key === 'PageDown') next = Math.min(S.len - 1, row + Math.floor(scroll.clientHeight / ROW_H));
    else if (e.key === 'PageUp') next = Math.max(0, row - Math.floor(scroll.clientHeight / ROW_H));
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = S.len - 1;
    else if (e.key === 'ArrowRight' && info && info.flags & 1 && !(info.flags & 2)) {
      e.preventDefault();
      await toggleRow(row, false);
      return;
    } else if (e.key === 'ArrowLeft' && info) {
      e.preventDefault();
      if (info.flags & 2) await toggleRow(row, true);
      else {
        // Go to the parent row: the nearest row above with a smaller depth.
        const w = S.win;
        for (let k = info.k - 1; k >= 0; k--) {
          if (w.depth[k] < info.depth) {
            selectRow(w.start + k, true);
            await scrollToRow(w.start + k);
            break;
          }
        }
      }
      return;
    } else if (e.key === 'h' || e.key === 'H' || e.key === 'Enter') {
      e.preventDefault();
      await hotPath();
      return;
    } else return;
    e.preventDefault();
    await scrollToRow(next);
    selectRow(next, true);
  });

  return {
    refresh,
    /** Shows and selects the row of context `cct` (expanding its ancestors). */
    async reveal(cct) {
      const row = await engine.call('table_reveal', id, S.kind, cct);
      await refresh();
      if (row >= 0) {
        await scrollToRow(row);
        S.selectedRow = row;
        S.selectedCct = cct;
        render();
      }
      return row;
    },
    sortBy,
    hotPath,
    /** Shows these columns ([{metric, exclusive}]) and no others. */
    setColumns(columns) {
      S.columns = columns.slice();
      header.replaceChildren(...headCells());
      fitColumns();
      render();
    },
    state() {
      const w = S.win;
      const rows = [];
      if (w) {
        for (let k = 0; k < w.node.length && k < 60; k++) {
          const values = [];
          for (let m = 0; m < nm; m++) values.push({ inclusive: w.values[(k * nm + m) * 2], exclusive: w.values[(k * nm + m) * 2 + 1] });
          rows.push({ row: w.start + k, label: w.labels[k], depth: w.depth[k], cct: w.cct[k] === 0xffffffff ? null : w.cct[k], hasChildren: !!(w.flags[k] & 1), expanded: !!(w.flags[k] & 2), match: !!(w.flags[k] & 4), values });
        }
      }
      return {
        kind: S.kind,
        rows: S.len,
        sort: S.sort,
        selectedRow: S.selectedRow,
        selected: S.selectedCct,
        root: S.rootValues ? Array.from({ length: nm }, (_, m) => ({ inclusive: S.rootValues[m * 2], exclusive: S.rootValues[m * 2 + 1] })) : null,
        visible: rows,
        lastSortMs: S.lastSortMs,
        lastWindowMs: S.lastWindowMs,
        indentW: S.indentW,
      };
    },
    destroy() {
      S.destroyed = true;
      ro.disconnect();
    },
  };
}
