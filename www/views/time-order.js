// The Time order tab: one task (trace line) at a time, each call a box at its real start and
// duration, nested by depth; the engine lays out the visible window (src/analysis/timeline/calls.rs),
// render/time-order-draw.js draws it. Hover shows a call as `uftrace replay` prints it; click
// selects its context for the Profile view, Enter goes there; double click or Z zooms to it.

import { h, formatCount } from '../format.js';
import { buildColourTable } from '../render/colours.js';
import { formatDuration } from '../render/timeline-draw.js';
import { hasTraceLines } from './timeline/index.js';
import { CELLS, FLAGS, ROW_H, AXIS_H, depthIndex, drawTimeOrder, hitTimeOrder, neighbour, xOf } from '../render/time-order-draw.js';

const MIN_SPAN_NS = 20;

/** Where the Trace view's "Time order of this row" leaves its request for dataset `id`. */
export function requestTimeOrder(store, id, req) {
  const s = store.get();
  s.timeOrderViews = { ...(s.timeOrderViews || {}), [id]: { ...req, pending: true } };
  store.update({ view: 'timeorder' });
}

function mountFor(root, engine, store, id, summary) {
  const cv = h('canvas', { class: 'to-cv', tabindex: '0', 'data-testid': 'timeorder-canvas', 'aria-label': 'Calls in time order: arrows move between calls, Enter shows the call in the Profile view, Z zooms to it' });
  const tip = h('div', { class: 'to-tip', hidden: true, 'data-testid': 'timeorder-tip' });
  const lineSel = h('select', { class: 'to-line', 'aria-label': 'Task', 'data-testid': 'timeorder-line' });
  const status = h('span', { class: 'to-status muted', 'data-testid': 'timeorder-status' });
  // Announced as it changes: the call the arrow keys moved to.
  const detail = h('div', { class: 'to-detail', 'aria-live': 'polite', 'data-testid': 'timeorder-detail' }, 'Click a call to select it; double click zooms to it.');
  const btn = (text, title, fn) => h('button', { type: 'button', class: 'btn btn-small', title, onclick: fn }, text);
  const bar = h('div', { class: 'to-bar' }, h('label', {}, 'Task ', lineSel),
    btn('⌂', 'Whole task (Home)', () => home()), btn('−', 'Zoom out (-)', () => zoomBy(2)), btn('+', 'Zoom in (+)', () => zoomBy(0.5)),
    btn('Zoom to call', 'Zoom to the selected call (Z)', () => zoomToSelected()), status);
  const note = h('p', { class: 'to-note muted', hidden: true });
  const wrap = h('div', { class: 'to-main' }, cv, tip);
  const box = h('div', { class: 'timeorder', 'data-testid': 'timeorder-view' }, bar, note, wrap, detail);
  root.append(box);

  const S = {
    meta: null, status: 'loading', line: 0, view: { t0: 0, t1: 1, top: 0 }, lineEnds: null,
    L: null, ticks: [], colors: null, inflight: false, dirty: false, waiters: [], frames: 0, lastMs: 0,
    hover: -1, hoverInfo: null, sel: -1, selKey: null, selInfo: null, error: null, destroyed: false, drag: null,
  };
  const dark = matchMedia?.('(prefers-color-scheme: dark)').matches;
  const size = () => ({ w: Math.max(50, Math.floor(wrap.clientWidth)), h: Math.max(AXIS_H + ROW_H, Math.floor(wrap.clientHeight)) });
  const nameOf = (i) => (S.meta.names[S.L.cells[i * CELLS + 1] - 1] ?? '');
  const report = (e) => {
    S.error = String(e?.message ?? e);
    status.textContent = `error: ${S.error}`;
  };

  function paint() {
    const { w, h: ht } = size();
    const dpr = devicePixelRatio || 1;
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(ht * dpr)) {
      cv.width = Math.round(w * dpr);
      cv.height = Math.round(ht * dpr);
      cv.style.width = `${w}px`;
      cv.style.height = `${ht}px`;
    }
    const ctx = cv.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawTimeOrder(ctx, S.L, S.view, w, ht, {
      colour: (k) => S.colors.css[k] ?? '#ccc', name: nameOf, sel: S.sel, hover: S.hover, ticks: S.ticks, dark,
    });
  }

  function clampView(v) {
    const [lo, hi] = S.lineEnds ?? [0, S.meta.duration_ns];
    let span = Math.max(MIN_SPAN_NS, Math.min(v.t1 - v.t0, (hi - lo) * 1.1 + MIN_SPAN_NS));
    let t0 = Math.max(lo - span * 0.05, Math.min(v.t0, hi + span * 0.05 - span));
    const maxTop = Math.max(0, (S.L?.info.max_depth ?? 1) - 1);
    return { t0, t1: t0 + span, top: Math.max(0, Math.min(maxTop, v.top ?? S.view.top)) };
  }
  function setView(v) {
    S.view = clampView(v);
    paint();
    request();
  }
  const zoomBy = (f, frac = 0.5) => {
    const { t0, t1 } = S.view;
    const at = t0 + (t1 - t0) * frac;
    setView({ ...S.view, t0: at - (at - t0) * f, t1: at + (t1 - at) * f });
  };
  const home = () => S.lineEnds && setView({ t0: S.lineEnds[0], t1: S.lineEnds[1] + 1, top: 0 });

  /** Lays out the view's window in the engine; one request at a time, the last view wins. */
  async function request() {
    if (S.inflight) {
      S.dirty = true;
      return;
    }
    S.inflight = true;
    try {
      do {
        S.dirty = false;
        const v = { ...S.view };
        // What a deep link of the page carries (www/deep-link.js), kept without notifying.
        const all = store.get().timeOrderViews || (store.get().timeOrderViews = {});
        all[id] = { ...(all[id] || {}), last: { line: S.line, t0: v.t0, t1: v.t1 } };
        const { w } = size();
        const t = performance.now();
        const [[times, cells, info], ticks] = await Promise.all([
          engine.call('time_order', id, { line: S.line, t0_ns: v.t0, t1_ns: v.t1, width: w }),
          engine.call('timeline_ticks', v.t0, v.t1, Math.max(2, Math.floor(w / 110))),
        ]);
        if (S.destroyed) return;
        S.L = { times, cells, n: info.boxes, info, first: depthIndex(cells, info.boxes) };
        S.ticks = ticks;
        S.lastMs = performance.now() - t;
        if (info.line_start_ns != null) {
          const fresh = !S.lineEnds;
          S.lineEnds = [info.line_start_ns, info.line_end_ns];
          if (fresh && !S.pendingView) {
            home();
            continue;
          }
        }
        S.pendingView = null;
        S.hover = -1;
        S.sel = S.selKey ? findKey(S.selKey) : -1;
        S.frames++;
        paintStatus();
        paint();
      } while (S.dirty && !S.destroyed);
    } catch (e) {
      report(e);
    } finally {
      S.inflight = false;
      S.waiters.splice(0).forEach((f) => f());
    }
  }

  /** The box of the new layout that is the selected call: same node and depth, holding its start. */
  function findKey(k) {
    const L = S.L;
    if (k.depth >= L.first.length - 1) return -1;
    for (let i = L.first[k.depth]; i < L.first[k.depth + 1]; i++) {
      if (L.cells[i * CELLS + 4] === k.node && L.times[2 * i] <= k.at && L.times[2 * i + 1] >= k.at) return i;
    }
    return -1;
  }

  function paintStatus() {
    const info = S.L.info;
    const kind = info.exact ? 'exact' : 'sampled per pixel';
    status.textContent = `${formatCount(info.boxes)} boxes · ${formatCount(info.samples)} records in view (${kind}) · ${formatDuration(S.view.t0)} – ${formatDuration(S.view.t1)}`;
  }

  /** The engine's details of box `i` of the shown layout (null when a newer layout is coming). */
  async function detailOf(i) {
    if (S.inflight) await new Promise((r) => S.waiters.push(r));
    return i >= 0 && i < S.L.n ? engine.call('time_order_call', id, i) : null;
  }
  /** The tooltip's lines: the call as `uftrace replay` prints it, then where it is. */
  function describe(c) {
    const notes = [];
    if (c.merged) notes.push('zoom in to see them');
    if (!c.start_exact) notes.push('started before what was searched');
    if (!c.returned) notes.push('never returned');
    else if (!c.end_exact) notes.push('ends after what was searched');
    if (c.sampled) notes.push('sampled per pixel: zoom in for exact calls');
    return [`${c.duration.padStart(10)} | ${c.text}`,
      `${c.name} · depth ${c.depth} · starts at ${formatDuration(c.start_ns)}${notes.length ? ' · ' + notes.join(', ') : ''}`];
  }

  async function hoverAt(x, y) {
    const { w } = size();
    const i = S.L ? hitTimeOrder(S.L, S.view, w, x, y) : -1;
    if (i === S.hover) return;
    S.hover = i;
    paint();
    if (i < 0) {
      tip.hidden = true;
      S.hoverInfo = null;
      return;
    }
    const info = await detailOf(i);
    if (S.hover !== i || !info) return;
    S.hoverInfo = info;
    const [a, b] = describe(info);
    tip.replaceChildren(h('div', { class: 'to-tip-call' }, a), h('div', { class: 'muted' }, b));
    tip.hidden = false;
    const tw = tip.offsetWidth;
    tip.style.left = `${Math.min(Math.max(0, w - tw - 4), x + 12)}px`;
    tip.style.top = `${y + 16}px`;
  }

  /** Selects box `i`: its details below the chart, and its context for the Profile view. */
  async function select(i, { reveal = false } = {}) {
    if (i < 0 || !S.L) return;
    S.sel = i;
    const L = S.L;
    S.selKey = { node: L.cells[i * CELLS + 4], depth: L.cells[i * CELLS], at: Math.max(L.times[2 * i], S.view.t0) };
    if (reveal) {
      const d = S.selKey.depth;
      const rows = Math.floor((size().h - AXIS_H) / ROW_H);
      if (d < S.view.top || d >= S.view.top + rows) S.view = { ...S.view, top: Math.max(0, d - Math.floor(rows / 2)) };
      const { w } = size();
      const a = xOf(L.times[2 * i], S.view, w), b = xOf(L.times[2 * i + 1], S.view, w);
      if (b < 0 || a > w) {
        const span = S.view.t1 - S.view.t0;
        setView({ ...S.view, t0: L.times[2 * i] - span * 0.1, t1: L.times[2 * i] + span * 0.9 });
      }
    }
    paint();
    // What the Profile view selects when it is shown (www/views/profile.js settings).
    const all = store.get().profileViews || {};
    all[id] = { ...(all[id] || {}), selected: S.selKey.node };
    store.get().profileViews = all;
    const info = await detailOf(i);
    if (S.sel !== i || !info) return;
    S.selInfo = info;
    const [a, b] = describe(info);
    detail.replaceChildren(h('code', { class: 'to-tip-call' }, a), ' ', h('span', { class: 'muted' }, b), ' ',
      btn('Show in Profile', 'Select this context in the Profile view (Enter)', () => showInProfile()));
  }
  function showInProfile() {
    if (S.selKey) store.update({ view: 'profile' });
  }
  async function zoomTo(i) {
    const c = await detailOf(i);
    if (!c) return;
    const pad = Math.max(MIN_SPAN_NS / 2, (c.end_ns - c.start_ns) * 0.02);
    setView({ ...S.view, t0: c.start_ns - pad, t1: c.end_ns + pad });
    await whenReady();
  }
  const zoomToSelected = () => (S.sel >= 0 ? zoomTo(S.sel).catch(report) : null);
  const whenReady = () => (S.inflight || S.dirty ? new Promise((r) => S.waiters.push(r)).then(whenReady) : Promise.resolve());

  // ---- input ----
  cv.addEventListener('wheel', (e) => {
    e.preventDefault();
    const frac = Math.min(1, Math.max(0, e.offsetX / size().w));
    const span = S.view.t1 - S.view.t0;
    if (e.shiftKey) setView({ ...S.view, t0: S.view.t0 + span * ((e.deltaY || e.deltaX) > 0 ? 0.1 : -0.1), t1: S.view.t1 + span * ((e.deltaY || e.deltaX) > 0 ? 0.1 : -0.1) });
    else if (e.altKey) setView({ ...S.view, top: S.view.top + (e.deltaY > 0 ? 3 : -3) });
    else zoomBy(Math.pow(1.0015, e.deltaY), frac);
  }, { passive: false });
  cv.addEventListener('mousedown', (e) => {
    cv.focus({ preventScroll: true });
    S.drag = { x0: e.offsetX, y0: e.offsetY, view: { ...S.view }, moved: false };
  });
  const onMove = (e) => {
    const r = cv.getBoundingClientRect();
    const x = e.clientX - r.left, y = e.clientY - r.top;
    const d = S.drag;
    if (!d) {
      const inside = x >= 0 && y >= 0 && x < r.width && y < r.height && e.composedPath().includes(cv);
      if (inside) hoverAt(x, y).catch(report);
      else if (S.hover >= 0) hoverAt(-1, -1).catch(report);
      return;
    }
    if (Math.abs(x - d.x0) + Math.abs(y - d.y0) > 3) d.moved = true;
    if (!d.moved) return;
    tip.hidden = true;
    const dt = ((x - d.x0) / size().w) * (d.view.t1 - d.view.t0);
    setView({ t0: d.view.t0 - dt, t1: d.view.t1 - dt, top: d.view.top - Math.round((y - d.y0) / ROW_H) });
  };
  const onUp = (e) => {
    const d = S.drag;
    S.drag = null;
    if (!d || d.moved || e.target !== cv) return;
    const i = S.L ? hitTimeOrder(S.L, S.view, size().w, d.x0, d.y0) : -1;
    if (i >= 0) select(i).catch(report);
  };
  window.addEventListener('mousemove', onMove);
  window.addEventListener('mouseup', onUp);
  cv.addEventListener('mouseleave', () => {
    if (!S.drag) hoverAt(-1, -1).catch(report);
  });
  cv.addEventListener('dblclick', (e) => {
    const i = S.L ? hitTimeOrder(S.L, S.view, size().w, e.offsetX, e.offsetY) : -1;
    if (i >= 0) select(i).then(() => zoomTo(i)).catch(report);
  });
  cv.addEventListener('keydown', (e) => {
    const span = S.view.t1 - S.view.t0;
    const moves = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };
    if (moves[e.key] && e.shiftKey) {
      const f = e.key === 'ArrowLeft' ? -0.1 : e.key === 'ArrowRight' ? 0.1 : 0;
      setView({ t0: S.view.t0 + span * f, t1: S.view.t1 + span * f, top: S.view.top + (e.key === 'ArrowUp' ? -1 : e.key === 'ArrowDown' ? 1 : 0) });
    } else if (moves[e.key] && S.L?.n) {
      const j = S.sel < 0 ? firstVisible() : neighbour(S.L, S.sel, moves[e.key]);
      if (j >= 0) select(j, { reveal: true }).catch(report);
    } else if (e.key === 'Enter') showInProfile();
    else if (e.key === 'z' || e.key === 'Z') zoomToSelected();
    else if (e.key === '+' || e.key === '=') zoomBy(0.5, selFrac());
    else if (e.key === '-' || e.key === '_') zoomBy(2, selFrac());
    else if (e.key === 'Home') home();
    else if (e.key === 'PageDown' || e.key === 'PageUp') setView({ ...S.view, top: S.view.top + (e.key === 'PageDown' ? 10 : -10) });
    else if (e.key === 'Escape' && S.sel >= 0) {
      S.sel = -1;
      S.selKey = null;
      paint();
    } else return;
    e.preventDefault();
  });
  /** The first box at the top depth shown that is in view. */
  function firstVisible() {
    const L = S.L, d = Math.min(S.view.top, L.first.length - 2);
    for (let i = L.first[d]; i < L.first[d + 1]; i++) if (L.times[2 * i + 1] > S.view.t0) return i;
    return L.first[d];
  }
  const selFrac = () => (S.sel >= 0 ? Math.min(1, Math.max(0, (S.L.times[2 * S.sel] - S.view.t0) / (S.view.t1 - S.view.t0))) : 0.5);
  lineSel.addEventListener('change', () => {
    S.line = Number(lineSel.value);
    S.lineEnds = null;
    S.sel = -1;
    S.selKey = null;
    request();
  });
  const ro = new ResizeObserver(() => S.L && (paint(), request()));
  ro.observe(wrap);

  // ---- start ----
  const ready = (async () => {
    const meta = await engine.call('timeline_meta', id);
    S.meta = meta;
    S.status = meta.status;
    if (meta.status !== 'ok') {
      note.hidden = false;
      note.textContent = meta.status === 'no-trace'
        ? 'This dataset records no calls over time. The time-order chart shows uftrace recordings (one task at a time) and traced HPCToolkit databases.'
        : 'This trace has no samples: there are no calls to lay out in time.';
      wrap.hidden = detail.hidden = bar.hidden = true;
      return;
    }
    if (summary?.format !== 'uftrace') {
      note.hidden = false;
      note.textContent = 'A sampled trace: each box is a run of consecutive samples in one call, as the samples show it, not a recorded call.';
    }
    S.colors = buildColourTable(meta.names);
    const rows = [...meta.rows].sort((a, b) => a.order - b.order);
    lineSel.replaceChildren(...rows.map((r) => h('option', { value: String(r.line) }, `${r.label} (${formatCount(r.samples)} records)`)));
    const req = (store.get().timeOrderViews || {})[id];
    // A link's line that the trace does not have shows the first line.
    S.line = rows.some((r) => r.line === req?.line) ? req.line : rows[0]?.line ?? 0;
    lineSel.value = String(S.line);
    if (req?.pending) {
      req.pending = false;
      S.pendingView = true;
      S.view = { t0: req.t0, t1: req.t1, top: 0 };
    } else S.view = { t0: 0, t1: Math.max(1, meta.duration_ns), top: 0 };
    await request();
    await whenReady();
  })().catch(report);

  return {
    ready,
    whenReady: () => ready.then(whenReady),
    state() {
      const L = S.L;
      const { w } = size();
      const boxes = [];
      for (let i = 0; L && i < L.n && boxes.length < 5000; i++) {
        const a = L.times[2 * i], b = L.times[2 * i + 1];
        const d = L.cells[i * CELLS];
        boxes.push({
          index: i, name: nameOf(i), depth: d, start_ns: a, end_ns: b, flags: L.cells[i * CELLS + 2], count: L.cells[i * CELLS + 3],
          node: L.cells[i * CELLS + 4], x0: xOf(a, S.view, w), x1: xOf(b, S.view, w), y: AXIS_H + (d - S.view.top + 0.5) * ROW_H,
        });
      }
      const call = (c) => c && { index: c.index, name: c.name, node: c.node, depth: c.depth, start_ns: c.start_ns, end_ns: c.end_ns, text: c.text, duration: c.duration, args: c.args, retval: c.retval, count: c.count, merged: c.merged };
      return {
        dataset: id, status: S.status, error: S.error, line: S.line, label: S.meta?.rows[S.line]?.label ?? null,
        time_range_ns: [S.view.t0, S.view.t1], line_range_ns: S.lineEnds, top: S.view.top,
        exact: L?.info.exact ?? null, samples: L?.info.samples ?? 0, box_count: L?.n ?? 0, max_depth: L?.info.max_depth ?? 0,
        boxes, hover: S.hover, tooltip: tip.hidden ? null : tip.textContent, tooltip_call: S.hover >= 0 ? call(S.hoverInfo) : null,
        selected: S.sel >= 0 ? call(S.selInfo) : null, frames: S.frames, last_layout_ms: S.lastMs, pending: S.inflight, note: note.hidden ? null : note.textContent,
      };
    },
    destroy() {
      S.destroyed = true;
      ro.disconnect();
      window.removeEventListener('mousemove', onMove);
      window.removeEventListener('mouseup', onUp);
      box.remove();
    },
  };
}

export default {
  id: 'timeorder',
  title: 'Time order',
  available: hasTraceLines,
  mount(el, { engine, store }) {
    let shown = null;
    let shownId = null;
    el.classList.add('view-fill');
    return {
      update(state) {
        if (state.selected === shownId) return;
        shown?.destroy();
        shownId = state.selected;
        shown = shownId == null ? null : mountFor(el, engine, store, shownId, store.selectedDataset(state));
      },
      state: () => (shown ? shown.state() : { status: 'none' }),
      whenReady: () => (shown ? shown.whenReady() : Promise.resolve()),
      destroy() {
        shown?.destroy();
        shown = null;
      },
    };
  },
};
