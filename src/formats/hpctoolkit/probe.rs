//! The summary probe of a v4.0 database: version, title, identifier kinds, layout (from the strides
//! the headers state), counts and the trace time range, from the headers of meta.db, profile.db,
//! cct.db and trace.db (FORMATS.md "Common file structure").

use super::{CCT_DB, META_DB, PROFILE_DB, TRACE_DB};
use crate::bytes::Source;
use crate::error::Result;
use crate::formats::probe::{Probe, MAX_NAME};
use crate::formats::DatasetGroup;

/// Which v4.0 layout a database uses, from the strides its headers state (FORMATS-NOTES.md:
/// the version bytes are 4.0 in all three).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HpcLayout {
    Final,
    DraftApril2022,
    DraftMay2022,
}

impl HpcLayout {
    pub fn as_str(self) -> &'static str {
        match self {
            HpcLayout::Final => "v4.0 final",
            HpcLayout::DraftApril2022 => "v4.0 draft (April 2022)",
            HpcLayout::DraftMay2022 => "v4.0 draft (May 2022)",
        }
    }
}

/// Strides of the final layout that the drafts lack: meta.db `szMetric` 32 (draft 24), profile.db
/// `szProfile` 48 in every real final file (the drafts write 40).
const FINAL_SZ_METRIC: u8 = 32;
const FINAL_SZ_PROFILE: u8 = 48;

/// The layout from meta.db's `szMetric` and profile.db's `szProfile` (either may be absent).
pub fn hpc_layout(sz_metric: Option<u8>, sz_profile: Option<u8>) -> HpcLayout {
    match (sz_metric, sz_profile) {
        (Some(m), _) if m < FINAL_SZ_METRIC => HpcLayout::DraftApril2022,
        (Some(_), Some(p)) if p < FINAL_SZ_PROFILE => HpcLayout::DraftMay2022,
        // Without meta.db a 40-byte profile stride still says "draft"; April and May share it.
        (None, Some(p)) if p < FINAL_SZ_PROFILE => HpcLayout::DraftApril2022,
        _ => HpcLayout::Final,
    }
}

/// Pointer to the section at header slot `slot` (0x10 + 0x10 * slot holds its size, +8 its
/// pointer), checked to start inside the file.
fn section(src: &Source, slot: u64, what: &str) -> Result<u64> {
    let at = 0x18 + 0x10 * slot;
    let ptr = src.u64_le_at(at, what)?;
    if ptr >= src.len() {
        return Err(src.err(
            crate::ErrorKind::Invalid,
            at,
            format!("{what} pointer {ptr:#x} beyond the end of the file"),
        ));
    }
    Ok(ptr)
}

fn hpc_version(src: &Source) -> Result<(u8, u8)> {
    Ok((
        src.u8_at(0x0e, "major version")?,
        src.u8_at(0x0f, "minor version")?,
    ))
}

pub(super) fn probe(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let meta = g.file(META_DB).map(|f| &f.source);
    let prof = g.file(PROFILE_DB).map(|f| &f.source);
    let mut sz_metric = None;
    let mut sz_profile = None;
    if let Some(meta) = meta {
        let (major, minor) = hpc_version(meta)?;
        p.fact("version", format!("{major}.{minor}"));
        let general = section(meta, 0, "General Properties section")?;
        let title_ptr = meta.u64_le_at(general, "pTitle")?;
        p.title = meta.cstr_at(title_ptr, MAX_NAME, "database title")?;
        let names = section(meta, 1, "Identifier Names section")?;
        let pp_names = meta.u64_le_at(names, "ppNames")?;
        let n_kinds = meta.u8_at(names + 8, "nKinds")?;
        let mut kinds = Vec::new();
        for i in 0..u64::from(n_kinds) {
            let ptr = meta.u64_le_at(pp_names + 8 * i, "identifier name pointer")?;
            kinds.push(meta.cstr_at(ptr, MAX_NAME, "identifier name")?);
        }
        if !kinds.is_empty() {
            p.fact("identifier kinds", kinds.join(", "));
        }
        let metrics = section(meta, 2, "Performance Metrics section")?;
        let n_metrics = meta.u32_le_at(metrics + 8, "nMetrics")?;
        sz_metric = Some(meta.u8_at(metrics + 0x0c, "szMetric")?);
        p.count("metrics", n_metrics.into());
    }
    if let Some(prof) = prof {
        if meta.is_none() {
            let (major, minor) = hpc_version(prof)?;
            p.fact("version", format!("{major}.{minor}"));
        }
        let infos = section(prof, 0, "Profile Info section")?;
        let n = prof.u32_le_at(infos + 8, "nProfiles")?;
        sz_profile = Some(prof.u8_at(infos + 0x0c, "szProfile")?);
        // Profile 0 is the summary profile (statistics over the others), not a measured thread.
        p.count("profiles", u64::from(n).saturating_sub(1));
    }
    let layout = hpc_layout(sz_metric, sz_profile);
    // The reader's own layout detection is the reference when the files are whole; ours, from the
    // same strides, still names the era of files the reader rejects (truncated, bad footer).
    p.layout = match crate::formats::hpctoolkit::detect_layout(g) {
        Ok(name) => name.to_string(),
        Err(_) => layout.as_str().into(),
    };
    if let Some(s) = sz_metric {
        p.fact("meta.db szMetric", s.to_string());
    }
    if let Some(s) = sz_profile {
        p.fact("profile.db szProfile", s.to_string());
    }
    if let Some(cct) = g.file(CCT_DB) {
        let cct = &cct.source;
        let infos = section(cct, 0, "Context Info section")?;
        // Entry 0 is the implicit global context, not a node of the tree.
        let n = cct.u32_le_at(infos + 8, "nCtxs")?;
        p.count("contexts", u64::from(n).saturating_sub(1));
    }
    if let Some(trace) = g.file(TRACE_DB) {
        let trace = &trace.source;
        let headers = section(trace, 0, "Context Trace Headers section")?;
        let n = trace.u32_le_at(headers + 8, "nTraces")?;
        p.count("trace lines", n.into());
        if layout == HpcLayout::Final {
            let min = trace.u64_le_at(headers + 0x10, "minTimestamp")?;
            let max = trace.u64_le_at(headers + 0x18, "maxTimestamp")?;
            // An empty trace stores the sentinels (i64::MAX, i64::MIN): no time range.
            if min <= max && max != 0x8000_0000_0000_0000 {
                p.fact("time range", format_ns(max - min));
            }
        }
    }
    Ok(())
}

/// A duration in nanoseconds, for display.
pub fn format_ns(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if ns >= 1_000_000 {
        format!("{:.3} ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        format!("{:.3} µs", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}
