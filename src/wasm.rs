//! The only file that knows about wasm-bindgen: the `Session` handle the Worker (www/worker.js)
//! talks to. Long-lived data stays in Rust behind the handle; what crosses is file bytes in,
//! plain summary records out (serde-wasm-bindgen), and, for views, typed arrays, never whole trees.

use crate::analysis::flame::Viewport;
use crate::analysis::profile::{ProfileView, TableKind};
use crate::analysis::timeline;
use crate::analysis::values::Selection;
use crate::api::{OpenReport, Workspace};
use crate::block_cache::BlockCache;
use crate::bytes::Source;
use crate::formats::InputFile;
use crate::staging::{Staged, Staging};
use serde::Serialize;
use std::rc::Rc;
use std::sync::Arc;
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

/// One page session: the files queued for the next `open`, and every dataset opened so far.
#[wasm_bindgen]
pub struct Session {
    ws: Workspace,
    pending: Vec<InputFile>,
    /// State of the profile views (flame graph, tables) per dataset id, made on first use.
    profiles: std::collections::HashMap<u32, ProfileView>,
    /// Trace-view state per dataset id (frame index, last frame).
    timelines: std::collections::HashMap<u32, timeline::view::TimelineCache>,
    /// Whether a queued file is read through JavaScript (HTTP Range), and the datasets opened
    /// from such files: the trace view samples them pixel by pixel instead of reading every line.
    pending_remote: bool,
    remote: std::collections::HashSet<u32>,
    /// The same for files read lazily from a Blob (few large reads pay, many small ones do not).
    pending_blob: bool,
    blob: std::collections::HashSet<u32>,
    /// The staging of every file read from a Blob, with the Blob (for the Worker's asynchronous
    /// reads): trace steps defer their large reads to it (see `timeline_begin`).
    stages: Vec<(std::rc::Weak<Staging>, web_sys::Blob)>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

#[wasm_bindgen]
impl Session {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session {
            ws: Workspace::new(),
            pending: Vec::new(),
            profiles: std::collections::HashMap::new(),
            timelines: Default::default(),
            pending_remote: false,
            remote: Default::default(),
            pending_blob: false,
            blob: Default::default(),
            stages: Vec::new(),
        }
    }

    /// Version of the engine, for the page footer and bug reports.
    pub fn version() -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }

    /// Queues a file for the next `open_pending`: `path` relative to the drop ('/'-separated, with
    /// the dropped folder's name), `bytes` its contents (copied into wasm memory once).
    pub fn add_file(&mut self, path: String, bytes: Vec<u8>) {
        let source = Source::from_vec(path.as_str(), bytes);
        self.pending.push(InputFile { path, source });
    }

    /// Queues a file read lazily from a Blob (a dropped `File`) in 64 KiB blocks through
    /// `FileReaderSync`: only what readers touch is copied. Works in a dedicated Worker only.
    /// Trace steps read it asynchronously instead (`take_wanted_read`).
    pub fn add_blob(&mut self, path: String, blob: web_sys::Blob) -> Result<(), JsValue> {
        let reader = web_sys::FileReaderSync::new()?;
        let size = blob.size() as u64;
        let staging = Staging::new(size, BLOB_BLOCK);
        self.stages.retain(|(w, _)| w.strong_count() > 0);
        self.stages.push((Rc::downgrade(&staging), blob.clone()));
        let cache = BlockCache::new(
            Staged::new(BlobFetch { blob, reader }, staging),
            size,
            BLOB_BLOCK,
            BLOB_CACHE_BLOCKS,
        )
        .with_read_ahead(BLOB_READ_AHEAD);
        let source = Source::new(path.as_str(), Arc::new(cache));
        self.pending.push(InputFile { path, source });
        self.pending_blob = true;
        Ok(())
    }

    /// Number of files queued.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Groups, probes and opens the queued files. Returns an `OpenReport`:
    /// `{datasets: [DatasetSummary], errors: [ErrorInfo], ignored: [path]}`.
    pub fn open_pending(&mut self) -> Result<JsValue, JsValue> {
        let files = std::mem::take(&mut self.pending);
        let report: OpenReport = self.ws.open_files(files);
        if std::mem::take(&mut self.pending_remote) {
            self.remote.extend(report.datasets.iter().map(|d| d.id));
        }
        if std::mem::take(&mut self.pending_blob) {
            self.blob.extend(report.datasets.iter().map(|d| d.id));
        }
        to_js(&report)
    }

    /// Opens the built-in example dataset; same answer shape as `open_pending`.
    pub fn open_example(&mut self) -> Result<JsValue, JsValue> {
        let report = self.ws.open_example();
        to_js(&report)
    }

    /// Summaries of every dataset of the session, in opening order.
    pub fn summaries(&self) -> Result<JsValue, JsValue> {
        to_js(&self.ws.summaries())
    }

    /// Summary of dataset `id`, or `undefined`.
    pub fn summary(&self, id: u32) -> Result<JsValue, JsValue> {
        match self.ws.entry(id) {
            Some(e) => to_js(&e.summary()),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Forgets dataset `id`; false when there was none.
    pub fn remove(&mut self, id: u32) -> bool {
        self.profiles.remove(&id);
        self.timelines.remove(&id);
        self.remote.remove(&id);
        self.blob.remove(&id);
        self.ws.remove(id)
    }

    /// Per-address sample histogram of dataset `id` (DCPI profiles): `bins` equal-width bins as
    /// a flat array `[first address, samples, first address, samples, ...]`; empty when the
    /// dataset has no per-address data. Addresses above 2^53 lose their low bits in f64.
    pub fn address_histogram(&self, id: u32, bins: u32) -> Result<Box<[f64]>, JsValue> {
        let Some(ds) = self.ws.dataset(id) else {
            return Ok(Box::new([]));
        };
        let h = ds
            .data
            .address_histogram(bins as usize)
            .map_err(|e| JsValue::from_str(&e.to_string()))?;
        Ok(h.iter().flat_map(|&(a, n)| [a as f64, n as f64]).collect())
    }
}

fn js_err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

fn table_kind(kind: &str) -> Result<TableKind, JsValue> {
    TableKind::parse(kind).ok_or_else(|| js_err(format!("unknown table '{kind}'")))
}

/// Profile views (flame graph, top-down / bottom-up / flat tables, distribution): thin wrappers
/// over `analysis::profile::ProfileView`; arrays of typed arrays cross, never trees.
#[wasm_bindgen]
impl Session {
    /// Runs `f` on dataset `id` and its profile-view state (made on first use).
    fn with_profile<T>(
        &mut self,
        id: u32,
        f: impl FnOnce(&crate::model::Dataset, &mut ProfileView) -> Result<T, JsValue>,
    ) -> Result<T, JsValue> {
        let ds = self
            .ws
            .dataset(id)
            .ok_or_else(|| js_err(format!("no opened dataset {id}")))?;
        let pv = self
            .profiles
            .entry(id)
            .or_insert_with(|| ProfileView::new(ds));
        f(ds, pv)
    }

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
        let sel = match kind.as_str() {
            "summary" => Selection::Summary,
            "profile" => Selection::Profile(
                *indices.first().ok_or_else(|| js_err("no profile given"))? as usize,
            ),
            "subset" => Selection::Subset(indices.iter().map(|&i| i as usize).collect()),
            _ => return Err(js_err(format!("unknown selection '{kind}'"))),
        };
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

    /// Visible rectangles under zoom root `zoom` (a context id of the model):
    /// `[node u32, depth u32, x f64, width f64, name u32, module u32, incl f64, excl f64, flags u8]`.
    #[allow(clippy::too_many_arguments)]
    pub fn flame_layout(
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
        self.with_profile(id, |ds, pv| {
            let vp = Viewport {
                x0,
                x1,
                depth0,
                depth1,
                width_px,
                min_width_px,
            };
            let w = pv.flame_layout(ds, zoom, &vp).map_err(js_err)?;
            let out = js_sys::Array::new();
            out.push(&js_sys::Uint32Array::from(&w.node[..]));
            out.push(&js_sys::Uint32Array::from(&w.depth[..]));
            out.push(&js_sys::Float64Array::from(&w.x[..]));
            out.push(&js_sys::Float64Array::from(&w.width[..]));
            out.push(&js_sys::Uint32Array::from(&w.name[..]));
            out.push(&js_sys::Uint32Array::from(&w.module[..]));
            out.push(&js_sys::Float64Array::from(&w.inclusive[..]));
            out.push(&js_sys::Float64Array::from(&w.exclusive[..]));
            out.push(&js_sys::Uint8Array::from(&w.flags[..]));
            Ok(out)
        })
    }

    /// Contexts from the flame root down to the frame of `node`, for the breadcrumb.
    pub fn flame_path(&mut self, id: u32, node: u32) -> Result<Box<[u32]>, JsValue> {
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
        let k = table_kind(&kind)?;
        self.with_profile(id, |ds, pv| pv.table_len(ds, k).map_err(js_err))
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
        let k = table_kind(&kind)?;
        self.with_profile(id, |ds, pv| {
            let w = pv
                .table_window(ds, k, start as usize, count as usize)
                .map_err(js_err)?;
            let out = js_sys::Array::new();
            out.push(&js_sys::Uint32Array::from(&w.node[..]));
            out.push(&js_sys::Uint32Array::from(&w.depth[..]));
            out.push(&js_sys::Uint8Array::from(&w.flags[..]));
            out.push(&js_sys::Uint32Array::from(&w.cct[..]));
            out.push(&js_sys::Float64Array::from(&w.values[..]));
            let labels = js_sys::Array::new();
            for l in &w.labels {
                labels.push(&JsValue::from_str(l));
            }
            out.push(&labels);
            Ok(out)
        })
    }

    /// Expands row `row`; returns the new row count.
    pub fn table_expand(&mut self, id: u32, kind: String, row: u32) -> Result<u32, JsValue> {
        let k = table_kind(&kind)?;
        self.with_profile(id, |ds, pv| {
            pv.table_expand(ds, k, row as usize).map_err(js_err)
        })
    }

    /// Collapses row `row`; returns the new row count.
    pub fn table_collapse(&mut self, id: u32, kind: String, row: u32) -> Result<u32, JsValue> {
        let k = table_kind(&kind)?;
        self.with_profile(id, |ds, pv| {
            pv.table_collapse(ds, k, row as usize).map_err(js_err)
        })
    }

    /// Expands everything up to about `max_rows` rows; returns the row count.
    pub fn table_expand_all(
        &mut self,
        id: u32,
        kind: String,
        max_rows: u32,
    ) -> Result<u32, JsValue> {
        let k = table_kind(&kind)?;
        self.with_profile(id, |ds, pv| {
            pv.table_expand_all(ds, k, max_rows as usize)
                .map_err(js_err)
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
        let k = table_kind(&kind)?;
        self.with_profile(id, |ds, pv| {
            pv.table_hot_path(ds, k, row as usize, share)
                .map_err(js_err)
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
        let k = table_kind(&kind)?;
        self.with_profile(id, |ds, pv| {
            pv.table_sort(ds, k, metric as usize, exclusive, descending)
                .map_err(js_err)
        })
    }

    /// Expands down to the row of context `node`; its row or -1.
    pub fn table_reveal(&mut self, id: u32, kind: String, node: u32) -> Result<f64, JsValue> {
        let k = table_kind(&kind)?;
        self.with_profile(id, |ds, pv| {
            Ok(pv
                .table_reveal(ds, k, node)
                .map_err(js_err)?
                .map(|r| r as f64)
                .unwrap_or(-1.0))
        })
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

    /// Adds a synthetic dataset of `contexts` contexts (benchmarks); returns its summary.
    pub fn open_synthetic(&mut self, contexts: u32, seed: u32) -> Result<JsValue, JsValue> {
        let ds = crate::analysis::folded::synthetic(contexts.min(20_000_000), seed as u64);
        let s = self.ws.add_dataset("synthetic", ds);
        to_js(&s)
    }
}

/// Block size of Blob reads. A FileReaderSync read costs ~0.35 ms whatever its size up to
/// hundreds of KiB, then ~2 ns per byte: small blocks keep scattered probes (binary searches in
/// trace.db, one per zoomed row) cheap, and sequential parsing reads ahead up to
/// `BLOB_READ_AHEAD` blocks (4 MiB) per call.
const BLOB_BLOCK: u64 = 64 << 10;
/// Blocks kept in memory per file (16 MiB).
const BLOB_CACHE_BLOCKS: usize = 256;
const BLOB_READ_AHEAD: u64 = 64;
/// Block size of reads through a JavaScript reader (HTTP Range requests): small, because every
/// block costs transfer and binary searches in trace.db touch one block per probe; sequential
/// parsing reads ahead up to `JS_READ_AHEAD` blocks (256 KiB) per request instead: more would
/// overshoot the end of a trace line, which the trace view reads whole when zoomed out.
const JS_BLOCK: u64 = 16 << 10;
const JS_READ_AHEAD: u64 = 16;
/// Blocks kept per file read through JavaScript (16 MiB).
const JS_CACHE_BLOCKS: usize = 1024;

/// A dropped `File` read in slices with `FileReaderSync`.
struct BlobFetch {
    blob: web_sys::Blob,
    reader: web_sys::FileReaderSync,
}

impl BlobFetch {
    fn read(&self, start: u64, end: u64) -> Result<js_sys::Uint8Array, String> {
        let slice = self
            .blob
            .slice_with_f64_and_f64(start as f64, end as f64)
            .map_err(|e| format!("Blob.slice failed: {e:?}"))?;
        let buf = self
            .reader
            .read_as_array_buffer(&slice)
            .map_err(|e| format!("FileReaderSync failed: {e:?}"))?;
        Ok(js_sys::Uint8Array::new(&buf))
    }
}

impl crate::block_cache::Fetch for BlobFetch {
    fn fetch(&self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        Ok(self.read(start, end)?.to_vec())
    }

    /// Straight from the ArrayBuffer into the caller's buffer in wasm memory (one copy).
    fn fetch_into(&self, start: u64, buf: &mut [u8]) -> Result<(), String> {
        let a = self.read(start, start + buf.len() as u64)?;
        if a.length() as usize != buf.len() {
            return Err(format!(
                "read of {} bytes at {start} returned {} bytes",
                buf.len(),
                a.length()
            ));
        }
        a.copy_to(buf);
        Ok(())
    }
}

fn js_error_text(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            js_sys::Reflect::get(&e, &JsValue::from_str("message"))
                .ok()
                .and_then(|m| m.as_string())
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// Bytes through JavaScript functions (www/engine.js: HTTP Range requests by synchronous XHR in
/// the Worker): `read(start, end) -> Uint8Array`, and optionally `read_many(starts, ends) ->
/// Uint8Array` (the ranges concatenated: one multi-range request). A thrown error becomes the
/// read's error.
struct JsFetch {
    read: js_sys::Function,
    read_many: Option<js_sys::Function>,
}

impl crate::block_cache::Fetch for JsFetch {
    fn fetch(&self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        let v = self
            .read
            .call2(
                &JsValue::NULL,
                &JsValue::from_f64(start as f64),
                &JsValue::from_f64(end as f64),
            )
            .map_err(js_error_text)?;
        Ok(js_sys::Uint8Array::new(&v).to_vec())
    }

    fn fetch_many(&self, ranges: &[(u64, u64)]) -> Result<Vec<u8>, String> {
        let Some(many) = self.read_many.as_ref() else {
            let mut out = Vec::new();
            for &(a, b) in ranges {
                out.extend_from_slice(&self.fetch(a, b)?);
            }
            return Ok(out);
        };
        let starts: Vec<f64> = ranges.iter().map(|r| r.0 as f64).collect();
        let ends: Vec<f64> = ranges.iter().map(|r| r.1 as f64).collect();
        let v = many
            .call2(
                &JsValue::NULL,
                &js_sys::Float64Array::from(&starts[..]),
                &js_sys::Float64Array::from(&ends[..]),
            )
            .map_err(js_error_text)?;
        Ok(js_sys::Uint8Array::new(&v).to_vec())
    }
}

#[wasm_bindgen]
impl Session {
    /// Queues a file of `size` bytes read on demand through `read(start, end) -> Uint8Array`
    /// (called synchronously, so from a Worker: synchronous XHR with a Range header), in 16 KiB
    /// blocks with read-ahead and a 16 MiB cache.
    pub fn add_reader(&mut self, path: String, size: f64, read: js_sys::Function) {
        self.add_reader_batched(path, size, read, None);
    }

    /// `add_reader` with `read_many(starts: Float64Array, ends: Float64Array) -> Uint8Array`
    /// answering many ranges at once (an HTTP multi-range request): the trace view's coarse
    /// pass and lock-step searches read all rows with a few requests.
    pub fn add_reader_batched(
        &mut self,
        path: String,
        size: f64,
        read: js_sys::Function,
        read_many: Option<js_sys::Function>,
    ) {
        let fetch = JsFetch { read, read_many };
        let cache = BlockCache::new(fetch, size as u64, JS_BLOCK, JS_CACHE_BLOCKS)
            .with_read_ahead(JS_READ_AHEAD);
        let source = Source::new(path.as_str(), Arc::new(cache));
        self.pending.push(InputFile { path, source });
        self.pending_remote = true;
    }

    /// Dataset `id` in another tool's format: "speedscope", "chrome", "folded" or "csv"; `metric`
    /// a metric name (empty: the first with a value). Returns `{text, extension, mime}`.
    pub fn export(&mut self, id: u32, format: String, metric: String) -> Result<JsValue, JsValue> {
        use crate::export::{export, pick_metric, Format};
        let f =
            Format::parse(&format).ok_or_else(|| js_err(format!("unknown format '{format}'")))?;
        let ds = self
            .ws
            .dataset(id)
            .ok_or_else(|| js_err(format!("no opened dataset {id}")))?;
        let m = pick_metric(ds, (!metric.is_empty()).then_some(metric.as_str())).map_err(js_err)?;
        let text = export(ds, f, m).map_err(js_err)?;
        #[derive(Serialize)]
        struct Out {
            text: String,
            extension: &'static str,
            mime: &'static str,
        }
        to_js(&Out {
            text,
            extension: f.extension(),
            mime: f.mime(),
        })
    }
}

// ---- trace timeline (src/analysis/timeline): the Worker samples, the page paints colour keys ----
#[wasm_bindgen]
impl Session {
    fn timeline_parts(
        &mut self,
        id: u32,
    ) -> Result<
        (
            &crate::model::Dataset,
            &mut crate::analysis::timeline::view::TimelineCache,
        ),
        JsValue,
    > {
        let ds = self
            .ws
            .dataset(id)
            .ok_or_else(|| JsValue::from_str(&format!("no dataset {id}")))?;
        use timeline::progressive::ReadCost;
        let cost = if self.remote.contains(&id) {
            ReadCost::RANGED
        } else if self.blob.contains(&id) {
            ReadCost::BLOB
        } else {
            ReadCost::MEMORY
        };
        Ok((
            ds,
            self.timelines
                .entry(id)
                .or_insert_with(|| timeline::view::TimelineCache::with_cost(cost)),
        ))
    }

    /// Rows (labels from id tuples, sample counts), run length, max depth and colour-key names of
    /// dataset `id`'s trace; `status` is "ok", "no-trace" or "no-samples".
    pub fn timeline_meta(&mut self, id: u32) -> Result<JsValue, JsValue> {
        let (ds, cache) = self.timeline_parts(id)?;
        to_js(cache.meta(ds))
    }

    /// `{rows, groups}`: trace lines matching the label pattern with at least `min_samples`
    /// samples, grouped by the id kind `group_by` ("none" keeps file order).
    pub fn timeline_rows(
        &mut self,
        id: u32,
        pattern: String,
        min_samples: f64,
        group_by: String,
    ) -> Result<JsValue, JsValue> {
        let (ds, cache) = self.timeline_parts(id)?;
        to_js(&timeline::view::rows(
            ds,
            cache,
            &pattern,
            min_samples,
            &group_by,
        ))
    }

    /// Colour keys of `rows` over offsets [t0, t1) ns from the run start at call depth `depth`:
    /// `[width, shown rows, line per shown row..., keys row-major...]`. `keep` makes it the frame
    /// the summary describes (the minimap passes false).
    #[allow(clippy::too_many_arguments)]
    pub fn timeline_frame(
        &mut self,
        id: u32,
        rows: Vec<u32>,
        t0: f64,
        t1: f64,
        width: u32,
        height: u32,
        depth: u32,
        keep: bool,
    ) -> Result<Box<[u32]>, JsValue> {
        let (ds, cache) = self.timeline_parts(id)?;
        let last = cache.last.take();
        let out = timeline::view::frame_packed(ds, cache, &rows, t0, t1, width, height, depth)
            .map_err(|e| JsValue::from_str(&e.to_string()))?;
        if !keep {
            cache.last = last;
        }
        Ok(out.into_boxed_slice())
    }

    /// Starts a progressive frame in `slot` (0: main view, 1: minimap) and works on it for about
    /// `budget_ms`: `[packed, {exact, rows_exact, rows}]`, packed as `timeline_frame`. Until
    /// `exact`, rows not refined yet show a refined neighbour; `timeline_refine` continues.
    ///
    /// Rows of a file dropped as a Blob are not read synchronously (each FileReaderSync read
    /// leaves a buffer for the garbage collector, and zoomed out a frame reads GBs): a read
    /// that is not staged stops the step, and the answer is `null`. The caller then reads
    /// `take_wanted_read()` asynchronously, `stage_bytes` it and calls `timeline_refine` (or
    /// `timeline_progress` when its time is up).
    #[allow(clippy::too_many_arguments)]
    pub fn timeline_begin(
        &mut self,
        id: u32,
        slot: u32,
        rows: Vec<u32>,
        t0: f64,
        t1: f64,
        width: u32,
        height: u32,
        depth: u32,
        budget_ms: f64,
    ) -> Result<JsValue, JsValue> {
        self.deferred_step(id, budget_ms, true, |ds, cache, stop| {
            timeline::view::frame_begin(
                ds,
                cache,
                slot as usize,
                &rows,
                t0,
                t1,
                width,
                height,
                depth,
                stop,
            )
        })
    }

    /// Works on the progressive frame of `slot` for about `budget_ms`; same answer as
    /// `timeline_begin` (`null` while a read is wanted).
    pub fn timeline_refine(
        &mut self,
        id: u32,
        slot: u32,
        budget_ms: f64,
    ) -> Result<JsValue, JsValue> {
        self.timeline_step(id, slot, budget_ms, true)
    }

    /// `timeline_refine` repeated by the Worker once the read its last answer wanted is staged.
    /// Ranges evicted from the stage since the view's call began are then read synchronously,
    /// so a row needing more than the stage holds still progresses. (Between the view's calls
    /// the stage is shared with the other slot's steps, whose reads may evict what this one
    /// staged: those ranges are fetched again asynchronously.)
    pub fn timeline_continue(
        &mut self,
        id: u32,
        slot: u32,
        budget_ms: f64,
    ) -> Result<JsValue, JsValue> {
        self.timeline_step(id, slot, budget_ms, false)
    }

    /// The progressive frame of `slot` as it stands, without working on it; same answer as
    /// `timeline_begin`, never `null`.
    pub fn timeline_progress(&mut self, id: u32, slot: u32) -> Result<JsValue, JsValue> {
        let (_, cache) = self.timeline_parts(id)?;
        let (packed, p) = timeline::view::frame_shown(cache, slot as usize);
        progressive_answer(packed, p).map(JsValue::from)
    }

    /// The range a deferred read is waiting for, taken: `{stage, start, end, blob}` (read
    /// `blob.slice(start, end)`, then `stage_bytes(stage, start, bytes)`), or `undefined`.
    pub fn take_wanted_read(&self) -> Result<JsValue, JsValue> {
        for (i, (w, blob)) in self.stages.iter().enumerate() {
            let Some((a, b)) = w.upgrade().and_then(|s| s.take_want()) else {
                continue;
            };
            let o = js_sys::Object::new();
            js_sys::Reflect::set(&o, &"stage".into(), &JsValue::from(i as u32))?;
            js_sys::Reflect::set(&o, &"start".into(), &JsValue::from_f64(a as f64))?;
            js_sys::Reflect::set(&o, &"end".into(), &JsValue::from_f64(b as f64))?;
            js_sys::Reflect::set(&o, &"blob".into(), blob)?;
            return Ok(o.into());
        }
        Ok(JsValue::UNDEFINED)
    }

    /// Reads of files dropped as Blobs so far, all files together: `{staged_reads,
    /// staged_bytes, sync_reads, sync_bytes}` (staged: read asynchronously for trace steps).
    pub fn blob_reads(&self) -> Result<JsValue, JsValue> {
        let mut total = crate::staging::StagingStats::default();
        for s in self.stages.iter().filter_map(|(w, _)| w.upgrade()) {
            total += s.stats();
        }
        to_js(&total)
    }

    /// Stages `bytes`, read from the Blob of `stage` at `start`, for the next trace step.
    pub fn stage_bytes(
        &self,
        stage: u32,
        start: f64,
        bytes: &js_sys::Uint8Array,
    ) -> Result<(), JsValue> {
        let s = self
            .stages
            .get(stage as usize)
            .and_then(|(w, _)| w.upgrade())
            .ok_or_else(|| JsValue::from_str(&format!("no staged file {stage}")))?;
        s.put(start as u64, bytes.length() as u64, |buf| {
            bytes.copy_to(buf)
        })
        .map_err(|e| JsValue::from_str(&e))
    }

    /// Time-axis ticks over offsets [a, b] ns: `[[offset, label], ...]`.
    pub fn timeline_ticks(&self, a: f64, b: f64, max_ticks: u32) -> Result<JsValue, JsValue> {
        to_js(&timeline::view::ticks(a, b, max_ticks))
    }

    /// The call path in force on trace line `line` at offset `t` ns.
    pub fn timeline_call_path(&mut self, id: u32, line: u32, t: f64) -> Result<JsValue, JsValue> {
        let (ds, cache) = self.timeline_parts(id)?;
        let cp = timeline::view::call_path(ds, cache, line, t)
            .map_err(|e| JsValue::from_str(&e.to_string()))?;
        to_js(&cp)
    }

    /// Depth view of one line: `[depth, x0, x1, key]` quads for depths `0..max_depth`.
    pub fn timeline_depth(
        &mut self,
        id: u32,
        line: u32,
        t0: f64,
        t1: f64,
        width: u32,
        max_depth: u32,
    ) -> Result<Box<[u32]>, JsValue> {
        let (ds, cache) = self.timeline_parts(id)?;
        timeline::view::depth_packed(ds, cache, line, t0, t1, width, max_depth)
            .map(Vec::into_boxed_slice)
            .map_err(|e| JsValue::from_str(&e.to_string()))
    }

    /// Stacked per-column key counts of the last kept frame:
    /// `[width, col_start (width + 1)..., (key, count) pairs...]`.
    pub fn timeline_summary(&mut self, id: u32) -> Result<Box<[u32]>, JsValue> {
        let (_, cache) = self.timeline_parts(id)?;
        Ok(timeline::view::summary_packed(cache).0.into_boxed_slice())
    }

    /// Functions by share of the last kept frame's cells: `[{key, name, share}]`.
    pub fn timeline_shares(&mut self, id: u32) -> Result<JsValue, JsValue> {
        let (_, cache) = self.timeline_parts(id)?;
        to_js(&timeline::view::summary_packed(cache).1)
    }
}

impl Session {
    fn timeline_step(
        &mut self,
        id: u32,
        slot: u32,
        budget_ms: f64,
        fresh: bool,
    ) -> Result<JsValue, JsValue> {
        self.deferred_step(id, budget_ms, fresh, |ds, cache, stop| {
            timeline::view::frame_refine(ds, cache, slot as usize, stop)
        })
    }

    /// Runs trace step `f` on dataset `id` for about `budget_ms` with Blob reads deferred (see
    /// `timeline_begin`): the frame, or `null` when it stopped at a read it wants.
    fn deferred_step(
        &mut self,
        id: u32,
        budget_ms: f64,
        fresh: bool,
        f: impl FnOnce(
            &crate::model::Dataset,
            &mut timeline::view::TimelineCache,
            &mut dyn FnMut() -> bool,
        ) -> crate::error::Result<(Vec<u32>, timeline::view::Progress)>,
    ) -> Result<JsValue, JsValue> {
        self.defer_reads(true, fresh);
        let r = self.timeline_parts(id).and_then(|(ds, cache)| {
            let end = js_sys::Date::now() + budget_ms;
            f(ds, cache, &mut || js_sys::Date::now() >= end)
                .map_err(|e| JsValue::from_str(&e.to_string()))
        });
        self.step_answer(r)
    }

    /// Turns deferred reads of Blob files on or off for a trace step (`fresh`: a step the view
    /// called, not one repeated after a read: it may fetch again what was evicted before).
    fn defer_reads(&self, on: bool, fresh: bool) {
        for s in self.stages.iter().filter_map(|(w, _)| w.upgrade()) {
            s.set_defer(on);
            if fresh {
                s.forget_evicted();
            }
        }
    }

    /// The answer of a trace step: `null` when it stopped at a deferred read (the job is kept
    /// as it was before the row that wanted it), the frame otherwise.
    fn step_answer(
        &self,
        r: Result<(Vec<u32>, timeline::view::Progress), JsValue>,
    ) -> Result<JsValue, JsValue> {
        self.defer_reads(false, false);
        let wanted = self
            .stages
            .iter()
            .filter_map(|(w, _)| w.upgrade())
            .any(|s| s.wants());
        match r {
            Err(_) if wanted => Ok(JsValue::NULL),
            Err(e) => Err(e),
            Ok((packed, p)) => {
                if wanted {
                    // A reader swallowed the failed read (none should): drop the want.
                    self.take_wanted_read()?;
                }
                progressive_answer(packed, p).map(JsValue::from)
            }
        }
    }
}

fn progressive_answer(
    packed: Vec<u32>,
    p: timeline::view::Progress,
) -> Result<js_sys::Array, JsValue> {
    let out = js_sys::Array::new();
    out.push(&js_sys::Uint32Array::from(&packed[..]));
    out.push(&to_js(&p)?);
    Ok(out)
}
