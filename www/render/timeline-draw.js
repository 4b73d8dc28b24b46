// Canvas drawing for the trace timeline: colour keys -> pixels, time axis, depth view, summary
// stacks, minimap. Pure functions of their arguments (typed arrays from the engine, sizes, a
// colour table from colours.js' buildColourTable); imports neither the store nor the engine.

/** Unpacks the engine's frame `[width, rows, line..., key...]`. */
export function unpackFrame(packed) {
  const width = packed[0] | 0;
  const rows = packed[1] | 0;
  return {
    width,
    rows,
    lines: packed.subarray(2, 2 + rows),
    keys: packed.subarray(2 + rows, 2 + rows + width * rows),
  };
}

/** Pixel rows [y0, y1) of shown row r out of n over a height of h. */
export function rowSpan(r, n, h) {
  return [Math.floor((r * h) / n), Math.floor(((r + 1) * h) / n)];
}

/** Paints a frame into an ImageData of `height` rows (the frame's width). Each shown row fills its
 * pixel rows; a one-pixel gap separates rows when they are tall enough to afford it. */
export function frameToImage(frame, lut, height, groups, reuse) {
  const { width, rows, keys } = frame;
  // Refinement steps paint the same size again and again: reuse the pixels instead of
  // leaving a frame-sized buffer to the garbage collector each time.
  const img = reuse && reuse.width === Math.max(1, width) && reuse.height === Math.max(1, height)
    ? reuse
    : new ImageData(Math.max(1, width), Math.max(1, height));
  const out = new Uint32Array(img.data.buffer);
  out.fill(lut[0]);
  if (rows === 0 || width === 0) return img;
  const gapColor = (255 << 24) | (255 << 16) | (255 << 8) | 255;
  const groupColor = (255 << 24) | (60 << 16) | (60 << 8) | 60;
  for (let r = 0; r < rows; r++) {
    const [y0, y1] = rowSpan(r, rows, height);
    if (y1 <= y0) continue;
    const src = r * width;
    const first = y0 * width;
    for (let x = 0; x < width; x++) out[first + x] = lut[keys[src + x]] ?? lut[0];
    const gap = y1 - y0 >= 6;
    const last = gap ? y1 - 1 : y1;
    for (let y = y0 + 1; y < last; y++) out.copyWithin(y * width, first, first + width);
    if (gap) out.fill(gapColor, (y1 - 1) * width, y1 * width);
    if (groups && r > 0 && groups[r] !== groups[r - 1]) out.fill(groupColor, first, first + width);
  }
  return img;
}

/** Time axis along the top or bottom of a canvas: ticks are [offsetNs, label] pairs. */
export function drawAxis(ctx, ticks, t0, t1, width, height, css) {
  ctx.save();
  ctx.fillStyle = css?.bg ?? '#fafafa';
  ctx.fillRect(0, 0, width, height);
  ctx.strokeStyle = css?.line ?? '#888';
  ctx.fillStyle = css?.text ?? '#222';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'top';
  ctx.beginPath();
  ctx.moveTo(0, height - 0.5);
  ctx.lineTo(width, height - 0.5);
  const span = Math.max(1, t1 - t0);
  let lastRight = -Infinity;
  for (const [off, label] of ticks) {
    const x = Math.round(((off - t0) / span) * width) + 0.5;
    if (x < 0 || x > width) continue;
    ctx.moveTo(x, height - 7);
    ctx.lineTo(x, height);
    const w = ctx.measureText(label).width;
    const left = Math.min(Math.max(0, x - w / 2), width - w);
    if (left > lastRight + 6) {
      ctx.fillText(label, left, 3);
      lastRight = left + w;
    }
  }
  ctx.stroke();
  ctx.restore();
}

/** Depth view: quads `[depth, x0, x1, key]`, one row of `rowH` px per depth. */
export function drawDepth(ctx, quads, colors, names, width, height, rowH) {
  ctx.save();
  ctx.fillStyle = colors.css[0];
  ctx.fillRect(0, 0, width, height);
  ctx.font = `${Math.min(11, rowH - 3)}px system-ui, sans-serif`;
  ctx.textBaseline = 'middle';
  for (let i = 0; i + 3 < quads.length; i += 4) {
    const d = quads[i], x0 = quads[i + 1], x1 = quads[i + 2], k = quads[i + 3];
    const y = d * rowH;
    if (y >= height) continue;
    ctx.fillStyle = colors.css[k] ?? colors.css[0];
    ctx.fillRect(x0, y, x1 - x0, rowH - 1);
    if (x1 - x0 > 40 && rowH >= 10) {
      ctx.fillStyle = '#111';
      ctx.save();
      ctx.beginPath();
      ctx.rect(x0, y, x1 - x0, rowH);
      ctx.clip();
      ctx.fillText(names[k - 1] ?? '', x0 + 3, y + rowH / 2);
      ctx.restore();
    }
  }
  ctx.restore();
}

/** Summary: for each column a stack of key shares, packed `[width, colStart(width+1)..., (key,
 * count)...]`; keys are stacked in key order so colours stay in place as the view moves. */
export function drawSummary(ctx, packed, colors, height) {
  const width = packed[0] | 0;
  const starts = packed.subarray(1, 2 + width);
  const pairs = packed.subarray(2 + width);
  ctx.save();
  ctx.fillStyle = colors.css[0];
  ctx.fillRect(0, 0, width, height);
  for (let x = 0; x < width; x++) {
    const a = starts[x], b = starts[x + 1];
    let total = 0;
    for (let j = a; j < b; j++) total += pairs[2 * j + 1];
    if (!total) continue;
    let y = height;
    for (let j = a; j < b; j++) {
      const k = pairs[2 * j], n = pairs[2 * j + 1];
      const h = (n / total) * height;
      if (k !== 0) {
        ctx.fillStyle = colors.css[k] ?? '#999';
        ctx.fillRect(x, y - h, 1, h);
      }
      y -= h;
    }
  }
  ctx.restore();
}

/** Viewport rectangle over the minimap image: fractions of the whole time range and row list. */
export function drawViewport(ctx, width, height, fx0, fx1, fy0, fy1) {
  ctx.save();
  const x0 = fx0 * width, x1 = fx1 * width, y0 = fy0 * height, y1 = fy1 * height;
  ctx.fillStyle = 'rgba(0,0,0,0.35)';
  ctx.fillRect(0, 0, width, y0);
  ctx.fillRect(0, y1, width, height - y1);
  ctx.fillRect(0, y0, x0, y1 - y0);
  ctx.fillRect(x1, y0, width - x1, y1 - y0);
  ctx.strokeStyle = '#ffcc00';
  ctx.lineWidth = 2;
  ctx.strokeRect(x0 + 1, y0 + 1, Math.max(2, x1 - x0 - 2), Math.max(2, y1 - y0 - 2));
  ctx.restore();
}

/** Crosshair lines at (x, y) over a canvas. */
export function drawCrosshair(ctx, x, y, width, height) {
  ctx.save();
  ctx.strokeStyle = 'rgba(0,0,0,0.85)';
  ctx.lineWidth = 1;
  ctx.setLineDash([4, 3]);
  ctx.beginPath();
  ctx.moveTo(Math.round(x) + 0.5, 0);
  ctx.lineTo(Math.round(x) + 0.5, height);
  ctx.moveTo(0, Math.round(y) + 0.5);
  ctx.lineTo(width, Math.round(y) + 0.5);
  ctx.stroke();
  ctx.restore();
}

/** Selection rectangle while dragging a range. */
export function drawSelection(ctx, x0, y0, x1, y1) {
  ctx.save();
  ctx.fillStyle = 'rgba(30,120,255,0.15)';
  ctx.strokeStyle = 'rgba(30,120,255,0.9)';
  const x = Math.min(x0, x1), y = Math.min(y0, y1);
  ctx.fillRect(x, y, Math.abs(x1 - x0), Math.abs(y1 - y0));
  ctx.strokeRect(x + 0.5, y + 0.5, Math.abs(x1 - x0), Math.abs(y1 - y0));
  ctx.restore();
}

/** Human duration of a span in ns ("12.5 ms"). */
export function formatDuration(ns) {
  const a = Math.abs(ns);
  const [div, unit] = a >= 1e9 ? [1e9, 's'] : a >= 1e6 ? [1e6, 'ms'] : a >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
  const v = ns / div;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(v === Math.round(v) ? 0 : 2)} ${unit}`;
}
