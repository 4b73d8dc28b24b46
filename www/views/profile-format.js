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

/**
 * A number as Java's `String.format(fmt, v)` writes it, for the printf-like formats of metric
 * taxonomies and experiment.xml (`%6.2f %%`, `%.3e`), which hpcviewer applies with Java:
 * conversions f, e and E with flags `-+ 0,(`, width and precision (6 when absent), `%%`, and
 * Java's rounding: half-up on the shortest decimal digits that read back as `v` (so 1.005 with
 * `%.2f` is 1.01, where `toFixed` gives 1.00). `null` for a format with anything else (%d, %g,
 * %s ...), which the caller replaces by its own formatting.
 */
export function formatPrintf(fmt, v) {
  if (typeof fmt !== 'string') return null;
  let out = '';
  let used = false;
  const re = /%([-#+ 0,(]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g;
  let at = 0;
  for (let m; (m = re.exec(fmt)); ) {
    out += fmt.slice(at, m.index);
    at = re.lastIndex;
    const [, flags, width, prec, conv] = m;
    if (conv === '%') {
      out += pad('%', width, flags.includes('-'));
      continue;
    }
    if (!'feE'.includes(conv) || used || flags.includes('#')) return null;
    used = true;
    out += javaNumber(v, flags, width === undefined ? 0 : Number(width), prec === undefined ? 6 : Number(prec), conv);
  }
  if (fmt.slice(at).includes('%')) return null;
  return out + fmt.slice(at);
}

function pad(s, width, left) {
  const w = width === undefined ? 0 : Number(width);
  return s.length >= w ? s : left ? s + ' '.repeat(w - s.length) : ' '.repeat(w - s.length) + s;
}

/** The shortest decimal digits of |v| and the exponent of the first: |v| = 0.d1d2... * 10^(e+1). */
function shortestDigits(a) {
  const [mant, exp] = a.toExponential().split('e');
  return { digits: mant.replace('.', ''), exp: Number(exp) };
}

/** `digits` cut to `n` (>= 0) digits, rounded half-up: the digits and whether a carry added one. */
function roundHalfUp(digits, n) {
  if (n >= digits.length) return { digits: digits + '0'.repeat(n - digits.length), carry: false };
  const up = digits.charCodeAt(n) >= 53; // '5'
  const d = digits.slice(0, n).split('').map(Number);
  if (up) {
    let i = n - 1;
    while (i >= 0 && d[i] === 9) d[i--] = 0;
    if (i < 0) return { digits: '1' + d.join(''), carry: true };
    d[i]++;
  }
  return { digits: d.join(''), carry: false };
}

function javaNumber(v, flags, width, prec, conv) {
  const neg = v < 0 || Object.is(v, -0);
  let body;
  if (Number.isNaN(v)) body = 'NaN';
  else if (!Number.isFinite(v)) body = 'Infinity';
  else {
    const a = Math.abs(v);
    if (conv === 'f') {
      let int = '0';
      let frac = '0'.repeat(prec);
      if (a !== 0) {
        const { digits, exp } = shortestDigits(a);
        // Digits kept: those down to 10^-prec; fewer than none round to zero.
        const keep = exp + 1 + prec;
        if (keep >= 0) {
          const r = roundHalfUp(digits, keep);
          const all = r.digits.padStart(prec + 1, '0');
          int = all.slice(0, all.length - prec).replace(/^0+(?=\d)/, '');
          frac = all.slice(all.length - prec);
        }
      }
      if (flags.includes(',')) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
      body = prec ? `${int}.${frac}` : int;
    } else {
      let digits = '0'.repeat(prec + 1);
      let exp = 0;
      if (a !== 0) {
        const s = shortestDigits(a);
        const r = roundHalfUp(s.digits, prec + 1);
        digits = r.carry ? r.digits.slice(0, prec + 1) : r.digits;
        exp = s.exp + (r.carry ? 1 : 0);
      }
      const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
      body = `${digits[0]}${prec ? `.${digits.slice(1)}` : ''}${conv}${e}`;
    }
  }
  const finite = Number.isFinite(v);
  const paren = neg && flags.includes('(') && !Number.isNaN(v);
  const sign = Number.isNaN(v) ? '' : neg ? (paren ? '(' : '-') : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
  const tail = paren ? ')' : '';
  const len = sign.length + body.length + tail.length;
  if (flags.includes('0') && finite && len < width) body = '0'.repeat(width - len) + body;
  return pad(sign + body + tail, width, flags.includes('-'));
}
