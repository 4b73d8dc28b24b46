// One colour per function in every view: the flame graph's rectangles (flame-draw.js) and the
// trace view's keys (colours.js' buildColourTable, keyed by position in timeline_meta's names)
// take a function's colour from its display name alone. Run: node --test tests/js/
import test from 'node:test';
import assert from 'node:assert/strict';
import { colourIndex, paletteColour, functionColour, buildColourTable, EMPTY_RGB, FUNCTION_COLOURS } from '../../www/render/colours.js';
import { unpackRects } from '../../www/render/flame-draw.js';

/** Flame rectangles of frames named by name ids `ids` into `names` (function colour mode). */
function flameColours(names, ids) {
  const n = ids.length;
  const f64 = (v) => Float64Array.from({ length: n }, () => v);
  const rects = unpackRects([Uint32Array.from(ids.map((_, i) => i)), Uint32Array.from(ids.map((_, i) => i)),
    f64(0), f64(1), Uint32Array.from(ids), Uint32Array.from(ids.map(() => 0)), f64(1), f64(0), new Uint8Array(n)], names, 'function');
  return Array.from(rects.color, paletteColour);
}

test('a function name has the same colour in the flame graph and the trace', () => {
  // The two views number names differently (flame: function ids; trace: keys in order met).
  const flameNames = ['main', 'solve', 'MPI_Wait', 'compute'];
  const traceNames = ['MPI_Wait', 'main', 'compute', 'solve'];
  const flame = flameColours(flameNames, [0, 1, 2, 3]);
  const table = buildColourTable(traceNames);
  for (const [i, name] of flameNames.entries()) {
    assert.equal(flame[i], table.css[traceNames.indexOf(name) + 1], name);
    assert.equal(flame[i], functionColour(name), name);
  }
});

test('colour index: FNV-1a of the name over the 64-colour palette', () => {
  assert.equal(FUNCTION_COLOURS, 64);
  // FNV-1a 32: main 3935363592, solve 2724541488, MPI_Wait 414176645.
  assert.equal(colourIndex('main'), 8);
  assert.equal(colourIndex('solve'), 48);
  assert.equal(colourIndex('MPI_Wait'), 5);
  assert.equal(paletteColour(8), 'rgb(245,190,163)');
  assert.equal(paletteColour(48), 'rgb(71,225,72)');
  assert.equal(paletteColour(5), 'rgb(234,62,155)');
});

test('the trace colour table: ImageData words match the CSS colours, key 0 is the background', () => {
  const t = buildColourTable(['main', 'solve']);
  const word = ([r, g, b]) => ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
  assert.equal(t.lut.length, 3);
  assert.equal(t.lut[0], word(EMPTY_RGB));
  assert.equal(t.css[0], `rgb(${EMPTY_RGB.join(',')})`);
  assert.equal(t.lut[1], word([245, 190, 163]));
  assert.equal(t.css[1], 'rgb(245,190,163)');
  assert.equal(t.lut[2], word([71, 225, 72]));
});
