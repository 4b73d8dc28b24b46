//! The trace timeline over the wasm boundary: the Worker samples (src/session/timeline.rs over
//! src/analysis/timeline), the page paints colour keys. Budgets in ms become deadlines on
//! `Date.now()`; a step stopped at a deferred read answers `null` (www/engine.js reads and stages).

use super::{from_js, js_err, to_js, Session};
use crate::analysis::timeline::view::{self, Progress};
use crate::session::{FrameRequest, LineWindow, Step};
use wasm_bindgen::prelude::*;

/// A stop predicate true once `budget_ms` have passed.
fn deadline(budget_ms: f64) -> impl FnMut() -> bool {
    let end = js_sys::Date::now() + budget_ms;
    move || js_sys::Date::now() >= end
}

/// `[packed frame, progress]`.
fn progressive_answer(packed: Vec<u32>, p: Progress) -> Result<js_sys::Array, JsValue> {
    let out = js_sys::Array::new();
    out.push(&js_sys::Uint32Array::from(&packed[..]));
    out.push(&to_js(&p)?);
    Ok(out)
}

/// The answer of a step: the frame, or `null` when it stopped at a read it wants.
fn step_answer(step: crate::session::Result<Step>) -> Result<JsValue, JsValue> {
    match step.map_err(js_err)? {
        Step::Frame(packed, p) => progressive_answer(packed, p).map(JsValue::from),
        Step::Wants(_) => Ok(JsValue::NULL),
    }
}

#[wasm_bindgen]
impl Session {
    /// Rows (labels from id tuples, sample counts), run length, max depth and colour-key names of
    /// dataset `id`'s trace; `status` is "ok", "no-trace" or "no-samples".
    pub fn timeline_meta(&mut self, id: u32) -> Result<JsValue, JsValue> {
        let (ds, cache) = self.s.timeline(id).map_err(js_err)?;
        to_js(cache.meta(ds))
    }

    /// `{rows, groups}`: trace lines matching the label pattern with at least `min_samples`
    /// samples, grouped by the id kind `group_by` ("none": one group), in rank, thread order.
    pub fn timeline_rows(
        &mut self,
        id: u32,
        pattern: String,
        min_samples: f64,
        group_by: String,
    ) -> Result<JsValue, JsValue> {
        let (ds, cache) = self.s.timeline(id).map_err(js_err)?;
        to_js(&view::rows(ds, cache, &pattern, min_samples, &group_by))
    }

    /// Colour keys of `rows` in frame `frame` (`{t0_ns, t1_ns, width, height, depth}`, see
    /// `session::FrameRequest`): offsets [t0_ns, t1_ns) from the run start at call depth `depth`,
    /// `[width, shown rows, line per shown row..., keys row-major...]`. `keep` makes it the frame
    /// the summary describes (the minimap passes false).
    pub fn timeline_frame(
        &mut self,
        id: u32,
        rows: Vec<u32>,
        frame: JsValue,
        keep: bool,
    ) -> Result<Box<[u32]>, JsValue> {
        let req = FrameRequest {
            rows: &rows,
            ..from_js(frame)?
        };
        let out = self.s.timeline_frame(id, &req, keep).map_err(js_err)?;
        Ok(out.into_boxed_slice())
    }

    /// Starts a progressive frame in `slot` (0: main view, 1: minimap) and works on it for about
    /// `budget_ms`: `[packed, {exact, rows_exact, rows, states}]`, packed as `timeline_frame`.
    /// Until `exact`, rows not refined yet show a refined neighbour; `timeline_refine` continues.
    ///
    /// Rows of a file dropped as a Blob are not read synchronously: a read that is not staged
    /// stops the step, and the answer is `null`. The caller then reads `take_wanted_read()`
    /// asynchronously, `stage_bytes` it and calls `timeline_refine` resumed (or
    /// `timeline_progress` when its time is up).
    pub fn timeline_begin(
        &mut self,
        id: u32,
        slot: u32,
        rows: Vec<u32>,
        frame: JsValue,
        budget_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let req = FrameRequest {
            rows: &rows,
            ..from_js(frame)?
        };
        step_answer(
            self.s
                .timeline_begin(id, slot, &req, &mut deadline(budget_ms)),
        )
    }

    /// Works on the progressive frame of `slot` for about `budget_ms`; same answer as
    /// `timeline_begin` (`null` while a read is wanted). `resumed`: repeated by the Worker once
    /// the read its last answer wanted is staged (see `session::Session::timeline_refine`).
    pub fn timeline_refine(
        &mut self,
        id: u32,
        slot: u32,
        resumed: bool,
        budget_ms: f64,
    ) -> Result<JsValue, JsValue> {
        step_answer(
            self.s
                .timeline_refine(id, slot, resumed, &mut deadline(budget_ms)),
        )
    }

    /// The progressive frame of `slot` as it stands, without working on it; same answer as
    /// `timeline_begin`, never `null`.
    pub fn timeline_progress(&mut self, id: u32, slot: u32) -> Result<JsValue, JsValue> {
        let (packed, p) = self.s.timeline_progress(id, slot).map_err(js_err)?;
        progressive_answer(packed, p).map(JsValue::from)
    }

    /// Time-axis ticks over offsets [a, b] ns: `[[offset, label], ...]`.
    pub fn timeline_ticks(&self, a: f64, b: f64, max_ticks: u32) -> Result<JsValue, JsValue> {
        to_js(&view::ticks(a, b, max_ticks))
    }

    /// The call path in force on trace line `line` at offset `t` ns.
    pub fn timeline_call_path(&mut self, id: u32, line: u32, t: f64) -> Result<JsValue, JsValue> {
        let (ds, cache) = self.s.timeline(id).map_err(js_err)?;
        to_js(&view::call_path(ds, cache, line, t).map_err(js_err)?)
    }

    /// Depth view of one line in `window` (`{line, t0_ns, t1_ns, width}`, see
    /// `session::LineWindow`): `[depth, x0, x1, key]` quads for depths `0..max_depth`.
    pub fn timeline_depth(
        &mut self,
        id: u32,
        window: JsValue,
        max_depth: u32,
    ) -> Result<Box<[u32]>, JsValue> {
        let w: LineWindow = from_js(window)?;
        let (ds, cache) = self.s.timeline(id).map_err(js_err)?;
        view::depth_packed(ds, cache, &w, max_depth)
            .map(Vec::into_boxed_slice)
            .map_err(js_err)
    }

    /// Stacked per-column key counts of the last kept frame:
    /// `[width, col_start (width + 1)..., (key, count) pairs...]`.
    pub fn timeline_summary(&mut self, id: u32) -> Result<Box<[u32]>, JsValue> {
        let (_, cache) = self.s.timeline(id).map_err(js_err)?;
        Ok(view::summary_packed(cache).0.into_boxed_slice())
    }

    /// Functions by share of the last kept frame's cells: `[{key, name, share}]`.
    pub fn timeline_shares(&mut self, id: u32) -> Result<JsValue, JsValue> {
        let (_, cache) = self.s.timeline(id).map_err(js_err)?;
        to_js(&view::summary_packed(cache).1)
    }
}
