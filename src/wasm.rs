//! The only file that knows about wasm-bindgen: the `Session` handle the Worker (www/worker.js)
//! talks to. Long-lived data stays in Rust behind the handle; what crosses is file bytes in,
//! plain summary records out (serde-wasm-bindgen), and, for views, typed arrays, never whole trees.

use crate::api::{OpenReport, Workspace};
use crate::bytes::{ReadAt, Source};
use crate::formats::InputFile;
use serde::Serialize;
use std::cell::RefCell;
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

    /// Queues a file read lazily from a Blob (a dropped `File`) in 1 MiB slices through
    /// `FileReaderSync`: only what readers touch is copied. Works in a dedicated Worker only.
    pub fn add_blob(&mut self, path: String, blob: web_sys::Blob) -> Result<(), JsValue> {
        let reader = web_sys::FileReaderSync::new()?;
        let source = Source::new(
            path.as_str(),
            Arc::new(BlobSource {
                size: blob.size() as u64,
                blob,
                reader,
                cache: RefCell::new(Vec::new()),
            }),
        );
        self.pending.push(InputFile { path, source });
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

/// Slice size of Blob reads: large enough that header-by-header reading costs few calls.
const BLOB_BLOCK: u64 = 1 << 20;
/// Blocks kept in memory per file.
const BLOB_CACHE_BLOCKS: usize = 16;

/// A dropped `File` read in aligned blocks with `FileReaderSync`, most recent blocks cached.
struct BlobSource {
    blob: web_sys::Blob,
    reader: web_sys::FileReaderSync,
    size: u64,
    /// (block index, bytes), most recently used last.
    cache: RefCell<Vec<(u64, Vec<u8>)>>,
}

impl BlobSource {
    fn block(&self, index: u64) -> Result<Vec<u8>, String> {
        let start = index * BLOB_BLOCK;
        let end = (start + BLOB_BLOCK).min(self.size);
        let slice = self
            .blob
            .slice_with_f64_and_f64(start as f64, end as f64)
            .map_err(|e| format!("Blob.slice failed: {e:?}"))?;
        let buf = self
            .reader
            .read_as_array_buffer(&slice)
            .map_err(|e| format!("FileReaderSync failed: {e:?}"))?;
        let bytes = js_sys::Uint8Array::new(&buf).to_vec();
        if bytes.len() as u64 != end - start {
            return Err(format!(
                "Blob read returned {} bytes, expected {}",
                bytes.len(),
                end - start
            ));
        }
        Ok(bytes)
    }
}

impl ReadAt for BlobSource {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), String> {
        let mut done = 0usize;
        while done < buf.len() {
            let at = offset + done as u64;
            let index = at / BLOB_BLOCK;
            let within = (at % BLOB_BLOCK) as usize;
            let mut cache = self.cache.borrow_mut();
            let pos = match cache.iter().position(|(i, _)| *i == index) {
                Some(p) => p,
                None => {
                    let block = self.block(index)?;
                    if cache.len() >= BLOB_CACHE_BLOCKS {
                        cache.remove(0);
                    }
                    cache.push((index, block));
                    cache.len() - 1
                }
            };
            let entry = cache.remove(pos);
            let src = entry
                .1
                .get(within..)
                .ok_or("read past the end of a block")?;
            let n = src.len().min(buf.len() - done);
            if n == 0 {
                return Err("read past the end of the Blob".into());
            }
            buf[done..done + n].copy_from_slice(&src[..n]);
            done += n;
            cache.push(entry);
        }
        Ok(())
    }
}
