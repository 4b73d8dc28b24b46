// The hpcscope package's entry point: the engine as a library (HpcscopeEngine, createEngine) and
// the <hpcscope-view> element, registered on import when the page has custom elements.
import { defineElement } from './element.js';

export { HpcscopeEngine, createEngine, FLAME_MATCH, FLAME_INLINED, FLAME_LEXICAL } from './api.js';
export { HpcscopeView, defineElement, configure } from './element.js';
export { Engine } from '../engine.js';

if (typeof customElements !== 'undefined') defineElement();
