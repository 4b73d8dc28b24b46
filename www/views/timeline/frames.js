// The trace view's pictures: asks the engine for a frame of the current view, refines it step by
// step while the view stays put, and paints the main picture, axis, row labels, overlay
// (crosshair, selection) and minimap. While a frame is in flight the last image is shown moved
// and scaled to the new window, so pans and zooms answer at once.

import { unpackFrame, frameToImage, rowSpan, drawAxis, drawViewport, drawCrosshair, drawSelection } from '../../render/timeline-draw.js';
import { placed } from './state.js';
import { fit } from './dom.js';

export const LABEL_W = 170;
export const AXIS_H = 24;
export const MINIMAP_H = 40;
/** Engine time for the first picture of a new view (the rest is refined in the background), and
 *  for each refinement step after it: the page stays responsive between steps, and a view change
 *  waits at most one step before its own frame starts. */
const FIRST_BUDGET_MS = 450;
const NEXT_BUDGET_MS = 120;
const STEP_BUDGET_MS = 300;
const MINIMAP_BUDGET_MS = 60;

/**
 * The frame machinery of one mounted view `V` (see index.js: V.T the view state, V.S the runtime
 * state, V.dom the elements, V.engine, V.size(), V.report(e), V.rowLabel(line), and the panels'
 * V.refreshSummary() / V.refreshDepth()).
 */
export function createFrames(V) {
  const { T, S, dom, engine } = V;

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
    const view = { ...T.view };
    const { w, h } = V.size();
    const { a, b } = T.shown();
    const rows = T.rows.slice(a, b);
    const t = performance.now();
    const q = { rows, t0: view.t0, t1: view.t1, width: w, height: h, depth: view.depth, ticks: Math.max(3, Math.floor(w / 90)) };
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
      V.refreshSummary().catch(V.report);
      V.refreshDepth().catch(V.report);
    } catch (e) {
      V.report(e);
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
    const groups = T.groups.slice(a, b);
    const img = frameToImage(frame, S.colors.lut, h, groups.length === frame.rows ? groups : null, S.pixels);
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
        const p = placed(prev.view, prev.rowRange, view, [a, b], frame.width, h);
        ctx.drawImage(prev.image, 0, 0, prev.width, prev.height, p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0);
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
            V.refreshSummary().catch(V.report);
            V.refreshDepth().catch(V.report);
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
      V.report(e);
    } finally {
      S.pumping = false;
    }
  }

  /** Asks for the minimap (the whole run, all rows, at the current depth). */
  async function buildMinimap() {
    const w = Math.max(50, Math.floor(dom.minimap.clientWidth || V.size().w));
    const depth = T.view.depth;
    const q = { rows: T.rows, t0: 0, t1: S.meta.duration_ns, width: w, height: MINIMAP_H, depth, ticks: 2, keep: false };
    S.mini = null;
    const res = engine.timelineBegin
      ? await engine.timelineBegin(S.id, 1, q, MINIMAP_BUDGET_MS)
      : { ...(await engine.timelineFrame(S.id, q)), progress: { exact: true } };
    S.minimapDepth = depth;
    if (S.destroyed) return;
    drawMinimapFrame(res.packed);
    if (!res.progress.exact) {
      S.mini = { depth };
      pump();
    }
  }

  function drawMinimapFrame(packed) {
    const frame = unpackFrame(packed);
    const cv = S.minimapImage ?? document.createElement('canvas');
    fit(cv, frame.width, MINIMAP_H);
    cv.getContext('2d').putImageData(frameToImage(frame, S.colors.lut, MINIMAP_H, null), 0, 0);
    S.minimapImage = cv;
    paintMinimap();
  }

  // ---- painting ----
  function preview() {
    paint();
    paintOverlay();
  }

  function paint() {
    const { w, h } = V.size();
    fit(dom.main, w, h);
    const ctx = dom.main.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.fillStyle = S.colors ? S.colors.css[0] : '#f6f6f8';
    ctx.fillRect(0, 0, w, h);
    const f = S.frame;
    if (f && S.image) {
      // Place the last exact image where its window falls in the current one.
      const { a, b } = T.shown();
      const p = placed(f.view, f.rowRange, T.view, [a, b], w, h);
      ctx.drawImage(S.image, 0, 0, f.width, f.height, p.x0, p.y0, p.x1 - p.x0, p.y1 - p.y0);
    }
    paintAxis(w);
    paintLabels(h);
    paintMinimap();
    paintStatus();
  }

  function paintAxis(w) {
    fit(dom.axis, w, AXIS_H);
    const ticks = S.frame?.ticks ?? [];
    // Ticks come with the frame; while a new one is in flight, keep the old ones in place.
    drawAxis(dom.axis.getContext('2d'), ticks, T.view.t0, T.view.t1, w, AXIS_H);
  }

  function paintLabels(h) {
    fit(dom.labels, LABEL_W, h);
    const ctx = dom.labels.getContext('2d');
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(0, 0, LABEL_W, h);
    const { a, b } = T.shown();
    const n = b - a;
    ctx.fillStyle = '#222';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    const rowH = h / Math.max(1, n);
    const every = Math.max(1, Math.ceil(13 / rowH));
    const fits = (t) => ctx.measureText(t).width <= LABEL_W - 8;
    for (let r = 0; r < n; r += every) {
      const [y0, y1] = rowSpan(r, n, h);
      const mid = (y0 + Math.max(y1, y0 + 12)) / 2;
      const lines = labelLines(V.rowLabel(T.rows[a + r]), fits, y1 - y0 >= 28);
      if (lines.length === 2) {
        ctx.fillText(lines[0], 4, mid - 7);
        ctx.fillText(lines[1], 4, mid + 7);
      } else {
        ctx.fillText(lines[0], 4, mid);
      }
    }
    if (every > 1) {
      ctx.fillStyle = '#666';
      ctx.fillText(`${n} rows`, 4, h - 8);
    }
  }

  function paintOverlay() {
    const { w, h } = V.size();
    fit(dom.overlay, w, h);
    const ctx = dom.overlay.getContext('2d');
    ctx.clearRect(0, 0, w, h);
    const c = S.cross && T.crosshairAt(S.cross.line, S.cross.time, w, h);
    if (c) drawCrosshair(ctx, c.x, c.y, w, h);
    const d = S.drag;
    if (d?.select) drawSelection(ctx, d.x0, d.y0, d.x, d.y);
  }

  function paintMinimap() {
    const w = Math.max(50, Math.floor(dom.minimap.clientWidth || V.size().w));
    fit(dom.minimap, w, MINIMAP_H);
    const ctx = dom.minimap.getContext('2d');
    ctx.fillStyle = '#eee';
    ctx.fillRect(0, 0, w, MINIMAP_H);
    if (S.minimapImage) ctx.drawImage(S.minimapImage, 0, 0, w, MINIMAP_H);
    const d = Math.max(1, S.meta?.duration_ns ?? 1);
    const v = T.view;
    drawViewport(ctx, w, MINIMAP_H, v.t0 / d, v.t1 / d, v.r0, v.r1);
  }

  function paintStatus() {
    // A picture that is not final says so: refining (with progress) or moved from the last one.
    const q = T.progressLabel(S.frame);
    dom.refining.textContent = q;
    dom.refining.hidden = !q;
    dom.status.textContent = T.statusText(S.hover);
  }

  return { request, pump, buildMinimap, preview, paint, paintOverlay, paintStatus };
}

/**
 * A row label as it fits the label column (`fits(text)` measures): tall rows break an id tuple
 * ("NODE 0 / RANK 14 / THREAD 0") in two lines instead of cutting it; short rows drop whole
 * leading levels first ("… RANK 14 / THREAD 0": the innermost ids tell rows apart), then cut
 * characters from the front. One or two lines.
 */
export function labelLines(full, fits, tall) {
  const cut = (t) => {
    // A label wider than the column loses characters one at a time, each step measured: start
    // from its last 160 characters (more than LABEL_W holds) so a hostile 1 MB identifier name
    // costs 160 measurements, not a million of a million characters.
    if (t.length > 160 && !fits(t)) t = '…' + t.slice(-160);
    while (t.length > 4 && !fits(t)) t = '…' + t.slice(2);
    return t;
  };
  const parts = full.split(' / ');
  if (!fits(full) && tall && parts.length > 1) {
    const k = Math.ceil(parts.length / 2);
    return [cut(parts.slice(0, k).join(' / ')), cut(parts.slice(k).join(' / '))];
  }
  // Only for labels of ordinary length; a hostile one goes straight to the bounded cut.
  let t = full;
  for (let k = 1; k < parts.length && full.length <= 200 && !fits(t); k++) {
    t = '… ' + parts.slice(k).join(' / ');
  }
  return [cut(t)];
}
