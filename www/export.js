// The Export menu of the top bar: writes the selected dataset as speedscope JSON, Chrome trace
// JSON (Perfetto), folded stacks or CSV (src/export/, through the engine's Worker) and downloads it
// with a Blob and an object URL. The metric is the one the profile view shows.
import { h } from './format.js';

const FORMATS = [
  ['speedscope', 'speedscope JSON'],
  ['chrome', 'Chrome trace JSON (Perfetto)'],
  ['folded', 'Folded stacks (flamegraph.pl, inferno)'],
  ['csv', 'CSV (top-down table)'],
];

/** Runs an export of dataset `id`; resolves to {text, extension, mime, name}. */
export async function exportDataset(engine, store, id, format) {
  const s = store.get();
  const d = s.datasets.find((x) => x.id === id);
  const pv = (s.profileViews || {})[id];
  let metric = '';
  if (pv && pv.metric != null) {
    const meta = await engine.call('profile_meta', id);
    metric = meta.metrics[pv.metric]?.name || '';
  }
  const out = await engine.call('export', id, format, metric);
  const base = ((d && (d.root || d.title)) || 'dataset').split('/').filter(Boolean).pop() || 'dataset';
  return { ...out, name: base.replace(/[^\w.-]+/g, '_') + out.extension };
}

/** Saves `text` as a file named `name` (a Blob behind an object URL and a clicked link). */
export function download(text, name, mime) {
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function setupExport({ engine, store, button: parent }) {
  if (!parent) return;
  const sel = h('select', { id: 'export-format', class: 'btn', 'aria-label': 'Export the selected dataset', title: 'Export the selected dataset' },
    h('option', { value: '' }, 'Export…'),
    FORMATS.map(([v, label]) => h('option', { value: v }, label)));
  sel.addEventListener('change', async () => {
    const format = sel.value;
    sel.value = '';
    const s = store.get();
    const d = s.datasets.find((x) => x.id === s.selected);
    if (!format || !d) return;
    try {
      const out = await exportDataset(engine, store, d.id, format);
      download(out.text, out.name, out.mime);
    } catch (err) {
      store.addErrors([{ kind: 'export', file: d.root || '', what: err.message, message: err.message }]);
    }
  });
  const sync = (s) => {
    const d = s.datasets.find((x) => x.id === s.selected);
    sel.disabled = !d || d.status !== 'opened';
  };
  store.subscribe(sync);
  sync(store.get());
  parent.append(sel);
}
