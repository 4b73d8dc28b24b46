//! The time-order call chart over the wasm boundary (src/analysis/timeline/order_view.rs): boxes
//! as typed arrays, one call's details as a plain object.

use super::{from_js, js_err, to_js, Session};
use crate::analysis::timeline::order_view;
use crate::session::LineWindow;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl Session {
    /// The calls of trace line `line` over offsets [t0_ns, t1_ns) from the run start at `width`
    /// px (`window`: `{line, t0_ns, t1_ns, width}`, see `session::LineWindow`): `[times, cells,
    /// info]`, `times` a Float64Array of `[start, end]` offsets per box, `cells` a Uint32Array
    /// of `[depth, key, flags, count, node]` per box (flags: 1 clipped start, 2 open end, 4 never
    /// returned, 8 merged, 16 sampled), `info` `{exact, samples, boxes, max_depth, line_samples,
    /// line_start_ns, line_end_ns}`.
    pub fn time_order(&mut self, id: u32, window: JsValue) -> Result<js_sys::Array, JsValue> {
        let w: LineWindow = from_js(window)?;
        let (ds, cache) = self.s.timeline(id).map_err(js_err)?;
        let o = order_view::time_order(ds, cache, &w).map_err(js_err)?;
        let out = js_sys::Array::new();
        out.push(&js_sys::Float64Array::from(&o.times[..]));
        out.push(&js_sys::Uint32Array::from(&o.cells[..]));
        out.push(&to_js(&o.info)?);
        Ok(out)
    }

    /// Box `index` of the last `time_order` of dataset `id`: its name, real bounds, arguments,
    /// return value and the line `uftrace replay` prints for it; `null` for no such box.
    pub fn time_order_call(&mut self, id: u32, index: u32) -> Result<JsValue, JsValue> {
        let (ds, cache) = self.s.timeline(id).map_err(js_err)?;
        match order_view::call_detail(ds, cache, index).map_err(js_err)? {
            Some(c) => to_js(&c),
            None => Ok(JsValue::NULL),
        }
    }
}
