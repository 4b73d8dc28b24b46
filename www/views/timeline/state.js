// The trace view's state without the DOM: the time window, row window and call depth shown, their
// undo/redo history, the transitions input asks for (zoom, pan, drag, range selection, minimap
// jump) and what follows from them (rows shown, the cell under a pixel, where an older picture
// falls now). Runs in Node: tests/js/timeline-state.test.mjs.

import { formatDuration, rowSpan } from '../../render/timeline-draw.js';

/** Narrowest time window. */
export const MIN_SPAN_NS = 10;
/** Wheel or drag events less than this apart are one undo step. */
export const GESTURE_GAP_MS = 500;
/** Undo steps kept. */
export const UNDO_LIMIT = 200;

/** Whether two views show the same thing. */
export const sameView = (a, b) =>
  a.t0 === b.t0 && a.t1 === b.t1 && a.r0 === b.r0 && a.r1 === b.r1 && a.depth === b.depth;

/**
 * `v` made valid for a trace of `durationNs` with `rowCount` rows: a time window of at least
 * MIN_SPAN_NS (at most the whole run) inside [0, durationNs] in whole ns, and a row window of at
 * least one row (at most all) inside [0, 1]; the depth is kept.
 */
export function clampView(v, durationNs, rowCount) {
  const d = durationNs;
  let len = Math.max(MIN_SPAN_NS, Math.min(d, v.t1 - v.t0));
  if (!(len > 0)) len = d;
  const t0 = Math.max(0, Math.min(d - len, v.t0));
  const t1 = t0 + len;
  const rl = Math.max(Math.min(1, 1 / Math.max(1, rowCount)), Math.min(1, v.r1 - v.r0));
  const r0 = Math.max(0, Math.min(1 - rl, v.r0));
  return { t0: Math.round(t0), t1: Math.round(t1), r0, r1: r0 + rl, depth: v.depth };
}

/** Rows [a, b) of `n` under the row window [r0, r1) (fractions of the row list); b > a unless n = 0. */
export function rowWindow(view, n) {
  const a = Math.max(0, Math.floor(view.r0 * n));
  const b = Math.min(n, Math.max(a + 1, Math.ceil(view.r1 * n)));
  return { a, b };
}

/** Length of the time window in ns (at least 1). */
export const spanOf = (view) => Math.max(1, view.t1 - view.t0);

/** Time (ns from the run start) at pixel column x of a w-pixel-wide picture of `view`. */
export const timeAt = (view, x, w) => Math.floor(view.t0 + (x / w) * spanOf(view));

/** Zoom by factor f (< 1 zooms in) keeping the time at fraction `centerFrac` of the width in place. */
export function zoomed(view, f, centerFrac = 0.5) {
  const s = spanOf(view);
  const c = view.t0 + s * centerFrac;
  const ns = s * f;
  return { ...view, t0: c - ns * centerFrac, t1: c - ns * centerFrac + ns };
}

/** The time window moved by `frac` of its length. */
export function panned(view, frac) {
  const s = spanOf(view);
  return { ...view, t0: view.t0 + s * frac, t1: view.t1 + s * frac };
}

/** The row window moved by `frac` of its height. */
export function pannedRows(view, frac) {
  const l = view.r1 - view.r0;
  return { ...view, r0: view.r0 + l * frac, r1: view.r1 + l * frac };
}

/** Dragging the picture of `start` (w x h px) from (x0, y0) to (x, y): the content follows. */
export function dragged(start, x0, y0, x, y, w, h) {
  const dt = ((x0 - x) / w) * (start.t1 - start.t0);
  const dr = ((y0 - y) / h) * (start.r1 - start.r0);
  return { ...start, t0: start.t0 + dt, t1: start.t1 + dt, r0: start.r0 + dr, r1: start.r1 + dr };
}

/** The rectangle between (x0, y0) and (x1, y1) of a w x h picture of `view`, as the new view. */
export function selected(view, x0, y0, x1, y1, w, h) {
  const xa = Math.min(x0, x1) / w, xb = Math.max(x0, x1) / w;
  const ya = Math.min(y0, y1) / h, yb = Math.max(y0, y1) / h;
  const s = spanOf(view);
  const rl = view.r1 - view.r0;
  return { ...view, t0: view.t0 + xa * s, t1: view.t0 + xb * s, r0: view.r0 + ya * rl, r1: view.r0 + yb * rl };
}

/** The window centred on fraction (fx, fy) of the minimap (the whole run, all rows), same size. */
export function centredAt(view, fx, fy, durationNs) {
  const s = spanOf(view), rl = view.r1 - view.r0;
  const t = fx * durationNs;
  return { ...view, t0: t - s / 2, t1: t + s / 2, r0: fy - rl / 2, r1: fy + rl / 2 };
}

/**
 * Where a picture of `from` showing rows [fa, fb) falls in a w x h picture of `view` showing rows
 * [a, b): {x0, x1, y0, y1} in pixels (outside the picture when it is off screen).
 */
export function placed(from, [fa, fb], view, [a, b], w, h) {
  const s = spanOf(view);
  return {
    x0: ((from.t0 - view.t0) / s) * w,
    x1: ((from.t1 - view.t0) / s) * w,
    y0: ((fa - a) / Math.max(1, b - a)) * h,
    y1: ((fb - a) / Math.max(1, b - a)) * h,
  };
}

/** The first view of a trace: the whole run (or a deep link's range within it), all rows, depth 2
 *  (or the deepest there is). */
export function initialView(durationNs, maxDepth, linked) {
  const end = Math.max(1, durationNs);
  const v = { t0: 0, t1: end, r0: 0, r1: 1, depth: Math.min(2, Math.max(0, maxDepth - 1)) };
  return linked ? { ...v, t0: Math.max(0, linked.t0), t1: Math.min(end, linked.t1) } : v;
}

/** What a key press asks for ('undo', 'redo', 'zoomIn', 'zoomOut', 'left', 'right', 'up', 'down',
 *  'home'), or null for keys the view leaves alone. */
export function keyAction({ key, ctrlKey = false, metaKey = false, shiftKey = false }) {
  const ctrl = ctrlKey || metaKey;
  if (ctrl && (key === 'z' || key === 'Z')) return shiftKey ? 'redo' : 'undo';
  if (ctrl && key === 'y') return 'redo';
  return { '+': 'zoomIn', '=': 'zoomIn', '-': 'zoomOut', _: 'zoomOut', ArrowLeft: 'left',
    ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down', Home: 'home' }[key] ?? null;
}

/**
 * The view state of one trace: rows (filtered line indexes, in order) and their group ids, the
 * view {t0, t1 (ns from the run start), r0, r1 (fractions of the rows), depth} and its history.
 * Each transition returns whether the view changed. `clock()` gives milliseconds (gestures).
 */
export class TimelineState {
  constructor(clock = () => performance.now()) {
    this.clock = clock;
    this.durationNs = 1;
    this.rows = [];
    this.groups = [];
    this.view = { t0: 0, t1: 1, r0: 0, r1: 1, depth: 0 };
    this.undoStack = [];
    this.redoStack = [];
    this.gestureAt = 0;
  }

  /** Moves to `v` (clamped). A burst of events of one gesture (wheel, drag) is one undo step. */
  setView(v, { gesture = false } = {}) {
    const nv = clampView(v, this.durationNs, this.rows.length);
    if (sameView(nv, this.view)) return false;
    const now = this.clock();
    if (!gesture || now - this.gestureAt > GESTURE_GAP_MS) {
      this.undoStack.push({ ...this.view });
      if (this.undoStack.length > UNDO_LIMIT) this.undoStack.shift();
      this.redoStack = [];
    }
    if (gesture) this.gestureAt = now;
    this.view = nv;
    return true;
  }

  /** Takes the last view of history `from`, keeping the current one on `to`; false when empty. */
  travel(from, to) {
    const v = from.pop();
    if (!v) return false;
    to.push({ ...this.view });
    this.view = v;
    return true;
  }

  undo() {
    return this.travel(this.undoStack, this.redoStack);
  }

  redo() {
    return this.travel(this.redoStack, this.undoStack);
  }

  home() {
    return this.setView({ t0: 0, t1: this.durationNs, r0: 0, r1: 1, depth: this.view.depth });
  }

  zoomBy(f, centerFrac = 0.5, gesture = false) {
    return this.setView(zoomed(this.view, f, centerFrac), { gesture });
  }

  panBy(frac, gesture = false) {
    return this.setView(panned(this.view, frac), { gesture });
  }

  panRows(frac, gesture = false) {
    return this.setView(pannedRows(this.view, frac), { gesture });
  }

  /** New rows (a filter or grouping): all of them shown, no undo step. */
  setRows(rows, groups) {
    this.rows = rows;
    this.groups = groups;
    this.view = { ...this.view, r0: 0, r1: 1 };
  }

  /** Rows [a, b) of this.rows shown. */
  shown() {
    return rowWindow(this.view, this.rows.length);
  }

  span() {
    return spanOf(this.view);
  }

  /**
   * The cell under (x, y) of a w x h picture: {line, r (shown row), time}, or null without rows.
   * When `frame` (the last painted {view, unpacked: {rows, lines}}) is of this view and picked
   * its rows (more rows than pixels), its own row list says which line is there.
   */
  cellAt(x, y, w, h, frame) {
    const { a, b } = this.shown();
    const n = b - a;
    if (n <= 0) return null;
    let r = Math.min(n - 1, Math.floor((y * n) / h));
    let line = this.rows[a + r];
    if (frame && frame.unpacked.rows !== n && sameView(frame.view, this.view)) {
      r = Math.min(frame.unpacked.rows - 1, Math.floor((y * frame.unpacked.rows) / h));
      line = frame.unpacked.lines[r];
    }
    return { line, r, time: timeAt(this.view, x, w) };
  }

  /** Colour key under (x, y) of an h-pixel-high picture in `frame` ({view, width, unpacked:
   *  {rows, keys}}), or null when the frame is not of this view. */
  keyAt(x, y, h, frame) {
    if (!frame || !sameView(frame.view, this.view)) return null;
    const u = frame.unpacked;
    const fr = Math.min(u.rows - 1, Math.floor((y * u.rows) / h));
    return u.keys[fr * frame.width + Math.min(frame.width - 1, Math.floor(x))];
  }

  /** Pixel (x, y) of the crosshair at `line` and `timeNs` in a w x h picture, or null when its
   *  row is not shown. */
  crosshairAt(line, timeNs, w, h) {
    const { a, b } = this.shown();
    const r = this.rows.indexOf(line, a);
    if (r < a || r >= b) return null;
    const [y0, y1] = rowSpan(r - a, b - a, h);
    return { x: ((timeNs - this.view.t0) / this.span()) * w, y: (y0 + y1) / 2 };
  }

  /** Whether `frame` ({view, exact}) is the final picture of this view. */
  isExact(frame) {
    return !!(frame && frame.exact && sameView(frame.view, this.view));
  }

  /** The badge on a picture that is not final: "refining N%" while the engine refines this view's
   *  frame, "updating" while the last picture stands moved in for a new one; '' when exact. */
  progressLabel(frame) {
    if (!frame || this.isExact(frame)) return '';
    if (!sameView(frame.view, this.view)) return 'updating';
    return `refining ${Math.floor((100 * frame.rowsExact) / Math.max(1, frame.rowsTotal))}%`;
  }

  /** The toolbar's status: the window, its length, the rows shown, and what is under the pointer. */
  statusText(hover) {
    const { a, b } = this.shown();
    const v = this.view;
    return `${formatDuration(v.t0)} – ${formatDuration(v.t1)} (${formatDuration(this.span())}) · rows ${a + 1}–${b} of ${this.rows.length}${hover ? ` · ${hover}` : ''}`;
  }
}
