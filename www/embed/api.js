// The engine as a library, for pages that want numbers without the page shell: open files or URLs,
// summaries, flame-graph layout, top-down / bottom-up / flat tables, node details and exports.
// Each HpcscopeEngine runs its own Worker (www/engine.js); answers are plain objects and typed
// arrays from the Session methods of src/wasm/ (see www/README.md, "Calling the engine").
import { Engine } from '../engine.js';
import { normalizeInputs } from '../inputs.js';

const baseUrl = () => (typeof document !== 'undefined' ? document.baseURI : self.location.href);

/** Rectangle flags (src/analysis/profile.rs FlameWindow): search match, inlined, loop/line. */
export const FLAME_MATCH = 1;
export const FLAME_INLINED = 2;
export const FLAME_LEXICAL = 4;

export class HpcscopeEngine {
  /** `options` as for Engine (createWorker, wasm); usually none. */
  constructor(options = {}) {
    this.engine = new Engine(options);
  }

  /** Resolves once the Worker's engine runs: `{version}`. */
  get ready() {
    return this.engine.ready;
  }

  /**
   * Opens a database folder or file URL (read on demand with HTTP Range requests; relative URLs
   * resolve against the page), or files: File / FileList / Blob / [{path, bytes | file}].
   * Resolves to `{datasets: [summary], errors: [error], ignored: [path]}`.
   */
  async open(input, { name, limits, onProgress } = {}) {
    if (typeof input === 'string' || input instanceof URL) {
      return this.engine.openUrl(new URL(String(input), baseUrl()).href, name, onProgress, limits);
    }
    const files = await normalizeInputs(input, baseUrl());
    const root = name ? `${name}/` : '';
    return this.engine.openFiles(files.map((f) => ({ ...f, path: root + f.path })), onProgress);
  }

  /** The small built-in example dataset. */
  openExample() {
    return this.engine.openExample();
  }

  /** Summaries of every open dataset (format, layout, title, counts, files, warnings). */
  summaries() {
    return this.engine.call('summaries');
  }

  summary(id) {
    return this.engine.call('summary', id);
  }

  remove(id) {
    return this.engine.remove(id);
  }

  /** Metrics, profiles, frame names and module names of a dataset's calling-context profile. */
  profileMeta(id) {
    return this.engine.call('profile_meta', id);
  }

  /** Which profiles are summed: 'summary', or 'profile' / 'subset' with profile indices. */
  selectProfiles(id, kind = 'summary', indices = []) {
    return this.engine.call('profile_select', id, kind, indices);
  }

  /**
   * Flame-graph layout of `metric` under context `zoom` (0: the root), the window [x0, x1) of the
   * zoomed width and depths [depth0, depth1) laid out `widthPx` pixels wide; rectangles narrower
   * than `minWidthPx` are left out. Resolves to `{maxDepth, rects: [{node, depth, x, width, name,
   * module, inclusive, exclusive, flags}]}` (x and width as fractions of the window; name and
   * module as strings; flags: FLAME_MATCH | FLAME_INLINED | FLAME_LEXICAL).
   */
  async flame(id, { metric, merged = false, heavy = true, zoom = 0, x0 = 0, x1 = 1, depth0 = 0, depth1 = 1 << 16, widthPx = 1000, minWidthPx = 1 } = {}) {
    const meta = await this.profileMeta(id);
    const m = metric ?? meta.default_metric ?? 0;
    const maxDepth = await this.engine.call('flame_config', id, m, merged, heavy);
    const vp = { x0, x1, depth0, depth1: Math.min(depth1, maxDepth + 1), width_px: widthPx, min_width_px: minWidthPx };
    const [node, depth, x, width, name, module, incl, excl, flags] = await this.engine.call('flame_layout', id, zoom, vp);
    const rects = [];
    for (let i = 0; i < node.length; i++) {
      rects.push({
        node: node[i], depth: depth[i], x: x[i], width: width[i],
        name: meta.names[name[i]] ?? '',
        module: module[i] === 0xffffffff ? null : meta.modules[module[i]] ?? null,
        inclusive: incl[i], exclusive: excl[i], flags: flags[i],
      });
    }
    return { metric: m, maxDepth, rects };
  }

  /**
   * Rows of table `kind` ('topdown', 'bottomup', 'flat') sorted by `metric` (inclusive, or
   * exclusive when `exclusive`), after opening the hot path from the root (`expand: 'hot'`, the
   * default), everything up to `maxRows` rows ('all') or nothing ('none'). Resolves to `{length,
   * rows: [{row, node, depth, label, hasChildren, expanded, values: [{inclusive, exclusive}] per
   * metric}]}` for rows [start, start + count).
   */
  async table(id, { kind = 'topdown', metric, exclusive = false, descending = true, expand = 'hot', share = 0.05, maxRows = 10000, start = 0, count = 100 } = {}) {
    const meta = await this.profileMeta(id);
    const m = metric ?? meta.default_metric ?? 0;
    await this.engine.call('table_sort', id, kind, m, exclusive, descending);
    if (expand === 'hot') await this.engine.call('table_hot_path', id, kind, 0, share);
    else if (expand === 'all') await this.engine.call('table_expand_all', id, kind, maxRows);
    const length = await this.engine.call('table_len', id, kind);
    const [node, depth, flags, , values, labels] = await this.engine.call('table_window', id, kind, start, count);
    const nm = meta.metrics.length;
    const rows = [];
    for (let k = 0; k < node.length; k++) {
      const v = [];
      for (let j = 0; j < nm; j++) v.push({ inclusive: values[(k * nm + j) * 2], exclusive: values[(k * nm + j) * 2 + 1] });
      rows.push({
        row: start + k, node: node[k], depth: depth[k], label: labels[k],
        hasChildren: !!(flags[k] & 1), expanded: !!(flags[k] & 2), values: v,
      });
    }
    return { metric: m, length, rows };
  }

  /** Name, kind, source position and values of context `node` for `metric`. */
  nodeInfo(id, node, metric = 0) {
    return this.engine.call('node_info', id, node, metric);
  }

  /** Searches frame names; the flame graph and tables then mark the matches. */
  search(id, pattern, { regex = false, ignoreCase = true } = {}) {
    return this.engine.call('profile_search', id, pattern, regex, ignoreCase);
  }

  /** Value of context `node` in every profile: `{profiles: Uint32Array, values: Float64Array}`. */
  async distribution(id, node, { metric = 0, exclusive = false } = {}) {
    const [profiles, values] = await this.engine.call('distribution', id, metric, node, exclusive);
    return { profiles, values };
  }

  /** Trace lines, run length, depth and names of a traced dataset (`status` 'ok' when traced). */
  timelineMeta(id) {
    return this.engine.call('timeline_meta', id);
  }

  /**
   * The dataset in another tool's format: 'speedscope', 'chrome', 'folded' or 'csv', for a metric
   * name ('' : the first with a value). Resolves to `{text, extension, mime}`.
   */
  export(id, format, metric = '') {
    return this.engine.call('export', id, format, metric);
  }

  /** Any Session method of src/wasm/ by name (see www/README.md). */
  call(method, ...args) {
    return this.engine.call(method, ...args);
  }

  /** Stops the Worker; the engine cannot be used afterwards. */
  terminate() {
    this.engine.terminate();
  }
}

/** A new engine with its own Worker. */
export function createEngine(options) {
  return new HpcscopeEngine(options);
}
