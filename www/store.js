// Page state: one plain object, replaced (never mutated in place) by `update`, with subscribers.
// Views read it and call `update`; `snapshot()` is what `window.hpcscope.state()` returns.
// The module's own functions work on the page's store; `createStore()` makes an independent one
// (each <hpcscope-view> element has its own, so two elements never share state).

/** A new store with its own state, listeners and error ids. */
export function createStore() {
  const listeners = new Set();
  let nextErrorId = 1;
  let state = {
    /** Dataset summaries (see src/session/workspace.rs DatasetSummary), in opening order. */
    datasets: [],
    /** id of the dataset the views show, or null. */
    selected: null,
    /** id of the view shown (a tab: 'summary', 'profile', 'timeline' ...). */
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

  const store = {
    get: () => state,
    /** Merges `patch` (an object, or a function of the state returning one) and notifies. */
    update(patch) {
      const p = typeof patch === 'function' ? patch(state) : patch;
      state = { ...state, ...p };
      for (const fn of listeners) fn(state);
    },
    /** Calls `fn(state)` on every change; returns the unsubscribe function. */
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    selectedDataset: (s = state) => selectedDataset(s),
    addErrors(errors) {
      if (!errors.length) return;
      store.update((s) => ({ errors: [...s.errors, ...errors.map((e) => ({ id: nextErrorId++, ...e }))] }));
    },
    dismissError(id) {
      store.update((s) => ({ errors: id == null ? [] : s.errors.filter((e) => e.id !== id) }));
    },
    /** Plain, cloneable copy of the state plus what each view reports about itself. */
    snapshot: (viewStates = {}) => JSON.parse(JSON.stringify({ ...state, views: viewStates })),
  };
  return store;
}

/** The dataset summary `s.selected` names (default: in the page's store), or null. */
export function selectedDataset(s = page.get()) {
  return s.datasets.find((d) => d.id === s.selected) || null;
}

// The page's store (www/app.js imports this module as `store`).
const page = createStore();
export const get = page.get;
export const update = page.update;
export const subscribe = page.subscribe;
export const addErrors = page.addErrors;
export const dismissError = page.dismissError;
export const snapshot = page.snapshot;
