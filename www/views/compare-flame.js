// Differential flame graph of the compare view: the union of two runs' calling contexts as an
// icicle, width from the new or the base run (a toggle), colour from the relative change of each
// frame's inclusive value on a diverging scale with its legend, breadcrumb, tooltip with both
// runs' values. The engine lays out only the visible frames (flame_layout with the comparison id).
import { h } from '../format.js';
import { drawFlame, hitTest, fitCanvas, ROW_H } from '../render/flame-draw.js';
import { changeBucket, bucketColour, legendEntries } from '../render/diff-colours.js';
import { formatValue, formatPercent, formatDelta, formatRatio } from './profile-format.js';
import { configureFlame, flagSelect, layoutFlame, placeTip, renderCrumbs, selectFrame, visibleFrames } from './flame-graph.js';

/** CSS class of a change from `b` to `n`: up, down, or none within rounding (1e-9). */
export function changeClass(b, n) {
  if (Math.abs(n - b) <= 1e-9 * Math.max(Math.abs(b), Math.abs(n))) return 'muted';
  return n > b ? 'cmp-up' : 'cmp-down';
}

/**
 * `names`, `modules`: the comparison's name tables; `totals()`: the DiffTotals in force (unit,
 * normalisation); `onSelect(node)`: a union node was clicked.
 */
export function createCompareFlame(root, { engine, cid, names, settings, totals, onSelect, onSettings }) {
  const S = {
    widthNew: settings.widthNew ?? true,
    heavy: settings.heavy ?? true,
    zoom: settings.zoom ?? 0,
    depth0: 0,
    maxDepth: 0,
    rects: null,
    view: null,
    selected: settings.selected ?? null,
    hover: -1,
    path: [],
    lastLayoutMs: 0,
    destroyed: false,
    seq: 0,
  };

  const crumbs = h('nav', { class: 'fg-crumbs', 'aria-label': 'Zoom path', 'data-testid': 'compare-breadcrumb' });
  const widthSel = flagSelect(S, 'widthNew', onSettings, () => configure(),
    { 'data-testid': 'compare-width', title: 'Which run sets the frame widths' }, ['new', 'width: new run'], ['base', 'width: base run']);
  const orderSel = flagSelect(S, 'heavy', onSettings, () => configure(),
    { 'data-testid': 'compare-order', title: 'Order of children' }, ['heavy', 'left-heavy'], ['file', 'base order']);
  const legend = h('div', { class: 'cmp-legend', 'data-testid': 'compare-legend', 'aria-label': 'Colour: new run against base run' },
    h('span', { class: 'cmp-legend-title' }, 'new vs base:'),
    legendEntries().map(([label, colour]) => h('span', { class: 'cmp-legend-item' },
      h('span', { class: 'fg-swatch', style: `background:${colour}` }), label)));
  const canvas = h('canvas', {
    class: 'fg-canvas', tabindex: '0', role: 'img', 'data-testid': 'compare-canvas',
    'aria-label': 'Differential flame graph. Click a frame to zoom, Escape zooms out.',
  });
  const tip = h('div', { class: 'fg-tip', role: 'tooltip', hidden: true, 'data-testid': 'compare-tooltip' });
  const wrap = h('div', { class: 'fg-canvas-wrap' }, canvas, tip);
  root.append(h('div', { class: 'fg-head' }, crumbs, h('div', { class: 'fg-tools' }, widthSel, orderSel)), legend, wrap);
  const ctx2d = canvas.getContext('2d');

  const size = () => fitCanvas(wrap, canvas);
  const ro = new ResizeObserver(() => {
    if (!S.destroyed && S.rects) relayout();
  });
  ro.observe(wrap);

  function configure() {
    return configureFlame(S, () => engine.call('compare_flame_config', cid, S.widthNew, S.heavy), relayout);
  }

  async function relayout() {
    const t0 = performance.now();
    const got = await layoutFlame(S, engine, cid, size);
    if (!got) return;
    S.lastLayoutMs = performance.now() - t0;
    const [node, depth, x, w, name, module, baseIncl, newIncl, baseExcl, newExcl, flags] = got.arrays;
    const color = new Array(node.length);
    for (let i = 0; i < node.length; i++) color[i] = changeBucket(baseIncl[i], newIncl[i], flags[i]);
    S.rects = { n: node.length, node, depth, x, width: w, name, module, baseIncl, newIncl, baseExcl, newExcl, flags, color };
    S.path = Array.from(got.path);
    S.hover = -1;
    redraw();
    renderCrumbs(crumbs, S.path, nameOf, zoomTo);
  }

  function redraw() {
    if (!S.rects) return;
    const { width, height, dpr } = size();
    S.view = {
      width, height, dpr, x0: 0, x1: 1, depth0: S.depth0, flip: false, names,
      selected: S.selected, hover: S.hover, searching: false, colourOf: bucketColour,
      bg: getComputedStyle(root).getPropertyValue('--panel').trim() || '#fff',
    };
    drawFlame(ctx2d, S.rects, S.view);
  }

  function zoomTo(node) {
    if (node === S.zoom) return Promise.resolve();
    const r = S.rects;
    const i = r ? r.node.indexOf(node) : -1;
    S.zoom = node;
    onSettings({ zoom: node });
    S.depth0 = i >= 0 ? Math.max(0, Math.min(S.depth0, r.depth[i] - 3), r.depth[i] - 8) : 0;
    return relayout();
  }

  function nameOf(node) {
    const r = S.rects;
    const i = r ? r.node.indexOf(node) : -1;
    return i >= 0 ? names[r.name[i]] : `#${node}`;
  }

  function tipRow(label, b, n, unit, rootB, rootN) {
    return h('div', { class: 'fg-tip-row cmp-tip-row' }, h('span', {}, label),
      h('b', {}, `${formatValue(b, unit)} → ${formatValue(n, unit)}`),
      h('span', { class: changeClass(b, n) }, `${formatDelta(n - b, unit, Math.max(Math.abs(b), Math.abs(n)))} (${formatRatio(b, n)})`),
      h('span', { class: 'muted' }, `${formatPercent(b, rootB) || '0%'} → ${formatPercent(n, rootN) || '0%'}`));
  }

  function showTip(i, px, py) {
    const r = S.rects;
    if (i < 0 || !r) {
      tip.hidden = true;
      return;
    }
    const t = totals();
    const unit = t.unit || '';
    const rootB = t.base_total * t.base_factor;
    const rootN = t.new_total * t.new_factor;
    const f = r.flags[i];
    const status = f & 8 ? 'only in the new run' : f & 16 ? 'only in the base run' : 'in both runs';
    tip.replaceChildren(
      h('div', { class: 'fg-tip-name' }, names[r.name[i]] ?? ''),
      h('div', { class: 'fg-tip-kind' }, status),
      tipRow('inclusive', r.baseIncl[i], r.newIncl[i], unit, rootB, rootN),
      tipRow('exclusive', r.baseExcl[i], r.newExcl[i], unit, rootB, rootN));
    tip.hidden = false;
    placeTip(tip, wrap, px, py);
  }

  function pos(e) {
    const b = canvas.getBoundingClientRect();
    return [e.clientX - b.left, e.clientY - b.top];
  }
  canvas.addEventListener('mousemove', (e) => {
    if (!S.view) return;
    const [px, py] = pos(e);
    const i = hitTest(S.rects, S.view, px, py);
    if (i !== S.hover) {
      S.hover = i;
      redraw();
    }
    showTip(i, px, py);
    canvas.style.cursor = i >= 0 ? 'pointer' : 'default';
  });
  canvas.addEventListener('mouseleave', () => {
    S.hover = -1;
    tip.hidden = true;
    redraw();
  });
  canvas.addEventListener('click', (e) => {
    if (!S.view) return;
    const [px, py] = pos(e);
    const i = hitTest(S.rects, S.view, px, py);
    if (i < 0) return;
    tip.hidden = true;
    S.selected = S.rects.node[i];
    onSelect(S.selected);
    zoomTo(S.selected);
  });
  canvas.addEventListener('wheel', (e) => {
    if (!S.rects) return;
    const visible = Math.floor(size().height / ROW_H);
    const next = Math.max(0, Math.min(Math.max(0, S.maxDepth + 2 - visible), S.depth0 + Math.sign(e.deltaY) * 3));
    if (next !== S.depth0) {
      e.preventDefault();
      S.depth0 = next;
      relayout();
    }
  }, { passive: false });
  canvas.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' || e.key === 'Backspace') {
      e.preventDefault();
      if (S.path.length > 1) zoomTo(S.path[S.path.length - 2]);
    } else if (e.key === 'Home') {
      e.preventDefault();
      zoomTo(0);
    }
  });

  return {
    configure,
    relayout,
    zoomTo,
    /** Marks union node `node` selected; when it is not drawn, zooms to its parent so it is. */
    select(node) {
      return selectFrame(S, node, (n) => engine.call('flame_path', cid, n), onSettings, redraw, relayout);
    },
    state() {
      const r = S.rects;
      const frames = visibleFrames(S, (r, i) => ({
        node: r.node[i], name: names[r.name[i]], depth: r.depth[i], x: r.x[i], width: r.width[i],
        base: r.baseIncl[i], new: r.newIncl[i], baseExclusive: r.baseExcl[i], newExclusive: r.newExcl[i],
        added: !!(r.flags[i] & 8), removed: !!(r.flags[i] & 16), colour: bucketColour(r.color[i]),
      }));
      return {
        width: S.widthNew ? 'new' : 'base',
        order: S.heavy ? 'left-heavy' : 'base',
        zoom: S.zoom,
        breadcrumb: S.path.map((n) => nameOf(n)),
        depth0: S.depth0,
        maxDepth: S.maxDepth,
        selected: S.selected,
        rects: r ? r.n : 0,
        root: r && r.n ? { base: r.baseIncl[0], new: r.newIncl[0] } : null,
        frames,
        lastLayoutMs: S.lastLayoutMs,
      };
    },
    destroy() {
      S.destroyed = true;
      ro.disconnect();
    },
  };
}
