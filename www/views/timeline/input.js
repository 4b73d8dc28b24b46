// The trace view's input: wheel (zoom; Shift pans time, Alt pans rows), drag (pan; Shift+drag
// selects a range to zoom to), click (crosshair), hover (tooltip and status), keys (Enter puts
// the crosshair in the middle and focuses its call path, Shift+arrows move it), minimap drag, the
// depth view and the row filter. Each turns into a transition of the view state (state.js).

import { keyAction, dragged, selected, centredAt } from './state.js';
import { DEPTH_ROW_H } from './panels.js';
import { formatDuration } from '../../render/timeline-draw.js';

/** Listens on the elements of mounted view `V` (see index.js); returns what removes the window's
 *  listeners. */
export function attachInput(V) {
  const { T, S, dom } = V;
  const { overlay, main, minimap } = dom;

  overlay.addEventListener('wheel', (e) => {
    e.preventDefault();
    const { w } = V.size();
    const frac = Math.min(1, Math.max(0, e.offsetX / w));
    if (e.shiftKey) V.panBy((e.deltaY || e.deltaX) > 0 ? 0.1 : -0.1, true);
    else if (e.altKey) V.panRows(e.deltaY > 0 ? 0.1 : -0.1, true);
    else V.zoomBy(Math.pow(1.0015, e.deltaY), frac, true);
  }, { passive: false });

  overlay.addEventListener('mousedown', (e) => {
    // Offsets first, and no scrolling on focus: focusing a canvas that reaches below the window
    // scrolls it, and offsets read after that point elsewhere (a click picked the wrong row).
    const x0 = e.offsetX, y0 = e.offsetY;
    overlay.focus({ preventScroll: true });
    S.drag = { x0, y0, x: x0, y: y0, view: { ...T.view }, select: e.shiftKey, moved: false };
  });

  const onMove = (e) => {
    const rect = main.getBoundingClientRect();
    const x = e.clientX - rect.left, y = e.clientY - rect.top;
    const { w, h } = V.size();
    const drag = S.drag;
    if (!drag) {
      // The path, not the target: in a shadow root (<hpcscope-view>) the target is the host.
      const inside = x >= 0 && y >= 0 && x < w && y < h && e.composedPath().includes(overlay);
      S.hover = inside ? hoverText(x, y, w, h) : null;
      const c = inside ? T.cellAt(x, y, w, h, S.frame) : null;
      if (c) {
        S.keyCross = false;
        const k = T.keyAt(x, y, h, S.frame);
        V.showTip({ line: c.line, time: c.time, name: k === null ? '…' : k ? S.meta.names[k - 1] : '(no call)', depth: T.view.depth, x, y });
      } else if (!S.keyCross) V.showTip(null);
      V.paintStatus();
      return;
    }
    V.showTip(null);
    drag.x = Math.max(0, Math.min(w, x));
    drag.y = Math.max(0, Math.min(h, y));
    if (Math.abs(drag.x - drag.x0) + Math.abs(drag.y - drag.y0) > 3) drag.moved = true;
    if (drag.select) {
      V.paintOverlay();
      return;
    }
    if (!drag.moved) return;
    V.setView(dragged(drag.view, drag.x0, drag.y0, drag.x, drag.y, w, h), { gesture: true });
  };

  const onUp = () => {
    const d = S.drag;
    if (!d) return;
    S.drag = null;
    const { w, h } = V.size();
    if (d.select && d.moved) {
      V.setView(selected(T.view, d.x0, d.y0, d.x, d.y, w, h));
      V.paintOverlay();
    } else if (!d.moved) {
      const c = T.cellAt(d.x0, d.y0, w, h, S.frame);
      if (c) V.setCrosshair(c.line, c.time);
    }
  };
  window.addEventListener('mousemove', onMove);
  window.addEventListener('mouseup', onUp);

  /** "row label @ time: function" under the pointer (the function once the frame is of this view). */
  function hoverText(x, y, w, h) {
    const c = T.cellAt(x, y, w, h, S.frame);
    if (!c) return null;
    const k = T.keyAt(x, y, h, S.frame);
    const name = k === null ? '' : k ? S.meta.names[k - 1] : '(none)';
    return `${V.rowLabel(c.line)} @ ${formatDuration(c.time)}${name ? ': ' + name : ''}`;
  }

  /** Keys that place or move the crosshair (true when `e` was one). */
  function crossKey(e) {
    const { a, b } = T.shown();
    if (b <= a) return false;
    const mid = () => [T.rows[Math.floor((a + b - 1) / 2)], (T.view.t0 + T.view.t1) / 2];
    let at = null;
    if (e.key === 'Enter' || e.key === ' ') {
      at = S.cross ? [S.cross.line, S.cross.time] : mid();
    } else if (e.shiftKey && e.key.startsWith('Arrow')) {
      const [line, time] = S.cross ? [S.cross.line, S.cross.time] : mid();
      const i = T.rows.indexOf(line);
      const step = T.span() / 50;
      const moves = {
        ArrowLeft: [line, time - step], ArrowRight: [line, time + step],
        ArrowUp: [T.rows[Math.max(0, i - 1)] ?? line, time], ArrowDown: [T.rows[Math.min(T.rows.length - 1, i + 1)] ?? line, time],
      };
      at = moves[e.key];
      if (at) at[1] = Math.max(T.view.t0, Math.min(T.view.t1 - 1, at[1]));
    }
    if (!at) return false;
    e.preventDefault();
    S.keyCross = true;
    const open = e.key === 'Enter';
    V.setCrosshair(at[0], at[1]).then(() => {
      // Enter opens the call path: the entry at the view's depth takes the focus.
      if (open) (dom.pathList.querySelector('li.sel') ?? dom.pathList.firstElementChild)?.focus();
    }).catch(V.report);
    return true;
  }

  overlay.addEventListener('keydown', (e) => {
    if (crossKey(e)) return;
    const actions = {
      undo: () => V.undo(),
      redo: () => V.redo(),
      zoomIn: () => V.zoomBy(0.5),
      zoomOut: () => V.zoomBy(2),
      left: () => V.panBy(-0.1),
      right: () => V.panBy(0.1),
      up: () => V.panRows(-0.25),
      down: () => V.panRows(0.25),
      home: () => V.home(),
    };
    const a = keyAction(e);
    if (!a) return;
    actions[a]();
    e.preventDefault();
  });

  let mmDrag = false;
  const mmMove = (e) => {
    const rect = minimap.getBoundingClientRect();
    const fx = (e.clientX - rect.left) / rect.width;
    const fy = (e.clientY - rect.top) / rect.height;
    V.setView(centredAt(T.view, fx, fy, S.meta.duration_ns), { gesture: true });
  };
  const mmUp = () => { mmDrag = false; };
  overlay.addEventListener('mouseleave', () => {
    if (!S.keyCross) V.showTip(null);
  });
  const mmWindowMove = (e) => mmDrag && mmMove(e);
  minimap.addEventListener('mousedown', (e) => { mmDrag = true; mmMove(e); });
  window.addEventListener('mousemove', mmWindowMove);
  window.addEventListener('mouseup', mmUp);

  dom.depthSel.addEventListener('change', () => V.setView({ ...T.view, depth: Number(dom.depthSel.value) }));
  dom.depthCv.addEventListener('click', (e) => {
    const d = Math.floor(e.offsetY / DEPTH_ROW_H);
    if (S.meta && d < S.meta.max_depth) V.setView({ ...T.view, depth: d });
  });
  let filterTimer = 0;
  const refilter = () => {
    clearTimeout(filterTimer);
    filterTimer = setTimeout(V.applyFilter, 150);
  };
  dom.filterIn.addEventListener('input', refilter);
  dom.minIn.addEventListener('input', refilter);
  dom.groupSel.addEventListener('change', V.applyFilter);

  return () => {
    clearTimeout(filterTimer);
    for (const [type, fn] of [['mousemove', onMove], ['mouseup', onUp], ['mousemove', mmWindowMove], ['mouseup', mmUp]]) {
      window.removeEventListener(type, fn);
    }
  };
}
