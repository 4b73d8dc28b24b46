//! The only module that knows about wasm-bindgen: the `Session` handle the Worker (www/engine.js)
//! talks to, a thin binding over the native `crate::session::Session`. What crosses is file bytes
//! and small plain records in (a viewport), plain records out (serde-wasm-bindgen) and typed
//! arrays for views, never whole trees.

mod compare;
mod profile;
mod source;
mod sources;
mod time_order;
mod timeline;

use crate::analysis::flame::FlameFrames;
use crate::session;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// Plain objects (not Maps) for structs and maps; numbers stay numbers.
fn to_js<T: Serialize>(v: &T) -> Result<JsValue, JsValue> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsValue::from_str(&e.to_string()))
}

/// A flame-graph window as typed arrays, in the order the views unpack them: node, depth, x,
/// width, name, module, then each of `values` (one per rectangle), then `flags`.
fn flame_window(f: &FlameFrames, values: &[&[f64]], flags: &[u8]) -> js_sys::Array {
    let out = js_sys::Array::new();
    out.push(&js_sys::Uint32Array::from(&f.rects.node[..]));
    out.push(&js_sys::Uint32Array::from(&f.rects.depth[..]));
    out.push(&js_sys::Float64Array::from(&f.rects.x[..]));
    out.push(&js_sys::Float64Array::from(&f.rects.width[..]));
    out.push(&js_sys::Uint32Array::from(&f.labels.name[..]));
    out.push(&js_sys::Uint32Array::from(&f.labels.module[..]));
    for v in values {
        out.push(&js_sys::Float64Array::from(*v));
    }
    out.push(&js_sys::Uint8Array::from(flags));
    out
}

/// A plain object of the page as the record `T` it stands for (a flame viewport, a trace window).
fn from_js<T: serde::de::DeserializeOwned>(v: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(v).map_err(js_err)
}

fn js_err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

/// One page session: the files queued for the next `open`, and every dataset opened so far.
/// Files whose trace-step reads are asynchronous carry what the Worker reads them from: a
/// dropped file its Blob, a URL on a single-range server the Worker's reader object.
#[wasm_bindgen]
#[derive(Default)]
pub struct Session {
    s: session::Session<JsValue>,
}

#[wasm_bindgen]
impl Session {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session::default()
    }

    /// Version of the engine, for the page footer and bug reports.
    pub fn version() -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }

    /// Queues a file for the next `open_pending`: `path` relative to the drop ('/'-separated, with
    /// the dropped folder's name), `bytes` its contents (copied into wasm memory once).
    pub fn add_file(&mut self, path: String, bytes: Vec<u8>) {
        self.s.add_file(path, bytes);
    }

    /// Number of files queued.
    pub fn pending_count(&self) -> usize {
        self.s.pending_count()
    }

    /// Groups, probes and opens the queued files. Returns an `OpenReport`:
    /// `{datasets: [DatasetSummary], errors: [ErrorInfo], ignored: [path]}`.
    pub fn open_pending(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.s.open_pending())
    }

    /// Paths of the queued files to feed, in order, one per line, before `open_pending`.
    pub fn stream_begin(&mut self) -> String {
        self.s.stream_begin()
    }

    /// Feeds the next bytes of file `path` (see `stream_begin`).
    pub fn stream_feed(&mut self, path: &str, bytes: &js_sys::Uint8Array) -> bool {
        let n = bytes.length() as usize;
        self.s.stream_feed(path, n, |buf| bytes.copy_to(buf))
    }

    /// Opens the built-in example dataset; same answer shape as `open_pending`.
    pub fn open_example(&mut self) -> Result<JsValue, JsValue> {
        to_js(&self.s.open_example())
    }

    /// Adds a synthetic dataset of `contexts` contexts (benchmarks); returns its summary.
    pub fn open_synthetic(&mut self, contexts: u32, seed: u32) -> Result<JsValue, JsValue> {
        to_js(&self.s.open_synthetic(contexts, seed))
    }

    /// Summaries of every dataset of the session, in opening order.
    pub fn summaries(&self) -> Result<JsValue, JsValue> {
        to_js(&self.s.summaries())
    }

    /// Summary of dataset `id`, or `undefined`.
    pub fn summary(&self, id: u32) -> Result<JsValue, JsValue> {
        match self.s.summary(id) {
            Some(s) => to_js(&s),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Forgets dataset `id`; false when there was none.
    pub fn remove(&mut self, id: u32) -> bool {
        self.s.remove(id)
    }

    /// Per-address sample histogram of dataset `id` (DCPI profiles): `bins` equal-width bins as
    /// a flat array `[first address, samples, first address, samples, ...]`; empty when the
    /// dataset has no per-address data. Addresses above 2^53 lose their low bits in f64.
    pub fn address_histogram(&self, id: u32, bins: u32) -> Result<Box<[f64]>, JsValue> {
        let h = self.s.address_histogram(id, bins).map_err(js_err)?;
        Ok(h.iter().flat_map(|&(a, n)| [a as f64, n as f64]).collect())
    }

    /// Dataset `id` in another tool's format: "speedscope", "chrome", "folded" or "csv"; `metric`
    /// a metric name (empty: the first with a value). Returns `{text, extension, mime}`.
    pub fn export(&mut self, id: u32, format: String, metric: String) -> Result<JsValue, JsValue> {
        to_js(&self.s.export(id, &format, &metric).map_err(js_err)?)
    }
}
