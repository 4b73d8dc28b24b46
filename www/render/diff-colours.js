// Colours of the differential flame graph (the compare view): a diverging scale over the relative
// change of a frame between two runs, log2(new / base), blue where the new run spends less, red
// where it spends more, grey where the two agree. Pure functions; no store, no engine.

/** The scale ends at a factor of 2^LOG2_MAX (x4 and x1/4); larger changes take the end colours. */
export const LOG2_MAX = 2;
/** Buckets per side: bucket 0 is "unchanged", STEPS the factor 2^LOG2_MAX. */
export const STEPS = 8;
/** Bucket keys of frames only in one run (outside the scale). */
export const ADDED_KEY = 'added';
export const REMOVED_KEY = 'removed';

const GREY = [226, 226, 230];
const RED = [214, 78, 62];
const BLUE = [58, 124, 196];
const ADDED_RGB = [178, 24, 43];
const REMOVED_RGB = [33, 102, 172];

/** log2(new / base); ±Infinity when one side is 0, NaN when both are. */
export function relativeChange(base, now) {
  if (base === 0 && now === 0) return NaN;
  return Math.log2(Math.abs(now) / Math.abs(base));
}

/**
 * Bucket of a change: an integer in -STEPS..STEPS (0: within a sixteenth of a doubling either way),
 * ADDED_KEY / REMOVED_KEY for frames only in the new / base run (flags 8 / 16 of the engine).
 */
export function changeBucket(base, now, flags = 0) {
  if (flags & 8) return ADDED_KEY;
  if (flags & 16) return REMOVED_KEY;
  const c = relativeChange(base, now);
  if (Number.isNaN(c)) return 0;
  const k = Math.round((Math.max(-LOG2_MAX, Math.min(LOG2_MAX, c)) / LOG2_MAX) * STEPS);
  return Object.is(k, -0) ? 0 : k;
}

function mix(a, b, t) {
  return a.map((x, i) => Math.round(x + (b[i] - x) * t));
}
const css = ([r, g, b]) => `rgb(${r},${g},${b})`;

/** CSS colour of a bucket from changeBucket. */
export function bucketColour(k) {
  if (k === ADDED_KEY) return css(ADDED_RGB);
  if (k === REMOVED_KEY) return css(REMOVED_RGB);
  const t = Math.abs(k) / STEPS;
  return css(mix(GREY, k > 0 ? RED : BLUE, t));
}

/** Entries of the legend, left (less) to right (more): [label, CSS colour]. */
export function legendEntries() {
  const out = [['only in base', bucketColour(REMOVED_KEY)]];
  for (const k of [-STEPS, -STEPS / 2, 0, STEPS / 2, STEPS]) {
    const f = 2 ** ((k / STEPS) * LOG2_MAX);
    const label = k === 0 ? 'same' : k < 0 ? `×1/${Math.round(1 / f)}` : `×${Math.round(f)}`;
    out.push([k === -STEPS ? `≤ ${label}` : k === STEPS ? `≥ ${label}` : label, bucketColour(k)]);
  }
  out.push(['only in new', bucketColour(ADDED_KEY)]);
  return out;
}
