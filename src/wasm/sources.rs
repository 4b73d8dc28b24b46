//! Lazily read files over the wasm boundary: dropped Blobs (FileReaderSync, and asynchronous
//! reads for trace steps) and JavaScript range readers (HTTP Range requests; on single-range
//! servers asynchronous for trace steps too). The fetchers here implement `block_cache::Fetch`;
//! the native session (src/session/sources.rs) holds them.

use super::{js_err, to_js, Session};
use crate::block_cache::Fetch;
use crate::session::{LazyFile, ReadPlan, WantedRead};
use wasm_bindgen::prelude::*;

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

impl Fetch for BlobFetch {
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

impl Fetch for JsFetch {
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
    /// Queues a file read lazily from a Blob (a dropped `File`) in 64 KiB blocks through
    /// `FileReaderSync`: only what readers touch is copied. Works in a dedicated Worker only.
    /// Trace steps read it asynchronously instead (`take_wanted_read`).
    pub fn add_blob(&mut self, path: String, blob: web_sys::Blob) -> Result<(), JsValue> {
        let reader = web_sys::FileReaderSync::new()?;
        let file = LazyFile {
            path,
            size: blob.size() as u64,
            fetch: BlobFetch {
                blob: blob.clone(),
                reader,
            },
            plan: ReadPlan::BLOB,
        };
        // Reads shorter than a block are not worth an asynchronous round trip.
        let min_defer = file.plan.block;
        self.s.add_staged(file, blob.into(), min_defer);
        Ok(())
    }

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
        self.s.add_remote(LazyFile {
            path,
            size: size as u64,
            fetch: JsFetch { read, read_many },
            plan: ReadPlan::REMOTE,
        });
    }

    /// Queues a file of `size` bytes on a server that answers one range per request (object
    /// stores, CDNs): read through `read(start, end)` like `add_reader` (no request under a
    /// 16 KiB block, runs of blocks merged, 1 MiB read-ahead), except in trace steps, which defer
    /// their reads: `take_wanted_reads()` names them with `source` for the Worker to fetch
    /// concurrently and `stage_bytes`; so does `open_prefetch`, which plans the open. Returns
    /// the file's stage number (bytes fetched ahead, such as its first bytes read while it was
    /// probed, can be staged under it).
    pub fn add_reader_deferred(
        &mut self,
        path: String,
        size: f64,
        read: js_sys::Function,
        source: JsValue,
    ) -> u32 {
        let file = LazyFile {
            path,
            size: size as u64,
            fetch: JsFetch {
                read,
                read_many: None,
            },
            plan: ReadPlan::REMOTE_SINGLE,
        };
        self.s.add_remote_deferred(file, source)
    }

    /// Plans the open of the queued files of single-range servers (see `add_reader_deferred`):
    /// rehearses it, its reads naming the ranges they want instead of fetching them one
    /// round trip after another. Returns how many are wanted: take them with
    /// `take_wanted_reads`, fetch them concurrently, `stage_bytes` them and call again until 0,
    /// then `open_pending` reads from what was staged.
    pub fn open_prefetch(&mut self) -> u32 {
        self.s.open_prefetch() as u32
    }

    /// The range a deferred read is waiting for, taken: `{stage, start, end, source}` (for a
    /// dropped file `source` is its Blob, also given as `blob`: read `blob.slice(start, end)`,
    /// then `stage_bytes(stage, start, bytes)`), or `undefined`.
    pub fn take_wanted_read(&self) -> Result<JsValue, JsValue> {
        match self.s.take_wanted_read() {
            Some(w) => wanted_js(&w),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Every range deferred reads are waiting for, taken: an array of `take_wanted_read`'s
    /// objects (empty when none waits).
    pub fn take_wanted_reads(&self) -> Result<js_sys::Array, JsValue> {
        let out = js_sys::Array::new();
        for w in self.s.take_wanted_reads() {
            out.push(&wanted_js(&w)?);
        }
        Ok(out)
    }

    /// Reads of files dropped as Blobs so far, all files together: `{staged_reads,
    /// staged_bytes, sync_reads, sync_bytes, reread_reads}` (staged: read asynchronously for
    /// trace steps).
    pub fn blob_reads(&self) -> Result<JsValue, JsValue> {
        to_js(&self.s.blob_reads())
    }

    /// The same counts for URLs on single-range servers (staged: fetched asynchronously for
    /// trace steps; synchronous: parsing, call paths and the like).
    pub fn remote_staged_reads(&self) -> Result<JsValue, JsValue> {
        to_js(&self.s.remote_staged_reads())
    }

    /// Stages `bytes`, read from the Blob of `stage` at `start`, for the next trace step.
    pub fn stage_bytes(
        &self,
        stage: u32,
        start: f64,
        bytes: &js_sys::Uint8Array,
    ) -> Result<(), JsValue> {
        self.s
            .stage_bytes(stage, start as u64, bytes.length() as u64, |buf| {
                bytes.copy_to(buf)
            })
            .map_err(js_err)
    }
}

/// `{stage, start, end, source}` of a wanted read, with `blob` too when the source is a Blob.
fn wanted_js(w: &WantedRead<'_, JsValue>) -> Result<JsValue, JsValue> {
    let o = js_sys::Object::new();
    js_sys::Reflect::set(&o, &"stage".into(), &JsValue::from(w.stage))?;
    js_sys::Reflect::set(&o, &"start".into(), &JsValue::from_f64(w.start as f64))?;
    js_sys::Reflect::set(&o, &"end".into(), &JsValue::from_f64(w.end as f64))?;
    js_sys::Reflect::set(&o, &"source".into(), w.handle)?;
    if w.handle.is_instance_of::<web_sys::Blob>() {
        js_sys::Reflect::set(&o, &"blob".into(), w.handle)?;
    }
    Ok(o.into())
}
