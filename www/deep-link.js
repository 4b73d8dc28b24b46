// Deep links: the URL hash (or query) carries what the page shows for a dataset opened by URL:
// URL, view, metric, node, flame zoom, trace or time-order range and line, a comparison's `base`,
// so a copied link reopens the same picture (`index.html#url=…%2Fdb%2F&view=profile&node=42&zoom=7`).
// Per-dataset settings stay in each store (profileViews, timeViews, timeOrderViews): elements never mix.

/** `timeViews` of `store`'s state: per dataset, `pending` (a link's range, taken once) and `last`
 *  (the range shown). Written without notifying, like `profileViews`. */
function timeViews(store) {
  const s = store.get();
  if (!s.timeViews) s.timeViews = {};
  return s.timeViews;
}

/** A link's fields from `location.search` and `location.hash` (hash wins). */
export function parseLink(search = location.search, hash = location.hash) {
  const q = new URLSearchParams(search);
  const h = new URLSearchParams(hash.replace(/^#/, ''));
  const get = (k) => (h.has(k) ? h.get(k) : q.get(k));
  const num = (k) => {
    const v = get(k);
    return v == null || v === '' || !Number.isFinite(Number(v)) ? null : Number(v);
  };
  return {
    url: get('url') || null,
    base: get('base') || null,
    name: get('name') || null,
    view: get('view') || null,
    metric: num('metric'),
    node: num('node'),
    zoom: num('zoom'),
    t0: num('t0'),
    t1: num('t1'),
    line: num('line'),
  };
}

/** The hash of a link (fields that are null are left out). */
export function linkHash(link) {
  const h = new URLSearchParams();
  for (const k of ['url', 'base', 'name', 'view', 'metric', 'node', 'zoom', 't0', 't1', 'line']) {
    const v = link[k];
    if (v != null && v !== '') h.set(k, String(v));
  }
  return `#${h.toString()}`;
}

/**
 * Store patch and per-dataset settings that make a freshly opened dataset `id` show `link`:
 * profile settings go where the profile view reads them, the time range where the trace view does.
 */
export function applyLink(store, id, link) {
  const s = {};
  if (link.metric != null) s.metric = link.metric;
  if (link.node != null) s.selected = link.node;
  if (link.zoom != null) s.zoom = link.zoom;
  if (Object.keys(s).length) {
    const all = store.get().profileViews || {};
    all[id] = { ...(all[id] || {}), ...s };
    store.get().profileViews = all;
  }
  const range = link.t0 != null && link.t1 != null && link.t1 > link.t0;
  if (link.view === 'timeorder') {
    // The Time order view's request (views/time-order.js): its line, and its range once.
    const st = store.get();
    st.timeOrderViews = { ...(st.timeOrderViews || {}), [id]: { line: link.line ?? undefined, ...(range ? { t0: link.t0, t1: link.t1, pending: true } : {}) } };
  } else if (range) {
    const tv = timeViews(store);
    tv[id] = { ...(tv[id] || {}), pending: { t0: link.t0, t1: link.t1 } };
  }
  return link.view ? { view: link.view } : {};
}

/** For the trace view: a time range [t0, t1) ns to start dataset `id` of `store` at, once. */
export function takeTimeView(store, id) {
  const tv = timeViews(store)[id];
  const v = tv?.pending || null;
  if (tv) delete tv.pending;
  return v;
}

/** For the trace view: the range it shows now, so links made on another tab still carry it. */
export function noteTimeView(store, id, t0, t1) {
  const tv = timeViews(store);
  tv[id] = { ...(tv[id] || {}), last: { t0, t1 } };
}

/** The link of what the page shows now, or null when the selected dataset has no URL. */
export function currentLink(state, urlOf) {
  const id = state.selected;
  const url = id == null ? null : urlOf(id);
  if (!url) return null;
  const p = (state.profileViews || {})[id] || {};
  const tv = (state.timeViews || {})[id];
  const to = state.view === 'timeorder' ? (state.timeOrderViews || {})[id]?.last : null;
  const t = to || tv?.last || tv?.pending || null;
  const baseId = state.view === 'compare' ? (state.compareViews || {})[id]?.base : null;
  const base = baseId == null ? null : urlOf(baseId);
  return {
    url: url.url,
    base: base ? base.url : null,
    name: url.name || null,
    view: state.view,
    metric: p.metric ?? null,
    node: p.selected ?? null,
    zoom: p.zoom ?? null,
    t0: t ? Math.round(t.t0) : null,
    t1: t ? Math.round(t.t1) : null,
    line: to ? to.line : null,
  };
}

/** Keeps `location.hash` equal to the current link (replaceState: no history entry per change). */
export function keepHashCurrent(getState, urlOf, everyMs = 500) {
  let last = null;
  const tick = () => {
    const link = currentLink(getState(), urlOf);
    if (!link) return;
    const hash = linkHash(link);
    if (hash === last || hash === location.hash) {
      last = hash;
      return;
    }
    last = hash;
    history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
  };
  return setInterval(tick, everyMs);
}
