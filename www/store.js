// Page state: one plain object, replaced (never mutated in place) by `update`, with subscribers.
// Views read it and call `update`; `snapshot()` is what `window.hpcscope.state()` returns.

const listeners = new Set();

let state = {
  /** Dataset summaries (see src/session/workspace.rs DatasetSummary), in opening order. */
  datasets: [],
  /** id of the dataset the views show, or null. */
  selected: null,
  /** id of the view shown (a tab: 'summary', later 'flame', 'table', 'timeline' ...). */
  view: 'summary',
  /** Errors shown in the banner: {id, kind, file, offset, offset_hex, what, message}. */
  errors: [],
  /** Files in dropped folders that belonged to no dataset. */
  ignored: [],
  /** While files are read or parsed: {phase, done, total, file}; null otherwise. */
  busy: null,
  /** Milliseconds the engine spent in the last open (parsing, in the Worker). */
  lastOpenMs: null,
};

let nextErrorId = 1;

export function get() {
  return state;
}

/** Merges `patch` (an object, or a function of the state returning one) and notifies. */
export function update(patch) {
  const p = typeof patch === 'function' ? patch(state) : patch;
  state = { ...state, ...p };
  for (const fn of listeners) fn(state);
}

/** Calls `fn(state)` on every change; returns the unsubscribe function. */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function selectedDataset(s = state) {
  return s.datasets.find((d) => d.id === s.selected) || null;
}

export function addErrors(errors) {
  if (!errors.length) return;
  update((s) => ({ errors: [...s.errors, ...errors.map((e) => ({ id: nextErrorId++, ...e }))] }));
}

export function dismissError(id) {
  update((s) => ({ errors: id == null ? [] : s.errors.filter((e) => e.id !== id) }));
}

/** Plain, cloneable copy of the state plus what each view reports about itself. */
export function snapshot(viewStates = {}) {
  return JSON.parse(JSON.stringify({ ...state, views: viewStates }));
}
