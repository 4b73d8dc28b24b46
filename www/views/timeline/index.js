// The trace view: one row per trace line, time on x, each pixel coloured by the frame at the chosen
// call depth. The engine (in the worker) samples what is visible and answers with colour keys;
// this folder keeps the view state (state.js, no DOM), asks for and paints frames (frames.js),
// fills the panels (panels.js) and turns input into view changes (input.js).

import { buildColourTable } from '../../render/colours.js';
import { takeTimeView, noteTimeView } from '../../deep-link.js';
import { TimelineState, initialView } from './state.js';
import { createFrames } from './frames.js';
import { buildDom, createPanels } from './panels.js';
import { attachInput } from './input.js';
import { sessionApi } from './api.js';

export { sessionApi };

/** Where a view without a store (tests/e2e/timeline-mock.html) notes its time range. */
function scratchStore() {
  const state = {};
  return { get: () => state };
}

/**
 * Mounts the trace view of dataset `id` into `root`; `store` keeps its time range for deep links
 * (www/deep-link.js). `engine` answers (asynchronously):
 * timelineMeta(id), timelineRows(id, pattern, minSamples, groupBy), timelineFrame(id, req),
 * timelineCallPath(id, line, offsetNs), timelineDepth(id, line, t0, t1, width, maxDepth),
 * timelineSummary(id), and optionally timelineBegin / timelineRefine (api.js). Returns
 * `{ state(), destroy(), ready, setCrosshair, setView, preview, canvasSize }`.
 */
export function mountTimeline(root, engine, id, store = scratchStore()) {
  const T = new TimelineState();
  // What is not the view: the trace's meta, the pictures and the engine round trips in flight.
  const S = {
    id,
    meta: null,
    status: 'loading',
    filter: { pattern: '', minSamples: 0, groupBy: 'none' },
    rowsLoaded: false,
    colors: null,
    frame: null, // last painted frame: {view, width, height, unpacked, ticks, rowRange, exact, ...}
    image: null, // canvas holding the last painted image
    spare: null, // the other canvas, reused for the next image
    pixels: null, // ImageData reused by refinement steps
    minimapImage: null,
    minimapDepth: -1,
    cross: null, // {line, time, info}
    drag: null, // {x0, y0, x, y, view, select, moved} while a mouse button is down
    inflight: false,
    dirty: false,
    refine: null, // the main frame being refined: {view, h, a, b, ticks, t, prev}
    mini: null, // the minimap frame being refined: {depth}
    pumping: false,
    exactMs: 0,
    frames: 0,
    lastFrameMs: 0,
    lastPaintMs: 0,
    hover: null,
    tip: null, // the tooltip's text (function · depth · row · time), null when hidden
    keyCross: false, // the crosshair was placed from the keyboard: its tooltip stays shown
    error: null,
    destroyed: false,
  };

  // The mounted view as the other modules see it.
  const V = { T, S, engine };
  V.dom = buildDom(root, {
    undo: () => V.undo(),
    redo: () => V.redo(),
    zoomBy: (f) => V.zoomBy(f),
    home: () => V.home(),
  });
  const dom = V.dom;
  V.size = () => ({
    w: Math.max(50, Math.floor(dom.mainWrap.clientWidth)),
    h: Math.max(20, Math.floor(dom.mainWrap.clientHeight)),
  });
  V.rowLabel = (line) => S.meta.rows[line]?.label ?? `line ${line}`;
  V.report = (e) => {
    dom.status.textContent = `error: ${e?.message ?? e}`;
    S.error = String(e?.message ?? e);
  };

  // ---- view changes: the state's transitions, then the picture follows ----
  function changed() {
    if (S.status === 'ok' && S.minimapDepth !== -1 && S.minimapDepth !== T.view.depth) V.buildMinimap().catch(V.report);
    dom.undoBtn.disabled = T.undoStack.length === 0;
    dom.redoBtn.disabled = T.redoStack.length === 0;
    if (dom.depthSel.value !== String(T.view.depth)) dom.depthSel.value = String(T.view.depth);
    V.preview();
    V.request();
    if (S.keyCross && S.cross) V.showTip(V.crossTip());
  }
  /** A new view from input: clamped, an undo step, and noted for deep links. */
  const moved = (yes) => {
    if (!yes) return;
    noteTimeView(store, S.id, T.view.t0, T.view.t1);
    changed();
  };
  V.setView = (v, opts) => moved(T.setView(v, opts));
  V.zoomBy = (f, centerFrac, gesture) => moved(T.zoomBy(f, centerFrac, gesture));
  V.panBy = (frac, gesture) => moved(T.panBy(frac, gesture));
  V.panRows = (frac, gesture) => moved(T.panRows(frac, gesture));
  V.home = () => moved(T.home());
  V.undo = () => T.undo() && changed();
  V.redo = () => T.redo() && changed();

  Object.assign(V, createFrames(V), createPanels(V));

  V.applyFilter = async () => {
    S.filter = { pattern: dom.filterIn.value, minSamples: Number(dom.minIn.value) || 0, groupBy: dom.groupSel.value };
    const res = await engine.timelineRows(S.id, S.filter.pattern, S.filter.minSamples, S.filter.groupBy);
    T.setRows(Array.from(res.rows), Array.from(res.groups));
    S.frame = null;
    if (T.rows.length === 0) {
      dom.status.textContent = 'no rows match the filter';
    }
    V.buildMinimap().catch(V.report);
    changed();
  };

  const detachInput = attachInput(V);
  const ro = new ResizeObserver(() => {
    if (S.status === 'ok') {
      V.preview();
      V.request();
    }
  });
  ro.observe(dom.mainWrap);

  // ---- start ----
  const ready = (async () => {
    const meta = await engine.timelineMeta(id);
    S.meta = meta;
    S.status = meta.status;
    T.durationNs = meta.duration_ns ?? 1;
    if (meta.status !== 'ok') {
      V.showEmpty(meta);
      return;
    }
    S.colors = buildColourTable(meta.names);
    V.fillOptions(meta);
    T.view = initialView(meta.duration_ns, meta.max_depth, takeTimeView(store, id)); // a deep link's range (www/deep-link.js)
    noteTimeView(store, id, T.view.t0, T.view.t1);
    dom.depthSel.value = String(T.view.depth);
    const res = await engine.timelineRows(id, '', 0, 'none');
    T.rows = Array.from(res.rows);
    T.groups = Array.from(res.groups);
    S.rowsLoaded = true;
    dom.undoBtn.disabled = dom.redoBtn.disabled = true;
    V.preview();
    await V.request();
    await V.buildMinimap();
  })().catch(V.report);

  function state() {
    const { a, b } = T.shown();
    const info = S.cross?.info;
    const cross = info
      ? {
          line: S.cross.line,
          label: V.rowLabel(S.cross.line),
          time_ns: S.cross.time,
          sample_index: info.sample_index,
          sample_offset_ns: info.sample_offset_ns,
          path: info.frames.map((f) => f.name),
          function: info.frames.length ? info.frames[Math.min(T.view.depth, info.frames.length - 1)].name : null,
        }
      : null;
    return {
      dataset: S.id,
      status: S.status,
      start: S.meta?.start_text ?? null,
      duration_ns: S.meta?.duration_ns ?? 0,
      time_range_ns: [T.view.t0, T.view.t1],
      rows: { total: T.rows.length, first: a, last: b - 1, labels: T.rows.slice(a, b).slice(0, 64).map(V.rowLabel) },
      depth: T.view.depth,
      max_depth: S.meta?.max_depth ?? 0,
      crosshair: cross,
      tooltip: S.tip,
      frames_painted: S.frames,
      error: S.error,
      pending: S.inflight,
      // The picture shown is the exact frame of the current view (not a first picture being
      // refined, nor the last one moved while the engine works).
      exact: T.isExact(S.frame),
      refining: !!S.refine,
      rows_exact: S.frame?.rowsExact ?? 0,
      rows_shown: S.frame?.rowsTotal ?? 0,
      last_exact_ms: S.exactMs,
      last_frame_ms: S.lastFrameMs,
      last_paint_ms: S.lastPaintMs,
      undo: T.undoStack.length,
      redo: T.redoStack.length,
    };
  }

  function destroy() {
    S.destroyed = true;
    ro.disconnect();
    detachInput();
    dom.wrap.remove();
  }

  return {
    state,
    destroy,
    ready,
    setCrosshair: V.setCrosshair,
    setView: (v) => V.setView({ ...T.view, ...v }),
    // For tests and the benchmark: paint the last image at the current view (what a pan frame does).
    preview: V.preview,
    canvasSize: V.size,
  };
}

/** Whether dataset `d` is opened and has trace lines (the Trace and Time order tabs show then). */
export const hasTraceLines = (d) => !!d && d.status === 'opened' && d.counts.some(([k, n]) => k === 'trace lines' && n > 0);

/** The Trace tab: shown for datasets that have trace lines (an empty trace says so itself). */
export default {
  id: 'timeline',
  title: 'Trace',
  available: hasTraceLines,
  mount(el, { engine, store }) {
    const api = sessionApi(engine);
    let shown = null;
    let shownId = null;
    return {
      update(state) {
        if (state.selected === shownId) return;
        shown?.destroy();
        shownId = state.selected;
        shown = shownId == null ? null : mountTimeline(el, api, shownId, store);
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
