//! The datasets of one session: groups and probes dropped files, opens them with their readers,
//! and answers with plain summary records for the UI (`DatasetSummary`, `OpenReport`). No
//! wasm-bindgen here: the browser's Worker reaches it through src/session/mod.rs and src/wasm/.

use crate::error::{Error, ErrorKind};
use crate::formats::probe::{probe, Probe};
use crate::formats::uftrace::Streaming;
use crate::formats::{self, DatasetGroup, InputFile};
use crate::model::{Dataset, FileEntry};

/// An error or warning as the UI shows it. Offsets are carried as numbers (exact up to 2^53) and as
/// hex text, so no 64-bit value has to cross into JavaScript.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ErrorInfo {
    pub kind: String,
    pub file: String,
    pub offset: Option<f64>,
    pub offset_hex: Option<String>,
    pub what: String,
    pub message: String,
}

impl From<&Error> for ErrorInfo {
    fn from(e: &Error) -> ErrorInfo {
        ErrorInfo {
            kind: e.kind.as_str().to_string(),
            file: e.file.clone(),
            offset: e.offset.map(|o| o as f64),
            offset_hex: e.offset.map(|o| format!("{o:#x}")),
            what: e.what.clone(),
            message: e.to_string(),
        }
    }
}

/// One file of a dataset with its size.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FileInfo {
    pub path: String,
    pub size: f64,
}

/// What the summary panel shows for one dataset.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DatasetSummary {
    /// Handle of the dataset in this session (stable while the session lives).
    pub id: u32,
    /// Folder the dataset's files share, or the file name of a lone file.
    pub root: String,
    /// Stable format id ("hpctoolkit", "prof2", "hpctoolkit-xml", "hpcrun", "uftrace", "dcpi").
    pub format: String,
    /// Human-readable format name ("HPCToolkit database").
    pub format_name: String,
    /// Layout or era ("v4.0 final", "hpcrun profile 04.00b" ...).
    pub layout: String,
    pub title: String,
    pub files: Vec<FileInfo>,
    pub total_bytes: f64,
    pub facts: Vec<(String, String)>,
    /// (what, how many): metrics, contexts, profiles, trace lines, tasks ...
    pub counts: Vec<(String, f64)>,
    pub warnings: Vec<ErrorInfo>,
    /// "opened": the full reader read it; "probed": only headers were read (no reader for this
    /// format yet); "failed": the reader or the probe found the input broken.
    pub status: String,
    /// Why the reader (or the header probe) failed.
    pub error: Option<ErrorInfo>,
}

/// What one `open` call produced.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct OpenReport {
    pub datasets: Vec<DatasetSummary>,
    /// Problems the page shows in its error banner (broken datasets, unrecognised lone files).
    pub errors: Vec<ErrorInfo>,
    /// Files inside dropped folders that belong to no dataset (logs, copies of binaries ...).
    pub ignored: Vec<String>,
}

/// One dataset of the session: its files, what the probe saw, and the reader's result.
pub struct Entry {
    pub id: u32,
    pub root: String,
    pub files: Vec<FileEntry>,
    pub probe: Probe,
    pub dataset: Option<Dataset>,
    pub error: Option<Error>,
}

impl Entry {
    /// The entry of group `g`, opened from `stream` when its files were fed to one.
    fn from_group(id: u32, g: &DatasetGroup, stream: Option<Streaming>) -> Entry {
        let files = g.file_entries();
        let probe = probe(g);
        let opened = match stream {
            Some(s) => s.finish(g).map(|(d, _)| d),
            None => formats::open(g),
        };
        let (dataset, error) = match opened {
            Ok(d) => (Some(d), None),
            Err(e) => (None, Some(e)),
        };
        Entry {
            id,
            root: g.root.clone(),
            files,
            probe,
            dataset,
            error,
        }
    }

    /// The problem to put in the error banner: the reader's, unless it only says "no reader for
    /// this format yet", then the probe's.
    pub fn banner_error(&self) -> Option<&Error> {
        match &self.error {
            Some(e) if e.kind != ErrorKind::Unsupported => Some(e),
            _ => self.probe.problem.as_ref(),
        }
    }

    pub fn summary(&self) -> DatasetSummary {
        let p = &self.probe;
        let d = self.dataset.as_ref();
        let pick = |from_ds: Option<&String>, from_probe: &String| match from_ds {
            Some(s) if !s.is_empty() => s.clone(),
            _ => from_probe.clone(),
        };
        let format = pick(d.map(|d| &d.format), &p.format);
        let layout = pick(d.map(|d| &d.layout), &p.layout);
        let title = pick(d.map(|d| &d.title), &p.title);
        let mut counts: Vec<(String, f64)> = Vec::new();
        if let Some(d) = d {
            counts.push(("metrics".into(), d.metrics.len() as f64));
            // Node 0 is the synthetic root, not a calling context of the program.
            counts.push(("contexts".into(), d.cct.tree.len().saturating_sub(1) as f64));
            // Threads and streams measured; the summary profile is derived from them.
            let measured = d.profiles.iter().filter(|p| !p.summary).count();
            counts.push(("profiles".into(), measured as f64));
            if let Some(t) = &d.trace {
                counts.push(("trace lines".into(), t.lines.len() as f64));
            }
        }
        for (k, n) in &p.counts {
            if !counts.iter().any(|(ck, _)| ck == k) {
                counts.push((k.clone(), *n as f64));
            }
        }
        // Facts the header or the count cards already show are left out.
        let mut facts: Vec<(String, String)> = Vec::new();
        let facts_in = d.map(|d| d.facts.as_slice()).unwrap_or_default();
        for (k, v) in facts_in.iter().chain(&p.facts) {
            let shown = matches!(k.as_str(), "title" | "layout" | "format")
                || counts.iter().any(|(ck, _)| ck == k)
                || facts.iter().any(|(fk, _)| fk == k);
            if !shown {
                facts.push((k.clone(), v.clone()));
            }
        }
        let mut warnings: Vec<ErrorInfo> = d
            .map(|d| d.warnings.iter().map(ErrorInfo::from).collect())
            .unwrap_or_default();
        // A reader that is missing is not a fault of the input: say it as a note.
        if let Some(e) = &self.error {
            if e.kind == ErrorKind::Unsupported && self.probe.problem.is_none() {
                let mut note = ErrorInfo::from(e);
                note.message = format!(
                    "Only the file headers were read ({}); views that need the full data are not available for it yet.",
                    e.what
                );
                warnings.push(note);
            }
        }
        let banner = self.banner_error();
        let status = if d.is_some() {
            "opened"
        } else if banner.is_some() {
            "failed"
        } else {
            "probed"
        };
        let files: Vec<FileInfo> = self
            .files
            .iter()
            .map(|f| FileInfo {
                path: f.path.clone(),
                size: f.size as f64,
            })
            .collect();
        DatasetSummary {
            id: self.id,
            root: self.root.clone(),
            format_name: formats::display_name(&format).to_string(),
            format,
            layout,
            title,
            total_bytes: files.iter().map(|f| f.size).sum(),
            files,
            facts,
            counts,
            warnings,
            status: status.into(),
            error: banner.map(ErrorInfo::from),
        }
    }
}

/// The datasets opened in one page session.
#[derive(Default)]
pub struct Workspace {
    next_id: u32,
    entries: Vec<Entry>,
    /// uftrace recordings whose task files are being fed to their open (see
    /// `Session::stream_begin`), by group root and number of files: the next `open_files` opens
    /// them from it.
    pub streams: Vec<(String, usize, Streaming)>,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace::default()
    }

    fn take_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    /// Groups `files` into datasets, probes and opens each. A broken dataset is kept (its summary
    /// shows what the probe saw) and its problem is reported; nothing already open is touched.
    pub fn open_files(&mut self, files: Vec<InputFile>) -> OpenReport {
        let (groups, loose) = formats::group(files);
        let mut report = OpenReport::default();
        let mut streams = std::mem::take(&mut self.streams);
        for g in &groups {
            let id = self.take_id();
            let stream = streams
                .iter()
                .position(|(root, n, s)| *root == g.root && *n == g.files.len() && s.done())
                .map(|i| streams.swap_remove(i).2);
            let entry = Entry::from_group(id, g, stream);
            if let Some(e) = entry.banner_error() {
                report.errors.push(ErrorInfo::from(e));
            }
            report.datasets.push(entry.summary());
            self.entries.push(entry);
        }
        for path in loose {
            // A lone file we cannot read is an error; odd files inside a dataset's folder are not.
            if groups.is_empty() || !path.contains('/') {
                report.errors.push(ErrorInfo::from(&Error::unrecognized(
                    &path,
                    "not a file of a format hpcscope reads (no known magic bytes or name)",
                )));
            } else {
                report.ignored.push(path);
            }
        }
        report
    }

    /// Probes and opens `files` as `open_files` would, keeping nothing: for a planned open,
    /// whose reads name the bytes they want instead of waiting for them (see
    /// `Session::open_prefetch`).
    pub fn rehearse_open(&self, files: Vec<InputFile>) {
        let (groups, _) = formats::group(files);
        for g in &groups {
            let _ = probe(g);
            let _ = formats::open(g);
        }
    }

    /// Adds a dataset built in memory (the built-in example, tests).
    pub fn add_dataset(&mut self, root: &str, dataset: Dataset) -> DatasetSummary {
        let id = self.take_id();
        let entry = Entry {
            id,
            root: root.to_string(),
            files: dataset.files.clone(),
            probe: Probe {
                format: dataset.format.clone(),
                layout: dataset.layout.clone(),
                title: dataset.title.clone(),
                facts: Vec::new(),
                counts: Vec::new(),
                problem: None,
            },
            dataset: Some(dataset),
            error: None,
        };
        let s = entry.summary();
        self.entries.push(entry);
        s
    }

    /// Opens the built-in example: a small database written by the project's own HPCToolkit
    /// writer, read like any dropped database (see [`crate::synth::example`]).
    pub fn open_example(&mut self) -> OpenReport {
        self.open_files(crate::synth::example::example_files())
    }

    pub fn summaries(&self) -> Vec<DatasetSummary> {
        self.entries.iter().map(Entry::summary).collect()
    }

    pub fn entry(&self, id: u32) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// The opened dataset `id` (None when unknown or when its reader failed).
    pub fn dataset(&self, id: u32) -> Option<&Dataset> {
        self.entry(id).and_then(|e| e.dataset.as_ref())
    }

    /// Dataset `id`, or the request error the page is given when there is none.
    pub fn opened(&self, id: u32) -> super::Result<&Dataset> {
        self.dataset(id)
            .ok_or_else(|| super::request(format!("no opened dataset {id}")))
    }

    /// Forgets dataset `id`; false when there was none.
    pub fn remove(&mut self, id: u32) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.id != id);
        self.entries.len() != before
    }
}

#[cfg(test)]
mod tests;
