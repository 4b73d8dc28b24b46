// The time-order chart's hit test and keyboard moves (www/render/time-order-draw.js) on a small
// hand-made layout, in Node: no canvas needed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { CELLS, AXIS_H, ROW_H, depthIndex, hitTimeOrder, neighbour } from '../../www/render/time-order-draw.js';

// main [0, 100) > a [10, 40), b [50, 90) > c [60, 61); sorted by (depth, start) as the engine sends.
const calls = [[0, 0, 100], [1, 10, 40], [1, 50, 90], [2, 60, 61]];
const L = {
  n: calls.length,
  times: Float64Array.from(calls.flatMap(([, s, e]) => [s, e])),
  cells: Uint32Array.from(calls.flatMap(([d], i) => [d, i + 1, 0, 1, 10 + i])),
};
L.first = depthIndex(L.cells, L.n);
const view = { t0: 0, t1: 100, top: 0 };
const y = (d) => AXIS_H + d * ROW_H + ROW_H / 2;

test('depth index and hit test', () => {
  assert.equal(CELLS, 5);
  assert.deepEqual(L.first, [0, 1, 3, 4]);
  // 100 px for 100 ns: one px per ns.
  assert.equal(hitTimeOrder(L, view, 100, 5, y(0)), 0);
  assert.equal(hitTimeOrder(L, view, 100, 10, y(1)), 1);
  assert.equal(hitTimeOrder(L, view, 100, 45, y(1)), -1, 'between a and b');
  assert.equal(hitTimeOrder(L, view, 100, 89.5, y(1)), 2);
  assert.equal(hitTimeOrder(L, view, 100, 60.5, y(2)), 3);
  assert.equal(hitTimeOrder(L, view, 100, 62, y(2)), -1);
  assert.equal(hitTimeOrder(L, view, 100, 5, AXIS_H - 1), -1, 'the axis');
  assert.equal(hitTimeOrder(L, view, 100, 5, y(3)), -1, 'below the deepest call');
  // Zoomed out to 10 px: c is narrower than a pixel but is still hit over one.
  assert.equal(hitTimeOrder(L, { t0: 0, t1: 1000, top: 0 }, 10, 0.65, y(2)), 3);
  // Scrolled down one depth.
  assert.equal(hitTimeOrder(L, { ...view, top: 1 }, 100, 60.5, y(1)), 3);
});

test('keyboard moves: siblings, caller, first callee', () => {
  assert.equal(neighbour(L, 1, 'right'), 2);
  assert.equal(neighbour(L, 2, 'right'), -1);
  assert.equal(neighbour(L, 2, 'left'), 1);
  assert.equal(neighbour(L, 3, 'up'), 2);
  assert.equal(neighbour(L, 2, 'up'), 0);
  assert.equal(neighbour(L, 0, 'up'), -1);
  assert.equal(neighbour(L, 0, 'down'), 1);
  assert.equal(neighbour(L, 2, 'down'), 3);
  assert.equal(neighbour(L, 1, 'down'), -1);
});
