// The trace view: one row per trace line, time on x, each pixel coloured by the frame at the chosen
// call depth. The engine (in the worker) samples what is visible and answers with colour keys;
// this view only keeps the view state (time window, row window, depth, crosshair, undo/redo),
// turns input into view changes and paints. While a frame is in flight the last image is shown
// moved and scaled to the new window, so pans and zooms answer at once.

import {
  buildColorTable,
  unpackFrame,
  frameToImage,
  rowSpan,
  drawAxis,
  drawDepth,
  drawSummary,
  drawViewport,
  drawCrosshair,
  drawSelection,
  formatDuration,
} from '../render/timeline-draw.js';
import { takeTimeView, noteTimeView } from '../deep-link.js';

const LABEL_W = 170;
const AXIS_H = 24;
const MINIMAP_H = 40;
const DEPTH_ROW_H = 14;
const DEPTH_ROWS = 10;
const SUMMARY_H = 70;
const MIN_SPAN_NS = 10;
/** Engine time for the first picture of a new view (the rest is refined in the background), and
 *  for each refinement step after it: the page stays responsive between steps, and a view change
 *  waits at most one step before its own frame starts. */
const FIRST_BUDGET_MS = 450;
const NEXT_BUDGET_MS = 120;
const STEP_BUDGET_MS = 300;
const MINIMAP_BUDGET_MS = 60;

const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'style') e.style.cssText = v; // CSSOM: the CSP refuses style attributes
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of kids) if (c != null) e.append(c);
  return e;
};

/**
 * Mounts the trace view of dataset `id` into `root`. `engine` answers (asynchronously):
 * timelineMeta(id), timelineRows(id, pattern, minSamples, groupBy), timelineFrame(id, req),
 * timelineCallPath(id, line, offsetNs), timelineDepth(id, line, t0, t1, width, maxDepth),
 * timelineSummary(id). Returns `{ state(), destroy(), ready }`.
 */
export function mountTimeline(root, engine, id) {
  const S = {
    id,
    meta: null,
    status: 'loading',
    rows: [], // filtered, grouped line indexes
    groups: [],
    filter: { pattern: '', minSamples: 0, groupBy: 'none' },
    view: { t0: 0, t1: 1, r0: 0, r1: 1, depth: 0 },
    undo: [],
    redo: [],
    colors: null,
    frame: null, // last painted frame: {view, width, height, unpacked}
    image: null, // canvas holding the last exact image
    cross: null, // {line, row, time, info}
    inflight: false,
    dirty: false,
    refine: null, // the main frame being refined: {view, h, a, b, ticks, t}
    mini: null, // the minimap frame being refined: {depth}
    pumping: false,
    exactMs: 0,
    frames: 0,
    lastFrameMs: 0,
    lastPaintMs: 0,
    hover: null,
    destroyed: false,
  };

  // ---- DOM ----
  const depthSel = el('select', { class: 'tl-depth', title: 'Call depth shown by colour', 'data-testid': 'timeline-depth' });
  const filterIn = el('input', { class: 'tl-filter', type: 'search', placeholder: 'filter rows (e.g. rank 3, *thread 0)', 'data-testid': 'timeline-filter' });
  const minIn = el('input', { class: 'tl-min', type: 'number', min: '0', value: '0', title: 'Minimum samples per row' });
  const groupSel = el('select', { class: 'tl-group', title: 'Group rows by' }, el('option', { value: 'none', text: 'no grouping' }));
  const btn = (text, title, fn) => el('button', { type: 'button', title, text, onclick: fn });
  const undoBtn = btn('↶', 'Undo view change (Ctrl+Z)', () => undo());
  const redoBtn = btn('↷', 'Redo (Ctrl+Y)', () => redo());
  const status = el('span', { class: 'tl-status', 'data-testid': 'timeline-status' });
  const refining = el('span', { class: 'tl-refining', 'data-testid': 'timeline-refining', hidden: '' });
  const toolbar = el('div', { class: 'tl-toolbar' },
    el('label', {}, 'Depth ', depthSel),
    filterIn,
    el('label', {}, 'min samples ', minIn),
    groupSel,
    btn('−', 'Zoom out (-)', () => zoomBy(2)),
    btn('+', 'Zoom in (+)', () => zoomBy(0.5)),
    btn('⌂', 'Whole trace (Home)', () => home()),
    undoBtn, redoBtn, status);

  const labels = el('canvas', { class: 'tl-labels' });
  const axis = el('canvas', { class: 'tl-axis' });
  const main = el('canvas', { class: 'tl-main' });
  // The overlay (crosshair, selection) sits on top and takes all input.
  const overlay = el('canvas', { class: 'tl-overlay', tabindex: '0', 'data-testid': 'timeline-canvas' });
  const minimap = el('canvas', { class: 'tl-minimap', title: 'Whole trace: click or drag to move the view' });
  const pathList = el('ol', { class: 'tl-path', 'data-testid': 'timeline-callpath' });
  const pathHead = el('div', { class: 'tl-path-head', 'data-testid': 'timeline-crosshair' }, 'Click the timeline to see a call path.');
  const side = el('aside', { class: 'tl-side' }, el('h3', { text: 'Call path' }), pathHead, pathList);
  const depthCv = el('canvas', { class: 'tl-depthview' });
  const depthHead = el('div', { class: 'tl-sub' }, 'Depth view: select a row');
  const sumCv = el('canvas', { class: 'tl-summary' });
  const stats = el('table', { class: 'tl-stats', 'data-testid': 'timeline-stats' });
  const empty = el('div', { class: 'tl-empty', 'data-testid': 'timeline-empty', hidden: '' });
  // The badge sits on the picture it qualifies (and cannot reflow the toolbar).
  const mainWrap = el('div', { class: 'tl-mainwrap' }, main, overlay, refining);
  const grid = el('div', { class: 'tl-grid' },
    el('div', { class: 'tl-corner' }), axis,
    labels, mainWrap,
    el('div', { class: 'tl-corner', text: 'overview' }), minimap);
  const lower = el('div', { class: 'tl-lower' },
    el('div', { class: 'tl-depthbox' }, depthHead, depthCv),
    el('div', { class: 'tl-sumbox' }, el('div', { class: 'tl-sub', text: 'Summary of the visible area' }), sumCv, stats));
  const body = el('div', { class: 'tl-body' }, el('div', { class: 'tl-left' }, grid, lower), side);
  const wrap = el('div', { class: 'timeline-view' }, toolbar, empty, body);
  root.append(wrap);
  injectStyle();

  // ---- geometry ----
  const size = () => {
    const w = Math.max(50, Math.floor(mainWrap.clientWidth));
    const h = Math.max(20, Math.floor(mainWrap.clientHeight));
    return { w, h };
  };
  const fit = (cv, w, h) => {
    if (cv.width !== w) cv.width = w;
    if (cv.height !== h) cv.height = h;
  };
  const shownRows = () => {
    const n = S.rows.length;
    const a = Math.max(0, Math.floor(S.view.r0 * n));
    const b = Math.min(n, Math.max(a + 1, Math.ceil(S.view.r1 * n)));
    return { a, b };
  };
  const span = () => Math.max(1, S.view.t1 - S.view.t0);
  const timeAt = (x, w) => Math.floor(S.view.t0 + (x / w) * span());

  // ---- view changes with undo/redo ----
  const snap = () => ({ ...S.view });
  const same = (a, b) => a.t0 === b.t0 && a.t1 === b.t1 && a.r0 === b.r0 && a.r1 === b.r1 && a.depth === b.depth;
  let gestureAt = 0;
  function setView(v, { gesture = false } = {}) {
    const d = S.meta?.duration_ns ?? 1;
    let { t0, t1 } = v;
    let len = Math.max(MIN_SPAN_NS, Math.min(d, t1 - t0));
    if (!(len > 0)) len = d;
    t0 = Math.max(0, Math.min(d - len, t0));
    t1 = t0 + len;
    const rl = Math.max(Math.min(1, 1 / Math.max(1, S.rows.length)), Math.min(1, v.r1 - v.r0));
    const r0 = Math.max(0, Math.min(1 - rl, v.r0));
    const nv = { t0: Math.round(t0), t1: Math.round(t1), r0, r1: r0 + rl, depth: v.depth };
    if (same(nv, S.view)) return;
    const now = performance.now();
    // A burst of wheel or drag events is one undo step.
    if (!gesture || now - gestureAt > 500) {
      S.undo.push(snap());
      if (S.undo.length > 200) S.undo.shift();
      S.redo = [];
    }
    if (gesture) gestureAt = now;
    S.view = nv;
    noteTimeView(S.id, nv.t0, nv.t1);
    changed();
  }
  function undo() {
    const v = S.undo.pop();
    if (!v) return;
    S.redo.push(snap());
    S.view = v;
    changed();
  }
  function redo() {
    const v = S.redo.pop();
    if (!v) return;
    S.undo.push(snap());
    S.view = v;
    changed();
  }
  function home() {
    setView({ t0: 0, t1: S.meta?.duration_ns ?? 1, r0: 0, r1: 1, depth: S.view.depth });
  }
  function zoomBy(f, centerFrac = 0.5, gesture = false) {
    const s = span();
    const c = S.view.t0 + s * centerFrac;
    const ns = s * f;
    setView({ ...S.view, t0: c - ns * centerFrac, t1: c - ns * centerFrac + ns }, { gesture });
  }
  function panBy(frac, gesture = false) {
    const s = span();
    setView({ ...S.view, t0: S.view.t0 + s * frac, t1: S.view.t1 + s * frac }, { gesture });
  }
  function panRows(frac, gesture = false) {
    const l = S.view.r1 - S.view.r0;
    setView({ ...S.view, r0: S.view.r0 + l * frac, r1: S.view.r1 + l * frac }, { gesture });
  }

  function report(e) {
    status.textContent = `error: ${e?.message ?? e}`;
    S.error = String(e?.message ?? e);
  }

  function changed() {
    if (S.status === 'ok' && minimapDepth !== -1 && minimapDepth !== S.view.depth) buildMinimap().catch(report);
    undoBtn.disabled = S.undo.length === 0;
    redoBtn.disabled = S.redo.length === 0;
    if (depthSel.value !== String(S.view.depth)) depthSel.value = String(S.view.depth);
    preview();
    request();
  }

  // ---- engine round trips ----
  // A view change asks the engine for a first picture (exact rows in a coarse-to-fine order, the
  // others showing a refined neighbour, or a few samples per row over HTTP); `pump` then refines
  // it step by step while the view stays put. state().exact says when the picture is final.
  async function request() {
    // Not before the rows are known (a resize while they load would ask for an empty frame).
    if (S.status !== 'ok' || !S.rowsLoaded) return;
    if (S.inflight) {
      S.dirty = true;
      return;
    }
    S.inflight = true;
    S.dirty = false;
    S.refine = null;
    const view = snap();
    const { w, h } = size();
    const { a, b } = shownRows();
    const rows = S.rows.slice(a, b);
    const t = performance.now();
    const q = { rows, t0: view.t0, t1: view.t1, width: w, height: h, depth: view.depth, ticks: Math.max(2, Math.floor(w / 110)) };
    // The last picture, to stand in (moved) for rows the engine has not read yet.
    const f = S.frame;
    const prev = f && S.image && f.view.depth === view.depth
      ? { image: S.image, view: f.view, rowRange: f.rowRange, width: f.width, height: f.height }
      : null;
    try {
      const res = engine.timelineBegin
        ? await engine.timelineBegin(S.id, 0, q, S.frames ? NEXT_BUDGET_MS : FIRST_BUDGET_MS)
        : { ...(await engine.timelineFrame(S.id, q)), progress: { exact: true } };
      if (S.destroyed) return;
      S.lastFrameMs = performance.now() - t;
      show(res, view, h, a, b, prev);
      if (res.progress.exact) {
        S.exactMs = S.lastFrameMs;
      } else {
        S.refine = { view, h, a, b, ticks: res.ticks, t, prev };
      }
      refreshSummary().catch(report);
      refreshDepth().catch(report);
    } catch (e) {
      report(e);
    } finally {
      S.inflight = false;
      if (S.dirty && !S.destroyed) request();
      else pump();
    }
  }

  /** Paints an engine answer for `view` (rows a..b at height h). While it is not final, rows the
   *  engine has not read yet show the last picture `prev` moved into this view where it covers
   *  them (what a pan shows at once), else the engine's stand-in (the nearest refined row). */
  function show(res, view, h, a, b, prev) {
    const frame = unpackFrame(res.packed);
    const p0 = performance.now();
    const img = frameToImage(frame, S.colors.lut, h, S.groups.slice(a, b).length === frame.rows ? S.groups.slice(a, b) : null, S.pixels);
    S.pixels = img;
    // Two canvases: the last picture stays intact while the new one is composed from it.
    let cv = S.image;
    if (!cv || (prev && cv === prev.image)) {
      cv = S.spare && S.spare !== S.image ? S.spare : document.createElement('canvas');
      S.spare = S.image;
    }
    fit(cv, frame.width, h);
    const ctx = cv.getContext('2d');
    ctx.putImageData(img, 0, 0);
    const states = res.progress?.states;
    if (prev && states && !res.progress.exact && frame.rows > 0) {
      ctx.save();
      ctx.beginPath();
      let any = false;
      for (let r = 0; r < frame.rows; r++) {
        if (states[r] !== 0) continue;
        let e = r;
        while (e + 1 < frame.rows && states[e + 1] === 0) e++;
        const y0 = rowSpan(r, frame.rows, h)[0];
        const y1 = rowSpan(e, frame.rows, h)[1];
        ctx.rect(0, y0, frame.width, y1 - y0);
        any = true;
        r = e;
      }
      if (any) {
        ctx.clip();
        ctx.imageSmoothingEnabled = false;
        const s = Math.max(1, view.t1 - view.t0);
        const x0 = ((prev.view.t0 - view.t0) / s) * frame.width;
        const x1 = ((prev.view.t1 - view.t0) / s) * frame.width;
        const [fa, fb] = prev.rowRange;
        const y0 = ((fa - a) / Math.max(1, b - a)) * h;
        const y1 = ((fb - a) / Math.max(1, b - a)) * h;
        ctx.drawImage(prev.image, 0, 0, prev.width, prev.height, x0, y0, x1 - x0, y1 - y0);
      }
      ctx.restore();
    }
    S.image = cv;
    const p = res.progress ?? { exact: true };
    S.frame = { view, width: frame.width, height: h, unpacked: frame, ticks: res.ticks, rowRange: [a, b], exact: !!p.exact, rowsExact: p.rows_exact ?? frame.rows, rowsTotal: p.rows ?? frame.rows };
    S.frames++;
    paint();
    S.lastPaintMs = performance.now() - p0;
  }

  /** Refines the main frame, then the minimap, one engine step at a time, until both are exact
   *  or the view changes (a new request takes over). */
  async function pump() {
    if (S.pumping) return;
    S.pumping = true;
    try {
      while (!S.destroyed && !S.inflight && !S.dirty) {
        if (S.refine) {
          const r = S.refine;
          const res = await engine.timelineRefine(S.id, 0, STEP_BUDGET_MS);
          if (S.destroyed || S.refine !== r) continue;
          show({ packed: res.packed, ticks: r.ticks, progress: res.progress }, r.view, r.h, r.a, r.b, r.prev);
          if (res.progress.exact) {
            S.refine = null;
            S.exactMs = performance.now() - r.t;
            refreshSummary().catch(report);
            refreshDepth().catch(report);
          }
        } else if (S.mini) {
          const m = S.mini;
          const res = await engine.timelineRefine(S.id, 1, STEP_BUDGET_MS);
          if (S.destroyed || S.mini !== m) continue;
          drawMinimapFrame(res.packed);
          if (res.progress.exact) S.mini = null;
        } else break;
      }
    } catch (e) {
      report(e);
    } finally {
      S.pumping = false;
    }
  }

  async function refreshSummary() {
    const res = await engine.timelineSummary(S.id);
    if (S.destroyed) return;
    const w = S.frame?.width ?? 1;
    fit(sumCv, w, SUMMARY_H);
    drawSummary(sumCv.getContext('2d'), res.packed, S.colors, SUMMARY_H);
    stats.replaceChildren(el('tr', {}, el('th', { text: '' }), el('th', { text: 'function at depth ' + S.view.depth }), el('th', { text: 'share' })));
    for (const s of res.shares.slice(0, 12)) {
      stats.append(el('tr', {},
        el('td', {}, el('span', { class: 'tl-swatch', style: `background:${S.colors.css[s.key] ?? '#fff'}` })),
        el('td', { text: s.name, title: s.name }),
        el('td', { class: 'num', text: (100 * s.share).toFixed(1) + ' %' })));
    }
  }

  async function refreshDepth() {
    const w = Math.max(50, Math.floor(depthCv.clientWidth || size().w));
    fit(depthCv, w, DEPTH_ROWS * DEPTH_ROW_H);
    const ctx = depthCv.getContext('2d');
    if (!S.cross) {
      ctx.fillStyle = S.colors.css[0];
      ctx.fillRect(0, 0, depthCv.width, depthCv.height);
      return;
    }
    const quads = await engine.timelineDepth(S.id, S.cross.line, S.view.t0, S.view.t1, w, DEPTH_ROWS);
    if (S.destroyed) return;
    drawDepth(ctx, quads, S.colors, S.meta.names, w, depthCv.height, DEPTH_ROW_H);
    depthHead.textContent = `Depth view of ${rowLabel(S.cross.line)} (depths 0–${DEPTH_ROWS - 1})`;
    // Mark the chosen depth and the crosshair time.
    const x = ((S.cross.time - S.view.t0) / span()) * w;
    drawCrosshair(ctx, x, S.view.depth * DEPTH_ROW_H + DEPTH_ROW_H / 2, w, depthCv.height);
  }

  const rowLabel = (line) => S.meta.rows[line]?.label ?? `line ${line}`;

  async function setCrosshair(line, time) {
    S.cross = { line, time, info: null };
    const info = await engine.timelineCallPath(S.id, line, time);
    if (S.destroyed || S.cross?.line !== line || S.cross?.time !== time) return;
    S.cross.info = info;
    pathList.replaceChildren();
    const d = Math.min(S.view.depth, info.frames.length - 1);
    info.frames.forEach((f) => {
      const li = el('li', { class: f.depth === d ? 'sel' : '', title: `depth ${f.depth}` },
        el('span', { class: 'tl-swatch', style: `background:${S.colors.css[f.key]}` }), f.name);
      li.addEventListener('click', () => setView({ ...S.view, depth: f.depth }));
      pathList.append(li);
    });
    pathHead.textContent = info.sample_index == null
      ? `${rowLabel(line)} at ${formatDuration(time)}: no sample in force`
      : `${rowLabel(line)} at ${formatDuration(time)} (sample #${info.sample_index} at ${formatDuration(info.sample_offset_ns)}${info.context ? ', in ' + info.context : ''})`;
    if (info.frames.length === 0 && info.sample_index != null) pathList.append(el('li', { text: '(no call frames: idle)' }));
    paintOverlay();
    refreshDepth().catch(report);
  }

  // ---- painting ----
  function preview() {
    paint();
    paintOverlay();
  }

  function paint() {
    const { w, h } = size();
    fit(main, w, h);
    const ctx = main.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.fillStyle = S.colors ? S.colors.css[0] : '#f6f6f8';
    ctx.fillRect(0, 0, w, h);
    const f = S.frame;
    if (f && S.image) {
      // Place the last exact image where its window falls in the current one.
      const s = span();
      const x0 = ((f.view.t0 - S.view.t0) / s) * w;
      const x1 = ((f.view.t1 - S.view.t0) / s) * w;
      const n = S.rows.length;
      const { a, b } = shownRows();
      const [fa, fb] = f.rowRange;
      const y0 = ((fa - a) / Math.max(1, b - a)) * h;
      const y1 = ((fb - a) / Math.max(1, b - a)) * h;
      ctx.drawImage(S.image, 0, 0, f.width, f.height, x0, y0, x1 - x0, y1 - y0);
      void n;
    }
    paintAxis(w);
    paintLabels(h);
    paintMinimap();
    paintStatus();
  }

  function paintAxis(w) {
    fit(axis, w, AXIS_H);
    const ticks = S.frame?.ticks ?? [];
    // Ticks come with the frame; while a new one is in flight, keep the old ones in place.
    drawAxis(axis.getContext('2d'), ticks, S.view.t0, S.view.t1, w, AXIS_H);
  }

  function paintLabels(h) {
    fit(labels, LABEL_W, h);
    const ctx = labels.getContext('2d');
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(0, 0, LABEL_W, h);
    const { a, b } = shownRows();
    const n = b - a;
    ctx.fillStyle = '#222';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const rowH = h / Math.max(1, n);
    const every = Math.max(1, Math.ceil(13 / rowH));
    for (let r = 0; r < n; r += every) {
      const [y0, y1] = rowSpan(r, n, h);
      const line = S.rows[a + r];
      const full = rowLabel(line);
      const fits = (t) => ctx.measureText(t).width <= LABEL_W - 8;
      const cut = (t) => {
        // A label wider than the column loses characters one at a time, each step measured:
        // start from its last 160 characters (more than LABEL_W holds) so a hostile 1 MB
        // identifier name costs 160 measurements, not a million of a million characters.
        if (t.length > 160 && !fits(t)) t = '…' + t.slice(-160);
        while (t.length > 4 && !fits(t)) t = '…' + t.slice(2);
        return t;
      };
      const mid = (y0 + Math.max(y1, y0 + 12)) / 2;
      const parts = full.split(' / ');
      if (!fits(full) && y1 - y0 >= 28 && parts.length > 1) {
        // Tall rows: break the id tuple in two lines instead of cutting it.
        const k = Math.ceil(parts.length / 2);
        ctx.fillText(cut(parts.slice(0, k).join(' / ')), 4, mid - 7);
        ctx.fillText(cut(parts.slice(k).join(' / ')), 4, mid + 7);
      } else {
        // Short rows: drop whole leading levels of the id tuple first ("NODE 0 / RANK 14 /
        // THREAD 0" -> "… RANK 14 / THREAD 0"): the innermost ids tell rows apart. Only for
        // labels of ordinary length; a hostile one goes straight to the bounded cut.
        let t = full;
        for (let k = 1; k < parts.length && full.length <= 200 && !fits(t); k++) {
          t = '… ' + parts.slice(k).join(' / ');
        }
        ctx.fillText(cut(t), 4, mid);
      }
    }
    if (every > 1) {
      ctx.fillStyle = '#666';
      ctx.fillText(`${n} rows`, 4, h - 8);
    }
  }

  function paintOverlay() {
    const { w, h } = size();
    fit(overlay, w, h);
    const ctx = overlay.getContext('2d');
    ctx.clearRect(0, 0, w, h);
    if (S.cross) {
      const { a, b } = shownRows();
      const r = S.rows.indexOf(S.cross.line, a);
      if (r >= a && r < b) {
        const [y0, y1] = rowSpan(r - a, b - a, h);
        const x = ((S.cross.time - S.view.t0) / span()) * w;
        drawCrosshair(ctx, x, (y0 + y1) / 2, w, h);
      }
    }
    if (drag?.select) drawSelection(ctx, drag.x0, drag.y0, drag.x, drag.y);
  }

  let minimapImage = null;
  let minimapDepth = -1;
  async function buildMinimap() {
    const w = Math.max(50, Math.floor(minimap.clientWidth || size().w));
    const depth = S.view.depth;
    const q = { rows: S.rows, t0: 0, t1: S.meta.duration_ns, width: w, height: MINIMAP_H, depth, ticks: 2, keep: false };
    S.mini = null;
    const res = engine.timelineBegin
      ? await engine.timelineBegin(S.id, 1, q, MINIMAP_BUDGET_MS)
      : { ...(await engine.timelineFrame(S.id, q)), progress: { exact: true } };
    minimapDepth = depth;
    if (S.destroyed) return;
    drawMinimapFrame(res.packed);
    if (!res.progress.exact) {
      S.mini = { depth };
      pump();
    }
  }

  function drawMinimapFrame(packed) {
    const frame = unpackFrame(packed);
    const cv = minimapImage ?? document.createElement('canvas');
    fit(cv, frame.width, MINIMAP_H);
    cv.getContext('2d').putImageData(frameToImage(frame, S.colors.lut, MINIMAP_H, null), 0, 0);
    minimapImage = cv;
    paintMinimap();
  }

  function paintMinimap() {
    const w = Math.max(50, Math.floor(minimap.clientWidth || size().w));
    fit(minimap, w, MINIMAP_H);
    const ctx = minimap.getContext('2d');
    ctx.fillStyle = '#eee';
    ctx.fillRect(0, 0, w, MINIMAP_H);
    if (minimapImage) ctx.drawImage(minimapImage, 0, 0, w, MINIMAP_H);
    const d = Math.max(1, S.meta?.duration_ns ?? 1);
    drawViewport(ctx, w, MINIMAP_H, S.view.t0 / d, S.view.t1 / d, S.view.r0, S.view.r1);
  }

  const isExact = () => !!(S.frame && S.frame.exact && same(S.frame.view, S.view));

  function paintStatus() {
    const { a, b } = shownRows();
    const hv = S.hover ? ` · ${S.hover}` : '';
    const f = S.frame;
    // A picture that is not final says so: refining (with progress) or moved from the last one.
    let q = '';
    if (f && !isExact()) {
      q = same(f.view, S.view) ? `refining ${Math.floor((100 * f.rowsExact) / Math.max(1, f.rowsTotal))}% · ` : 'updating · ';
    }
    refining.textContent = q ? q.slice(0, -3) : '';
    refining.hidden = !q;
    status.textContent = `${formatDuration(S.view.t0)} – ${formatDuration(S.view.t1)} (${formatDuration(span())}) · rows ${a + 1}–${b} of ${S.rows.length}${hv}`;
  }

  // ---- input ----
  let drag = null;
  overlay.addEventListener('wheel', (e) => {
    e.preventDefault();
    const { w } = size();
    const frac = Math.min(1, Math.max(0, e.offsetX / w));
    if (e.shiftKey) panBy((e.deltaY || e.deltaX) > 0 ? 0.1 : -0.1, true);
    else if (e.altKey) panRows(e.deltaY > 0 ? 0.1 : -0.1, true);
    else zoomBy(Math.pow(1.0015, e.deltaY), frac, true);
  }, { passive: false });
  const mainDown = (e) => {
    // Offsets first, and no scrolling on focus: focusing a canvas that reaches below the window
    // scrolls it, and offsets read after that point elsewhere (a click picked the wrong row).
    const x0 = e.offsetX, y0 = e.offsetY;
    overlay.focus({ preventScroll: true });
    drag = { x0, y0, x: x0, y: y0, view: snap(), select: e.shiftKey, moved: false };
  };
  overlay.addEventListener('mousedown', mainDown);
  const onMove = (e) => {
    const rect = main.getBoundingClientRect();
    const x = e.clientX - rect.left, y = e.clientY - rect.top;
    const { w, h } = size();
    if (!drag) {
      if (x >= 0 && y >= 0 && x < w && y < h) S.hover = hoverText(x, y, w, h);
      else S.hover = null;
      paintStatus();
      return;
    }
    drag.x = Math.max(0, Math.min(w, x));
    drag.y = Math.max(0, Math.min(h, y));
    if (Math.abs(drag.x - drag.x0) + Math.abs(drag.y - drag.y0) > 3) drag.moved = true;
    if (drag.select) {
      paintOverlay();
      return;
    }
    if (!drag.moved) return;
    const v = drag.view;
    const dt = ((drag.x0 - drag.x) / w) * (v.t1 - v.t0);
    const dr = ((drag.y0 - drag.y) / h) * (v.r1 - v.r0);
    setView({ ...v, t0: v.t0 + dt, t1: v.t1 + dt, r0: v.r0 + dr, r1: v.r1 + dr }, { gesture: true });
  };
  const onUp = () => {
    if (!drag) return;
    const d = drag;
    drag = null;
    const { w, h } = size();
    if (d.select && d.moved) {
      const v = S.view;
      const xa = Math.min(d.x0, d.x) / w, xb = Math.max(d.x0, d.x) / w;
      const ya = Math.min(d.y0, d.y) / h, yb = Math.max(d.y0, d.y) / h;
      const rl = v.r1 - v.r0;
      setView({ ...v, t0: v.t0 + xa * span(), t1: v.t0 + xb * span(), r0: v.r0 + ya * rl, r1: v.r0 + yb * rl });
      paintOverlay();
    } else if (!d.moved) {
      clickAt(d.x0, d.y0, w, h);
    }
  };
  window.addEventListener('mousemove', onMove);
  window.addEventListener('mouseup', onUp);

  function cellAt(x, y, w, h) {
    const { a, b } = shownRows();
    const n = b - a;
    if (n <= 0) return null;
    let r = Math.min(n - 1, Math.floor((y * n) / h));
    // The exact frame may have picked rows (more rows than pixels): use its own row list.
    const f = S.frame;
    let line = S.rows[a + r];
    if (f && f.unpacked.rows !== n && same(f.view, S.view)) {
      const fr = Math.min(f.unpacked.rows - 1, Math.floor((y * f.unpacked.rows) / h));
      line = f.unpacked.lines[fr];
      r = fr;
    }
    return { line, r, time: timeAt(x, w) };
  }

  function hoverText(x, y, w, h) {
    const c = cellAt(x, y, w, h);
    if (!c) return null;
    const f = S.frame;
    let name = '';
    if (f && same(f.view, S.view)) {
      const fr = Math.min(f.unpacked.rows - 1, Math.floor((y * f.unpacked.rows) / h));
      const k = f.unpacked.keys[fr * f.width + Math.min(f.width - 1, Math.floor(x))];
      name = k ? S.meta.names[k - 1] : '(none)';
    }
    return `${rowLabel(c.line)} @ ${formatDuration(c.time)}${name ? ': ' + name : ''}`;
  }

  function clickAt(x, y, w, h) {
    const c = cellAt(x, y, w, h);
    if (c) setCrosshair(c.line, c.time);
  }

  overlay.addEventListener('keydown', (e) => {
    const k = e.key;
    if ((e.ctrlKey || e.metaKey) && (k === 'z' || k === 'Z')) {
      e.shiftKey ? redo() : undo();
    } else if ((e.ctrlKey || e.metaKey) && k === 'y') redo();
    else if (k === '+' || k === '=') zoomBy(0.5);
    else if (k === '-' || k === '_') zoomBy(2);
    else if (k === 'ArrowLeft') panBy(-0.1);
    else if (k === 'ArrowRight') panBy(0.1);
    else if (k === 'ArrowUp') panRows(-0.25);
    else if (k === 'ArrowDown') panRows(0.25);
    else if (k === 'Home') home();
    else return;
    e.preventDefault();
  });

  let mmDrag = false;
  const mmMove = (e) => {
    const rect = minimap.getBoundingClientRect();
    const fx = (e.clientX - rect.left) / rect.width;
    const fy = (e.clientY - rect.top) / rect.height;
    const d = S.meta.duration_ns;
    const s = span(), rl = S.view.r1 - S.view.r0;
    setView({ ...S.view, t0: fx * d - s / 2, t1: fx * d + s / 2, r0: fy - rl / 2, r1: fy + rl / 2 }, { gesture: true });
  };
  minimap.addEventListener('mousedown', (e) => { mmDrag = true; mmMove(e); });
  window.addEventListener('mousemove', (e) => mmDrag && mmMove(e));
  window.addEventListener('mouseup', () => { mmDrag = false; });

  depthSel.addEventListener('change', () => setView({ ...S.view, depth: Number(depthSel.value) }));
  depthCv.addEventListener('click', (e) => {
    const d = Math.floor(e.offsetY / DEPTH_ROW_H);
    if (S.meta && d < S.meta.max_depth) setView({ ...S.view, depth: d });
  });
  let filterTimer = 0;
  const refilter = () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(applyFilter, 150);
  };
  filterIn.addEventListener('input', refilter);
  minIn.addEventListener('input', refilter);
  groupSel.addEventListener('change', applyFilter);

  async function applyFilter() {
    S.filter = { pattern: filterIn.value, minSamples: Number(minIn.value) || 0, groupBy: groupSel.value };
    const res = await engine.timelineRows(S.id, S.filter.pattern, S.filter.minSamples, S.filter.groupBy);
    S.rows = Array.from(res.rows);
    S.groups = Array.from(res.groups);
    S.frame = null;
    S.view = { ...S.view, r0: 0, r1: 1 };
    if (S.rows.length === 0) {
      status.textContent = 'no rows match the filter';
    }
    buildMinimap().catch(report);
    changed();
  }

  const ro = new ResizeObserver(() => {
    if (S.status === 'ok') {
      preview();
      request();
    }
  });
  ro.observe(mainWrap);

  // ---- start ----
  const ready = (async () => {
    const meta = await engine.timelineMeta(id);
    S.meta = meta;
    S.status = meta.status;
    if (meta.status !== 'ok') {
      body.hidden = true;
      toolbar.hidden = true;
      empty.hidden = false;
      const n = meta.rows.length;
      empty.replaceChildren(
        el('strong', { text: meta.status === 'no-samples' ? 'No trace samples' : 'No trace' }),
        el('p', { text: meta.status === 'no-samples'
          ? `This dataset's trace has ${n} line${n === 1 ? '' : 's'} and none holds a sample (its time range is HPCToolkit's empty-trace sentinel), so there is no timeline to draw.`
          : 'This dataset has no trace.' }));
      return;
    }
    S.colors = buildColorTable(meta.names);
    for (let d = 0; d < Math.max(1, meta.max_depth); d++) depthSel.append(el('option', { value: String(d), text: String(d) }));
    for (const k of meta.id_kinds) groupSel.append(el('option', { value: k, text: `group by ${k}` }));
    S.view = { t0: 0, t1: Math.max(1, meta.duration_ns), r0: 0, r1: 1, depth: Math.min(2, Math.max(0, meta.max_depth - 1)) };
    const linked = takeTimeView(id); // a deep link's time range (www/deep-link.js)
    if (linked) S.view = { ...S.view, t0: Math.max(0, linked.t0), t1: Math.min(Math.max(1, meta.duration_ns), linked.t1) };
    noteTimeView(id, S.view.t0, S.view.t1);
    depthSel.value = String(S.view.depth);
    const res = await engine.timelineRows(id, '', 0, 'none');
    S.rows = Array.from(res.rows);
    S.groups = Array.from(res.groups);
    S.rowsLoaded = true;
    undoBtn.disabled = redoBtn.disabled = true;
    preview();
    await request();
    await buildMinimap();
  })().catch(report);

  function state() {
    const { a, b } = shownRows();
    const cross = S.cross?.info
      ? {
          line: S.cross.line,
          label: rowLabel(S.cross.line),
          time_ns: S.cross.time,
          sample_index: S.cross.info.sample_index,
          sample_offset_ns: S.cross.info.sample_offset_ns,
          path: S.cross.info.frames.map((f) => f.name),
          function: S.cross.info.frames.length
            ? S.cross.info.frames[Math.min(S.view.depth, S.cross.info.frames.length - 1)].name
            : null,
        }
      : null;
    return {
      dataset: S.id,
      status: S.status,
      start: S.meta?.start_text ?? null,
      duration_ns: S.meta?.duration_ns ?? 0,
      time_range_ns: [S.view.t0, S.view.t1],
      rows: { total: S.rows.length, first: a, last: b - 1, labels: S.rows.slice(a, b).slice(0, 64).map(rowLabel) },
      depth: S.view.depth,
      max_depth: S.meta?.max_depth ?? 0,
      crosshair: cross,
      frames_painted: S.frames,
      error: S.error ?? null,
      pending: S.inflight,
      // The picture shown is the exact frame of the current view (not a first picture being
      // refined, nor the last one moved while the engine works).
      exact: isExact(),
      refining: !!S.refine,
      rows_exact: S.frame?.rowsExact ?? 0,
      rows_shown: S.frame?.rowsTotal ?? 0,
      last_exact_ms: S.exactMs,
      last_frame_ms: S.lastFrameMs,
      last_paint_ms: S.lastPaintMs,
      undo: S.undo.length,
      redo: S.redo.length,
    };
  }

  function destroy() {
    S.destroyed = true;
    ro.disconnect();
    window.removeEventListener('mousemove', onMove);
    window.removeEventListener('mouseup', onUp);
    wrap.remove();
  }

  return {
    state,
    destroy,
    ready,
    setCrosshair,
    setView: (v) => setView({ ...S.view, ...v }),
    // For tests and the benchmark: paint the last image at the current view (what a pan frame does).
    preview,
    canvasSize: size,
  };
}

let styled = false;
function injectStyle() {
  if (styled) return;
  styled = true;
  const css = `
.timeline-view{display:flex;flex-direction:column;height:100%;min-height:560px;font:13px system-ui,sans-serif;color:#222}
.tl-toolbar{display:flex;gap:8px;align-items:center;padding:6px 8px;border-bottom:1px solid #ddd;flex-wrap:wrap;background:#fff}
.tl-toolbar button{min-width:28px;padding:2px 6px}
.tl-filter{width:220px}.tl-min{width:70px}
.tl-refining{position:absolute;top:4px;right:4px;pointer-events:none;background:#fff3b0e6;color:#7a5b00;border:1px solid #e0c060;border-radius:3px;padding:0 6px;font-size:12px;white-space:nowrap}
.tl-refining[hidden]{display:none}
.tl-status{flex:1 1 260px;min-width:0;text-align:right;color:#555;font-variant-numeric:tabular-nums;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.tl-body{display:flex;flex:1;min-height:0}
.tl-left{display:flex;flex-direction:column;flex:1;min-width:0}
.tl-grid{display:grid;grid-template-columns:${LABEL_W}px 1fr;grid-template-rows:${AXIS_H}px minmax(160px,1fr) ${MINIMAP_H}px;flex:1;min-height:0}
.tl-corner{background:#fafafa;font-size:11px;color:#777;display:flex;align-items:center;padding-left:4px;border-right:1px solid #ddd}
.tl-axis,.tl-minimap{width:100%;display:block}
.tl-labels{border-right:1px solid #ddd;display:block}
.tl-mainwrap{position:relative;min-height:0;overflow:hidden}
.tl-main,.tl-overlay{position:absolute;left:0;top:0;display:block;outline:none}
.tl-main{pointer-events:none}
.tl-overlay{cursor:crosshair}
.tl-minimap{cursor:pointer;border-top:1px solid #ccc}
/* A fixed height: content arriving later (the statistics list) must not resize the timeline. */
.tl-lower{display:grid;grid-template-columns:1fr 1fr;gap:8px;padding:6px 8px;border-top:1px solid #ddd;height:260px;box-sizing:border-box;flex:none}
.tl-depthbox,.tl-sumbox{min-height:0;overflow:auto}
.tl-depthview,.tl-summary{width:100%;display:block;border:1px solid #ddd;image-rendering:pixelated}
.tl-sub{font-size:12px;color:#555;margin:2px 0}
.tl-stats{border-collapse:collapse;font-size:12px;width:100%;margin-top:4px}
.tl-stats td,.tl-stats th{padding:1px 4px;text-align:left;max-width:260px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tl-stats td.num{text-align:right;font-variant-numeric:tabular-nums}
.tl-side{width:280px;border-left:1px solid #ddd;padding:6px 8px;overflow:auto;background:#fcfcfd}
.tl-side h3{margin:2px 0 6px;font-size:14px}
.tl-path-head{font-size:12px;color:#444;margin-bottom:6px;word-break:break-word}
.tl-path{margin:0;padding-left:28px;font-size:12px}
.tl-path li{cursor:pointer;padding:1px 2px;word-break:break-all}
.tl-path li.sel{background:#fff3b0;font-weight:600}
.tl-swatch{display:inline-block;width:10px;height:10px;margin-right:5px;border:1px solid #0003;vertical-align:middle}
.tl-empty{padding:40px;font-size:16px;color:#444;text-align:center}
`;
  // A constructed sheet: the page's CSP (style-src 'self') refuses inline <style> elements.
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

/** The engine calls of the view, as Session methods (src/wasm.rs) through `engine.call`. */
export function sessionApi(engine) {
  return {
    timelineMeta: (id) => engine.call('timeline_meta', id),
    timelineRows: (id, pattern, minSamples, groupBy) =>
      engine.call('timeline_rows', id, pattern, minSamples, groupBy),
    async timelineBegin(id, slot, q, budgetMs) {
      const [[packed, progress], ticks] = await Promise.all([
        engine.call('timeline_begin', id, slot, Uint32Array.from(q.rows), q.t0, q.t1, q.width, q.height, q.depth, budgetMs),
        engine.call('timeline_ticks', q.t0, q.t1, q.ticks ?? 8),
      ]);
      return { packed, ticks, progress };
    },
    async timelineRefine(id, slot, budgetMs) {
      const [packed, progress] = await engine.call('timeline_refine', id, slot, budgetMs);
      return { packed, progress };
    },
    async timelineFrame(id, q) {
      const [packed, ticks] = await Promise.all([
        engine.call('timeline_frame', id, Uint32Array.from(q.rows), q.t0, q.t1, q.width, q.height, q.depth, q.keep !== false),
        engine.call('timeline_ticks', q.t0, q.t1, q.ticks ?? 8),
      ]);
      return { packed, ticks };
    },
    timelineCallPath: (id, line, t) => engine.call('timeline_call_path', id, line, t),
    timelineDepth: (id, line, t0, t1, width, maxDepth) =>
      engine.call('timeline_depth', id, line, t0, t1, width, maxDepth),
    async timelineSummary(id) {
      const [packed, shares] = await Promise.all([
        engine.call('timeline_summary', id),
        engine.call('timeline_shares', id),
      ]);
      return { packed, shares };
    },
  };
}

/** The Trace tab: shown for datasets that have trace lines (an empty trace says so itself). */
export default {
  id: 'timeline',
  title: 'Trace',
  available(d) {
    return !!d && d.status === 'opened' && d.counts.some(([k, n]) => k === 'trace lines' && n > 0);
  },
  mount(el, { engine }) {
    const api = sessionApi(engine);
    let shown = null;
    let shownId = null;
    return {
      update(state) {
        if (state.selected === shownId) return;
        shown?.destroy();
        shownId = state.selected;
        shown = shownId == null ? null : mountTimeline(el, api, shownId);
      },
      state() {
        return shown ? shown.state() : { status: 'none' };
      },
      destroy() {
        shown?.destroy();
        shown = null;
      },
    };
  },
};
