// The views the page offers, in tab order. A view module's default export is:
//   { id, title,
//     available(dataset) -> bool,            // dataset: the selected summary (or null)
//     mount(el, ctx) -> { update(state), state(), destroy() } }
// ctx = { engine, store }. See www/README.md.
import summary from './summary.js';
import profile from './profile.js';
import timeline from './timeline/index.js';
import timeorder from './time-order.js';
import histogram from './histogram.js';
import compare from './compare.js';

export const views = [summary, profile, timeline, timeorder, histogram, compare];
