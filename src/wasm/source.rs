//! The source view over the wasm boundary: a context's or the hottest statement's location, a
//! source file's bounded text with its per-line values, and files the page adds. Each method
//! converts its arguments and calls the native session (src/session/source.rs).

use super::{js_err, to_js, Session};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Session {
    /// `{path, line, available}` of context `node` of dataset `id`, or `null`.
    pub fn source_location(&self, id: u32, node: u32) -> Result<JsValue, JsValue> {
        to_js(&self.s.source_location(id, node).map_err(js_err)?)
    }

    /// `{path, line, available}` of the statement with the largest exclusive value of `metric`
    /// in the profile views' selection, or `null`.
    pub fn source_hottest(&mut self, id: u32, metric: u32) -> Result<JsValue, JsValue> {
        to_js(&self.s.source_hottest(id, metric as usize).map_err(js_err)?)
    }

    /// File `path` of dataset `id` (`SourceText`: status, bounded text, per-line values of
    /// `metric`).
    pub fn source_text(
        &mut self,
        id: u32,
        path: String,
        line: u32,
        metric: u32,
    ) -> Result<JsValue, JsValue> {
        to_js(
            &self
                .s
                .source_text(id, &path, line, metric as usize)
                .map_err(js_err)?,
        )
    }

    /// Adds `bytes` as the file recorded as `path` (the whole file's size `size`: more when
    /// only its first bytes were read).
    pub fn source_add(
        &mut self,
        id: u32,
        path: String,
        bytes: Vec<u8>,
        size: f64,
    ) -> Result<(), JsValue> {
        self.s
            .source_add(id, path, bytes, size as u64)
            .map_err(js_err)
    }
}
