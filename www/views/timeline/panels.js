// The trace view's elements and the panels around the picture: toolbar (depth, row filter,
// grouping, zoom, undo/redo, status), call path of the crosshair, depth view of its row, summary
// of the visible area with its statistics list, and the empty-trace notice.

import { drawDepth, drawSummary, drawCrosshair, formatDuration } from '../../render/timeline-draw.js';
import { el, fit, swatch } from './dom.js';
import { LABEL_W, AXIS_H, MINIMAP_H } from './frames.js';

export const DEPTH_ROW_H = 14;
const DEPTH_ROWS = 10;
const SUMMARY_H = 70;

/** The view's elements under `root`. `on` holds the toolbar's actions: undo, redo, zoomBy(f),
 *  home. The canvases are filled by frames.js, the panels by createPanels. */
export function buildDom(root, on) {
  const depthSel = el('select', { class: 'tl-depth', title: 'Call depth shown by colour', 'data-testid': 'timeline-depth' });
  const filterIn = el('input', { class: 'tl-filter', type: 'search', placeholder: 'filter rows (e.g. rank 3, *thread 0)', 'data-testid': 'timeline-filter' });
  const minIn = el('input', { class: 'tl-min', type: 'number', min: '0', value: '0', title: 'Minimum samples per row' });
  const groupSel = el('select', { class: 'tl-group', title: 'Group rows by' }, el('option', { value: 'none', text: 'no grouping' }));
  const btn = (text, title, fn) => el('button', { type: 'button', title, text, onclick: fn });
  const undoBtn = btn('↶', 'Undo view change (Ctrl+Z)', () => on.undo());
  const redoBtn = btn('↷', 'Redo (Ctrl+Y)', () => on.redo());
  const status = el('span', { class: 'tl-status', 'data-testid': 'timeline-status' });
  const refining = el('span', { class: 'tl-refining', 'data-testid': 'timeline-refining', hidden: '' });
  const toolbar = el('div', { class: 'tl-toolbar' },
    el('label', {}, 'Depth ', depthSel),
    filterIn,
    el('label', {}, 'min samples ', minIn),
    groupSel,
    btn('−', 'Zoom out (-)', () => on.zoomBy(2)),
    btn('+', 'Zoom in (+)', () => on.zoomBy(0.5)),
    btn('⌂', 'Whole trace (Home)', () => on.home()),
    undoBtn, redoBtn, status);

  const labels = el('canvas', { class: 'tl-labels' });
  const axis = el('canvas', { class: 'tl-axis' });
  const main = el('canvas', { class: 'tl-main' });
  // The overlay (crosshair, selection) sits on top and takes all input.
  const overlay = el('canvas', {
    class: 'tl-overlay', tabindex: '0', 'data-testid': 'timeline-canvas',
    'aria-label': 'Trace. Arrows pan, + and - zoom; Enter puts the crosshair in the middle and opens its call path; Shift+arrows move the crosshair.',
  });
  const minimap = el('canvas', { class: 'tl-minimap', title: 'Whole trace: click or drag to move the view' });
  const pathList = el('ol', { class: 'tl-path', 'data-testid': 'timeline-callpath' });
  const pathHead = el('div', { class: 'tl-path-head', 'data-testid': 'timeline-crosshair' }, 'Click the timeline to see a call path.');
  const toOrder = el('button', { type: 'button', class: 'btn btn-small tl-toorder', hidden: '', 'data-testid': 'timeline-timeorder', text: 'Time order of this row' });
  const side = el('aside', { class: 'tl-side' }, el('h3', { text: 'Call path' }), pathHead, toOrder, pathList);
  const depthCv = el('canvas', { class: 'tl-depthview' });
  const depthHead = el('div', { class: 'tl-sub' }, 'Depth view: select a row');
  const sumCv = el('canvas', { class: 'tl-summary' });
  const stats = el('table', { class: 'tl-stats', 'data-testid': 'timeline-stats' });
  const empty = el('div', { class: 'tl-empty', 'data-testid': 'timeline-empty', hidden: '' });
  // The badge sits on the picture it qualifies (and cannot reflow the toolbar).
  const tip = el('div', { class: 'fg-tip tl-tip', role: 'tooltip', hidden: '', 'data-testid': 'timeline-tooltip' });
  const mainWrap = el('div', { class: 'tl-mainwrap' }, main, overlay, refining, tip);
  const grid = el('div', { class: 'tl-grid' },
    el('div', { class: 'tl-corner' }), axis,
    labels, mainWrap,
    el('div', { class: 'tl-corner', text: 'overview' }), minimap);
  const lower = el('div', { class: 'tl-lower' },
    el('div', { class: 'tl-depthbox' }, depthHead, depthCv),
    el('div', { class: 'tl-sumbox' }, el('div', { class: 'tl-sub', text: 'Summary of the visible area' }), sumCv, stats));
  const body = el('div', { class: 'tl-body' }, el('div', { class: 'tl-left' }, grid, lower), side);
  const wrap = el('div', { class: 'timeline-view' }, toolbar, empty, body);
  // The grid's fixed tracks are the sizes the canvases are painted at (www/style.css uses them).
  wrap.style.setProperty('--tl-label-w', `${LABEL_W}px`);
  wrap.style.setProperty('--tl-axis-h', `${AXIS_H}px`);
  wrap.style.setProperty('--tl-minimap-h', `${MINIMAP_H}px`);
  root.append(wrap);
  return {
    wrap, toolbar, body, empty, depthSel, filterIn, minIn, groupSel, undoBtn, redoBtn, status, refining,
    labels, axis, main, overlay, minimap, mainWrap, pathList, pathHead, toOrder, depthCv, depthHead, sumCv, stats, tip,
  };
}

/** The panels of one mounted view `V` (see index.js). */
export function createPanels(V) {
  const { T, S, dom, engine } = V;

  /** Options that depend on the trace: depths and the id kinds rows can be grouped by. */
  function fillOptions(meta) {
    for (let d = 0; d < Math.max(1, meta.max_depth); d++) dom.depthSel.append(el('option', { value: String(d), text: String(d) }));
    for (const k of meta.id_kinds) dom.groupSel.append(el('option', { value: k, text: `group by ${k}` }));
  }

  /** A dataset without a picture to draw says why instead. */
  function showEmpty(meta) {
    dom.body.hidden = true;
    dom.toolbar.hidden = true;
    dom.empty.hidden = false;
    const n = meta.rows.length;
    dom.empty.replaceChildren(
      el('strong', { text: meta.status === 'no-samples' ? 'No trace samples' : 'No trace' }),
      el('p', { text: meta.status === 'no-samples'
        ? `This dataset's trace has ${n} line${n === 1 ? '' : 's'} and none holds a sample (its time range is HPCToolkit's empty-trace sentinel), so there is no timeline to draw.`
        : 'This dataset has no trace.' }));
  }

  /** Summary stacks of the last kept frame and its functions by share. */
  async function refreshSummary() {
    const res = await engine.timelineSummary(S.id);
    if (S.destroyed) return;
    const w = S.frame?.width ?? 1;
    fit(dom.sumCv, w, SUMMARY_H);
    drawSummary(dom.sumCv.getContext('2d'), res.packed, S.colors, SUMMARY_H);
    dom.stats.replaceChildren(el('tr', {}, el('th', { text: '' }), el('th', { text: 'function at depth ' + T.view.depth }), el('th', { text: 'share' })));
    for (const s of res.shares.slice(0, 12)) {
      dom.stats.append(el('tr', {},
        el('td', {}, swatch(S.colors.css[s.key] ?? '#fff')),
        el('td', { text: s.name, title: s.name }),
        el('td', { class: 'num', text: (100 * s.share).toFixed(1) + ' %' })));
    }
  }

  /** The depth view: the crosshair's row at every depth over the visible time window. */
  async function refreshDepth() {
    const cv = dom.depthCv;
    const w = Math.max(50, Math.floor(cv.clientWidth || V.size().w));
    fit(cv, w, DEPTH_ROWS * DEPTH_ROW_H);
    const ctx = cv.getContext('2d');
    if (!S.cross) {
      ctx.fillStyle = S.colors.css[0];
      ctx.fillRect(0, 0, cv.width, cv.height);
      return;
    }
    const quads = await engine.timelineDepth(S.id, S.cross.line, T.view.t0, T.view.t1, w, DEPTH_ROWS);
    if (S.destroyed) return;
    drawDepth(ctx, quads, S.colors, S.meta.names, w, cv.height, DEPTH_ROW_H);
    dom.depthHead.textContent = `Depth view of ${V.rowLabel(S.cross.line)} (depths 0–${DEPTH_ROWS - 1})`;
    // Mark the chosen depth and the crosshair time.
    const x = ((S.cross.time - T.view.t0) / T.span()) * w;
    drawCrosshair(ctx, x, T.view.depth * DEPTH_ROW_H + DEPTH_ROW_H / 2, w, cv.height);
  }

  /** A button opening the Profile tab's source view at `node` (app.js routes the event). */
  function sourceButton(node, name) {
    const b = el('button', { type: 'button', class: 'tl-src', title: `Source of ${name}`, 'aria-label': `Show the source of ${name}` });
    // Its own keys: the path entry's (Enter colours by depth) must not take the button's Enter.
    b.addEventListener('keydown', (e) => e.stopPropagation());
    b.addEventListener('click', async (e) => {
      e.stopPropagation();
      const loc = await engine.sourceLocation(S.id, node);
      if (!loc) {
        b.title = `No source line recorded for ${name}`;
        b.classList.add('none');
        return;
      }
      b.dispatchEvent(new CustomEvent('hpcscope:show-source', { bubbles: true, composed: true, detail: { dataset: S.id, path: loc.path, line: loc.line } }));
    });
    return b;
  }

  /** Puts the crosshair on `line` at `time` (ns from the run start) and shows its call path. */
  async function setCrosshair(line, time) {
    S.cross = { line, time, info: null };
    const info = await engine.timelineCallPath(S.id, line, time);
    if (S.destroyed || S.cross?.line !== line || S.cross?.time !== time) return;
    S.cross.info = info;
    dom.pathList.replaceChildren();
    const d = Math.min(T.view.depth, info.frames.length - 1);
    info.frames.forEach((f) => {
      const li = el('li', { class: f.depth === d ? 'sel' : '', title: `depth ${f.depth}`, tabindex: '-1' }, swatch(S.colors.css[f.key]), f.name);
      li.addEventListener('click', () => V.setView({ ...T.view, depth: f.depth }));
      // Keys: Enter colours by this depth; arrows move along the path; Escape goes back to the trace.
      li.addEventListener('keydown', (e) => {
        const items = Array.from(dom.pathList.children);
        const i = items.indexOf(li);
        const go = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: items.length - 1 }[e.key];
        if (go !== undefined) items[Math.max(0, Math.min(items.length - 1, go))]?.focus();
        else if (e.key === 'Enter' || e.key === ' ') V.setView({ ...T.view, depth: f.depth });
        else if (e.key === 'Escape') dom.overlay.focus({ preventScroll: true });
        else return;
        e.preventDefault();
      });
      // The innermost frame's source is the sample's own line; outer frames show their function.
      const node = f.depth === info.frames.length - 1 && info.context_node != null ? info.context_node : f.node;
      li.append(sourceButton(node, f.name));
      dom.pathList.append(li);
    });
    const label = V.rowLabel(line);
    // The row's calls in time order over the time shown (app.js switches tabs).
    dom.toOrder.hidden = false;
    dom.toOrder.onclick = () => dom.toOrder.dispatchEvent(new CustomEvent('hpcscope:time-order', {
      bubbles: true, composed: true, detail: { dataset: S.id, line, t0: T.view.t0, t1: T.view.t1 },
    }));
    dom.pathHead.textContent = info.sample_index == null
      ? `${label} at ${formatDuration(time)}: no sample in force`
      : `${label} at ${formatDuration(time)} (sample #${info.sample_index} at ${formatDuration(info.sample_offset_ns)}${info.context ? ', in ' + info.context : ''})`;
    if (info.frames.length === 0 && info.sample_index != null) dom.pathList.append(el('li', { text: '(no call frames: idle)' }));
    V.paintOverlay();
    if (S.keyCross) V.showTip(crossTip(), null);
    refreshDepth().catch(V.report);
  }

  /** The tooltip of the crosshair: the function at the view's depth on its row and time. */
  function crossTip() {
    const c = S.cross;
    const f = c?.info?.frames;
    const d = f?.length ? Math.min(T.view.depth, f.length - 1) : 0;
    return c && {
      line: c.line, time: c.time, name: f?.length ? f[d].name : '(no call)', depth: f?.length ? f[d].depth : null,
      x: ((c.time - T.view.t0) / T.span()) * V.size().w,
      y: rowCentre(c.line),
    };
  }
  /** CSS y of the middle of trace line `line`'s row, or the middle of the picture when hidden. */
  function rowCentre(line) {
    const { a, b } = T.shown();
    const i = T.rows.indexOf(line);
    const h = V.size().h;
    if (i < a || i >= b) return h / 2;
    return ((i - a + 0.5) / (b - a)) * h;
  }

  /**
   * Shows the trace tooltip for `c` = {line, time, name, depth, x, y} (null hides it): function,
   * depth, row and time, next to the point.
   */
  function showTip(c) {
    const tip = dom.tip;
    S.tip = c ? `${c.name} · depth ${c.depth ?? '–'} · ${V.rowLabel(c.line)} · ${formatDuration(c.time)}` : null;
    if (!c) {
      tip.hidden = true;
      return;
    }
    tip.replaceChildren(
      el('div', { class: 'fg-tip-name', text: c.name }),
      el('div', { class: 'fg-tip-row' }, el('span', { text: 'time' }), el('b', { text: formatDuration(c.time) })),
      el('div', { class: 'fg-tip-row' }, el('span', { text: 'depth' }), el('b', { text: c.depth == null ? '–' : String(c.depth) })),
      el('div', { class: 'fg-tip-row' }, el('span', { text: 'row' }), el('b', { text: V.rowLabel(c.line) })));
    tip.hidden = false;
    const { w, h } = V.size();
    const tw = tip.offsetWidth;
    const th = tip.offsetHeight;
    tip.style.left = `${c.x + 14 + tw <= w ? c.x + 14 : Math.max(0, c.x - tw - 10)}px`;
    tip.style.top = `${c.y + 16 + th <= h ? c.y + 16 : Math.max(0, c.y - th - 10)}px`;
  }

  return { fillOptions, showEmpty, refreshSummary, refreshDepth, setCrosshair, showTip, crossTip };
}
