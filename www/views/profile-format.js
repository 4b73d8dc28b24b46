// Number formatting shared by the profile and compare views: metric values with their unit,
// percents, signed deltas and ratios of two runs.

const SI = [
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** "1.21 s", "350 ms", "4.2 M", "12" — four significant digits at most. */
export function formatValue(v, unit = '') {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return unit ? `0 ${unit}` : '0';
  const a = Math.abs(v);
  const u = (unit || '').trim();
  if (u === 's' || u === 'sec' || /\(sec\)$/i.test(u)) {
    if (a >= 1) return `${trim(v.toPrecision(4))} s`;
    if (a >= 1e-3) return `${trim((v * 1e3).toPrecision(4))} ms`;
    if (a >= 1e-6) return `${trim((v * 1e6).toPrecision(4))} µs`;
    return `${trim((v * 1e9).toPrecision(4))} ns`;
  }
  if (u === 'ns') {
    if (a >= 1e9) return `${trim((v / 1e9).toPrecision(4))} s`;
    if (a >= 1e6) return `${trim((v / 1e6).toPrecision(4))} ms`;
    if (a >= 1e3) return `${trim((v / 1e3).toPrecision(4))} µs`;
    return `${trim(v.toPrecision(4))} ns`;
  }
  const suffix = u ? ` ${u}` : '';
  for (const [f, p] of SI) if (a >= f) return `${trim((v / f).toPrecision(4))}${p}${suffix}`;
  if (a < 1e-3) return `${v.toExponential(2)}${suffix}`;
  return `${trim(v.toPrecision(4))}${suffix}`;
}

function trim(s) {
  return s.includes('e') || !s.includes('.') ? s : s.replace(/\.?0+$/, '');
}

/** "45.2%" of `total` (empty when the total is 0). */
export function formatPercent(v, total) {
  if (!total) return '';
  const p = (v / total) * 100;
  if (Math.abs(p) >= 99.95 || p === 0) return `${p.toFixed(0)}%`;
  return `${p.toFixed(Math.abs(p) < 10 ? 2 : 1)}%`;
}

/**
 * Signed value: "+1.2 s", "−350 ms". `scale` (the larger of the two values compared) turns a
 * difference within 1e-9 of it, rounding residue of sums taken in another order, into 0.
 */
export function formatDelta(v, unit, scale = 0) {
  if (!v || Math.abs(v) <= 1e-9 * Math.abs(scale)) return formatValue(0, unit);
  return `${v > 0 ? '+' : '−'}${formatValue(Math.abs(v), unit)}`;
}

/** new / base as "×1.25", "new only", "—" (both 0). */
export function formatRatio(base, now) {
  if (!base && !now) return '—';
  if (!base) return 'new only';
  if (!now) return 'base only';
  const r = now / base;
  return `×${r >= 100 ? r.toFixed(0) : r.toPrecision(3)}`;
}

/** Parses "0-3, 8, 10-12" into sorted unique indexes (null when malformed). */
export function parseIndexList(text, limit) {
  const out = new Set();
  for (const part of text.split(',')) {
    const p = part.trim();
    if (!p) continue;
    const m = /^(\d+)\s*(?:-\s*(\d+))?$/.exec(p);
    if (!m) return null;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || b >= limit) return null;
    for (let i = a; i <= b; i++) out.add(i);
  }
  return [...out].sort((x, y) => x - y);
}
