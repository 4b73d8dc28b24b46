//! Comparisons over the wasm boundary (issue 17): each method converts its arguments and calls the
//! native session (src/session/compare.rs); the differential flame graph answers with typed
//! arrays. The delta tables use the profile methods (src/wasm/profile.rs) with the comparison id.

use super::{flame_geometry, js_err, to_js, Session};
use crate::analysis::diff::MetricPair;
use crate::analysis::flame::Viewport;
use wasm_bindgen::prelude::*;

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
        self.s
            .compare_flame_config(id, width_new, heavy)
            .map_err(js_err)
    }

    /// Visible rectangles under union node `zoom`: `[node u32, depth u32, x f64, width f64,
    /// name u32, module u32, base_incl f64, new_incl f64, base_excl f64, new_excl f64, flags u8]`.
    #[allow(clippy::too_many_arguments)]
    pub fn compare_flame_layout(
        &mut self,
        id: u32,
        zoom: u32,
        x0: f64,
        x1: f64,
        depth0: u32,
        depth1: u32,
        width_px: f64,
        min_width_px: f64,
    ) -> Result<js_sys::Array, JsValue> {
        let vp = Viewport {
            x0,
            x1,
            depth0,
            depth1,
            width_px,
            min_width_px,
        };
        let w = self.s.compare_flame_layout(id, zoom, &vp).map_err(js_err)?;
        let out = flame_geometry(&w.frames);
        let (b, n) = (&w.values.base, &w.values.new);
        for v in [&b.inclusive, &n.inclusive, &b.exclusive, &n.exclusive] {
            out.push(&js_sys::Float64Array::from(&v[..]));
        }
        out.push(&js_sys::Uint8Array::from(&w.flags[..]));
        Ok(out)
    }

    /// Union nodes from the root down to `node`, for the breadcrumb.
    pub fn compare_flame_path(&mut self, id: u32, node: u32) -> Result<Box<[u32]>, JsValue> {
        Ok(self
            .s
            .compare_flame_path(id, node)
            .map_err(js_err)?
            .into_boxed_slice())
    }

    /// Tooltip record of union node `node` (`DiffNodeInfo`).
    pub fn compare_node_info(&mut self, id: u32, node: u32) -> Result<JsValue, JsValue> {
        to_js(&self.s.compare_node_info(id, node).map_err(js_err)?)
    }

    /// Values of union node `node` per profile of each run: `[base profiles u32, base values
    /// f64, new profiles u32, new values f64]`.
    pub fn compare_distribution(
        &mut self,
        id: u32,
        node: u32,
        exclusive: bool,
    ) -> Result<js_sys::Array, JsValue> {
        let [(bp, bv), (np, nv)] = self
            .s
            .compare_distribution(id, node, exclusive)
            .map_err(js_err)?;
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
