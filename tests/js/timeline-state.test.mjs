// The trace view's state without a browser (www/views/timeline/state.js): clamping, row windows,
// zoom / pan / drag / selection / minimap transitions, undo and redo with gestures, the cell and
// colour key under a pixel, and the row-label layout of frames.js. Run: node --test tests/js/
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  clampView, rowWindow, timeAt, zoomed, dragged, selected, centredAt, placed, initialView,
  keyAction, TimelineState, MIN_SPAN_NS, UNDO_LIMIT,
} from '../../www/views/timeline/state.js';
import { labelLines } from '../../www/views/timeline/frames.js';

const view = (t0, t1, r0 = 0, r1 = 1, depth = 0) => ({ t0, t1, r0, r1, depth });

/** A state over a 1000 ns run with 8 rows (lines 10..17) and a clock the test moves. */
function fixture() {
  const clock = { now: 0 };
  const T = new TimelineState(() => clock.now);
  T.durationNs = 1000;
  T.rows = [10, 11, 12, 13, 14, 15, 16, 17];
  T.groups = [0, 0, 0, 0, 1, 1, 1, 1];
  T.view = view(0, 1000);
  return { T, clock };
}

test('clampView keeps the time window inside the run, at least MIN_SPAN_NS, in whole ns', () => {
  assert.equal(MIN_SPAN_NS, 10);
  assert.deepEqual(clampView(view(500, 503), 1000, 8), view(500, 510));
  assert.deepEqual(clampView(view(950, 1150), 1000, 8), view(800, 1000));
  assert.deepEqual(clampView(view(-100, 5000), 1000, 8), view(0, 1000));
  assert.deepEqual(clampView(view(-50, 30, 0, 1, 3), 1000, 8), view(0, 80, 0, 1, 3));
  assert.deepEqual(clampView(view(100.4, 200.6), 1000, 8), view(100, 201));
});

test('clampView keeps the row window inside [0, 1] and at least one row high', () => {
  assert.deepEqual(clampView(view(0, 1000, 0.5, 0.5), 1000, 4), view(0, 1000, 0.5, 0.75));
  assert.deepEqual(clampView(view(0, 1000, -0.25, 0.25), 1000, 4), view(0, 1000, 0, 0.5));
  assert.deepEqual(clampView(view(0, 1000, 0.875, 1.125), 1000, 4), view(0, 1000, 0.75, 1));
  assert.deepEqual(clampView(view(0, 1000, 0.25, 0.5), 1000, 0), view(0, 1000, 0, 1));
});

test('rowWindow: the rows under a row window, at least one', () => {
  assert.deepEqual(rowWindow(view(0, 1, 0.25, 0.5), 10), { a: 2, b: 5 });
  assert.deepEqual(rowWindow(view(0, 1, 0.95, 1), 10), { a: 9, b: 10 });
  assert.deepEqual(rowWindow(view(0, 1, 0.31, 0.32), 10), { a: 3, b: 4 });
  assert.deepEqual(rowWindow(view(0, 1, 0, 0.55), 10), { a: 0, b: 6 }, 'a row partly under the window is shown');
  assert.deepEqual(rowWindow(view(0, 1, 0, 1), 0), { a: 0, b: 0 });
});

test('zoom keeps the time under the pointer in place; timeAt reads it back', () => {
  const v = view(1000, 2000);
  assert.deepEqual(zoomed(v, 0.5, 0.25), view(1125, 1625));
  assert.deepEqual(zoomed(v, 2), view(500, 2500));
  assert.equal(timeAt(v, 250, 1000), 1250);
  assert.equal(timeAt(zoomed(v, 0.5, 0.25), 250, 1000), 1250);
  assert.equal(timeAt(v, 1, 3), 1333);
});

test('drag, range selection and minimap jumps', () => {
  assert.deepEqual(dragged(view(1000, 2000, 0, 0.5), 100, 40, 60, 20, 400, 80), view(1100, 2100, 0.125, 0.625));
  // From (150, 75) back to (50, 25) of a 200 x 100 picture: the middle half in both directions.
  assert.deepEqual(selected(view(1000, 3000, 0.5, 1), 150, 75, 50, 25, 200, 100), view(1500, 2500, 0.625, 0.875));
  assert.deepEqual(centredAt(view(0, 100, 0, 0.25), 0.5, 0.5, 1000), view(450, 550, 0.375, 0.625));
});

test('placed: where an older picture falls in the current window', () => {
  assert.deepEqual(placed(view(1000, 2000), [0, 8], view(1500, 2500), [2, 6], 1000, 400), { x0: -500, x1: 500, y0: -200, y1: 600 });
  assert.deepEqual(placed(view(0, 10), [0, 4], view(0, 10), [0, 4], 300, 200), { x0: 0, x1: 300, y0: 0, y1: 200 });
});

test('initialView: the whole run at depth 2, or a deep link range clamped to the run', () => {
  assert.deepEqual(initialView(1e9, 5, null), view(0, 1e9, 0, 1, 2));
  assert.deepEqual(initialView(1e9, 2, { t0: -5, t1: 2e9 }), view(0, 1e9, 0, 1, 1));
  assert.deepEqual(initialView(1e9, 9, { t0: 2e8, t1: 3e8 }), view(2e8, 3e8, 0, 1, 2));
  assert.deepEqual(initialView(0, 0, null), view(0, 1, 0, 1, 0));
});

test('keys: what each key asks for', () => {
  assert.equal(keyAction({ key: 'z', ctrlKey: true }), 'undo');
  assert.equal(keyAction({ key: 'Z', metaKey: true, shiftKey: true }), 'redo');
  assert.equal(keyAction({ key: 'y', ctrlKey: true }), 'redo');
  assert.equal(keyAction({ key: 'y' }), null);
  assert.equal(keyAction({ key: 'z' }), null);
  assert.equal(keyAction({ key: '=' }), 'zoomIn');
  assert.equal(keyAction({ key: '_' }), 'zoomOut');
  assert.equal(keyAction({ key: 'ArrowUp' }), 'up');
  assert.equal(keyAction({ key: 'Home' }), 'home');
});

test('undo and redo; a burst of gesture events is one undo step', () => {
  const { T, clock } = fixture();
  assert.equal(T.zoomBy(0.5), true);
  assert.deepEqual(T.view, view(250, 750));
  clock.now = 1000;
  T.panBy(0.1, true); // a new gesture: an undo step
  clock.now = 1200;
  T.panBy(0.1, true); // 200 ms later: the same step
  assert.equal(T.undoStack.length, 2);
  clock.now = 1800;
  T.panBy(0.1, true); // 600 ms later: a new step
  assert.deepEqual(T.view, view(400, 900));
  assert.equal(T.undoStack.length, 3);
  assert.equal(T.undo(), true);
  assert.deepEqual(T.view, view(350, 850));
  T.undo();
  assert.deepEqual(T.view, view(250, 750));
  T.undo();
  assert.deepEqual(T.view, view(0, 1000));
  assert.equal(T.undo(), false);
  assert.equal(T.redoStack.length, 3);
  T.redo();
  assert.deepEqual(T.view, view(250, 750));
  // A new change drops what could be redone.
  T.panRows(0.25);
  assert.deepEqual(T.view, view(250, 750, 0, 1));
  assert.equal(T.redoStack.length, 2, 'all rows shown: a row pan changes nothing');
  T.setView(view(250, 750, 0, 0.5));
  T.panRows(0.25);
  assert.deepEqual(T.view, view(250, 750, 0.125, 0.625));
  assert.equal(T.redoStack.length, 0);
});

test('a change clamped back to the current view is no step; home; the undo limit', () => {
  const { T } = fixture();
  assert.equal(T.panBy(-0.1), false, 'at the start already');
  assert.equal(T.home(), false);
  assert.equal(T.undoStack.length, 0);
  for (let i = 1; i <= UNDO_LIMIT + 5; i++) T.setView(view(i, 500 + i));
  assert.equal(T.undoStack.length, UNDO_LIMIT);
  assert.deepEqual(T.undoStack[0], view(5, 505));
  assert.equal(T.home(), true);
  assert.deepEqual(T.view, view(0, 1000));
});

test('new rows show all of them without an undo step', () => {
  const { T } = fixture();
  T.setView(view(0, 1000, 0.5, 0.75));
  T.setRows([3, 4], [0, 0]);
  assert.deepEqual(T.view, view(0, 1000, 0, 1));
  assert.deepEqual(T.shown(), { a: 0, b: 2 });
  assert.equal(T.undoStack.length, 1);
});

test('the cell, colour key and crosshair under a pixel', () => {
  const { T } = fixture();
  T.setView(view(0, 1000, 0.25, 0.75)); // rows 2..5 of 8: lines 12..15
  assert.deepEqual(T.shown(), { a: 2, b: 6 });
  assert.deepEqual(T.cellAt(250, 150, 500, 400, null), { line: 13, r: 1, time: 500 });
  // A frame of this view that picked 2 of the 4 rows: its own row list says which line is there.
  const frame = { view: { ...T.view }, width: 4, unpacked: { rows: 2, lines: [12, 15], keys: Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 8]) } };
  assert.deepEqual(T.cellAt(250, 150, 500, 400, frame), { line: 12, r: 0, time: 500 });
  assert.deepEqual(T.cellAt(250, 150, 500, 400, { ...frame, view: view(0, 999) }), { line: 13, r: 1, time: 500 });
  assert.equal(T.keyAt(2.5, 300, 400, frame), 7);
  assert.equal(T.keyAt(10, 0, 400, frame), 4);
  assert.equal(T.keyAt(0.5, 199, 400, frame), 1, 'pixel row 199 of 400 is in frame row 0 of 2');
  assert.equal(T.keyAt(1, 1, 400, { ...frame, view: view(0, 999) }), null);
  assert.deepEqual(T.crosshairAt(14, 250, 500, 400), { x: 125, y: 250 });
  assert.equal(T.crosshairAt(10, 250, 500, 400), null, 'row 0 is not shown');
  assert.equal(T.crosshairAt(99, 250, 500, 400), null);
});

test('progress badge and status line', () => {
  const { T } = fixture();
  T.setView(view(0, 1000, 0.25, 0.75));
  const f = { view: { ...T.view }, exact: false, rowsExact: 3, rowsTotal: 8 };
  assert.equal(T.progressLabel(f), 'refining 37%');
  assert.equal(T.isExact(f), false);
  assert.equal(T.progressLabel({ ...f, exact: true }), '');
  assert.equal(T.isExact({ ...f, exact: true }), true);
  assert.equal(T.progressLabel({ ...f, exact: true, view: view(0, 500) }), 'updating');
  assert.equal(T.progressLabel(null), '');
  assert.equal(T.statusText(null), '0 ns – 1 us (1 us) · rows 3–6 of 8');
  assert.equal(T.statusText('RANK 3 @ 5 ns: main'), '0 ns – 1 us (1 us) · rows 3–6 of 8 · RANK 3 @ 5 ns: main');
});

test('row labels: whole when they fit, leading id levels dropped, or two lines when tall', () => {
  const fits = (t) => t.length <= 12;
  assert.deepEqual(labelLines('RANK 3', fits, false), ['RANK 3']);
  assert.deepEqual(labelLines('NODE 0 / RANK 14 / THREAD 0', fits, false), ['… THREAD 0']);
  assert.deepEqual(labelLines('NODE 0 / RANK 14 / THREAD 0', fits, true), ['…0 / RANK 14', 'THREAD 0']);
  // A label of one very long name is cut to its end, measuring at most ~160 prefixes.
  let measured = 0;
  const counting = (t) => (measured++, t.length <= 12);
  assert.deepEqual(labelLines('x'.repeat(1e6) + 'END', counting, false), ['…xxxxxxxxEND']);
  assert.ok(measured < 200, `measured ${measured} times`);
});
