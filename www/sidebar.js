// The datasets sidebar hides and shows (button in the top bar, "[" key): hidden, the views get
// the whole width. The choice is remembered; without one, a window narrower than 1000 px starts
// with the sidebar hidden so the trace and the tables keep their room.
const KEY = 'hpcscope.sidebar';

/** `button` toggles; `layout` (.main-layout) gets the class sidebar-hidden. */
export function setupSidebar({ button, layout }) {
  let saved = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch {
    saved = null; // storage refused (a sandboxed frame): the default applies
  }
  let shown = saved ? saved === 'shown' : window.innerWidth >= 1000;
  function apply() {
    layout.classList.toggle('sidebar-hidden', !shown);
    button.setAttribute('aria-expanded', String(shown));
    button.title = shown ? 'Hide the datasets sidebar ([)' : 'Show the datasets sidebar ([)';
    button.setAttribute('aria-label', button.title);
  }
  function set(v) {
    shown = v;
    apply();
    try {
      localStorage.setItem(KEY, shown ? 'shown' : 'hidden');
    } catch {
      // not remembered
    }
  }
  button.addEventListener('click', () => set(!shown));
  apply();
  return { toggle: () => set(!shown), set, shown: () => shown };
}
