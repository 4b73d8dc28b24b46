// Drawing of the flame graph on a 2D canvas and its hit test. Knows rectangles and colours only:
// no store, no engine. Rectangles come from the engine as struct-of-arrays (x and width in
// fractions of the zoom root); the view passes the window shown (x0..x1 of the zoom root, first
// depth, orientation) so zoom animations redraw without a new layout.

import { colourIndex, paletteColour, LEXICAL, DIMMED, MATCH, MODULE_PALETTE } from './colours.js';

export const ROW_H = 18;
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const LABEL_MIN_PX = 26;

/** Sizes `canvas` to fill `wrap` (at least 100 x 60 CSS pixels) at the device's pixel ratio,
 *  resizing its buffer only when that changes; the CSS size and the ratio. */
export function fitCanvas(wrap, canvas) {
  const r = wrap.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const width = Math.max(100, Math.floor(r.width));
  const height = Math.max(60, Math.floor(r.height));
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
  }
  return { width, height, dpr };
}

/**
 * Unpacks the engine's answer ([node, depth, x, width, name, module, incl, excl, flags]) and
 * precomputes each rectangle's colour bucket for `mode` ('function' | 'module'): a palette index
 * of www/render/colours.js (< 128), 128 + module palette index, 254 for loops and lines, 255 for
 * rectangles without a module.
 */
export function unpackRects(arrays, names, mode) {
  const [node, depth, x, width, name, module, incl, excl, flags] = arrays;
  const n = node.length;
  const color = new Uint8Array(n);
  const nameCache = new Map();
  for (let i = 0; i < n; i++) {
    if (mode === 'module') {
      color[i] = module[i] === 0xffffffff ? 255 : 128 + (module[i] % MODULE_PALETTE.length);
    } else if (flags[i] & 4) {
      color[i] = 254; // loop / line level
    } else {
      let c = nameCache.get(name[i]);
      if (c === undefined) {
        c = colourIndex(names[name[i]] || ''); // the colour the trace view gives the same name
        nameCache.set(name[i], c);
      }
      color[i] = c;
    }
  }
  return { n, node, depth, x, width, name, module, incl, excl, flags, color };
}

function bucketColor(c) {
  if (c >= 128 && c < 128 + MODULE_PALETTE.length) return MODULE_PALETTE[c - 128];
  if (c === 255) return LEXICAL;
  if (c === 254) return LEXICAL;
  return paletteColour(c);
}

/** Screen rectangle of rect `i`, or null when it is off screen. */
export function screenRect(r, i, view) {
  const span = view.x1 - view.x0;
  const sx = ((r.x[i] - view.x0) / span) * view.width;
  const sw = (r.width[i] / span) * view.width;
  const row = r.depth[i] - view.depth0;
  if (row < 0) return null;
  const sy = view.flip ? view.height - (row + 1) * ROW_H : row * ROW_H;
  if (sx + sw < 0 || sx > view.width || sy + ROW_H < 0 || sy > view.height) return null;
  return { x: sx, y: sy, w: sw, h: ROW_H };
}

let charW = 0;
function avgCharWidth(ctx) {
  if (!charW) {
    ctx.font = FONT;
    const sample = 'abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJ0123456789:.';
    charW = (ctx.measureText(sample).width / sample.length) * 1.06;
  }
  return charW;
}

/** Text that fits `px` pixels, with an ellipsis when cut; '' when not even 2 characters fit. */
export function fitLabel(ctx, text, px) {
  const cw = avgCharWidth(ctx);
  const max = Math.floor(px / cw);
  if (max < 2) return '';
  if (text.length <= max) return text;
  return `${text.slice(0, max - 1)}…`;
}

/**
 * Draws the rectangles. view = {width, height, x0, x1, depth0, flip, dpr, selected (cct node),
 * hover (index), searching (bool), names, colourOf (optional: CSS colour of a `r.color` key, for
 * keys other than unpackRects' buckets)}. Rectangles are filled in one path per colour bucket,
 * so a frame with tens of thousands of rectangles stays within a frame budget.
 */
export function drawFlame(ctx, r, view) {
  const dpr = view.dpr || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = view.bg || '#fff';
  ctx.fillRect(0, 0, view.width, view.height);
  if (!r || !r.n) return;
  const span = view.x1 - view.x0;
  const scale = view.width / span;
  const buckets = new Map();
  const labels = [];
  let selectedRect = null;
  let hoverRect = null;
  for (let i = 0; i < r.n; i++) {
    const row = r.depth[i] - view.depth0;
    if (row < 0) continue;
    const sy = view.flip ? view.height - (row + 1) * ROW_H : row * ROW_H;
    if (sy > view.height || sy + ROW_H < 0) continue;
    let sx = (r.x[i] - view.x0) * scale;
    let sw = r.width[i] * scale;
    if (sx + sw < 0 || sx > view.width) continue;
    if (sx < 0) {
      sw += sx;
      sx = 0;
    }
    if (sx + sw > view.width) sw = view.width - sx;
    let key;
    if (view.searching) key = r.flags[i] & 1 ? 'm' : 'd';
    else key = r.color[i];
    let list = buckets.get(key);
    if (!list) buckets.set(key, (list = []));
    // 1px gap between neighbours when there is room for it.
    list.push(sx, sy, sw > 3 ? sw - 1 : Math.max(sw, 0.5), ROW_H - 1);
    if (sw >= LABEL_MIN_PX) labels.push(i, sx, sy, sw);
    if (view.selected === r.node[i]) selectedRect = [sx, sy, sw];
    if (view.hover === i) hoverRect = [sx, sy, sw];
  }
  for (const [key, list] of buckets) {
    ctx.fillStyle = key === 'm' ? MATCH : key === 'd' ? DIMMED : (view.colourOf || bucketColor)(key);
    ctx.beginPath();
    for (let k = 0; k < list.length; k += 4) ctx.rect(list[k], list[k + 1], list[k + 2], list[k + 3]);
    ctx.fill();
  }
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  ctx.fillStyle = '#1d1d1f';
  for (let k = 0; k < labels.length; k += 4) {
    const i = labels[k];
    const text = fitLabel(ctx, view.names[r.name[i]] || '', labels[k + 3] - 8);
    if (text) ctx.fillText(text, labels[k + 1] + 4, labels[k + 2] + ROW_H / 2);
  }
  if (hoverRect) {
    ctx.strokeStyle = 'rgba(0,0,0,0.55)';
    ctx.lineWidth = 1;
    ctx.strokeRect(hoverRect[0] + 0.5, hoverRect[1] + 0.5, Math.max(hoverRect[2] - 1, 1), ROW_H - 2);
  }
  if (selectedRect) {
    ctx.strokeStyle = '#0b57d0';
    ctx.lineWidth = 2;
    ctx.strokeRect(selectedRect[0] + 1, selectedRect[1] + 1, Math.max(selectedRect[2] - 2, 1), ROW_H - 3);
  }
}

/** Index of the rectangle under (px, py) in CSS pixels, or -1. */
export function hitTest(r, view, px, py) {
  if (!r) return -1;
  const span = view.x1 - view.x0;
  const row = view.flip ? Math.floor((view.height - py) / ROW_H) : Math.floor(py / ROW_H);
  const depth = row + view.depth0;
  const fx = view.x0 + (px / view.width) * span;
  let best = -1;
  for (let i = 0; i < r.n; i++) {
    if (r.depth[i] !== depth) continue;
    if (fx >= r.x[i] && fx < r.x[i] + r.width[i]) {
      best = i;
      break;
    }
  }
  return best;
}
