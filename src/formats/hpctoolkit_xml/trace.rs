//! Trace lines of an XML-era database: hpcrun's `.hpctrace` files beside experiment.xml, or the same
//! files merged into `experiment.mt` by hpcviewer ([`super::mdb`]). Each is read with hpcrun's trace
//! reader; its (time, call-path id) records name the `it` attribute of a tree scope.

use super::mdb::Merged;
use super::metric_db::rank_thread;
use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::formats::hpcrun::trace::RunTrace;

/// One trace line: its records and the thread it belongs to.
pub struct XmlTraceLine {
    pub trace: RunTrace,
    pub rank: u32,
    pub thread: u32,
}

impl XmlTraceLine {
    /// Time of the first and the last record, `None` for an empty line.
    pub fn ends(&self) -> Result<Option<(u64, u64)>> {
        if self.trace.count == 0 {
            return Ok(None);
        }
        Ok(Some((
            self.trace.time_at(0)?,
            self.trace.time_at(self.trace.count - 1)?,
        )))
    }
}

/// Opens one trace; a trace whose header cannot be read is a warning and no line.
fn open_one(
    source: &Source,
    rank: u32,
    thread: u32,
    warnings: &mut Vec<Warning>,
) -> Option<XmlTraceLine> {
    match RunTrace::open(source) {
        Ok(trace) => {
            if trace.trailing_bytes() > 0 {
                warnings.push(Error::truncated(
                    source.name(),
                    source.len(),
                    format!(
                        "{} bytes after the last whole trace record ignored",
                        trace.trailing_bytes()
                    ),
                ));
            }
            Some(XmlTraceLine {
                trace,
                rank,
                thread,
            })
        }
        Err(e) => {
            warnings.push(e.context("trace line left out"));
            None
        }
    }
}

/// The lines of the `.hpctrace` files (rank and thread from each file name).
pub fn from_files<'a>(
    files: impl Iterator<Item = &'a Source>,
    warnings: &mut Vec<Warning>,
) -> Vec<XmlTraceLine> {
    let mut lines = Vec::new();
    for (i, src) in files.enumerate() {
        // A name without rank and thread still makes a line: numbered in file order.
        let (rank, thread) = rank_thread(src.name()).unwrap_or_else(|| {
            warnings.push(Error::invalid(
                src.name(),
                0,
                "trace file name without rank and thread: numbered in file order",
            ));
            (0, i as u32)
        });
        lines.extend(open_one(src, rank, thread, warnings));
    }
    lines
}

/// The lines merged into experiment.mt.
pub fn from_mt(source: &Source, warnings: &mut Vec<Warning>) -> Result<Vec<XmlTraceLine>> {
    let merged = Merged::open(source, warnings)?;
    let mut lines = Vec::with_capacity(merged.entries.len());
    for (i, e) in merged.entries.iter().enumerate() {
        let part = merged.part(i)?;
        lines.extend(open_one(&part, e.process, e.thread, warnings));
    }
    Ok(lines)
}
