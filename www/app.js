// The page shell: wires the engine, the store and the views together, draws the dataset list, the
// tabs, the progress bar and the error banner, and exposes `window.hpcscope` for embedding and tests.
import { Engine } from './engine.js';
import * as store from './store.js';
import { views } from './views/index.js';
import { setupDrop } from './views/drop.js';
import { formatBytes, h } from './format.js';
import { displayName } from './views/summary.js';
import { parseLink, applyLink, currentLink, linkHash, keepHashCurrent } from './deep-link.js';
import { setupExport } from './export.js';
import { setupShortcuts } from './shortcuts.js';
import { setupSidebar } from './sidebar.js';
import { normalizeInputs } from './inputs.js';
import { saveCompareSettings } from './views/compare.js';
import { requestTimeOrder } from './views/time-order.js';

const $ = (id) => document.getElementById(id);
const engine = new Engine();
const ctx = { engine, store };

// ------------------------------------------------------------------------------------------------
// Opening files

function setProgress(p) {
  store.update({ busy: p });
}

/** Where datasets opened by URL came from (id -> {url, name}), for deep links. */
const urls = new Map();

/**
 * Opens inputs, adds the datasets and errors to the page, selects the first new dataset.
 * `opts.url` opens a URL instead (read on demand with Range requests, see engine.openUrl);
 * `opts.link` is a deep link whose view, node, zoom and time range the new dataset shows.
 */
async function openInputs(list, opts = {}) {
  const t0 = performance.now();
  const total = list.reduce((s, f) => s + (f.file ? f.file.size : f.bytes.byteLength), 0);
  setProgress({ phase: 'reading', done: 0, total, file: opts.url || '' });
  try {
    const report = opts.url
      ? await engine.openUrl(opts.url, opts.name, setProgress, opts.limits)
      : await engine.openFiles(list, setProgress);
    let patch = {};
    if (opts.url) {
      for (const d of report.datasets) {
        urls.set(d.id, { url: opts.url, name: opts.name || null });
        d.source_url = opts.url;
      }
    }
    if (opts.link && report.datasets.length) patch = applyLink(store, report.datasets[0].id, opts.link);
    store.update((s) => ({
      datasets: [...s.datasets, ...report.datasets],
      selected: report.datasets.length ? report.datasets[0].id : s.selected,
      ignored: [...s.ignored, ...report.ignored],
      lastOpenMs: report.elapsed_ms,
      ...patch,
    }));
    store.addErrors(report.errors);
    report.total_ms = performance.now() - t0;
    return report;
  } catch (err) {
    if (opts.url) store.addErrors([{ kind: 'network', file: opts.url, what: err.message, message: err.message }]);
    else store.addErrors([{ kind: 'internal', file: '', what: err.message, message: `internal error: ${err.message}` }]);
    throw err;
  } finally {
    setProgress(null);
  }
}

async function openExample() {
  const report = await engine.openExample();
  store.update((s) => ({
    datasets: [...s.datasets, ...report.datasets],
    selected: s.selected ?? (report.datasets[0] && report.datasets[0].id),
  }));
  return report;
}

async function removeDataset(id) {
  await engine.remove(id);
  store.update((s) => {
    const i = s.datasets.findIndex((d) => d.id === id);
    const datasets = s.datasets.filter((d) => d.id !== id);
    let selected = s.selected;
    if (selected === id) selected = datasets.length ? datasets[Math.min(i, datasets.length - 1)].id : null;
    return { datasets, selected };
  });
}

// ------------------------------------------------------------------------------------------------
// Drawing the shell

function renderProgress(s) {
  const el = $('progress');
  const p = s.busy;
  el.hidden = !p;
  if (!p) return;
  const frac = p.total ? Math.min(1, p.done / p.total) : 0;
  const indeterminate = p.phase === 'parsing';
  el.classList.toggle('indeterminate', indeterminate);
  el.querySelector('.progress-bar').style.width = indeterminate ? '' : `${(frac * 100).toFixed(1)}%`;
  el.setAttribute('aria-valuenow', String(Math.round(frac * 100)));
  el.querySelector('.progress-label').textContent = indeterminate
    ? (p.fetched ? `Parsing… ${formatBytes(p.fetched)} fetched` : 'Parsing…')
    : `Reading ${p.file || 'files'} — ${formatBytes(p.done)} of ${formatBytes(p.total)}`;
}

/** The line under the top bar while the engine's HTTP reads are outstanding (trace rows of a
 *  database opened by URL): what is being read, requests in flight, and the totals so far. */
function renderNet(n) {
  const el = $('netline');
  el.hidden = !n.in_flight;
  if (!n.in_flight) return;
  const what = [...new Set(n.reading)].join(', ') || 'data';
  el.textContent = `Reading ${what} over HTTP: ${n.in_flight} request${n.in_flight === 1 ? '' : 's'} in flight · ${n.requests} requests, ${formatBytes(n.bytes)} so far`;
}
engine.onNet = renderNet;

function renderBanner(s) {
  const el = $('banner');
  el.replaceChildren();
  el.hidden = !s.errors.length;
  if (!s.errors.length) return;
  const items = s.errors.map((e) => h('li', { class: 'banner-item', 'data-error-file': e.file || '' },
    h('span', { class: 'banner-kind' }, e.kind),
    h('span', { class: 'banner-msg' },
      e.file ? h('code', { class: 'banner-file' }, e.file) : null,
      e.file ? ': ' : '',
      e.what,
      e.offset_hex ? [' at offset ', h('code', {}, e.offset_hex)] : null),
    h('button', {
      type: 'button', class: 'icon-btn', 'aria-label': `Dismiss error about ${e.file || e.what}`,
      onclick: () => store.dismissError(e.id),
    }, '×')));
  el.append(
    h('div', { class: 'banner-head' },
      h('strong', {}, s.errors.length === 1 ? 'A problem reading input' : `${s.errors.length} problems reading input`),
      h('button', { type: 'button', class: 'btn btn-small', id: 'dismiss-all', onclick: () => store.dismissError(null) }, 'Dismiss')),
    h('ul', { class: 'banner-list' }, items));
}

function renderDatasets(s) {
  const list = $('dataset-list');
  list.replaceChildren();
  if (!s.datasets.length) {
    list.append(h('li', { class: 'muted none' }, 'Nothing open yet.'));
    return;
  }
  for (const d of s.datasets) {
    const selected = d.id === s.selected;
    const li = h('li', {
      class: `dataset-item${selected ? ' selected' : ''} st-${d.status}`,
      role: 'option', tabindex: selected ? '0' : '-1', 'aria-selected': String(selected),
      'data-id': String(d.id), 'data-format': d.format, 'data-layout': d.layout, 'data-root': d.root,
      onclick: () => store.update({ selected: d.id }),
      onkeydown: (e) => onListKey(e, d.id),
    },
    h('div', { class: 'ds-title' }, displayName(d)),
    h('div', { class: 'ds-sub' }, h('span', { class: 'ds-format' }, d.format_name), ' · ', h('span', { class: 'ds-layout' }, d.layout)),
    d.root && d.root !== d.title ? h('div', { class: 'ds-root muted' }, d.root) : null,
    h('button', {
      type: 'button', class: 'icon-btn ds-remove', tabindex: '-1', 'aria-label': `Close ${displayName(d)}`,
      onclick: (e) => { e.stopPropagation(); removeDataset(d.id); },
    }, '×'));
    list.append(li);
  }
}

function onListKey(e, id) {
  const s = store.get();
  const i = s.datasets.findIndex((d) => d.id === id);
  let next = null;
  if (e.key === 'ArrowDown') next = s.datasets[Math.min(i + 1, s.datasets.length - 1)];
  else if (e.key === 'ArrowUp') next = s.datasets[Math.max(i - 1, 0)];
  else if (e.key === 'Home') next = s.datasets[0];
  else if (e.key === 'End') next = s.datasets[s.datasets.length - 1];
  else if (e.key === 'Delete' || e.key === 'Backspace') {
    e.preventDefault();
    removeDataset(id);
    return;
  } else if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    store.update({ selected: id });
    return;
  }
  if (next) {
    e.preventDefault();
    store.update({ selected: next.id });
    document.querySelector(`#dataset-list [data-id="${next.id}"]`)?.focus();
  }
}

// Views: one mounted at a time, in #view; tabs for the views available for the selection.
let mounted = null;

function renderTabs(s) {
  const tabs = $('tabs');
  const d = store.selectedDataset(s);
  const avail = views.filter((v) => v.available(d));
  let view = avail.find((v) => v.id === s.view) || avail[0];
  tabs.replaceChildren(...avail.map((v) => h('button', {
    type: 'button', role: 'tab', class: `tab${v === view ? ' active' : ''}`, id: `tab-${v.id}`,
    'aria-selected': String(v === view), tabindex: v === view ? '0' : '-1', 'data-view': v.id,
    onclick: () => store.update({ view: v.id }),
    onkeydown: (e) => {
      const i = avail.indexOf(v);
      const j = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : null;
      if (j == null || !avail[(j + avail.length) % avail.length]) return;
      const next = avail[(j + avail.length) % avail.length];
      store.update({ view: next.id });
      $(`tab-${next.id}`)?.focus();
    },
  }, v.title)));
  if (!mounted || mounted.view !== view) {
    mounted?.instance.destroy();
    const el = $('view');
    el.replaceChildren();
    el.setAttribute('aria-labelledby', `tab-${view.id}`);
    mounted = { view, instance: view.mount(el, ctx) };
    // Tests and benchmarks reach the live profile panels here (an element has its own: view()).
    if (view.id === 'profile') window.hpcscopeProfile = mounted.instance;
    if (view.id === 'compare') window.hpcscopeCompare = mounted.instance;
    if (view.id === 'timeorder') window.hpcscopeTimeOrder = mounted.instance;
  }
  mounted.instance.update(s);
}

function render(s) {
  renderProgress(s);
  renderBanner(s);
  renderDatasets(s);
  renderTabs(s);
}

// ------------------------------------------------------------------------------------------------
// Start

store.subscribe(render);
render(store.get());

setupDrop({
  zone: $('drop-zone'),
  overlay: $('drop-overlay'),
  fileInput: $('file-input'),
  folderInput: $('folder-input'),
  fileButton: $('open-files'),
  folderButton: $('open-folder'),
  onFiles: (list) => openInputs(list).catch(() => {}),
  onError: (err) => store.addErrors([{ kind: 'I/O error', file: '', what: err.message, message: err.message }]),
});

/** Milliseconds since navigation start at which milestones were reached (for tests, tuning). */
const timings = {};
const ready = openExample().then(() => {
  timings.exampleShownMs = performance.now();
}).catch((err) => {
  store.addErrors([{ kind: 'internal', file: '', what: `engine did not start: ${err.message}`, message: err.message }]);
});

/** Opens a database folder or file URL, read on demand; `link` restores a deep link's picture. */
async function openUrl(url, name, link, limits) {
  await ready;
  const abs = new URL(url, location.href).href;
  const report = await openInputs([], { url: abs, name: name || undefined, link, limits });
  timings.urlShownMs = performance.now();
  return report;
}

/** The page API, for embedding and automated tests. */
window.hpcscope = {
  /** Resolves once the engine runs and the built-in example is shown. */
  ready,
  timings,
  /**
   * Opens File[] / FileList / [{path|name, bytes}], or a URL string (a database folder or file,
   * read on demand with HTTP Range requests); resolves to the report.
   */
  async open(input, name, limits) {
    await ready;
    if (typeof input === 'string' || input instanceof URL) return openUrl(String(input), name, undefined, limits);
    let list;
    try {
      list = await normalizeInputs(input);
    } catch (err) {
      store.addErrors([{ kind: 'I/O error', file: '', what: err.message, message: err.message }]);
      throw err;
    }
    return openInputs(list);
  },
  openUrl,
  /**
   * Shows the Compare view of dataset `idB` (the new run) against dataset `idA` (the baseline);
   * resolves to the view's state once it is drawn (an `error` field when they cannot be compared).
   */
  async compare(idA, idB) {
    await ready;
    showComparison(idA, idB);
    await window.hpcscopeCompare?.whenReady();
    return window.hpcscopeCompare ? window.hpcscopeCompare.state() : null;
  },
  /** The deep link (full page URL) of what is shown now, or null for a dataset not opened by URL. */
  link() {
    const l = currentLink(store.get(), (id) => urls.get(id));
    return l ? `${location.origin}${location.pathname}${linkHash(l)}` : null;
  },
  /** Requests and bytes fetched for datasets opened by URL. */
  netStats: () => engine.netStats(),
  /** Plain data of what the page shows. */
  state() {
    const viewStates = {};
    if (mounted) viewStates[mounted.view.id] = mounted.instance.state();
    return store.snapshot(viewStates);
  },
  select(id) {
    store.update({ selected: id });
  },
  showView(id) {
    store.update({ view: id });
  },
  /**
   * Opens the Profile tab's source view at `path` (a recorded path or a file name) and `line`;
   * without arguments, at the hottest statement of the current profile. Resolves to the file shown.
   */
  async showSource(path, line) {
    store.update({ view: 'profile' });
    const pv = window.hpcscopeProfile;
    await pv?.whenReady();
    const panels = pv?.panels();
    if (!panels?.showSource) throw new Error('the selected dataset has no profile to show sources of');
    return panels.showSource(path, line);
  },
  remove: removeDataset,
  dismissErrors() {
    store.dismissError(null);
  },
  engine,
};

// ------------------------------------------------------------------------------------------------
// Open by URL (`?url=` or a deep link in the hash), embedding by postMessage, exports.

setupExport({ engine, store, button: document.querySelector('.topbar .actions') });
const sidebar = setupSidebar({ button: $('toggle-sidebar'), layout: document.querySelector('.main-layout') });
const shortcuts = setupShortcuts({ store, toggleSidebar: () => sidebar.toggle() });
$('show-help').addEventListener('click', () => shortcuts.help(true));
window.hpcscope.help = shortcuts.help;
window.hpcscope.sidebar = sidebar;

/** Selects dataset `idB` and shows it in the Compare view against `idA`. */
function showComparison(idA, idB) {
  saveCompareSettings(store, idB, { base: idA, zoom: 0 });
  store.update({ selected: idB, view: 'compare' });
}

/** Opens a deep link's datasets: its baseline first (`base`), then the dataset it shows. */
async function openLink(link) {
  let baseId = null;
  if (link.base) {
    const r = await openUrl(link.base).catch(() => null);
    baseId = r?.datasets[0]?.id ?? null;
  }
  const report = await openUrl(link.url, link.name, link);
  const id = report.datasets[0]?.id;
  if (baseId != null && id != null) showComparison(baseId, id);
  return report;
}

const startLink = parseLink();
window.hpcscope.linkOpened = startLink.url ? openLink(startLink).catch(() => null) : Promise.resolve(null);
keepHashCurrent(() => store.get(), (id) => urls.get(id));

/**
 * A page embedding this one in an <iframe> sends `{type: 'open', url | buffers, name, requestId}`
 * (buffers: [{name, bytes: ArrayBuffer}]); the answer is `{type: 'opened', datasets, requestId}`
 * or `{type: 'error', message, requestId}`, posted back to the sender's origin.
 */
window.addEventListener('message', async (e) => {
  const m = e.data;
  if (!m || typeof m !== 'object' || m.type !== 'open' || !e.source) return;
  const reply = (msg) => e.source.postMessage({ ...msg, requestId: m.requestId ?? null }, e.origin === 'null' ? '*' : e.origin);
  try {
    let report;
    if (m.url) report = await openUrl(String(m.url), m.name, m.link ? parseLink('', String(m.link)) : undefined);
    else if (Array.isArray(m.buffers)) {
      await ready;
      const root = m.name ? `${m.name}/` : '';
      report = await openInputs(m.buffers.map((b) => ({ path: root + (b.path || b.name), bytes: b.bytes })));
    } else throw new Error('open message needs a url or buffers');
    reply({
      type: 'opened',
      datasets: report.datasets.map((d) => ({ id: d.id, root: d.root, format: d.format, layout: d.layout, title: d.title, status: d.status })),
      errors: report.errors.map((x) => x.message),
    });
  } catch (err) {
    reply({ type: 'error', message: err.message });
  }
});
// The Trace view's "Time order of this row": that row and time range in the Time order tab.
window.addEventListener('hpcscope:time-order', (e) => {
  const { dataset, line, t0, t1 } = e.detail || {};
  if (dataset == null) return;
  store.update({ selected: dataset });
  requestTimeOrder(store, dataset, { line, t0, t1 });
});
// Views ask for a source file elsewhere (a trace call-path entry) with an event.
window.addEventListener('hpcscope:show-source', (e) => {
  const { dataset, path, line } = e.detail || {};
  if (dataset != null) store.update({ selected: dataset });
  window.hpcscope.showSource(path, line).catch((err) => store.addErrors([{ kind: 'internal', file: path || '', what: err.message, message: err.message }]));
});
ready.then(() => {
  if (window.parent !== window) window.parent.postMessage({ type: 'ready' }, '*');
});
