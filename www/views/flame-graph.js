// Flame graph panel of the profile view: a canvas icicle (or flame), breadcrumb, order / merge /
// orientation / colour toggles, tooltip and keyboard (input in flame-input.js). The engine lays out
// only what is visible; zooms animate by stretching the last layout to the new window, then ask
// for the new layout.
import { h } from '../format.js';
import { drawFlame, unpackRects, fitCanvas, ROW_H } from '../render/flame-draw.js';
import { moduleColour } from '../render/colours.js';
import { formatValue, formatPercent } from './profile-format.js';
import { attachFlameInput } from './flame-input.js';

const ZOOM_MS = 180;
/** Longest name or path a tooltip shows in full (see `clip`). */
const TIP_NAME_MAX = 2000;

/**
 * The tooltip breaks text anywhere to fit its width: a 1 MB name or path would be thousands of
 * lines laid out on every hover, so it shows the first TIP_NAME_MAX characters and the length.
 */
function clip(text) {
  const s = text ?? '';
  return s.length > TIP_NAME_MAX ? `${s.slice(0, TIP_NAME_MAX)}… (${s.length.toLocaleString('en-US')} characters)` : s;
}
const MIN_RECT_PX = 1;

/**
 * A toolbar <select> of two choices for boolean setting `key` of view state `S` (true: the first
 * choice, each [value, label]): a change stores it, reports it through `onSettings` and calls
 * `then` (the compare view's toolbar uses it too).
 */
export function flagSelect(S, key, onSettings, then, attrs, [onValue, onLabel], [offValue, offLabel]) {
  const sel = h('select', attrs, h('option', { value: onValue }, onLabel), h('option', { value: offValue }, offLabel));
  sel.value = S[key] ? onValue : offValue;
  sel.addEventListener('change', () => {
    S[key] = sel.value === onValue;
    onSettings({ [key]: S[key] });
    then();
  });
  return sel;
}

/** Fills breadcrumb `crumbs` with `path` (nodes from the root down; `[0]` when empty), each a
 * button zooming to its node but the last. */
export function renderCrumbs(crumbs, path, nameOf, zoomTo) {
  const nodes = path.length ? path : [0];
  crumbs.replaceChildren();
  nodes.forEach((n, i) => {
    const last = i === nodes.length - 1;
    const label = i === 0 ? 'all' : nameOf(n);
    crumbs.append(h('button', {
      type: 'button', class: `fg-crumb${last ? ' current' : ''}`, title: label,
      'data-node': String(n), disabled: last,
      onclick: () => { zoomTo(n); },
    }, label));
    if (!last) crumbs.append(h('span', { class: 'fg-sep', 'aria-hidden': 'true' }, '›'));
  });
}

/** Puts tooltip `tip` below the pointer at (px, py) of `wrap` when it fits, else above it; never
 * outside the panel. */
export function placeTip(tip, wrap, px, py) {
  const wrapW = wrap.clientWidth;
  const wrapH = wrap.clientHeight;
  const th = tip.offsetHeight;
  tip.style.left = `${Math.min(px + 14, Math.max(0, wrapW - 324))}px`;
  const below = py + 16;
  tip.style.top = `${below + th <= wrapH ? below : Math.max(0, py - th - 10)}px`;
}

/**
 * Marks `node` selected in flame state `S`; when it is not drawn, zooms to its parent (the
 * nodes from the root down, `pathOf(node)`) so it is, over the whole width, and lays out again.
 */
export async function selectFrame(S, node, pathOf, onSettings, redraw, relayout) {
  S.selected = node;
  if (S.rects && S.rects.node.indexOf(node) >= 0) {
    redraw();
    return;
  }
  const path = Array.from(await pathOf(node));
  if (path.length) {
    S.selected = path[path.length - 1];
    S.zoom = path.length > 1 ? path[path.length - 2] : path[0];
    if ('x0' in S) [S.x0, S.x1] = [0, 1];
    onSettings({ zoom: S.zoom });
    S.depth0 = Math.max(0, path.length - 8);
    await relayout();
  }
}

/**
 * The engine's viewport (analysis::flame::Viewport) for a canvas `width` x `height` px: the x
 * window of `S` (the whole width when it has none) and the depths from `S.depth0` that fit.
 */
function flameViewport(S, width, height) {
  const depth1 = S.depth0 + Math.ceil(height / ROW_H) + 1;
  return { x0: S.x0 ?? 0, x1: S.x1 ?? 1, depth0: S.depth0, depth1, width_px: width, min_width_px: MIN_RECT_PX };
}

/**
 * Asks the engine for what `S` shows on a canvas of `size()`: the layout under its zoom root
 * (flame_layout) and the root's breadcrumb (flame_path) of dataset or comparison `id`. Resolves
 * to `{arrays, path, seq}`, or null when a later call or destroy() overtook it.
 */
export async function layoutFlame(S, engine, id, size) {
  const seq = ++S.seq;
  const { width, height } = size();
  const arrays = await engine.call('flame_layout', id, S.zoom, flameViewport(S, width, height));
  const path = await engine.call('flame_path', id, S.zoom);
  return seq === S.seq && !S.destroyed ? { arrays, path, seq } : null;
}

/**
 * Configures the engine's flame graph (`config()` resolves to its deepest depth) with the whole
 * width in view, then lays it out unless a later call or destroy() overtook it.
 */
export async function configureFlame(S, config, relayout) {
  const seq = ++S.seq;
  S.maxDepth = await config();
  if ('x0' in S) [S.x0, S.x1] = [0, 1];
  if (seq !== S.seq || S.destroyed) return;
  await relayout();
}

/** The first 400 rectangles of `S.rects` at least a pixel wide, each as `frame(i)` (the views'
 * `state()` for tests). */
export function visibleFrames(S, frame) {
  const r = S.rects;
  const frames = [];
  if (!r) return frames;
  const w = S.view ? S.view.width : 1000;
  for (let i = 0; i < r.n && frames.length < 400; i++) {
    if (r.width[i] * w >= 1) frames.push(frame(r, i));
  }
  return frames;
}

export function createFlameGraph(root, { engine, id, meta, settings, onSelect, onSettings }) {
  const S = {
    metric: settings.metric,
    merged: settings.merged,
    heavy: settings.heavy,
    flip: settings.flip,
    colorMode: settings.colorMode,
    zoom: settings.zoom ?? 0,
    // The window of the zoom root shown (fractions of its width): the wheel and a drag narrow it.
    x0: 0,
    x1: 1,
    depth0: 0,
    maxDepth: 0,
    rects: null,
    arrays: null,
    view: null,
    selected: settings.selected ?? null,
    hover: -1,
    searching: false,
    search: null,
    path: [],
    names: new Map(), // node -> name of breadcrumb nodes not drawn (above the first depth shown)
    anim: null,
    lastLayoutMs: 0,
    lastDrawMs: 0,
    maxZoomDrawMs: 0,
    zoomFrames: 0,
    destroyed: false,
    seq: 0,
  };

  // ---- DOM ----
  const crumbs = h('nav', { class: 'fg-crumbs', 'aria-label': 'Zoom path', 'data-testid': 'flame-breadcrumb' });
  const toggle = (label, title, key, testid) => {
    const input = h('input', { type: 'checkbox', 'data-testid': testid });
    input.checked = !!S[key];
    input.addEventListener('change', () => {
      S[key] = input.checked;
      onSettings({ [key]: S[key] });
      if (key === 'merged' || key === 'heavy') configure();
      else redraw();
    });
    return h('label', { class: 'fg-toggle', title }, input, ' ', label);
  };
  const orderSel = flagSelect(S, 'heavy', onSettings, () => configure(),
    { 'data-testid': 'flame-order', title: 'Order of children' }, ['heavy', 'left-heavy'], ['file', 'file order']);
  const colorSel = h('select', { 'data-testid': 'flame-color', title: 'Colour frames by' },
    h('option', { value: 'function' }, 'colour: function'), h('option', { value: 'module' }, 'colour: load module'));
  colorSel.value = S.colorMode;
  colorSel.addEventListener('change', () => {
    S.colorMode = colorSel.value;
    onSettings({ colorMode: S.colorMode });
    if (S.arrays) S.rects = unpackRects(S.arrays, meta.names, S.colorMode);
    redraw();
    renderLegend();
  });
  const tools = h('div', { class: 'fg-tools' },
    orderSel,
    toggle('merge loops & lines', 'Fold loops and source lines into their function (function-only graph)', 'merged', 'flame-merge'),
    toggle('flame (root at bottom)', 'Draw the root at the bottom', 'flip', 'flame-flip'),
    colorSel);
  const canvas = h('canvas', {
    class: 'fg-canvas', tabindex: '0', role: 'img', 'data-testid': 'flame-canvas',
    'aria-label': 'Flame graph. Arrow keys move between frames, Enter zooms to the selected frame, + and - zoom the axis, Escape zooms out.',
  });
  const tip = h('div', { class: 'fg-tip', role: 'tooltip', hidden: true, 'data-testid': 'flame-tooltip' });
  const legend = h('div', { class: 'fg-legend', hidden: true, 'data-testid': 'flame-legend' });
  // A metric (or profile) whose every value is zero draws the root alone: say so.
  const note = h('div', { class: 'fg-note muted', hidden: true, 'data-testid': 'flame-note' });
  const wrap = h('div', { class: 'fg-canvas-wrap' }, canvas, tip, legend, note);
  const head = h('div', { class: 'fg-head' }, crumbs, tools);
  root.append(head, wrap);
  const ctx2d = canvas.getContext('2d');

  // ---- sizing ----
  const size = () => fitCanvas(wrap, canvas);
  const ro = new ResizeObserver(() => {
    if (!S.destroyed && S.rects) relayout();
  });
  ro.observe(wrap);

  function viewFor(x0 = 0, x1 = 1) {
    const { width, height, dpr } = size();
    return {
      width, height, dpr, x0, x1, depth0: S.depth0, flip: S.flip, names: meta.names,
      selected: S.selected, hover: S.hover, searching: S.searching,
      bg: getComputedStyle(root).getPropertyValue('--panel').trim() || '#fff',
    };
  }

  // ---- engine ----
  function configure() {
    return configureFlame(S, () => engine.call('flame_config', id, S.metric, S.merged, S.heavy), relayout);
  }

  async function relayout() {
    const t0 = performance.now();
    const got = await layoutFlame(S, engine, id, size);
    if (!got) return;
    const { arrays, path, seq } = got;
    // Names of path nodes the layout does not draw (rows above depth0), for the breadcrumb.
    const drawn = new Set(arrays[0]);
    const missing = Array.from(path).filter((n) => !drawn.has(n) && !S.names.has(n));
    const infos = await Promise.all(missing.map((n) => engine.call('node_info', id, n, S.metric)));
    missing.forEach((n, k) => S.names.set(n, infos[k].name));
    if (seq !== S.seq || S.destroyed) return;
    S.lastLayoutMs = performance.now() - t0;
    S.arrays = arrays;
    S.rects = unpackRects(arrays, meta.names, S.colorMode);
    S.path = Array.from(path);
    S.hover = -1;
    const empty = S.zoom === 0 && S.rects.n > 0 && !(S.rects.incl[0] > 0);
    note.hidden = !empty;
    if (empty) note.textContent = `Every value of ${meta.metrics[S.metric]?.name || 'this metric'} is zero here: nothing to draw.`;
    redraw();
    renderCrumbs(crumbs, S.path, nameOf, zoomTo);
    renderLegend();
  }

  function redraw(x0 = S.x0, x1 = S.x1) {
    if (!S.rects) return;
    const t0 = performance.now();
    S.view = viewFor(x0, x1);
    drawFlame(ctx2d, S.rects, S.view);
    S.lastDrawMs = performance.now() - t0;
  }

  // ---- zoom ----
  function zoomTo(cct, fromIndex = -1) {
    if (cct === S.zoom && S.x0 === 0 && S.x1 === 1) return Promise.resolve();
    const r = S.rects;
    const target = fromIndex >= 0 ? fromIndex : r ? r.node.indexOf(cct) : -1;
    const [from0, from1] = [S.x0, S.x1];
    S.x0 = 0;
    S.x1 = 1;
    S.zoom = cct;
    onSettings({ zoom: cct });
    // Keep a few ancestors in view when zooming deep.
    const depth = target >= 0 ? r.depth[target] : null;
    if (depth !== null) S.depth0 = Math.max(0, Math.min(S.depth0, depth - 3), depth - 8);
    else S.depth0 = 0;
    if (target < 0 || !r) return relayout();
    // Animate: redraw the current layout stretched towards the target's span.
    const tx0 = r.x[target];
    const tx1 = r.x[target] + r.width[target];
    const start = performance.now();
    if (S.anim) cancelAnimationFrame(S.anim);
    return new Promise((resolve) => {
      const step = (now) => {
        const t = Math.min(1, (now - start) / ZOOM_MS);
        const e = 1 - (1 - t) * (1 - t);
        const t0 = performance.now();
        redraw(from0 + (tx0 - from0) * e, from1 + (tx1 - from1) * e);
        const ms = performance.now() - t0;
        S.zoomFrames++;
        if (ms > S.maxZoomDrawMs) S.maxZoomDrawMs = ms;
        if (t < 1 && !S.destroyed) S.anim = requestAnimationFrame(step);
        else {
          S.anim = null;
          relayout().then(resolve);
        }
      };
      S.anim = requestAnimationFrame(step);
    });
  }

  function renderLegend() {
    legend.hidden = S.colorMode !== 'module' || !S.rects;
    if (legend.hidden) return;
    const seen = [];
    const r = S.rects;
    for (let i = 0; i < r.n && seen.length < 12; i++) if (!seen.includes(r.module[i])) seen.push(r.module[i]);
    legend.replaceChildren(...seen.map((m) => h('div', { class: 'fg-legend-item' },
      h('span', { class: 'fg-swatch', style: `background:${moduleColour(m)}` }),
      h('span', { class: 'fg-legend-label' }, m === 0xffffffff ? '(no module)' : meta.modules[m] || `module ${m}`))));
  }

  function nameOf(cct) {
    const r = S.rects;
    if (r) {
      const i = r.node.indexOf(cct);
      if (i >= 0) return meta.names[r.name[i]];
    }
    return S.names.get(cct) ?? `#${cct}`;
  }

  // ---- tooltip ----
  let tipSeq = 0;
  function showTip(i, px, py) {
    const r = S.rects;
    if (i < 0 || !r) {
      tip.hidden = true;
      return;
    }
    const unit = meta.metrics[S.metric]?.unit || '';
    const total = r.incl[0] || 0;
    const name = clip(meta.names[r.name[i]]);
    const fill = (info) => {
      const lines = [h('div', { class: 'fg-tip-name' }, name)];
      const kind = info ? [info.kind, info.relation !== 'lexical' && info.kind !== 'root' && info.kind !== 'entry' ? info.relation : null].filter(Boolean).join(', ') : '';
      if (kind) lines.push(h('div', { class: 'fg-tip-kind' }, kind));
      if (info?.file) lines.push(h('div', { class: 'fg-tip-row' }, h('span', {}, 'source'), h('code', {}, `${clip(info.file)}${info.line ? `:${info.line}` : ''}`)));
      if (info?.module) lines.push(h('div', { class: 'fg-tip-row' }, h('span', {}, 'module'), h('code', {}, `${clip(info.module)}${info.offset_hex ? `+${info.offset_hex}` : ''}`)));
      lines.push(h('div', { class: 'fg-tip-row' }, h('span', {}, 'inclusive'),
        h('b', {}, formatValue(r.incl[i], unit)), h('span', { class: 'muted' }, formatPercent(r.incl[i], total))));
      lines.push(h('div', { class: 'fg-tip-row' }, h('span', {}, 'exclusive'),
        h('b', {}, formatValue(r.excl[i], unit)), h('span', { class: 'muted' }, formatPercent(r.excl[i], total))));
      tip.replaceChildren(...lines);
    };
    fill(null);
    tip.hidden = false;
    placeTip(tip, wrap, px, py);
    const seq = ++tipSeq;
    engine.call('node_info', id, r.node[i], S.metric).then((info) => {
      if (seq === tipSeq && !tip.hidden) {
        fill(info);
        placeTip(tip, wrap, px, py);
      }
    }).catch(() => {});
  }

  // ---- input (flame-input.js) ----
  const band = h('div', { class: 'fg-band', hidden: true, 'data-testid': 'flame-band' });
  wrap.append(band);
  const detachInput = attachFlameInput({
    S, canvas, band, size, redraw, relayout, zoomTo, showTip, onSelect,
    hideTip() {
      tip.hidden = true;
      tipSeq++;
    },
  });

  // ---- API for the profile view ----
  return {
    configure,
    relayout,
    zoomTo,
    setMetric(m) {
      S.metric = m;
      return configure();
    },
    /** Marks `cct` selected; when it is not drawn, zooms to its parent so it is. */
    select(cct) {
      return selectFrame(S, cct, (n) => engine.call('flame_path', id, n), onSettings, redraw, relayout);
    },
    setSearch(active) {
      S.searching = active;
      if (S.rects) relayout();
    },
    state() {
      const r = S.rects;
      const frames = visibleFrames(S, (r, i) => ({
        node: r.node[i], name: meta.names[r.name[i]], depth: r.depth[i], x: r.x[i], width: r.width[i],
        inclusive: r.incl[i], exclusive: r.excl[i], match: !!(r.flags[i] & 1),
      }));
      const zi = r ? r.node.indexOf(S.zoom) : -1;
      return {
        metric: S.metric,
        metricName: meta.metrics[S.metric]?.name,
        unit: meta.metrics[S.metric]?.unit,
        merged: S.merged,
        order: S.heavy ? 'left-heavy' : 'file',
        orientation: S.flip ? 'flame' : 'icicle',
        colorMode: S.colorMode,
        zoom: { node: S.zoom, name: zi >= 0 ? meta.names[r.name[zi]] : null, inclusive: zi >= 0 ? r.incl[zi] : null },
        // The part of the zoom root's width shown (the wheel and a drag narrow it).
        window: [S.x0, S.x1],
        root: r && r.n ? { inclusive: r.incl[0], exclusive: r.excl[0] } : null,
        breadcrumb: S.path.map((n) => nameOf(n)),
        depth0: S.depth0,
        maxDepth: S.maxDepth,
        selected: S.selected,
        rects: r ? r.n : 0,
        frames,
        lastLayoutMs: S.lastLayoutMs,
        lastDrawMs: S.lastDrawMs,
        maxZoomDrawMs: S.maxZoomDrawMs,
        zoomFrames: S.zoomFrames,
      };
    },
    destroy() {
      S.destroyed = true;
      ro.disconnect();
      detachInput();
      if (S.anim) cancelAnimationFrame(S.anim);
    },
  };
}
