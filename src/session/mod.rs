//! The Worker's session, native: the datasets opened so far and the files queued for the next
//! open, per-dataset profile views and trace caches, lazily read sources and the defer/stage read
//! protocol of trace steps. src/wasm/ only converts arguments and answers around it.

pub mod compare;
pub mod profile;
pub mod source;
pub mod sources;
pub mod staging;
pub mod timeline;
pub mod workspace;

pub use sources::{LazyFile, ReadPlan, WantedRead};
pub use timeline::{FrameRequest, LineWindow, Step};
pub use workspace::{DatasetSummary, Entry, ErrorInfo, FileInfo, OpenReport, Workspace};

use crate::analysis::profile::ProfileView;
use crate::analysis::timeline::progressive::ReadCost;
use crate::analysis::timeline::view::TimelineCache;
use crate::formats::uftrace::{self, Streaming};
use crate::formats::InputFile;
use crate::model::Dataset;
use staging::Staging;
use std::collections::HashMap;
use std::fmt;
use std::rc::Weak;

/// Why a session call failed: a request naming something the session does not have (a dataset,
/// a table, a staged file), or a problem of the data the call read.
#[derive(Debug)]
pub enum SessionError {
    Request(String),
    Data(crate::Error),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Request(what) => f.write_str(what),
            SessionError::Data(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SessionError {}

impl From<crate::Error> for SessionError {
    fn from(e: crate::Error) -> SessionError {
        SessionError::Data(e)
    }
}

pub type Result<T, E = SessionError> = std::result::Result<T, E>;

fn request(what: impl Into<String>) -> SessionError {
    SessionError::Request(what.into())
}

/// One page session. `H` is what the caller needs to read a staged file asynchronously (in the
/// Worker: the dropped `Blob`); it comes back with every wanted read (see [`sources`]).
pub struct Session<H = ()> {
    ws: Workspace,
    pending: Vec<InputFile>,
    /// State of the profile views (flame graph, tables) per dataset id, made on first use.
    profiles: HashMap<u32, ProfileView>,
    /// Trace-view state per dataset id (frame index, progressive frames, last frame).
    timelines: HashMap<u32, TimelineCache>,
    /// What reads of the queued files cost (the costliest; None: all in memory), and of each
    /// dataset opened from lazily read files: over HTTP the trace view samples rows with few
    /// requests, from a Blob it scans them with few large reads.
    pending_cost: Option<ReadCost>,
    costs: HashMap<u32, ReadCost>,
    /// The staging of every staged file still open, with its handle: trace steps defer their
    /// large reads to it (see [`Session::timeline_begin`]).
    stages: Vec<(Weak<Staging>, H)>,
    /// The stagings of the queued files read from single-range servers: their open is planned
    /// (`open_prefetch`), and what was staged for it freed once it is done.
    pending_stages: Vec<Weak<Staging>>,
    /// Source files per dataset id, for the source view (src/session/source.rs).
    sources: HashMap<u32, source::DatasetSources>,
    /// Comparisons of two datasets by comparison id (see [`compare`]), and the next id's offset.
    compares: HashMap<u32, compare::CompareState>,
    next_compare: u32,
}

impl<H> Default for Session<H> {
    fn default() -> Self {
        Session::new()
    }
}

impl<H> Session<H> {
    pub fn new() -> Session<H> {
        Session {
            ws: Workspace::new(),
            pending: Vec::new(),
            profiles: HashMap::new(),
            timelines: HashMap::new(),
            pending_cost: None,
            costs: HashMap::new(),
            stages: Vec::new(),
            pending_stages: Vec::new(),
            sources: HashMap::new(),
            compares: HashMap::new(),
            next_compare: 0,
        }
    }

    /// Queues a file held in memory: `path` relative to the drop ('/'-separated, with the dropped
    /// folder's name).
    pub fn add_file(&mut self, path: String, bytes: Vec<u8>) {
        self.pending.push(InputFile::from_vec(path, bytes));
    }

    /// Number of files queued.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Groups, probes and opens the queued files.
    pub fn open_pending(&mut self) -> OpenReport {
        let files = std::mem::take(&mut self.pending);
        let srcs: Vec<InputFile> = files
            .iter()
            .filter(|f| source::is_source_path(&f.path))
            .cloned()
            .collect();
        let report = self.ws.open_files(files);
        self.release_opened_stages();
        self.keep_sources(srcs, &report);
        if let Some(c) = self.pending_cost.take() {
            self.costs.extend(report.datasets.iter().map(|d| (d.id, c)));
        }
        report
    }

    /// Starts opening the queued uftrace recordings: the caller reads their task files that are
    /// not in memory (dropped Blobs) itself, asynchronously (the next piece while this one is
    /// decoded), and feeds them in the order returned, each whole, with `stream_feed`; then
    /// `open_pending` opens the recordings from what was fed (those in memory are read here).
    /// Returns the paths to feed, one per line.
    pub fn stream_begin(&mut self) -> String {
        let streams = &mut self.ws.streams;
        streams.clear();
        let (groups, _) = crate::formats::group(self.pending.clone());
        let mut paths = String::new();
        for g in &groups {
            // A recording whose headers do not read is opened (and its error reported) as usual.
            if g.format_id() == uftrace::ID {
                if let Ok(s) = Streaming::new(g, true) {
                    for p in s.files() {
                        paths += &p;
                        paths.push('\n');
                    }
                    streams.push((g.root.clone(), g.files.len(), s));
                }
            }
        }
        paths
    }

    /// Feeds the next `len` bytes (written by `fill`) of file `path` to the recording being
    /// opened (see `stream_begin`). False (bytes not wanted) ends the streams, and so does a read
    /// that fails: `open_pending` then reads the files not fed whole itself.
    pub fn stream_feed(&mut self, path: &str, len: usize, fill: impl FnOnce(&mut [u8])) -> bool {
        let streams = &mut self.ws.streams;
        let fed = match streams.iter_mut().find(|s| !s.2.done()) {
            Some(s) => s.2.feed(path, len, fill),
            None => false,
        };
        if !fed {
            streams.clear();
        }
        fed
    }

    /// Opens the built-in example dataset.
    pub fn open_example(&mut self) -> OpenReport {
        self.ws.open_example()
    }

    /// Adds a synthetic dataset of `contexts` contexts (at most 20 million; benchmarks).
    pub fn open_synthetic(&mut self, contexts: u32, seed: u32) -> DatasetSummary {
        let ds = crate::analysis::folded::synthetic(contexts.min(20_000_000), seed as u64);
        self.ws.add_dataset("synthetic", ds)
    }

    /// Summaries of every dataset of the session, in opening order.
    pub fn summaries(&self) -> Vec<DatasetSummary> {
        self.ws.summaries()
    }

    /// Summary of dataset `id`, if there is one.
    pub fn summary(&self, id: u32) -> Option<DatasetSummary> {
        self.ws.entry(id).map(Entry::summary)
    }

    /// The opened dataset `id` (None when unknown or when its reader failed).
    pub fn dataset(&self, id: u32) -> Option<&Dataset> {
        self.ws.dataset(id)
    }

    /// Forgets dataset `id`, its view state and the comparisons it is part of; false when there
    /// was none.
    pub fn remove(&mut self, id: u32) -> bool {
        self.profiles.remove(&id);
        self.timelines.remove(&id);
        self.sources.remove(&id);
        self.costs.remove(&id);
        self.compares.retain(|_, c| c.base != id && c.new != id);
        self.ws.remove(id)
    }

    /// Per-address sample histogram of dataset `id` (DCPI profiles) in `bins` equal-width bins:
    /// (first address, samples); empty when the dataset is unknown or has no per-address data.
    pub fn address_histogram(&self, id: u32, bins: u32) -> Result<Vec<(u64, u64)>> {
        let Some(ds) = self.ws.dataset(id) else {
            return Ok(Vec::new());
        };
        Ok(ds.data.address_histogram(bins as usize)?)
    }

    /// Dataset `id` in another tool's format: "speedscope", "chrome", "folded" or "csv"; `metric`
    /// a metric name (empty: the first with a value).
    pub fn export(&self, id: u32, format: &str, metric: &str) -> Result<Exported> {
        use crate::export::{export, pick_metric, Format};
        let f =
            Format::parse(format).ok_or_else(|| request(format!("unknown format '{format}'")))?;
        let ds = self.ws.opened(id)?;
        let m = pick_metric(ds, (!metric.is_empty()).then_some(metric))?;
        Ok(Exported {
            text: export(ds, f, m)?,
            extension: f.extension(),
            mime: f.mime(),
        })
    }
}

/// An export: the text, the file name extension and the MIME type to save it with.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Exported {
    pub text: String,
    pub extension: &'static str,
    pub mime: &'static str,
}

#[cfg(test)]
mod tests;
