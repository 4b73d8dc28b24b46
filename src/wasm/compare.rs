//! Comparisons over the wasm boundary (issue 17): each method converts its arguments and calls the
//! native session's comparison (src/session/compare.rs). The differential flame graph's layout and
//! the delta tables are the profile methods' (src/wasm/profile.rs) called with the comparison id.

use super::{js_err, to_js, Session};
use crate::analysis::diff::{Comparison, MetricPair};
use crate::model::Dataset;
use wasm_bindgen::prelude::*;

impl Session {
    /// Runs `f` on comparison `id` with its base and new datasets.
    pub(super) fn with_comparison<T>(
        &mut self,
        id: u32,
        f: impl FnOnce(&mut Comparison, &Dataset, &Dataset) -> crate::Result<T>,
    ) -> Result<T, JsValue> {
        let (c, b, n) = self.s.comparison(id).map_err(js_err)?;
        f(&mut c.cmp, b, n).map_err(js_err)
    }
}

#[wasm_bindgen]
impl Session {
    /// Compares dataset `base` with dataset `new`; returns `{id, ...CompareMeta}` (the id is the
    /// comparison's, for the other compare_ methods and the table methods).
    pub fn compare_open(&mut self, base: u32, new: u32, merged: bool) -> Result<JsValue, JsValue> {
        to_js(&self.s.compare_open(base, new, merged).map_err(js_err)?)
    }

    /// Chooses the metric of each run (`base_metric` < 0: the default pair) and the normalisation
    /// ("none", "scaled", "percent"); returns `DiffTotals`.
    pub fn compare_metric(
        &mut self,
        id: u32,
        base_metric: i32,
        new_metric: i32,
        normalize: String,
    ) -> Result<JsValue, JsValue> {
        let pair = (base_metric >= 0 && new_metric >= 0).then_some(MetricPair {
            base: base_metric as u32,
            new: new_metric as u32,
        });
        to_js(
            &self
                .s
                .compare_metric(id, pair, &normalize)
                .map_err(js_err)?,
        )
    }

    /// Sets which run gives widths (`width_new`) and the children's order; returns the deepest
    /// depth.
    pub fn compare_flame_config(
        &mut self,
        id: u32,
        width_new: bool,
        heavy: bool,
    ) -> Result<u32, JsValue> {
        self.with_comparison(id, |c, _, n| c.flame_config(n, width_new, heavy))
    }

    /// Tooltip record of union node `node` (`DiffNodeInfo`).
    pub fn compare_node_info(&mut self, id: u32, node: u32) -> Result<JsValue, JsValue> {
        to_js(&self.with_comparison(id, |c, b, n| c.node_info(b, n, node))?)
    }

    /// Values of union node `node` per profile of each run: `[base profiles u32, base values
    /// f64, new profiles u32, new values f64]`.
    pub fn compare_distribution(
        &mut self,
        id: u32,
        node: u32,
        exclusive: bool,
    ) -> Result<js_sys::Array, JsValue> {
        let [(bp, bv), (np, nv)] =
            self.with_comparison(id, |c, b, n| c.distribution(b, n, node, exclusive))?;
        let out = js_sys::Array::new();
        out.push(&js_sys::Uint32Array::from(&bp[..]));
        out.push(&js_sys::Float64Array::from(&bv[..]));
        out.push(&js_sys::Uint32Array::from(&np[..]));
        out.push(&js_sys::Float64Array::from(&nv[..]));
        Ok(out)
    }

    /// The delta table as CSV: `{text, extension, mime}`.
    pub fn compare_export_csv(&mut self, id: u32) -> Result<JsValue, JsValue> {
        to_js(&self.s.compare_export_csv(id).map_err(js_err)?)
    }

    /// Forgets comparison `id`; false when there was none.
    pub fn compare_close(&mut self, id: u32) -> bool {
        self.s.compare_close(id)
    }
}
