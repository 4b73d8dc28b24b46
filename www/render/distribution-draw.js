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

/**
 * Draws bars of `values` into a canvas of CSS size width x height. opts = {sorted, dpr, color,
 * meanColor, axisColor}. Many profiles are drawn as a filled profile (one column per pixel, the
 * largest value of the profiles that fall in it) so 100,000 ranks draw as fast as 10.
 */
export function drawDistribution(ctx, values, width, height, opts = {}) {
  const dpr = opts.dpr || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const n = values.length;
  if (!n) return;
  const v = opts.sorted ? Float64Array.from(values).sort().reverse() : values;
  const { max, mean } = distributionStats(values);
  const top = max > 0 ? max : 1;
  const padL = 2;
  const padB = 14;
  const h = height - padB - 4;
  const w = width - padL - 2;
  ctx.fillStyle = opts.color || '#5b8def';
  if (n <= w) {
    const bw = w / n;
    for (let i = 0; i < n; i++) {
      const bh = Math.max(0, (v[i] / top) * h);
      ctx.fillRect(padL + i * bw, 4 + h - bh, Math.max(bw - (bw > 3 ? 1 : 0), 0.6), bh);
    }
  } else {
    for (let px = 0; px < w; px++) {
      const a = Math.floor((px / w) * n);
      const b = Math.max(a + 1, Math.floor(((px + 1) / w) * n));
      let m = 0;
      for (let i = a; i < b; i++) if (v[i] > m) m = v[i];
      const bh = (m / top) * h;
      ctx.fillRect(padL + px, 4 + h - bh, 1, bh);
    }
  }
  const my = 4 + h - (mean / top) * h;
  ctx.strokeStyle = opts.meanColor || '#d0342c';
  ctx.lineWidth = 1;
  ctx.setLineDash([4, 3]);
  ctx.beginPath();
  ctx.moveTo(padL, my + 0.5);
  ctx.lineTo(padL + w, my + 0.5);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.strokeStyle = opts.axisColor || '#8892a0';
  ctx.beginPath();
  ctx.moveTo(padL, 4 + h + 0.5);
  ctx.lineTo(padL + w, 4 + h + 0.5);
  ctx.stroke();
  ctx.fillStyle = opts.axisColor || '#8892a0';
  ctx.font = '10px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  ctx.fillText(opts.sorted ? 'profiles, largest first' : 'profiles in order', padL, 4 + h + 2);
}
