// Page-wide keys and the "?" help listing every keyboard shortcut of the page: "/" and Ctrl+F put
// the focus in the shown view's search box (the Profile view's function search, the Trace view's
// row filter), 1-6 choose a view tab, "[" hides or shows the datasets sidebar. A key typed into a
// text field is the field's, except Escape, which leaves the help.
import { h } from './format.js';

/** Every shortcut, by where it applies: [keys, what it does]. */
export const SHORTCUTS = [
  ['Anywhere', [
    ['?', 'show or hide this help'],
    ['/  or  Ctrl+F', 'search: functions (Profile), rows (Trace)'],
    ['1 – 6', 'Summary, Profile, Trace, Address histogram, Compare, Time order tab'],
    ['[', 'hide or show the datasets sidebar'],
    ['Escape', 'close this help; leave the search box'],
  ]],
  ['Datasets list and view tabs', [
    ['↑ ↓  Home End', 'choose a dataset'],
    ['Delete', 'close the dataset'],
    ['← →', 'next or previous view tab'],
  ]],
  ['Flame graph', [
    ['click', 'select a frame (the tables and distribution follow)'],
    ['double click  or  Enter', 'zoom to the frame'],
    ['wheel  /  + −', 'zoom the axis around the pointer (the selected frame)'],
    ['drag', 'zoom the axis to the dragged span'],
    ['Shift+wheel', 'scroll the depth'],
    ['← → ↑ ↓', 'move between frames'],
    ['Escape  Backspace', 'whole axis, then up one zoom level'],
    ['Home', 'zoom out to the root'],
  ]],
  ['Tables', [
    ['↑ ↓  PageUp PageDown  Home End', 'move the selection'],
    ['→  ←', 'expand, collapse (or go to the parent)'],
    ['H  Enter', 'expand the hot path below the row'],
  ]],
  ['Distribution', [
    ['hover  /  ← → Home End', 'name a bar\'s profile and value'],
  ]],
  ['Trace', [
    ['wheel  /  + −', 'zoom time'],
    ['Shift+wheel  /  ← →', 'pan time'],
    ['Alt+wheel  /  ↑ ↓', 'pan rows'],
    ['drag  /  Shift+drag', 'pan  /  zoom to the selected area'],
    ['click', 'crosshair: call path of that row and time'],
    ['Enter  Space', 'crosshair in the middle; Enter opens its call path (↑ ↓ Enter there, Escape back)'],
    ['Shift+← → ↑ ↓', 'move the crosshair in time and across rows'],
    ['Home', 'whole trace'],
    ['Ctrl+Z  Ctrl+Y', 'undo, redo a view change'],
  ]],
  ['Time order', [
    ['hover', 'the call as uftrace replay prints it'],
    ['click  /  arrows', 'select a call (its context in Profile); ← → previous, next; ↑ ↓ caller, first callee'],
    ['Enter', 'show the selected call in the Profile view'],
    ['double click  /  Z', 'zoom to the call'],
    ['wheel  /  + −', 'zoom time'],
    ['drag', 'pan time and depth'],
    ['Shift+wheel', 'pan time'],
    ['Alt+wheel  /  PgUp PgDn', 'scroll the depth'],
    ['Home', 'whole task'],
  ]],
];

const VIEW_KEYS = { 1: 'summary', 2: 'profile', 3: 'timeline', 4: 'histogram', 5: 'compare', 6: 'timeorder' };
/** The search box of each view that has one. */
const SEARCH_BOX = {
  profile: '[data-testid="search-input"]',
  timeline: '[data-testid="timeline-filter"]',
};

function typing(el) {
  if (!el || el === document.body) return false;
  const tag = el.tagName;
  return el.isContentEditable || tag === 'TEXTAREA' || tag === 'SELECT'
    || (tag === 'INPUT' && !['checkbox', 'radio', 'button', 'range'].includes(el.type));
}

/**
 * Installs the page keys. `store` is the page store (www/store.js); `toggleSidebar()` hides or
 * shows the sidebar. Returns {help(open?), isHelpOpen()}.
 */
export function setupShortcuts({ store, toggleSidebar }) {
  const dialog = h('div', {
    class: 'help', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'help-title', hidden: true,
    'data-testid': 'help',
  });
  const close = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close help', onclick: () => help(false) }, '×');
  dialog.append(h('div', { class: 'help-box' },
    h('div', { class: 'help-head' }, h('h2', { id: 'help-title' }, 'Keyboard shortcuts'), close),
    h('div', { class: 'help-groups' }, SHORTCUTS.map(([where, keys]) => h('section', { class: 'help-group' },
      h('h3', {}, where),
      h('dl', {}, keys.flatMap(([k, what]) => [h('dt', {}, h('kbd', {}, k)), h('dd', {}, what)])))))));
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) help(false);
  });
  document.body.append(dialog);
  let before = null;

  function help(open = dialog.hidden) {
    if (open === !dialog.hidden) return;
    dialog.hidden = !open;
    if (open) {
      before = document.activeElement;
      close.focus();
    } else before?.focus?.({ preventScroll: true });
  }

  /**
   * Focuses the shown view's search box. A view without one (Summary) switches to the Profile
   * view, whose function search takes the focus once it is built. False when neither is there.
   */
  function focusSearch() {
    const view = document.querySelector('#tabs .tab.active')?.dataset.view;
    const find = (v) => {
      const box = document.querySelector(`#view ${SEARCH_BOX[v]}`);
      return box && box.offsetParent !== null ? box : null;
    };
    const focus = (box) => {
      box.focus();
      box.select?.();
    };
    const box = SEARCH_BOX[view] && find(view);
    if (box) {
      focus(box);
      return true;
    }
    if (view === 'profile' || !document.getElementById('tab-profile')) return false;
    store.update({ view: 'profile' });
    const until = performance.now() + 5000;
    const wait = () => {
      const b = find('profile');
      if (b) focus(b);
      else if (performance.now() < until) setTimeout(wait, 50);
    };
    wait();
    return true;
  }

  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !dialog.hidden) {
      e.preventDefault();
      help(false);
      return;
    }
    const ctrl = e.ctrlKey || e.metaKey;
    if (ctrl && !e.altKey && (e.key === 'f' || e.key === 'F')) {
      if (focusSearch()) e.preventDefault(); // else the browser's own find
      return;
    }
    if (ctrl || e.altKey || typing(e.target)) {
      if (e.key === 'Escape' && typing(e.target) && e.target.closest('#view')) e.target.blur();
      return;
    }
    if (e.key === '?') {
      e.preventDefault();
      help();
    } else if (!dialog.hidden) {
      // The help is modal: other keys wait until it closes.
    } else if (e.key === '/') {
      if (focusSearch()) e.preventDefault();
    } else if (e.key === '[') {
      e.preventDefault();
      toggleSidebar();
    } else if (VIEW_KEYS[e.key] && document.getElementById(`tab-${VIEW_KEYS[e.key]}`)) {
      e.preventDefault();
      store.update({ view: VIEW_KEYS[e.key] });
    }
  });
  return { help, isHelpOpen: () => !dialog.hidden };
}
