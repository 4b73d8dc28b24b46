// Per-address sample histogram (DCPI profiles): layout, drawing and hit test on a 2D canvas.
// Pure functions of the bins; imports neither the store nor the engine.

const PAD = { left: 56, right: 12, top: 10, bottom: 28 };

/** "0x120000040" for an address held in a double. */
export function hex(a) {
  return `0x${Math.round(a).toString(16)}`;
}

/**
 * Bars for `flat` = [first address, samples, ...] (Session::address_histogram) in a `width` x
 * `height` CSS-pixel area: {bars: [{x0, x1, y, start, end, samples}], max, total, plot}.
 */
export function histogramLayout(flat, width, height) {
  const n = Math.floor((flat ? flat.length : 0) / 2);
  const plot = {
    x: PAD.left,
    y: PAD.top,
    w: Math.max(1, width - PAD.left - PAD.right),
    h: Math.max(1, height - PAD.top - PAD.bottom),
  };
  const step = n > 1 ? flat[2] - flat[0] : 1;
  let max = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    max = Math.max(max, flat[2 * i + 1]);
    total += flat[2 * i + 1];
  }
  const bars = [];
  for (let i = 0; i < n; i++) {
    const samples = flat[2 * i + 1];
    const x0 = plot.x + (i / n) * plot.w;
    const x1 = plot.x + ((i + 1) / n) * plot.w;
    const y = max > 0 ? plot.y + plot.h - (samples / max) * plot.h : plot.y + plot.h;
    bars.push({ x0, x1, y, start: flat[2 * i], end: flat[2 * i] + step - 1, samples });
  }
  return { bars, max, total, plot };
}

/** Index of the bar under CSS x, or -1. */
export function hitTest(layout, x) {
  const { plot, bars } = layout;
  if (!bars.length || x < plot.x || x >= plot.x + plot.w) return -1;
  return Math.min(bars.length - 1, Math.floor(((x - plot.x) / plot.w) * bars.length));
}

/** Draws the bars, a y axis with the peak count and x labels at both ends. */
export function drawHistogram(ctx, layout, width, height, dpr, highlight = -1) {
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const { plot, bars, max } = layout;
  ctx.fillStyle = '#fafafa';
  ctx.fillRect(plot.x, plot.y, plot.w, plot.h);
  bars.forEach((b, i) => {
    if (b.samples <= 0) return;
    ctx.fillStyle = i === highlight ? '#d9480f' : '#1c7ed6';
    // At least one device pixel wide and tall so a lone sample stays visible.
    const w = Math.max(1 / dpr, b.x1 - b.x0);
    const hgt = Math.max(1 / dpr, plot.y + plot.h - b.y);
    ctx.fillRect(b.x0, plot.y + plot.h - hgt, w, hgt);
  });
  ctx.strokeStyle = '#888';
  ctx.lineWidth = 1 / dpr;
  ctx.beginPath();
  ctx.moveTo(plot.x, plot.y);
  ctx.lineTo(plot.x, plot.y + plot.h);
  ctx.lineTo(plot.x + plot.w, plot.y + plot.h);
  ctx.stroke();
  ctx.fillStyle = '#333';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  ctx.fillText(String(max), plot.x - 4, plot.y + 4);
  ctx.fillText('0', plot.x - 4, plot.y + plot.h);
  if (bars.length) {
    ctx.textBaseline = 'top';
    ctx.textAlign = 'left';
    ctx.fillText(hex(bars[0].start), plot.x, plot.y + plot.h + 6);
    ctx.textAlign = 'right';
    ctx.fillText(hex(bars[bars.length - 1].end), plot.x + plot.w, plot.y + plot.h + 6);
  }
}
