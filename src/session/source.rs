//! Source files of a session's datasets for the source view: those under a dropped (or URL-listed)
//! database's `src/` folder (hpcprof's copies: `src/a/b.c`, or `/a/b.c` as `src/a/b.c`) and files
//! added for a recorded path; read bounded ([`MAX_SOURCE_BYTES`], lines cut at
//! [`MAX_LINE_CHARS`]), with the per-line values of `analysis::source`.

use super::{request, Result, Session};
use crate::analysis::profile::ProfileView;
use crate::analysis::source::{line_table, node_location, LineTable, LineValue};
use crate::analysis::values::Selection;
use crate::bytes::Source;
use crate::formats::InputFile;
use crate::model::Dataset;
use std::collections::HashMap;

/// Most bytes of a source file read and shown; the rest is left unread.
pub const MAX_SOURCE_BYTES: u64 = 4 << 20;
/// Longest line shown, in characters; longer lines are cut and end with '…'.
pub const MAX_LINE_CHARS: usize = 2000;

/// What the session holds for one dataset's sources.
#[derive(Default)]
pub struct DatasetSources {
    /// Files of the drop under the dataset's `src/`, with their full dropped paths.
    dropped: Vec<InputFile>,
    /// Files added for a recorded path (the user's file input, a fetch from the dataset's URL).
    added: HashMap<String, (Source, u64)>,
    /// Per-line values of the last metric and profile selection asked for.
    table: Option<(usize, Selection, LineTable)>,
}

/// A source location of a context or of the hottest statement.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SourceLocation {
    /// The path the dataset records for the file.
    pub path: String,
    pub line: u32,
    /// Whether the session holds the file's text.
    pub available: bool,
}

/// A source file as the source view shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SourceText {
    /// The recorded path asked for.
    pub path: String,
    pub line: u32,
    /// "shown", "missing" (no such file in the session), "binary" (not text) or "unreadable".
    pub status: String,
    /// Why an unreadable file could not be read.
    pub message: Option<String>,
    /// Path of the file the text was read from (a dropped file's path, or the recorded path of
    /// an added one).
    pub read_from: Option<String>,
    /// Paths relative to the dataset's folder where the file would be (for fetching by URL).
    pub candidates: Vec<String>,
    /// Size of the whole file and how much of it is shown.
    pub size: f64,
    pub shown_bytes: f64,
    pub truncated: bool,
    #[serde(flatten)]
    pub shown: ShownText,
    #[serde(flatten)]
    pub values: FileValues,
}

/// The text of a file as the view shows it (empty until a file's bytes decode as text).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ShownText {
    /// Lines cut at `max_line_chars`.
    pub cut_lines: u32,
    pub max_line_chars: u32,
    /// The shown text ('\n'-separated lines, no '\r').
    pub text: String,
    pub line_count: u32,
}

/// A metric's values over one source file.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FileValues {
    pub metric: String,
    pub unit: String,
    /// Inclusive value of the root, for percentages.
    pub root_inclusive: f64,
    /// Per-line values of this file for the metric (lines with a scope of the profile).
    pub lines: Vec<LineValue>,
}

/// Whether `path` is under a `src/` folder of a dataset (where hpcprof copies sources).
pub(super) fn is_source_path(path: &str) -> bool {
    path.starts_with("src/") || path.contains("/src/")
}

/// Paths relative to the dataset's folder where hpcprof puts a copy of `recorded`. Names in
/// brackets (`[inline]`, `<unknown>`) are not files; paths climbing out with ".." are refused.
pub fn candidates(recorded: &str) -> Vec<String> {
    let p = recorded.trim_start_matches("./");
    if p.is_empty()
        || p.starts_with('[')
        || p.starts_with('<')
        || p.split('/').any(|s| s == "..")
        || p.contains('\\')
    {
        return Vec::new();
    }
    if p.starts_with("src/") {
        vec![p.to_string()]
    } else if p.starts_with('/') {
        vec![format!("src{p}")]
    } else {
        vec![format!("src/{p}")]
    }
}

impl DatasetSources {
    /// The file held for recorded path `recorded`: the path it was read from, its bytes and
    /// the size of the whole file.
    fn find(&self, root: &str, recorded: &str) -> Option<(String, &Source, u64)> {
        if let Some((s, size)) = self.added.get(recorded) {
            return Some((recorded.to_string(), s, *size));
        }
        for c in candidates(recorded) {
            let full = if root.is_empty() {
                c
            } else {
                format!("{root}/{c}")
            };
            if let Some(f) = self.dropped.iter().find(|f| f.path == full) {
                return Some((f.path.clone(), &f.source, f.source.len()));
            }
        }
        None
    }
}

impl ShownText {
    /// No text: the file is missing, binary or unreadable.
    fn none() -> ShownText {
        ShownText {
            cut_lines: 0,
            max_line_chars: MAX_LINE_CHARS as u32,
            text: String::new(),
            line_count: 0,
        }
    }
}

/// The text of `bytes` (the first `shown` of `size` bytes of a file) as the view shows it:
/// `None` for binary content (NUL bytes, or mostly control bytes in what is not UTF-8).
pub fn decode_text(bytes: &[u8]) -> Option<ShownText> {
    let head = &bytes[..bytes.len().min(64 << 10)];
    if head.contains(&0) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    if std::str::from_utf8(head).is_err() {
        let control = head
            .iter()
            .filter(|&&b| b < 0x09 || (0x0e..0x20).contains(&b) || b == 0x7f)
            .count();
        if control * 10 > head.len() {
            return None;
        }
    }
    let mut out = String::with_capacity(text.len());
    let (mut lines, mut cut) = (0u32, 0u32);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        lines += 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((at, _)) => {
                out.push_str(&line[..at]);
                out.push('…');
                cut += 1;
            }
            None => out.push_str(line),
        }
    }
    Some(ShownText {
        cut_lines: cut,
        text: out,
        line_count: lines,
        ..ShownText::none()
    })
}

/// Index of the dataset's file recorded as `path`, or else ending in "/`path`" (a short name).
fn file_index(ds: &Dataset, path: &str) -> Option<u32> {
    let files = &ds.source_files;
    files
        .iter()
        .position(|f| f.path == path)
        .or_else(|| {
            let tail = format!("/{}", path.trim_start_matches('/'));
            files.iter().position(|f| f.path.ends_with(&tail))
        })
        .map(|i| i as u32)
}

impl<H> Session<H> {
    /// Keeps the files of `files` under a `src/` folder of the datasets just opened.
    pub(super) fn keep_sources(&mut self, files: Vec<InputFile>, report: &super::OpenReport) {
        for d in &report.datasets {
            let prefix = if d.root.is_empty() {
                String::new()
            } else {
                format!("{}/", d.root)
            };
            let mine: Vec<InputFile> = files
                .iter()
                .filter(|f| {
                    f.path
                        .strip_prefix(&prefix)
                        .is_some_and(|rest| rest.starts_with("src/"))
                })
                .cloned()
                .collect();
            if !mine.is_empty() {
                self.sources.entry(d.id).or_default().dropped = mine;
            }
        }
    }

    fn root_of(&self, id: u32) -> String {
        self.ws
            .entry(id)
            .map(|e| e.root.clone())
            .unwrap_or_default()
    }

    fn location(&self, id: u32, ds: &Dataset, file: u32, line: u32) -> Option<SourceLocation> {
        let path = ds.source_files.get(file as usize)?.path.clone();
        let root = self.root_of(id);
        let available = self
            .sources
            .get(&id)
            .is_some_and(|s| s.find(&root, &path).is_some());
        Some(SourceLocation {
            path,
            line,
            available,
        })
    }

    /// Where context `node` of dataset `id` points in the sources (None: nowhere).
    pub fn source_location(&self, id: u32, node: u32) -> Result<Option<SourceLocation>> {
        let ds = self.ws.opened(id)?;
        Ok(node_location(ds, node).and_then(|(f, l)| self.location(id, ds, f, l)))
    }

    /// Per-line values of dataset `id` for `metric` and the profile views' selection, computed
    /// once per metric and selection.
    fn lines_table(&mut self, id: u32, metric: usize) -> Result<&LineTable> {
        let ds = self.ws.opened(id)?;
        let pv = self
            .profiles
            .entry(id)
            .or_insert_with(|| ProfileView::new(ds));
        let src = self.sources.entry(id).or_default();
        let fresh = matches!(&src.table, Some((m, s, _)) if *m == metric && s == pv.selection());
        if !fresh {
            let sel = pv.selection().clone();
            let cols = pv.columns(ds, metric)?;
            let t = line_table(ds, &cols.inclusive, &cols.exclusive);
            src.table = Some((metric, sel, t));
        }
        Ok(&src.table.as_ref().expect("filled above").2)
    }

    /// The statement with the largest exclusive value of `metric` in dataset `id`.
    pub fn source_hottest(&mut self, id: u32, metric: usize) -> Result<Option<SourceLocation>> {
        let hot = self.lines_table(id, metric)?.hottest_statement();
        let ds = self.ws.dataset(id).expect("checked by lines_table");
        Ok(hot.and_then(|(f, l)| self.location(id, ds, f, l)))
    }

    /// The values of `metric` over the dataset's file `file` (no lines when it records none).
    fn file_values(&mut self, id: u32, file: Option<u32>, metric: usize) -> Result<FileValues> {
        let table = self.lines_table(id, metric)?;
        let lines = file.map(|f| table.file(f).to_vec()).unwrap_or_default();
        let ds = self.ws.dataset(id).expect("checked by lines_table");
        let m = ds
            .metrics
            .get(metric)
            .ok_or_else(|| request(format!("no metric {metric}")))?;
        let root_inclusive = self
            .profiles
            .get_mut(&id)
            .map(|pv| pv.columns(ds, metric).map(|c| c.inclusive.first().copied()))
            .transpose()?
            .flatten()
            .unwrap_or(0.0);
        Ok(FileValues {
            metric: m.name.clone(),
            unit: m.unit.clone(),
            root_inclusive,
            lines,
        })
    }

    /// File `path` (a recorded path, or a file name the dataset records) of dataset `id` at
    /// `line`, with its per-line values of `metric`.
    pub fn source_text(
        &mut self,
        id: u32,
        path: &str,
        line: u32,
        metric: usize,
    ) -> Result<SourceText> {
        let ds = self.ws.opened(id)?;
        let file = file_index(ds, path);
        let recorded = file
            .and_then(|f| ds.source_files.get(f as usize))
            .map_or(path.to_string(), |f| f.path.clone());
        let values = self.file_values(id, file, metric)?;
        let mut out = SourceText {
            path: recorded.clone(),
            line,
            status: "missing".into(),
            message: None,
            read_from: None,
            candidates: candidates(&recorded),
            size: 0.0,
            shown_bytes: 0.0,
            truncated: false,
            shown: ShownText::none(),
            values,
        };
        let root = self.root_of(id);
        let Some((from, src, size)) = self.sources.get(&id).and_then(|s| s.find(&root, &recorded))
        else {
            return Ok(out);
        };
        out.read_from = Some(from);
        out.size = size as f64;
        let n = src.len().min(MAX_SOURCE_BYTES);
        out.truncated = n < size;
        out.shown_bytes = n as f64;
        match src.bytes(0, n, "source text") {
            Err(e) => {
                out.status = "unreadable".into();
                out.message = Some(e.to_string());
            }
            Ok(bytes) => match decode_text(&bytes) {
                None => out.status = "binary".into(),
                Some(shown) => {
                    out.status = "shown".into();
                    out.shown = shown;
                }
            },
        }
        Ok(out)
    }

    /// Adds `bytes` as the file recorded as `path` in dataset `id` (replacing one added before):
    /// the whole file, or its first bytes when `size` (the whole file's) is larger.
    pub fn source_add(&mut self, id: u32, path: String, bytes: Vec<u8>, size: u64) -> Result<()> {
        self.ws.opened(id)?;
        let size = size.max(bytes.len() as u64);
        let source = Source::from_vec(path.as_str(), bytes);
        self.sources
            .entry(id)
            .or_default()
            .added
            .insert(path, (source, size));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
