// Summary view: what the selected dataset is (format, era/layout, title), its counts, the header
// facts, its files with sizes, and its warnings or the error that stopped its reader.
import { formatBytes, formatCount, h } from '../format.js';
import { selectedDataset } from '../store.js';

const STATUS_TEXT = {
  opened: 'opened',
  probed: 'headers read',
  failed: 'failed',
};

function errorLine(e) {
  return h('div', { class: 'err-line' },
    h('span', { class: 'err-kind' }, e.kind),
    ' ', h('span', { class: 'err-what' }, e.what),
    e.offset_hex ? [' at ', h('code', {}, e.offset_hex)] : null,
    e.file ? [' in ', h('code', { class: 'err-file' }, e.file)] : null);
}

/** Title, else the dataset's folder, else its first file. */
export function displayName(d) {
  return d.title || d.root || (d.files[0] && d.files[0].path) || '(untitled)';
}

/** A file's path below the dataset's folder (the folder is shown in the header). */
function relativePath(d, p) {
  return d.root && p.startsWith(`${d.root}/`) ? p.slice(d.root.length + 1) : p;
}

/**
 * A readable form of a header fact: a trace's "time range" ("<start> .. <end> ns (<s> s)", ns since
 * the epoch for HPCToolkit) becomes its duration and start date; other facts show as they are.
 * The raw text stays in the cell's title.
 */
export function factText(key, value) {
  const m = key === 'time range' && /^(\d+) \.\. (\d+) ns/.exec(value);
  if (!m) return value;
  const a = BigInt(m[1]);
  const b = BigInt(m[2]);
  const dur = b > a ? Number(b - a) : 0;
  const parts = [formatDuration(dur)];
  // Times after 2001 in ns are wall-clock times since the epoch; others (a monotonic clock) are not dates.
  if (a > 1000000000000000000n) {
    const ms = Number(a / 1000000n);
    parts.push(`from ${new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`);
  }
  return parts.join(' · ');
}

/** "2.503 s", "12.4 ms", "830 µs", "95 ns". */
function formatDuration(ns) {
  if (ns >= 3600e9) return `${Math.floor(ns / 3600e9)} h ${Math.round((ns % 3600e9) / 60e9)} min`;
  if (ns >= 60e9) return `${Math.floor(ns / 60e9)} min ${((ns % 60e9) / 1e9).toFixed(1)} s`;
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(3)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(3)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(3)} µs`;
  return `${ns} ns`;
}

function render(el, d) {
  el.replaceChildren();
  if (!d) {
    el.append(h('div', { class: 'empty' },
      h('p', {}, 'No dataset selected.'),
      h('p', { class: 'muted' }, 'Drop an HPCToolkit database folder, an hpcrun measurement folder, a uftrace.data folder or a DCPI profile anywhere on the page.')));
    return;
  }
  const head = h('div', { class: 'summary-head' },
    h('div', { class: 'summary-title-row' },
      h('h2', { class: 'summary-title', 'data-field': 'title' }, displayName(d)),
      h('span', { class: `status status-${d.status}`, 'data-field': 'status' }, STATUS_TEXT[d.status] || d.status)),
    h('div', { class: 'summary-sub' },
      h('span', { class: 'badge', 'data-field': 'format', 'data-format': d.format }, d.format_name),
      h('span', { class: 'layout', 'data-field': 'layout' }, d.layout),
      d.root ? h('span', { class: 'root muted', 'data-field': 'root' }, d.root) : null));

  const counts = !d.counts.length ? null : h('div', { class: 'counts', 'data-field': 'counts' },
    d.counts.map(([k, n]) => h('div', { class: 'count', 'data-count': k },
      h('div', { class: 'count-value' }, formatCount(n)),
      h('div', { class: 'count-label' }, k))));

  const problems = [];
  if (d.error) {
    problems.push(h('div', { class: 'callout callout-error', 'data-field': 'error' },
      h('strong', {}, 'Could not read this dataset: '), errorLine(d.error)));
  }
  if (d.warnings.length) {
    problems.push(h('div', { class: 'callout callout-warn', 'data-field': 'warnings' },
      h('strong', {}, d.warnings.length === 1 ? 'Note' : `${d.warnings.length} notes`),
      h('ul', {}, d.warnings.map((w) => h('li', {}, w.message)))));
  }

  const facts = d.facts.length
    ? h('section', { class: 'card' }, h('h3', {}, 'Header facts'),
      h('table', { class: 'kv', 'data-field': 'facts' },
        h('tbody', {}, d.facts.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k),
          h('td', { title: factText(k, v) === v ? null : v, 'data-fact': k }, factText(k, v)))))))
    : null;

  const files = h('section', { class: 'card' },
    h('h3', {}, `Files `, h('span', { class: 'muted' }, `${d.files.length} · ${formatBytes(d.total_bytes)}`)),
    d.files.length
      ? h('table', { class: 'files', 'data-field': 'files' },
        h('tbody', {}, d.files.map((f) => h('tr', {},
          h('td', { class: 'path', title: f.path }, relativePath(d, f.path)),
          h('td', { class: 'num', title: `${formatCount(f.size)} bytes` }, formatBytes(f.size))))))
      : h('p', { class: 'muted' }, 'Built in memory: no files.'));

  el.append(h('div', { class: 'summary', 'data-dataset': String(d.id) },
    head, problems, counts, h('div', { class: 'cards' }, facts, files)));
}

export default {
  id: 'summary',
  title: 'Summary',
  available: () => true,
  mount(el) {
    let shown = null;
    return {
      update(state) {
        const d = selectedDataset(state);
        if (d === shown) return;
        shown = d;
        render(el, d);
      },
      state() {
        return shown ? { dataset: shown.id, format: shown.format, layout: shown.layout } : { dataset: null };
      },
      destroy() {
        el.replaceChildren();
      },
    };
  },
};
