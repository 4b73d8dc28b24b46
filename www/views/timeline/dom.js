// DOM helpers of the trace view: an element builder and canvas sizing.
// Styles are classes of www/style.css; the few computed ones go through the CSSOM (e.style),
// as the page's Content-Security-Policy (style-src 'self') refuses style attributes.

/** el('div', {class, text, title, onclick, ...}, ...children). */
export const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of kids) if (c != null) e.append(c);
  return e;
};

/** A colour swatch (the statistics list, the call path). */
export const swatch = (css) => {
  const s = el('span', { class: 'tl-swatch' });
  s.style.background = css;
  return s;
};

/** Sets a canvas's pixel size, touching it only when it changes (a change clears the canvas). */
export const fit = (cv, w, h) => {
  if (cv.width !== w) cv.width = w;
  if (cv.height !== h) cv.height = h;
};
