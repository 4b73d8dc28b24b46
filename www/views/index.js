// The views the page offers, in tab order. A view module's default export is
// { id, title, available(dataset) -> bool, mount(el, { engine, store }) -> { update(state),
// state(), destroy() } }, `dataset` the selected summary or null. See www/README.md.
import summary from './summary.js';
import profile from './profile.js';
import timeline from './timeline/index.js';
import timeorder from './time-order.js';
import histogram from './histogram.js';
import compare from './compare.js';

export const views = [summary, profile, timeline, timeorder, histogram, compare];
