// Address histogram view (DCPI profiles): samples per address range of the image, one bar per
// few CSS pixels, from Session::address_histogram; hover names the range and its samples.
import { h, formatCount } from '../format.js';
import { selectedDataset } from '../store.js';
import { drawHistogram, hex, histogramLayout, hitTest } from '../render/histogram-draw.js';

const HEIGHT = 320;
const BAR_PX = 3;

export default {
  id: 'histogram',
  title: 'Address histogram',
  available: (d) => !!d && d.status === 'opened' && d.format === 'dcpi',
  mount(el, { engine }) {
    const canvas = h('canvas', { class: 'histogram-canvas', 'data-field': 'histogram' });
    const info = h('div', { class: 'histogram-info muted', 'data-field': 'histogram-info' }, '');
    el.replaceChildren(h('div', { class: 'histogram' },
      h('h3', {}, 'Samples by address'), canvas, info));
    let shown = null;
    let flat = null;
    let layout = null;
    let highlight = -1;
    let width = 0;
    let request = 0;

    const redraw = () => {
      const dpr = self.devicePixelRatio || 1;
      width = Math.max(200, el.clientWidth - 16);
      canvas.style.width = `${width}px`;
      canvas.style.height = `${HEIGHT}px`;
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(HEIGHT * dpr);
      layout = histogramLayout(flat, width, HEIGHT);
      drawHistogram(canvas.getContext('2d'), layout, width, HEIGHT, dpr, highlight);
    };
    const describe = () => {
      if (!layout || !layout.bars.length) {
        info.textContent = flat ? 'No samples.' : 'Loading…';
        return;
      }
      const b = layout.bars[highlight];
      info.textContent = b
        ? `${hex(b.start)}–${hex(b.end)}: ${formatCount(b.samples)} samples`
        : `${formatCount(layout.total)} samples in ${layout.bars.length} bins; peak ${formatCount(layout.max)}`;
    };
    const load = async (d) => {
      const mine = ++request;
      flat = null;
      redraw();
      describe();
      const bins = Math.max(16, Math.floor((el.clientWidth - 84) / BAR_PX));
      const data = await engine.call('address_histogram', d.id, bins);
      if (mine !== request) return;
      flat = data;
      redraw();
      describe();
    };
    canvas.addEventListener('mousemove', (e) => {
      if (!layout) return;
      const r = canvas.getBoundingClientRect();
      const i = hitTest(layout, e.clientX - r.left);
      if (i !== highlight) {
        highlight = i;
        redraw();
        describe();
      }
    });
    canvas.addEventListener('mouseleave', () => {
      highlight = -1;
      redraw();
      describe();
    });
    const ro = new ResizeObserver(() => {
      if (shown && Math.abs(el.clientWidth - 16 - width) > 8) load(shown);
    });
    ro.observe(el);
    return {
      update(state) {
        const d = selectedDataset(state);
        if (d === shown) return;
        shown = d;
        if (d) load(d);
      },
      state() {
        if (!layout) return { dataset: shown ? shown.id : null, bins: 0 };
        const peak = layout.bars.reduce((a, b) => (b.samples > a.samples ? b : a), { samples: -1 });
        return {
          dataset: shown ? shown.id : null,
          bins: layout.bars.length,
          total: layout.total,
          max: layout.max,
          peak: peak.samples >= 0 ? { start: peak.start, end: peak.end, samples: peak.samples } : null,
        };
      },
      destroy() {
        ro.disconnect();
        el.replaceChildren();
      },
    };
  },
};
