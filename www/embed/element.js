// <hpcscope-view src= view= metric= node= line= t0= t1= height=>: the page's views (www/views/*)
// in a shadow root, each element with its own store and engine Worker (ended when it leaves the
// page). Styles are <link>s to the package's CSS or, where nothing can be fetched (file://), a
// constructed sheet: no inline style or script, so it works under the viewer's CSP.
import { Engine } from '../engine.js';
import { createStore, selectedDataset } from '../store.js';
import { views } from '../views/index.js';
import { applyLink } from '../deep-link.js';
import { normalizeInputs } from '../inputs.js';
import { formatBytes, h } from '../format.js';

/** Views that fill a fixed height (the others, like the summary, take their content's height). */
const FILL = new Set(['profile', 'timeline', 'timeorder', 'histogram']);

/** Set by configure(): what an element uses instead of fetching the package's files. */
let offline = null;
let offlineSheet = null;

/**
 * For pages that cannot serve the package next to the element (a report opened from file://):
 * `css` the text of style.css and element.css, `createWorker()` makes an engine Worker, `wasm` the
 * compiled engine handed to it. Call before the element is defined.
 */
export function configure({ css, createWorker, wasm }) {
  offline = { css, createWorker, wasm };
}

/** Attribute `height`: a number is pixels, anything else a CSS length. */
function cssLength(v) {
  if (v == null || v.trim() === '') return null;
  return /^\d+(\.\d+)?$/.test(v.trim()) ? `${v.trim()}px` : v.trim();
}

export class HpcscopeView extends HTMLElement {
  static get observedAttributes() {
    return ['src', 'view', 'views', 'metric', 'node', 'line', 't0', 't1', 'height', 'name'];
  }

  #engine = null;
  #store = null;
  #unsubscribe = null;
  #mounted = null;
  #styled = null;
  #opening = null;
  #frame;
  #tabs;
  #status;
  #view;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    this.#tabs = h('nav', { class: 'tabs hs-tabs', role: 'tablist', 'aria-label': 'Views', hidden: true });
    this.#status = h('div', { class: 'hs-status', role: 'status', 'aria-live': 'polite' });
    this.#view = h('div', { class: 'view hs-view', role: 'tabpanel' });
    this.#frame = h('div', { class: 'hs-frame', part: 'frame' }, this.#tabs, this.#status, this.#view);
    if (offline && offline.css) {
      offlineSheet ??= new CSSStyleSheet();
      if (!offlineSheet.cssRules.length) offlineSheet.replaceSync(offline.css);
      root.adoptedStyleSheets = [offlineSheet];
      this.#styled = Promise.resolve();
      root.append(this.#frame);
    } else {
      const links = ['../style.css', './element.css'].map((p) => h('link', { rel: 'stylesheet', href: new URL(p, import.meta.url).href }));
      this.#styled = Promise.all(links.map((l) => new Promise((resolve) => {
        l.addEventListener('load', resolve);
        l.addEventListener('error', resolve);
      })));
      root.append(...links, this.#frame);
    }
  }

  connectedCallback() {
    this.#applyHeight();
    if (this.#engine) return;
    this.#engine = new Engine(offline && offline.createWorker ? { createWorker: offline.createWorker, wasm: offline.wasm } : {});
    this.#store = createStore();
    this.#store.update({ view: this.#offered()[0] });
    this.#unsubscribe = this.#store.subscribe((s) => this.#render(s));
    this.#render(this.#store.get());
    if (this.getAttribute('src')) this.#openSrc();
  }

  disconnectedCallback() {
    // Moving the element (removed and inserted in one task) keeps its engine; leaving frees it.
    queueMicrotask(() => {
      if (!this.isConnected) this.#stop();
    });
  }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (name === 'height') this.#applyHeight();
    if (!this.#engine) return;
    if (name === 'src') this.#openSrc();
    else if (name === 'view' || name === 'views') this.#store.update({ view: this.#offered()[0] });
    else if (['metric', 'node', 'line', 't0', 't1'].includes(name)) this.#applySettings(true);
  }

  /** Frees the Worker and the mounted view; connecting the element again starts afresh. */
  #stop() {
    this.#mounted?.instance.destroy();
    this.#mounted = null;
    this.#unsubscribe?.();
    this.#engine?.terminate();
    this.#engine = null;
    this.#store = null;
    this.#opening = null;
    this.#view.replaceChildren();
  }

  /** Views this element offers: `views` (a list), else `view`, else the profile. */
  #offered() {
    const list = (this.getAttribute('views') || '').split(/[\s,]+/).filter(Boolean);
    const first = this.getAttribute('view');
    if (first && list.includes(first)) return [first, ...list.filter((v) => v !== first)];
    if (list.length) return list;
    return [first || 'profile'];
  }

  #applyHeight() {
    const v = cssLength(this.getAttribute('height'));
    if (v) this.#frame.style.setProperty('--hs-height', v);
    else this.#frame.style.removeProperty('--hs-height');
  }

  #openSrc() {
    const src = this.getAttribute('src');
    if (src) this.open(src, this.getAttribute('name') || undefined).catch(() => {});
  }

  /**
   * Opens a database folder or file URL (read on demand with Range requests) or files (File,
   * FileList, Blob, [{path, bytes | file}]) in this element's engine, in place of what it showed.
   * Resolves to the engine's report `{datasets, errors, ignored}`.
   */
  open(input, name) {
    const p = this.#open(input, name);
    this.#opening = p.catch(() => null);
    return p;
  }

  async #open(input, name) {
    const engine = this.#engine;
    const store = this.#store;
    if (!engine) throw new Error('hpcscope-view: not connected to a document');
    for (const d of store.get().datasets) await engine.remove(d.id).catch(() => {});
    store.update({ datasets: [], selected: null, errors: [], busy: { phase: 'reading', done: 0, total: 0, file: '' } });
    try {
      let report;
      if (typeof input === 'string' || input instanceof URL) {
        const url = new URL(String(input), document.baseURI).href;
        report = await engine.openUrl(url, name, (p) => store.update({ busy: p }));
      } else {
        const files = await normalizeInputs(input, document.baseURI);
        const root = name ? `${name}/` : '';
        report = await engine.openFiles(files.map((f) => ({ ...f, path: root + f.path })), (p) => store.update({ busy: p }));
      }
      if (this.#store !== store) return report;
      const first = report.datasets[0];
      store.addErrors(report.errors);
      if (!first && !report.errors.length) store.addErrors([{ kind: 'input', file: '', what: 'no dataset recognised in these files' }]);
      await this.#styled;
      store.update({ datasets: report.datasets, busy: null });
      if (first) {
        await this.#applySettings(false, first.id);
        store.update({ selected: first.id });
      }
      this.dispatchEvent(new CustomEvent('hpcscope-open', { detail: report }));
      return report;
    } catch (err) {
      if (this.#store === store) {
        store.update({ busy: null });
        store.addErrors([{ kind: 'error', file: typeof input === 'string' ? input : '', what: err.message }]);
      }
      this.dispatchEvent(new CustomEvent('hpcscope-error', { detail: { message: err.message } }));
      throw err;
    }
  }

  /** `metric` (an index or a metric name) and `node` into the profile view's settings; `remount`
   *  rebuilds a view already shown so it takes them. */
  async #applySettings(remount, id = this.#store.get().selected) {
    if (id == null) return;
    // As a deep link gives them (www/deep-link.js): a node, a time range, a time-order line.
    const link = { view: this.getAttribute('view') };
    for (const k of ['node', 'line', 't0', 't1']) {
      const v = this.getAttribute(k);
      if (v != null && v !== '' && Number.isFinite(Number(v))) link[k] = Number(v);
    }
    const metric = this.getAttribute('metric');
    if (metric != null && metric !== '') {
      if (Number.isFinite(Number(metric))) link.metric = Number(metric);
      else {
        const meta = await this.#engine.call('profile_meta', id).catch(() => null);
        const want = metric.toLowerCase();
        const m = meta?.metrics.find((x) => x.name.toLowerCase() === want)
          || meta?.metrics.find((x) => x.name.toLowerCase().includes(want));
        if (m) link.metric = m.index;
        else this.#store.addErrors([{ kind: 'attribute', file: '', what: `no metric named '${metric}'` }]);
      }
    }
    applyLink(this.#store, id, link);
    if (remount && this.#mounted) {
      this.#mounted.instance.destroy();
      this.#mounted = null;
      this.#view.replaceChildren();
      this.#render(this.#store.get());
    }
  }

  #render(s) {
    const d = selectedDataset(s);
    this.#renderStatus(s, d);
    if (!d) {
      this.#tabs.hidden = true;
      this.#mounted?.instance.destroy();
      this.#mounted = null;
      this.#view.replaceChildren();
      return;
    }
    const offered = this.#offered();
    const avail = views.filter((v) => offered.includes(v.id) && v.available(d));
    const fallback = views.find((v) => v.id === 'summary');
    const view = avail.find((v) => v.id === s.view) || avail[0] || fallback;
    this.#tabs.hidden = offered.length < 2 || avail.length < 2;
    this.#tabs.replaceChildren(...avail.map((v) => h('button', {
      type: 'button', role: 'tab', class: `tab${v === view ? ' active' : ''}`, 'data-view': v.id,
      'aria-selected': String(v === view), tabindex: v === view ? '0' : '-1',
      onclick: () => this.#store.update({ view: v.id }),
      onkeydown: (e) => {
        const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
        if (!step) return;
        const next = avail[(avail.indexOf(v) + step + avail.length) % avail.length];
        this.#store.update({ view: next.id });
        this.#tabs.querySelector(`[data-view="${next.id}"]`)?.focus();
      },
    }, v.title)));
    if (!this.#mounted || this.#mounted.view !== view) {
      this.#mounted?.instance.destroy();
      this.#view.replaceChildren();
      this.#view.className = 'view hs-view';
      this.#frame.classList.toggle('hs-fill', FILL.has(view.id));
      this.#mounted = { view, instance: view.mount(this.#view, { engine: this.#engine, store: this.#store }) };
    }
    this.#mounted.instance.update(s);
  }

  #renderStatus(s, d) {
    const lines = [];
    if (s.busy) {
      const p = s.busy;
      lines.push(h('div', { class: 'hs-progress' }, p.phase === 'parsing'
        ? 'Parsing…'
        : `Reading ${p.file || '…'}${p.total ? ` — ${formatBytes(p.done)} of ${formatBytes(p.total)}` : ''}`));
    } else if (!d && !s.errors.length) {
      lines.push(h('div', { class: 'hs-progress muted' }, this.getAttribute('src') ? 'Loading…' : 'No data: set the src attribute or call open().'));
    }
    const wanted = this.#offered()[0];
    if (d && this.#mounted && this.#mounted.view.id !== wanted && this.#offered().length === 1) {
      lines.push(h('div', { class: 'hs-note muted' }, `This dataset has no ${wanted} view: showing the ${this.#mounted.view.title.toLowerCase()}.`));
    }
    for (const e of s.errors) {
      lines.push(h('div', { class: 'hs-error', 'data-error-file': e.file || '' },
        h('strong', {}, e.kind), ' ', e.file ? [h('code', {}, e.file), ': '] : '', e.what,
        e.offset_hex ? [' at offset ', h('code', {}, e.offset_hex)] : null));
    }
    this.#status.replaceChildren(...lines);
    this.#status.hidden = !lines.length;
  }

  /** The engine (www/engine.js) of this element, or null once it left the page. */
  get engine() {
    return this.#engine;
  }

  /** True while this element's engine Worker runs. */
  get workerRunning() {
    return !!this.#engine && !this.#engine.terminated;
  }

  /** The mounted view (e.g. the profile view's `whenReady()`, `panels()`), or null. */
  view() {
    return this.#mounted ? this.#mounted.instance : null;
  }

  /** Resolves when the datasets of `src` are open and the view shown has drawn (when it says). */
  async whenReady() {
    await this.#opening;
    await this.#mounted?.instance.whenReady?.();
  }

  /** Plain data of what the element shows: datasets, view, the view's own state, errors. */
  state() {
    const s = this.#store ? this.#store.get() : { datasets: [], selected: null, errors: [] };
    return JSON.parse(JSON.stringify({
      datasets: s.datasets.map((d) => ({ id: d.id, title: d.title, root: d.root, format: d.format, layout: d.layout, status: d.status })),
      selected: s.selected,
      view: this.#mounted ? this.#mounted.view.id : null,
      viewState: this.#mounted ? this.#mounted.instance.state() : null,
      errors: s.errors.map((e) => e.message || e.what),
      workerRunning: this.workerRunning,
    }));
  }
}

/** Registers the element under `name` (once). */
export function defineElement(name = 'hpcscope-view') {
  if (customElements.get(name)) return;
  customElements.define(name, name === 'hpcscope-view' ? HpcscopeView : class extends HpcscopeView {});
}
