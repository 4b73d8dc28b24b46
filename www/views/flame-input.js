// Mouse, wheel and keyboard input of the flame graph (flame-graph.js): hover shows the tooltip, a
// click selects a frame without zooming, a double click (or Enter) zooms to it; the wheel zooms
// the x axis around the pointer (Shift + wheel scrolls the depth), a drag zooms to the dragged
// span; arrows move the selection, + and - zoom the axis, Escape zooms out, Home shows it all.
import { hitTest, ROW_H } from '../render/flame-draw.js';

/** Narrowest window of the zoom root the axis zooms to (fraction of its width). */
const MIN_SPAN = 1e-9;
/** Pixels a press must move to be a drag, not a click. */
const DRAG_PX = 4;

/**
 * F = {S (the graph's state: rects, view, x0, x1, depth0, maxDepth, zoom, path, selected, hover),
 * canvas, band (the drag band element), size(), redraw(), relayout(), zoomTo(node, index),
 * showTip(index, px, py), hideTip(), onSelect(node, source)}.
 */
export function attachFlameInput(F) {
  const { S, canvas, band } = F;
  let drag = null; // {x0, x, moved} while the button is down
  let relayoutTimer = null;

  function pos(e) {
    const b = canvas.getBoundingClientRect();
    return [e.clientX - b.left, e.clientY - b.top];
  }
  /** Shows window [a, b] of the zoom root: the last layout stretched at once, then a new one. */
  function setWindow(a, b) {
    let span = Math.max(MIN_SPAN, Math.min(1, b - a));
    let x0 = Math.max(0, Math.min(1 - span, a));
    if (span >= 1) [x0, span] = [0, 1];
    if (x0 === S.x0 && x0 + span === S.x1) return;
    S.x0 = x0;
    S.x1 = x0 + span;
    F.redraw();
    clearTimeout(relayoutTimer);
    relayoutTimer = setTimeout(() => F.relayout(), 60);
  }
  /** Zooms the axis by `factor` (< 1 narrows) keeping fraction `at` of the canvas in place. */
  function zoomAxis(factor, at) {
    const span = S.x1 - S.x0;
    const fx = S.x0 + at * span;
    const next = span * factor;
    setWindow(fx - at * next, fx - at * next + next);
  }
  function select(i) {
    S.selected = S.rects.node[i];
    F.onSelect(S.selected, 'flame');
    F.redraw();
  }

  canvas.addEventListener('mousemove', (e) => {
    if (!S.view || S.anim) return;
    const [px, py] = pos(e);
    if (drag) {
      drag.x = px;
      if (Math.abs(px - drag.x0) >= DRAG_PX) drag.moved = true;
      if (drag.moved) {
        band.hidden = false;
        band.style.left = `${Math.min(px, drag.x0)}px`;
        band.style.width = `${Math.abs(px - drag.x0)}px`;
        F.hideTip();
        return;
      }
    }
    const i = hitTest(S.rects, S.view, px, py);
    if (i !== S.hover) {
      S.hover = i;
      F.redraw();
    }
    F.showTip(i, px, py);
    canvas.style.cursor = i >= 0 ? 'pointer' : 'default';
  });
  canvas.addEventListener('mouseleave', () => {
    S.hover = -1;
    F.hideTip();
    F.redraw();
  });
  canvas.addEventListener('mousedown', (e) => {
    if (e.button !== 0 || !S.view) return;
    const [px] = pos(e);
    drag = { x0: px, x: px, moved: false };
  });
  window.addEventListener('mouseup', onUp);
  function onUp(e) {
    const d = drag;
    drag = null;
    if (!d) return;
    band.hidden = true;
    const [px, py] = pos(e);
    if (d.moved) {
      const w = S.view.width;
      const span = S.x1 - S.x0;
      const a = S.x0 + (Math.min(d.x0, px) / w) * span;
      const b = S.x0 + (Math.max(d.x0, px) / w) * span;
      setWindow(a, b);
      return;
    }
    // The path, not the target: inside a shadow root (the <hpcscope-view> element) a window
    // listener sees the host as the target.
    if (!e.composedPath().includes(canvas)) return;
    const i = hitTest(S.rects, S.view, px, py);
    if (i < 0) return;
    F.hideTip();
    select(i);
  }
  canvas.addEventListener('dblclick', (e) => {
    if (!S.view) return;
    const [px, py] = pos(e);
    const i = hitTest(S.rects, S.view, px, py);
    if (i < 0) return;
    F.hideTip();
    S.selected = S.rects.node[i];
    F.zoomTo(S.selected, i);
  });
  canvas.addEventListener('wheel', (e) => {
    if (!S.rects) return;
    e.preventDefault();
    if (e.shiftKey) {
      const { height } = F.size();
      const visible = Math.floor(height / ROW_H);
      const maxStart = Math.max(0, S.maxDepth + 2 - visible);
      const next = Math.max(0, Math.min(maxStart, S.depth0 + Math.sign(e.deltaY || e.deltaX) * 3 * (S.flip ? -1 : 1)));
      if (next !== S.depth0) {
        S.depth0 = next;
        F.relayout();
      }
      return;
    }
    const [px] = pos(e);
    const { width } = F.size();
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      const span = S.x1 - S.x0;
      setWindow(S.x0 + (e.deltaX / width) * span, S.x1 + (e.deltaX / width) * span);
      return;
    }
    zoomAxis(Math.exp(Math.max(-1, Math.min(1, e.deltaY / 500))), px / width);
  }, { passive: false });
  canvas.addEventListener('keydown', (e) => {
    const r = S.rects;
    if (!r) return;
    const i = S.selected == null ? -1 : r.node.indexOf(S.selected);
    const up = S.flip ? 'ArrowDown' : 'ArrowUp';
    const down = S.flip ? 'ArrowUp' : 'ArrowDown';
    const zoomed = S.x0 > 0 || S.x1 < 1;
    if (e.key === 'Escape' || e.key === 'Backspace') {
      e.preventDefault();
      if (zoomed) setWindow(0, 1);
      else if (S.path.length > 1) F.zoomTo(S.path[S.path.length - 2]);
      return;
    }
    if (e.key === 'Home') {
      e.preventDefault();
      F.zoomTo(0);
      return;
    }
    if (e.key === '+' || e.key === '=' || e.key === '-') {
      e.preventDefault();
      // Around the selected frame when it is shown, else the middle.
      const at = i >= 0 ? Math.max(0, Math.min(1, (r.x[i] + r.width[i] / 2 - S.x0) / (S.x1 - S.x0))) : 0.5;
      zoomAxis(e.key === '-' ? 2 : 0.5, at);
      return;
    }
    if (e.key === 'Enter' && i >= 0) {
      e.preventDefault();
      F.zoomTo(r.node[i], i);
      return;
    }
    let next = -1;
    if (i < 0) next = 0;
    else if (e.key === up) next = findRect(r, r.depth[i] - 1, r.x[i] + r.width[i] / 2);
    else if (e.key === down) next = findRect(r, r.depth[i] + 1, r.x[i], r.x[i] + r.width[i]);
    else if (e.key === 'ArrowLeft') next = neighbour(r, i, -1);
    else if (e.key === 'ArrowRight') next = neighbour(r, i, 1);
    else return;
    e.preventDefault();
    if (next >= 0) {
      select(next);
      const { width, height } = F.size();
      const row = r.depth[next] - S.depth0;
      const sy = S.flip ? height - (row + 1) * ROW_H : row * ROW_H;
      const sx = ((r.x[next] - S.x0) / (S.x1 - S.x0)) * width;
      F.showTip(next, Math.max(0, Math.min(width - 40, sx + 8)), sy + ROW_H / 2);
    }
  });
  return () => {
    window.removeEventListener('mouseup', onUp);
    clearTimeout(relayoutTimer);
  };
}

function findRect(r, depth, x, xEnd) {
  let best = -1;
  for (let i = 0; i < r.n; i++) {
    if (r.depth[i] !== depth) continue;
    if (xEnd === undefined) {
      if (x >= r.x[i] && x <= r.x[i] + r.width[i]) return i;
    } else if (r.x[i] >= x - 1e-12 && r.x[i] < xEnd && (best < 0 || r.x[i] < r.x[best])) best = i;
  }
  return best;
}

function neighbour(r, i, dir) {
  let best = -1;
  for (let j = 0; j < r.n; j++) {
    if (j === i || r.depth[j] !== r.depth[i]) continue;
    const d = (r.x[j] - r.x[i]) * dir;
    if (d > 0 && (best < 0 || d < (r.x[best] - r.x[i]) * dir)) best = j;
  }
  return best;
}
