// Drawing of the per-profile distribution of one node's value: one bar per profile (rank,
// thread, stream) in profile order or sorted, with the mean as a line. No store, no engine.

/** Summary statistics of `values`: {n, min, max, mean, sum, imbalance (max / mean)}. */
export function distributionStats(values) {
  const n = values.length;
  if (!n) return { n: 0, min: 0, max: 0, mean: 0, sum: 0, imbalance: 0 };
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  const mean = sum / n;
  return { n, min, max, mean, sum, imbalance: mean > 0 ? max / mean : 0 };
}

/** Narrowest left gutter (value labels; it grows to the widest), bottom band (first and last
 *  profile, caption), top margin, in CSS pixels. */
const MIN_PAD_L = 24;
const PAD_B = 28;
const PAD_T = 6;

/**
 * Draws bars of `values` (already in the order shown) into a canvas of CSS size width x height.
 * opts = {dpr, color, meanColor, axisColor, caption, first, last (labels of the first and last
 * bar), format (value -> text for the y axis)}. Many profiles are drawn as a filled profile (one
 * column per pixel, the largest value of the profiles that fall in it) so 100,000 ranks draw as
 * fast as 10. Returns the layout `hitDistribution` reads.
 */
export function drawDistribution(ctx, values, width, height, opts = {}) {
  const n = values.length;
  const { max, mean } = distributionStats(values);
  const top = max > 0 ? max : 1;
  const layout = beginPlot(ctx, n, top, width, height, opts);
  if (!n) return layout;
  const { x0: PAD_L, w, h } = layout;
  const v = values;
  ctx.fillStyle = opts.color || '#5b8def';
  if (n <= w) {
    const bw = w / n;
    for (let i = 0; i < n; i++) {
      const bh = Math.max(0, (v[i] / top) * h);
      ctx.fillRect(PAD_L + i * bw, PAD_T + h - bh, Math.max(bw - (bw > 3 ? 1 : 0), 0.6), bh);
    }
  } else {
    for (let px = 0; px < w; px++) {
      const [a, b] = columnRange(px, w, n);
      let m = 0;
      for (let i = a; i < b; i++) if (v[i] > m) m = v[i];
      const bh = (m / top) * h;
      ctx.fillRect(PAD_L + px, PAD_T + h - bh, 1, bh);
    }
  }
  const my = PAD_T + h - (mean / top) * h;
  ctx.strokeStyle = opts.meanColor || '#d0342c';
  ctx.lineWidth = 1;
  ctx.setLineDash([4, 3]);
  ctx.beginPath();
  ctx.moveTo(PAD_L, my + 0.5);
  ctx.lineTo(PAD_L + w, my + 0.5);
  ctx.stroke();
  ctx.setLineDash([]);
  drawAxes(ctx, layout, opts);
  return layout;
}

/**
 * `label` ("NODE 0 / RANK 3 / THREAD 1") shortened to `maxW` pixels: leading id components go
 * first ("… / THREAD 1"), then characters at the end.
 */
function fitLabel(ctx, label, maxW) {
  const parts = label.split(' / ');
  let text = label;
  for (let k = 1; ctx.measureText(text).width > maxW && k < parts.length; k++) text = `… / ${parts.slice(k).join(' / ')}`;
  while (text.length > 1 && ctx.measureText(text).width > maxW) text = `${text.slice(0, -2)}…`;
  return text;
}

/** Profiles [a, b) drawn in pixel column `px` when there are more profiles than columns. */
function columnRange(px, w, n) {
  const a = Math.floor((px / w) * n);
  return [a, Math.max(a + 1, Math.floor(((px + 1) / w) * n))];
}

/**
 * The bar under CSS x `x` of a drawn layout: the position in `values` (the largest of a pixel
 * column's profiles when several share it), or -1 outside the bars.
 */
export function hitDistribution(layout, values, x, y) {
  if (!layout || !layout.n || x < layout.x0 || x >= layout.x0 + layout.w) return -1;
  if (y != null && (y < 0 || y > layout.y0 + layout.h + 2)) return -1;
  const { n, w } = layout;
  const px = x - layout.x0;
  if (n <= w) return Math.min(n - 1, Math.floor((px / w) * n));
  const [a, b] = columnRange(Math.floor(px), w, n);
  let best = a;
  for (let i = a; i < b && i < n; i++) if (values[i] > values[best]) best = i;
  return best;
}

/**
 * Draws two runs' values per profile as pairs (the compare view): for pair i, `base[i]` and
 * `now[i]` (NaN where that run has no such profile) side by side on one value axis. opts as
 * `drawDistribution`, plus baseColor and newColor. More pairs than half the pixel columns are
 * drawn as the base run's filled profile under the new run's as a line (each column the largest
 * value of its pairs). Returns the layout `hitDistribution` reads (n = pairs).
 */
export function drawPairedDistribution(ctx, base, now, width, height, opts = {}) {
  const n = base.length;
  let top = 0;
  for (let i = 0; i < n; i++) top = Math.max(top, base[i] || 0, now[i] || 0);
  if (!(top > 0)) top = 1;
  const layout = beginPlot(ctx, n, top, width, height, opts);
  if (!n) return layout;
  const { x0: PAD_L, w, h } = layout;
  const y = (v) => PAD_T + h - (Math.max(0, v || 0) / top) * h;
  const baseColor = opts.baseColor || '#9aa5b4';
  const newColor = opts.newColor || '#2f6fde';
  if (2 * n <= w) {
    const gw = w / n;
    const gap = gw > 6 ? 1 : 0;
    const bw = Math.max((gw - gap) / 2, 0.5);
    for (let i = 0; i < n; i++) {
      const x = PAD_L + i * gw;
      if (!Number.isNaN(base[i])) {
        ctx.fillStyle = baseColor;
        ctx.fillRect(x, y(base[i]), bw, PAD_T + h - y(base[i]));
      }
      if (!Number.isNaN(now[i])) {
        ctx.fillStyle = newColor;
        ctx.fillRect(x + bw, y(now[i]), bw, PAD_T + h - y(now[i]));
      }
    }
  } else {
    ctx.fillStyle = baseColor;
    ctx.strokeStyle = newColor;
    ctx.beginPath();
    for (let px = 0; px < w; px++) {
      const [a, b] = columnRange(px, w, n);
      let mb = 0;
      let mn = 0;
      for (let i = a; i < b && i < n; i++) {
        if (base[i] > mb) mb = base[i];
        if (now[i] > mn) mn = now[i];
      }
      ctx.fillRect(PAD_L + px, y(mb), 1, PAD_T + h - y(mb));
      if (px === 0) ctx.moveTo(PAD_L, y(mn));
      ctx.lineTo(PAD_L + px + 1, y(mn));
    }
    ctx.stroke();
  }
  drawAxes(ctx, layout, opts);
  return layout;
}

/**
 * Clears the canvas and lays out a plot of `n` bars up to value `top`: the value axis (0, half and
 * `top`, with faint grid lines) left of the plot area, its labels as wide as they need. Returns
 * the layout `{n, x0, w, y0, h}` (nothing drawn when `n` is 0). opts as `drawDistribution`.
 */
function beginPlot(ctx, n, top, width, height, opts) {
  const dpr = opts.dpr || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const fmt = opts.format || ((x) => String(x));
  ctx.font = '10px system-ui, sans-serif';
  const ticks = [0, 0.5, 1].map((f) => [f, fmt(f * top)]);
  const PAD_L = Math.ceil(Math.max(MIN_PAD_L, ...ticks.map(([, t]) => ctx.measureText(t).width + 6)));
  const h = height - PAD_B - PAD_T;
  const w = Math.max(1, width - PAD_L - 2);
  const layout = { n, x0: PAD_L, w, y0: PAD_T, h };
  if (!n) return layout;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  for (const [f, text] of ticks) {
    const y = Math.round(PAD_T + h - f * h) + 0.5;
    ctx.fillStyle = opts.axisColor || '#8892a0';
    ctx.fillText(text, PAD_L - 4, y);
    if (f > 0) {
      ctx.strokeStyle = 'rgba(136, 146, 160, 0.25)';
      ctx.beginPath();
      ctx.moveTo(PAD_L, y);
      ctx.lineTo(PAD_L + w, y);
      ctx.stroke();
    }
  }
  return layout;
}

/** The value and profile axes of a plot laid out by `beginPlot`, and below it the first and
 *  last bar's profile (`opts.first`, `opts.last`) and what the order is (`opts.caption`). */
function drawAxes(ctx, { n, x0: PAD_L, w, h }, opts) {
  const axis = opts.axisColor || '#8892a0';
  ctx.strokeStyle = axis;
  ctx.beginPath();
  ctx.moveTo(PAD_L - 0.5, PAD_T);
  ctx.lineTo(PAD_L - 0.5, PAD_T + h + 0.5);
  ctx.lineTo(PAD_L + w, PAD_T + h + 0.5);
  ctx.stroke();
  ctx.fillStyle = axis;
  ctx.textBaseline = 'top';
  ctx.textAlign = 'left';
  if (opts.first) ctx.fillText(fitLabel(ctx, opts.first, w / 2 - 4), PAD_L, PAD_T + h + 2);
  ctx.textAlign = 'right';
  if (opts.last && n > 1) ctx.fillText(fitLabel(ctx, opts.last, w / 2 - 4), PAD_L + w, PAD_T + h + 2);
  ctx.textAlign = 'center';
  if (opts.caption) ctx.fillText(opts.caption, PAD_L + w / 2, PAD_T + h + 15, w);
  ctx.textAlign = 'left';
}
