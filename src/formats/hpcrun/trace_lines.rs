//! The trace lines of a measurement folder: each `.hpctrace` belongs to the profile with the same
//! file stem; its context ids are mapped to merged nodes (the call context for call traces), and
//! its records are sorted in memory when the profile says hpcrun wrote them out of order.

use super::merge::MergedProfile;
use super::profile::RunProfile;
use super::trace::{RunTrace, RunTraceRecord};
use super::TRACE;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::formats::{DatasetGroup, InputFile};
use crate::model::{TraceInfo, TraceLineInfo};

/// One trace line: its file, its context ids mapped to nodes, and its records when they had to
/// be sorted in memory.
pub(super) struct TraceLine {
    trace: RunTrace,
    /// File context id -> model node, sorted by id.
    pub(super) ctx_map: Vec<(u32, u32)>,
    /// The records sorted by time, when the profile says hpcrun wrote them out of order
    /// (`trace-disorder` > 0); otherwise records are read from the file on demand.
    sorted: Option<Vec<RunTraceRecord>>,
}

impl TraceLine {
    pub(super) fn records(&self, start: u64, count: u64) -> Result<Vec<RunTraceRecord>> {
        match &self.sorted {
            Some(v) => {
                let a = (start.min(v.len() as u64)) as usize;
                let b = (start.saturating_add(count).min(v.len() as u64)) as usize;
                Ok(v[a..b].to_vec())
            }
            None => self.trace.records(start, count),
        }
    }
    pub(super) fn find(&self, time: u64) -> Result<Option<u64>> {
        match &self.sorted {
            Some(v) => Ok((v.partition_point(|r| r.time_ns <= time) as u64).checked_sub(1)),
            None => self.trace.find(time),
        }
    }
}

/// Opens every trace of `group` as the line of its profile (`profiles[i]`, merged as
/// `merged[i]`); `to_final` maps builder nodes to nodes of the finished tree. A trace without a
/// profile, or whose header cannot be read, is a warning.
pub(super) fn open_traces(
    group: &DatasetGroup,
    profiles: &[(String, RunProfile)],
    merged: &[MergedProfile],
    to_final: impl Fn(u32) -> u32,
    warnings: &mut Vec<Warning>,
) -> (Vec<TraceLine>, Option<TraceInfo>) {
    let mut lines = Vec::new();
    let mut trace_lines = Vec::new();
    let (mut min_t, mut max_t) = (u64::MAX, 0u64);
    for f in group.files_of(TRACE) {
        let Some(pi) = profiles.iter().position(|(p, _)| stem(p) == stem(&f.path)) else {
            warnings.push(Error::mismatch(
                &f.path,
                "trace without a matching .hpcrun profile",
            ));
            continue;
        };
        let Some((line, ends)) = open_line(f, &profiles[pi].1, &merged[pi], &to_final, warnings)
        else {
            continue;
        };
        lines.push(TraceLineInfo {
            prof_index: pi as u32,
            samples: line.trace.count,
        });
        if let Some((a, b)) = ends {
            min_t = min_t.min(a.min(b));
            max_t = max_t.max(a.max(b));
        }
        trace_lines.push(line);
    }
    let info = (!lines.is_empty()).then(|| TraceInfo {
        min_time: (min_t <= max_t).then_some(min_t),
        max_time: (min_t <= max_t).then_some(max_t),
        lines,
    });
    (trace_lines, info)
}

/// One trace line and the times of its first and last records (in time order).
fn open_line(
    f: &InputFile,
    profile: &RunProfile,
    merged: &MergedProfile,
    to_final: &impl Fn(u32) -> u32,
    warnings: &mut Vec<Warning>,
) -> Option<(TraceLine, Option<(u64, u64)>)> {
    let t = match RunTrace::open(&f.source) {
        Ok(t) => t,
        Err(e) => {
            warnings.push(e);
            return None;
        }
    };
    if t.trailing_bytes() != 0 {
        warnings.push(Error::at(
            ErrorKind::Truncated,
            &f.path,
            t.source.len() - t.trailing_bytes(),
            "trace ends inside a record (ignored)",
        ));
    }
    let mut ctx_map: Vec<(u32, u32)> = merged
        .ctx
        .iter()
        // Call traces record the call (procedure) context of each sample, others the full one.
        .map(|(&c, &(full, rel))| (c, to_final(if t.is_call_trace() { rel } else { full })))
        .collect();
    crate::sort::sort_by(&mut ctx_map, |a, b| a.cmp(b));
    let disorder = profile
        .nv("trace-disorder")
        .and_then(|d| d.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let sorted = if disorder > 0 {
        match t.records(0, t.count) {
            Ok(mut v) => {
                v.sort_by_key(|r| r.time_ns);
                Some(v)
            }
            Err(e) => {
                warnings.push(e);
                None
            }
        }
    } else {
        None
    };
    let ends = match &sorted {
        Some(v) => v.first().zip(v.last()).map(|(a, b)| (a.time_ns, b.time_ns)),
        None if t.count > 0 => t.time_at(0).ok().zip(t.time_at(t.count - 1).ok()),
        None => None,
    };
    let line = TraceLine {
        trace: t,
        ctx_map,
        sorted,
    };
    Some((line, ends))
}

/// A file's name without folder and extension: a trace and its profile share it.
fn stem(path: &str) -> &str {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.rsplit_once('.').map(|(s, _)| s).unwrap_or(base)
}
