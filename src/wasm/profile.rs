//! Profile views over the wasm boundary (flame graph, top-down / bottom-up / flat tables,
//! distribution): each method converts its arguments, calls the dataset's native
//! `analysis::profile::ProfileView` (src/session/profile.rs; for a comparison id its union dataset,
//! or the differential flame graph), and answers with typed arrays.

use super::{flame_window, from_js, js_err, to_js, Session};
use crate::analysis::flame::Viewport;
use crate::analysis::profile::{ProfileView, TableKind};
use crate::model::Dataset;
use crate::session::compare::is_compare_id;
use crate::session::profile::{selection, table_kind};
use wasm_bindgen::prelude::*;

impl Session {
    /// Runs `f` on dataset `id` and its profile-view state (made on first use).
    fn with_profile<T>(
        &mut self,
        id: u32,
        f: impl FnOnce(&Dataset, &mut ProfileView) -> Result<T, JsValue>,
    ) -> Result<T, JsValue> {
        let (ds, pv) = self.s.profile(id).map_err(js_err)?;
        f(ds, pv)
    }

    /// Runs table operation `f` on table `kind` ("topdown", "bottomup", "flat") of dataset `id`.
    fn with_table<T>(
        &mut self,
        id: u32,
        kind: &str,
        f: impl FnOnce(&Dataset, &mut ProfileView, TableKind) -> crate::Result<T>,
    ) -> Result<T, JsValue> {
        let k = table_kind(kind).map_err(js_err)?;
        self.with_profile(id, |ds, pv| f(ds, pv, k).map_err(js_err))
    }
}

/// Arrays of typed arrays cross, never trees.
#[wasm_bindgen]
impl Session {
    /// Metrics, profiles, frame names and module names of dataset `id` (`ProfileMeta`).
    pub fn profile_meta(&mut self, id: u32) -> Result<JsValue, JsValue> {
        self.with_profile(id, |ds, pv| to_js(&pv.meta(ds)))
    }

    /// Chooses the profiles summed: kind "summary", "profile" (first index) or "subset".
    pub fn profile_select(
        &mut self,
        id: u32,
        kind: String,
        indices: Vec<u32>,
    ) -> Result<(), JsValue> {
        let sel = selection(&kind, &indices).map_err(js_err)?;
        self.with_profile(id, |ds, pv| pv.set_selection(ds, sel).map_err(js_err))
    }

    /// Sets the flame graph's metric, lexical merge and order; returns its deepest depth.
    pub fn flame_config(
        &mut self,
        id: u32,
        metric: u32,
        merged: bool,
        heavy: bool,
    ) -> Result<u32, JsValue> {
        self.with_profile(id, |ds, pv| {
            pv.flame_config(ds, metric as usize, merged, heavy)
                .map_err(js_err)?;
            Ok(pv.flame_max_depth())
        })
    }

    /// Visible rectangles under zoom root `zoom` (a context id of the model) in viewport `vp`
    /// (`{x0, x1, depth0, depth1, width_px, min_width_px}`, see `analysis::flame::Viewport`):
    /// `[node u32, depth u32, x f64, width f64, name u32, module u32, incl f64, excl f64, flags u8]`.
    /// For a comparison id the differential flame graph's, under union node `zoom`, with
    /// `base_incl f64, new_incl f64, base_excl f64, new_excl f64` as its values.
    pub fn flame_layout(
        &mut self,
        id: u32,
        zoom: u32,
        vp: JsValue,
    ) -> Result<js_sys::Array, JsValue> {
        let vp: Viewport = from_js(vp)?;
        if is_compare_id(id) {
            let w = self.with_comparison(id, |c, b, n| c.flame_layout(b, n, zoom, &vp))?;
            let (b, n) = (&w.values.base, &w.values.new);
            let values = [&b.inclusive, &n.inclusive, &b.exclusive, &n.exclusive];
            return Ok(flame_window(&w.frames, &values.map(|v| &v[..]), &w.flags));
        }
        self.with_profile(id, |ds, pv| {
            let w = pv.flame_layout(ds, zoom, &vp).map_err(js_err)?;
            let values = [&w.values.inclusive[..], &w.values.exclusive[..]];
            Ok(flame_window(&w.frames, &values, &w.flags))
        })
    }

    /// Contexts from the flame root down to the frame of `node`, for the breadcrumb (for a
    /// comparison id, union nodes from the root).
    pub fn flame_path(&mut self, id: u32, node: u32) -> Result<Box<[u32]>, JsValue> {
        if is_compare_id(id) {
            let path = self.s.compare_flame_path(id, node).map_err(js_err)?;
            return Ok(path.into_boxed_slice());
        }
        self.with_profile(id, |_, pv| Ok(pv.flame_path(node).into_boxed_slice()))
    }

    /// Tooltip record of context `node` for `metric` (`NodeInfo`).
    pub fn node_info(&mut self, id: u32, node: u32, metric: u32) -> Result<JsValue, JsValue> {
        self.with_profile(id, |ds, pv| {
            to_js(&pv.node_info(ds, node, metric as usize).map_err(js_err)?)
        })
    }

    /// Searches frame names (substring or regular expression); an empty pattern clears.
    pub fn profile_search(
        &mut self,
        id: u32,
        pattern: String,
        regex: bool,
        ignore_case: bool,
    ) -> Result<JsValue, JsValue> {
        self.with_profile(id, |ds, pv| {
            to_js(&pv.search(ds, &pattern, regex, ignore_case))
        })
    }

    /// First context matching the search, or -1.
    pub fn search_first(&mut self, id: u32) -> Result<f64, JsValue> {
        self.with_profile(id, |_, pv| {
            Ok(pv.search_first().map(|n| n as f64).unwrap_or(-1.0))
        })
    }

    /// Number of visible rows of table `kind` ("topdown", "bottomup", "flat").
    pub fn table_len(&mut self, id: u32, kind: String) -> Result<u32, JsValue> {
        self.with_table(id, &kind, |ds, pv, k| pv.table_len(ds, k))
    }

    /// Rows `start..start+count`: `[node u32, depth u32, flags u8, cct u32, values f64, labels]`,
    /// values row-major (inclusive, exclusive) per metric.
    pub fn table_window(
        &mut self,
        id: u32,
        kind: String,
        start: u32,
        count: u32,
    ) -> Result<js_sys::Array, JsValue> {
        let w = self.with_table(id, &kind, |ds, pv, k| {
            pv.table_window(ds, k, start as usize, count as usize)
        })?;
        let out = js_sys::Array::new();
        out.push(&js_sys::Uint32Array::from(&w.rows.node[..]));
        out.push(&js_sys::Uint32Array::from(&w.rows.depth[..]));
        out.push(&js_sys::Uint8Array::from(&w.rows.flags[..]));
        out.push(&js_sys::Uint32Array::from(&w.cct[..]));
        out.push(&js_sys::Float64Array::from(&w.values[..]));
        let labels = js_sys::Array::new();
        for l in &w.labels {
            labels.push(&JsValue::from_str(l));
        }
        out.push(&labels);
        Ok(out)
    }

    /// Expands row `row`; returns the new row count.
    pub fn table_expand(&mut self, id: u32, kind: String, row: u32) -> Result<u32, JsValue> {
        self.with_table(id, &kind, |ds, pv, k| pv.table_expand(ds, k, row as usize))
    }

    /// Collapses row `row`; returns the new row count.
    pub fn table_collapse(&mut self, id: u32, kind: String, row: u32) -> Result<u32, JsValue> {
        self.with_table(id, &kind, |ds, pv, k| {
            pv.table_collapse(ds, k, row as usize)
        })
    }

    /// Expands everything up to about `max_rows` rows; returns the row count.
    pub fn table_expand_all(
        &mut self,
        id: u32,
        kind: String,
        max_rows: u32,
    ) -> Result<u32, JsValue> {
        self.with_table(id, &kind, |ds, pv, k| {
            pv.table_expand_all(ds, k, max_rows as usize)
        })
    }

    /// Hot-path expansion from `row` down children holding at least `share` of their parent.
    pub fn table_hot_path(
        &mut self,
        id: u32,
        kind: String,
        row: u32,
        share: f64,
    ) -> Result<u32, JsValue> {
        self.with_table(id, &kind, |ds, pv, k| {
            pv.table_hot_path(ds, k, row as usize, share)
        })
    }

    /// Sorts every expanded level by a metric's inclusive or exclusive value.
    pub fn table_sort(
        &mut self,
        id: u32,
        kind: String,
        metric: u32,
        exclusive: bool,
        descending: bool,
    ) -> Result<(), JsValue> {
        self.with_table(id, &kind, |ds, pv, k| {
            pv.table_sort(ds, k, metric as usize, exclusive, descending)
        })
    }

    /// Expands down to the row of context `node`; its row or -1.
    pub fn table_reveal(&mut self, id: u32, kind: String, node: u32) -> Result<f64, JsValue> {
        let row = self.with_table(id, &kind, |ds, pv, k| pv.table_reveal(ds, k, node))?;
        Ok(row.map_or(-1.0, |r| r as f64))
    }

    /// Value of context `node` in every non-summary profile: `[profile u32, value f64]`.
    pub fn distribution(
        &mut self,
        id: u32,
        metric: u32,
        node: u32,
        exclusive: bool,
    ) -> Result<js_sys::Array, JsValue> {
        self.with_profile(id, |ds, pv| {
            let (p, v) = pv
                .distribution(ds, metric as usize, node, exclusive)
                .map_err(js_err)?;
            let out = js_sys::Array::new();
            out.push(&js_sys::Uint32Array::from(&p[..]));
            out.push(&js_sys::Float64Array::from(&v[..]));
            Ok(out)
        })
    }
}
