// The time-order chart's picture and hit test: boxes of calls (from the engine's `time_order`:
// `[start, end]` ns offsets per box and `[depth, key, flags, count, node]` cells) at their time
// and depth. Pure functions of the layout and the view; no store, no engine.

export const CELLS = 5;
export const FLAGS = { CLIPPED_START: 1, OPEN_END: 2, NO_RETURN: 4, MERGED: 8, SAMPLED: 16 };
export const ROW_H = 18;
export const AXIS_H = 20;

/** Boxes come sorted by (depth, start): `first[d]` is the index of the first box at depth d. */
export function depthIndex(cells, n) {
  const first = [];
  for (let i = 0; i < n; i++) {
    const d = cells[i * CELLS];
    while (first.length <= d) first.push(i);
  }
  first.push(n);
  return first;
}

/** x of time `t` (ns offset) in a view {t0, t1} `w` px wide. */
export const xOf = (t, v, w) => ((t - v.t0) / (v.t1 - v.t0)) * w;

/**
 * Draws `L` ({times, cells, n, first}) over view `v` ({t0, t1, top}: top = first depth shown)
 * into a `w` x `h` CSS-px canvas context. `colour(key)` gives a box's fill; `sel` and `hover` are
 * box indexes (or -1); `name(i)` a box's label; `ticks` [[offset, label]].
 */
export function drawTimeOrder(ctx, L, v, w, h, { colour, name, sel = -1, hover = -1, ticks = [], dark = false }) {
  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  const fg = dark ? '#e3e7ee' : '#1d232b';
  // Axis.
  ctx.fillStyle = fg;
  ctx.strokeStyle = dark ? '#323844' : '#dde1e7';
  for (const [t, label] of ticks) {
    const x = Math.round(xOf(t, v, w)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(x, AXIS_H - 6);
    ctx.lineTo(x, h);
    ctx.stroke();
    ctx.fillText(label, x + 3, AXIS_H / 2 - 2);
  }
  if (!L) return;
  const rows = Math.ceil((h - AXIS_H) / ROW_H);
  for (let d = v.top; d < Math.min(v.top + rows, L.first.length - 1); d++) {
    const y = AXIS_H + (d - v.top) * ROW_H;
    let lastX = -1;
    for (let i = L.first[d]; i < L.first[d + 1]; i++) {
      const a = xOf(L.times[2 * i], v, w);
      const b = xOf(L.times[2 * i + 1], v, w);
      if (b < 0 || a > w) continue;
      const x0 = Math.max(-1, a);
      const x1 = Math.min(w + 1, Math.max(b, x0 + 1));
      // Boxes inside one pixel already drawn add nothing.
      if (x1 <= lastX) continue;
      lastX = x1;
      const flags = L.cells[i * CELLS + 2];
      ctx.globalAlpha = flags & FLAGS.MERGED ? 0.55 : 1;
      ctx.fillStyle = colour(L.cells[i * CELLS + 1]);
      // A one-pixel gap after boxes wide enough to spare it tells back-to-back calls apart.
      ctx.fillRect(x0, y, x1 - x0 - (x1 - x0 >= 4 ? 1 : 0), ROW_H - 1);
      ctx.globalAlpha = 1;
      if (x1 - x0 > 28 && !(flags & FLAGS.MERGED)) {
        ctx.fillStyle = '#1d232b';
        const tx = Math.max(x0, 0) + 3;
        ctx.save();
        ctx.beginPath();
        ctx.rect(tx, y, Math.min(x1, w) - tx - 2, ROW_H);
        ctx.clip();
        ctx.fillText(name(i), tx, y + ROW_H / 2);
        ctx.restore();
      }
    }
  }
  for (const [i, style, width] of [[hover, dark ? '#ffffff' : '#1d232b', 1], [sel, '#2f6fde', 2]]) {
    if (i < 0 || i >= L.n) continue;
    const d = L.cells[i * CELLS];
    if (d < v.top || d >= v.top + rows) continue;
    const x0 = Math.max(-2, xOf(L.times[2 * i], v, w));
    const x1 = Math.min(w + 2, Math.max(xOf(L.times[2 * i + 1], v, w), x0 + 1));
    ctx.strokeStyle = style;
    ctx.lineWidth = width;
    ctx.strokeRect(x0 + 0.5, AXIS_H + (d - v.top) * ROW_H + 0.5, x1 - x0 - 1, ROW_H - 2);
    ctx.lineWidth = 1;
  }
}

/** Index of the box under CSS point (x, y), or -1. A box narrower than a pixel is hit over one. */
export function hitTimeOrder(L, v, w, x, y) {
  if (!L || y < AXIS_H) return -1;
  const d = v.top + Math.floor((y - AXIS_H) / ROW_H);
  if (d >= L.first.length - 1) return -1;
  // The last box at depth d starting at or before x.
  let lo = L.first[d], hi = L.first[d + 1];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xOf(L.times[2 * mid], v, w) <= x) lo = mid + 1;
    else hi = mid;
  }
  const i = lo - 1;
  if (i < L.first[d]) return -1;
  const a = xOf(L.times[2 * i], v, w);
  const b = Math.max(xOf(L.times[2 * i + 1], v, w), a + 1);
  return x < b ? i : -1;
}

/**
 * The box keyboard navigation moves to from box `i`: 'left'/'right' the previous/next box at its
 * depth, 'up' the box at depth - 1 holding its start, 'down' the first box at depth + 1 that starts
 * inside it. -1 when there is none.
 */
export function neighbour(L, i, dir) {
  const d = L.cells[i * CELLS];
  const s = L.times[2 * i], e = L.times[2 * i + 1];
  if (dir === 'left') return i > L.first[d] ? i - 1 : -1;
  if (dir === 'right') return i + 1 < L.first[d + 1] ? i + 1 : -1;
  const dd = dir === 'up' ? d - 1 : d + 1;
  if (dd < 0 || dd >= L.first.length - 1) return -1;
  for (let j = L.first[dd]; j < L.first[dd + 1]; j++) {
    const js = L.times[2 * j], je = L.times[2 * j + 1];
    if (dir === 'up' && js <= s && je >= e) return j;
    if (dir === 'down' && js >= s && js < e) return j;
    if (js >= e) break;
  }
  return -1;
}
