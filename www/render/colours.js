// Colours of functions and modules, shared by the flame graph (flame-draw.js) and the trace view
// (timeline-draw.js, views/timeline/): a function's colour depends on its display name alone, so
// it is the same in every view, every dataset and every zoom. Pure functions; no store, no engine.

/**
 * The key is the display name: both views have it (the flame graph's `profile_meta` names, the
 * trace's `timeline_meta` key names), while the trace keys carry no function id or module (one key
 * per distinct frame name, src/analysis/timeline.rs), as hpcviewer colours by name. Same-named
 * functions of two modules therefore share a colour in both views.
 *
 * 64 colours, hues a golden angle apart, lightness and saturation in bands: mid-light enough
 * that dark labels stay readable in the flame graph, strong enough to tell trace cells apart.
 */
export const FUNCTION_COLOURS = 64;

/** [r, g, b] of palette entry i. */
const PALETTE_RGB = Array.from({ length: FUNCTION_COLOURS }, (_, i) => {
  const hue = ((i * 137.508) % 360) / 360;
  const sat = [0.72, 0.62, 0.8][i % 3];
  const light = [0.7, 0.58, 0.8][Math.floor(i / 3) % 3];
  return hslToRgb(hue, sat, light);
});
const PALETTE_CSS = PALETTE_RGB.map(([r, g, b]) => `rgb(${r},${g},${b})`);

/** Palette index of a function's display name (FNV-1a over UTF-16 code units). */
export function colourIndex(name) {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % FUNCTION_COLOURS;
}

/** CSS colour of palette entry i (from colourIndex). */
export function paletteColour(i) {
  return PALETTE_CSS[i % FUNCTION_COLOURS];
}

/** [r, g, b] of a function's display name. */
export function functionRgb(name) {
  return PALETTE_RGB[colourIndex(name)];
}

/** CSS colour of a function's display name. */
export function functionColour(name) {
  return PALETTE_CSS[colourIndex(name)];
}

/** Loops, lines and unknown modules in the flame graph. */
export const LEXICAL = 'hsl(210 12% 84%)';
/** Flame-graph rectangles that do not match a search, and those that do. */
export const DIMMED = 'hsl(0 0% 88%)';
export const MATCH = 'hsl(300 75% 62%)';

/** Twelve clearly distinct pastel colours for load modules (few per program, told apart at a glance). */
export const MODULE_PALETTE = [
  '#8fb8e8', '#f4b183', '#a9d18e', '#e6a6c7', '#ffd966', '#b4a7d6',
  '#76d7c4', '#f19c99', '#c9c9c9', '#d5e8a0', '#9dc3e6', '#e2b48c',
];

/** Colour (CSS) of module `m` in the flame graph's module mode; unknown modules grey. */
export function moduleColour(m) {
  return m === 0xffffffff ? LEXICAL : MODULE_PALETTE[m % MODULE_PALETTE.length];
}

/** Trace background: key 0 (no sample in force / no activity). */
export const EMPTY_RGB = [246, 246, 248];

/** Colour table of the trace's keys: lut[k] is the ImageData word (little-endian RGBA) of key k,
 *  whose name is names[k - 1], css[k] the same colour as a CSS string; key 0 is EMPTY_RGB. */
export function buildColourTable(names) {
  const lut = new Uint32Array(names.length + 1);
  const css = new Array(names.length + 1);
  const put = (k, [r, g, b]) => {
    lut[k] = ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
    css[k] = `rgb(${r},${g},${b})`;
  };
  put(0, EMPTY_RGB);
  names.forEach((n, i) => put(i + 1, functionRgb(n)));
  return { lut, css };
}

function hslToRgb(h, s, l) {
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const f = (t) => {
    if (t < 0) t += 1;
    if (t > 1) t -= 1;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  return [Math.round(f(h + 1 / 3) * 255), Math.round(f(h) * 255), Math.round(f(h - 1 / 3) * 255)];
}
