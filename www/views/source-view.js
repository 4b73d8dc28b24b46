// The source view of the Profile tab: a source file at a line with the current metric's per-line
// values (inclusive and exclusive, aggregated in Rust: src/analysis/source.rs) and a gutter heat
// bar. Files come from the dataset's src/ folder, its URL (fetched bounded by the Worker) or a
// file the user adds. Only the rows in view are drawn, so a file of millions of lines scrolls.
import { h, formatBytes, formatCount } from '../format.js';
import { formatValue, formatPercent } from './profile-format.js';

const ROW_H = 18;
/** Rows drawn beyond the visible ones, above and below. */
const PAD_ROWS = 20;
/** Most bytes of a file the user adds that are read (the engine shows no more than 4 MiB). */
const ADD_LIMIT = 4 << 20;


/**
 * `el`: the panel (hidden while closed). `metric()` the current metric index; `url()` the URL the
 * dataset was opened from (or null): its src/ copies are fetched from there when missing.
 */
export function createSourceView(el, { engine, id, metric, url }) {
  const S = { open: false, doc: null, lines: [], byLine: new Map(), maxIncl: 0, tried: new Set(), seq: 0, destroyed: false };
  const title = h('div', { class: 'sv-title', 'data-testid': 'source-title' });
  const note = h('div', { class: 'sv-note muted', 'data-testid': 'source-note' });
  const closeBtn = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close the source view', title: 'Close', onclick: () => close() }, '×');
  const hotBtn = h('button', { type: 'button', class: 'btn btn-small', title: 'Go to the hottest line of this file', onclick: () => goHottestLine() }, 'Hottest line');
  const head = h('div', { class: 'sv-head' }, h('div', { class: 'sv-head-text' }, title, note), hotBtn, closeBtn);
  const rows = h('div', { class: 'sv-rows' });
  const scroller = h('div', { class: 'sv-scroll', tabindex: '0', 'data-testid': 'source-scroll', 'aria-label': 'Source text' }, rows);
  const body = h('div', { class: 'sv-body' });
  el.append(head, body);
  el.hidden = true;
  scroller.addEventListener('scroll', () => drawRows());

  function close() {
    S.open = false;
    S.doc = null;
    el.hidden = true;
    el.closest('.pv-lower')?.classList.remove('has-source');
  }

  function openPanel() {
    S.open = true;
    el.hidden = false;
    el.closest('.pv-lower')?.classList.add('has-source');
  }

  /** Fetches the recorded path from the dataset's URL once per path; true when it was found. */
  async function tryFetch(path, candidates) {
    const base = url();
    if (!base || !candidates.length || S.tried.has(path)) return false;
    S.tried.add(path);
    const r = await engine.fetchSource(id, base, path, candidates);
    return !!r.found;
  }

  /** Shows `path` (recorded path or file name) at `line`; resolves to the shown document. */
  async function show(path, line) {
    const seq = ++S.seq;
    openPanel();
    let doc = await engine.call('source_text', id, path, line || 1, metric());
    if (doc.status === 'missing' && (await tryFetch(doc.path, doc.candidates))) {
      doc = await engine.call('source_text', id, path, line || 1, metric());
    }
    if (S.destroyed || seq !== S.seq) return doc;
    S.doc = doc;
    S.lines = doc.status === 'shown' ? doc.text.split('\n') : [];
    S.byLine = new Map(doc.lines.map((v) => [v.line, v]));
    S.maxIncl = doc.lines.reduce((m, v) => Math.max(m, v.inclusive), 0);
    render();
    return doc;
  }

  /** The file of context `node`: shown when the panel is open or the file is available (a
   *  selection must not fail for its source: a problem is said in the open panel). */
  async function showNode(node) {
    try {
      const loc = await engine.call('source_location', id, node);
      if (!loc || S.destroyed) return null;
      if (!loc.available && !S.open) {
        const doc = await engine.call('source_text', id, loc.path, loc.line, metric());
        if (!(await tryFetch(doc.path, doc.candidates))) return null;
      }
      return await show(loc.path, loc.line);
    } catch (err) {
      if (S.open) note.textContent = `Could not show the source: ${err.message}`;
      return null;
    }
  }

  /** The hottest statement of the profile (no arguments to hpcscope.showSource). */
  async function showHottest() {
    const loc = await engine.call('source_hottest', id, metric());
    if (!loc) {
      openPanel();
      S.doc = null;
      title.textContent = 'No source lines';
      note.textContent = 'This profile has no statement with a value of this metric, so there is no hottest line to show.';
      body.replaceChildren();
      return null;
    }
    return show(loc.path, loc.line);
  }

  function goHottestLine() {
    if (!S.doc || !S.doc.lines.length) return;
    const best = S.doc.lines.reduce((a, v) => (v.exclusive > a.exclusive ? v : a), S.doc.lines[0]);
    S.doc.line = best.line;
    render();
  }

  function render() {
    const d = S.doc;
    const short = d.path.split('/').pop();
    title.replaceChildren(h('span', { class: 'sv-file', title: d.path }, short), h('span', { class: 'sv-line' }, `:${d.line}`));
    const notes = [];
    hotBtn.hidden = d.status !== 'shown' || !d.lines.length;
    if (d.status === 'missing') {
      body.replaceChildren(missingPanel(d));
      note.textContent = d.path;
      return;
    }
    if (d.status === 'binary' || d.status === 'unreadable') {
      note.textContent = d.read_from || d.path;
      body.replaceChildren(h('div', { class: 'callout callout-error sv-missing', 'data-testid': 'source-missing' },
        d.status === 'binary'
          ? `${d.read_from} is not text (it holds NUL or control bytes), so it is not shown.`
          : `${d.read_from} could not be read: ${d.message}`));
      return;
    }
    const annotated = d.lines.filter((v) => v.inclusive || v.exclusive).length;
    notes.push(`${formatCount(annotated)} annotated line${annotated === 1 ? '' : 's'} · ${d.metric}`);
    if (d.truncated) notes.push(`showing the first ${formatBytes(d.shown_bytes)} of ${formatBytes(d.size)}`);
    if (d.cut_lines) notes.push(`${formatCount(d.cut_lines)} line${d.cut_lines === 1 ? '' : 's'} cut at ${formatCount(d.max_line_chars)} characters`);
    if (d.line > d.line_count) notes.push(`line ${d.line} is past the ${d.truncated ? 'part shown' : 'end of the file'}`);
    note.textContent = notes.join(' · ');
    note.title = d.read_from || '';
    const longest = S.lines.reduce((m, l) => Math.max(m, l.length), 0);
    rows.style.height = `${S.lines.length * ROW_H}px`;
    rows.style.setProperty('--sv-code-ch', String(Math.min(longest, d.max_line_chars + 1) + 2));
    body.replaceChildren(h('div', { class: 'sv-colhead', 'aria-hidden': 'true' },
      h('span', { class: 'sv-gutter' }, h('span', { class: 'sv-bar' }), h('span', { class: 'sv-no' }, 'line'),
        h('span', { class: 'sv-val', title: `Inclusive ${d.metric}` }, 'incl.'),
        h('span', { class: 'sv-val', title: `Exclusive ${d.metric}` }, 'excl.'))), scroller);
    const target = Math.max(0, Math.min(d.line, S.lines.length) - 1);
    scroller.scrollTop = Math.max(0, target * ROW_H - scroller.clientHeight / 2 + ROW_H / 2);
    drawRows();
  }

  /** Draws the rows in view (and a few around them). */
  function drawRows() {
    const d = S.doc;
    if (!d || d.status !== 'shown') return;
    const first = Math.max(0, Math.floor(scroller.scrollTop / ROW_H) - PAD_ROWS);
    const last = Math.min(S.lines.length, Math.ceil((scroller.scrollTop + scroller.clientHeight) / ROW_H) + PAD_ROWS);
    const out = [];
    for (let i = first; i < last; i++) {
      const no = i + 1;
      const v = S.byLine.get(no);
      const share = v && S.maxIncl > 0 ? v.inclusive / S.maxIncl : 0;
      const bar = h('span', { class: 'sv-bar' });
      if (share > 0) bar.append(h('span', { class: 'sv-heat', style: `width:${Math.max(8, share * 100).toFixed(1)}%;opacity:${(0.35 + 0.65 * share).toFixed(2)}` }));
      const tip = v ? `line ${no}: inclusive ${formatValue(v.inclusive, d.unit)} (${formatPercent(v.inclusive, d.root_inclusive)}), exclusive ${formatValue(v.exclusive, d.unit)}${kinds(v.flags)}` : `line ${no}`;
      out.push(h('div', {
        class: `sv-row${no === d.line ? ' sv-current' : ''}${v && v.exclusive > 0 ? ' sv-hot' : ''}`,
        style: `top:${i * ROW_H}px`, 'data-line': String(no), title: tip,
      }, h('span', { class: 'sv-gutter' }, bar,
        h('span', { class: 'sv-no' }, String(no)),
        h('span', { class: 'sv-val' }, v && v.inclusive ? formatValue(v.inclusive, d.unit) : ''),
        h('span', { class: 'sv-val' }, v && v.exclusive ? formatValue(v.exclusive, d.unit) : '')),
      h('span', { class: 'sv-code' }, S.lines[i])));
    }
    rows.replaceChildren(...out);
  }

  function missingPanel(d) {
    const input = h('input', { type: 'file', hidden: true, 'data-testid': 'source-file-input' });
    input.addEventListener('change', async () => {
      const f = input.files && input.files[0];
      input.value = '';
      if (!f) return;
      const bytes = new Uint8Array(await f.slice(0, ADD_LIMIT).arrayBuffer());
      await engine.call('source_add', id, d.path, bytes, f.size);
      await show(d.path, d.line);
    });
    const where = d.candidates.length ? ` (looked for ${d.candidates.join(', ')} in the dataset${url() ? ' and at its URL' : ''})` : '';
    return h('div', { class: 'callout sv-missing', 'data-testid': 'source-missing' },
      h('p', {}, 'The source file ', h('code', {}, d.path), ` is not available${where}.`),
      d.lines.length ? h('p', { class: 'muted' }, `${formatCount(d.lines.length)} of its lines have values; add the file to see them.`) : null,
      h('button', { type: 'button', class: 'btn btn-small', 'data-testid': 'source-add', onclick: () => input.click() }, 'Add the file…'),
      input);
  }

  return {
    show,
    showNode,
    showHottest,
    close,
    /** Draws the shown file again with the current metric and selection. */
    async refresh() {
      if (S.open && S.doc) await show(S.doc.path, S.doc.line);
    },
    state() {
      const d = S.doc;
      if (!S.open || !d) return null;
      return {
        path: d.path,
        line: d.line,
        status: d.status,
        annotated_lines: d.lines.filter((v) => v.inclusive || v.exclusive).length,
        line_count: d.line_count,
        truncated: d.truncated,
        cut_lines: d.cut_lines,
        read_from: d.read_from,
        rows_drawn: rows.childElementCount,
        current: S.byLine.get(d.line) || null,
      };
    },
    destroy() {
      S.destroyed = true;
    },
  };
}

function kinds(flags) {
  const k = [];
  if (flags & 2) k.push('loop');
  if (flags & 4) k.push('call site');
  if (flags & 8) k.push('inlined code');
  if (flags & 16) k.push('function');
  return k.length ? ` — ${k.join(', ')}` : '';
}
