//! The summary probe of a v4.0 database: version, title, identifier kinds, layout (from the strides
//! the headers state), counts and the trace time range, read with the reader's own header functions
//! from meta.db, profile.db, cct.db and trace.db (FORMATS.md "Common file structure").

use super::layout::{self, section, Layout};
use super::{cct, meta, profile, trace};
use super::{CCT_DB, META_DB, PROFILE_DB, TRACE_DB};
use crate::bytes::Source;
use crate::error::Result;
use crate::formats::probe::{Probe, MAX_NAME};
use crate::formats::DatasetGroup;

/// Version, title, identifier kinds and metrics of meta.db; returns `szMetric`.
fn probe_meta(meta: &Source, p: &mut Probe) -> Result<u8> {
    let (major, minor) = layout::version(meta)?;
    p.fact("version", format!("{major}.{minor}"));
    let (_, general) = section(meta, meta::GENERAL)?;
    p.title = meta::read_title(meta, general, MAX_NAME)?;
    let (_, names) = section(meta, meta::ID_NAMES)?;
    let kinds = meta::read_id_names(meta, names, MAX_NAME)?;
    if !kinds.is_empty() {
        p.fact("identifier kinds", kinds.join(", "));
    }
    let (_, metrics) = section(meta, meta::METRICS)?;
    let n_metrics = meta::n_metrics(meta, metrics)?;
    let sz_metric = meta::sz_metric(meta, metrics)?;
    p.count("metrics", n_metrics.into());
    Ok(sz_metric)
}

pub(super) fn probe(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let meta = g.file(META_DB).map(|f| &f.source);
    let prof = g.file(PROFILE_DB).map(|f| &f.source);
    let sz_metric = meta.map(|m| probe_meta(m, p)).transpose()?;
    let mut sz_profile = None;
    if let Some(prof) = prof {
        if meta.is_none() {
            let (major, minor) = layout::version(prof)?;
            p.fact("version", format!("{major}.{minor}"));
        }
        let infos = profile::read_infos_header(prof)?;
        sz_profile = Some(infos.stride);
        // Profile 0 is the summary profile (statistics over the others), not a measured thread.
        p.count("profiles", u64::from(infos.count).saturating_sub(1));
    }
    // The reader's rule over the same strides (for whole files it is the layout the reader opens
    // with); it still names the era of a lone file or of files the reader refuses.
    let layout = layout::from_strides(sz_metric, sz_profile);
    p.layout = layout.name().into();
    if let Some(s) = sz_metric {
        p.fact("meta.db szMetric", s.to_string());
    }
    if let Some(s) = sz_profile {
        p.fact("profile.db szProfile", s.to_string());
    }
    if let Some(cct) = g.file(CCT_DB) {
        // Entry 0 is the implicit global context, not a node of the tree.
        let n = cct::read_ctx_infos_header(&cct.source)?.count;
        p.count("contexts", u64::from(n).saturating_sub(1));
    }
    if let Some(t) = g.file(TRACE_DB) {
        let h = trace::read_traces_header(&t.source)?;
        p.count("trace lines", h.lines.count.into());
        let (min, max) = (h.min_timestamp, h.max_timestamp);
        // An empty trace stores the sentinels (i64::MAX, i64::MIN): no time range.
        if layout == Layout::Final && min <= max && max != trace::EMPTY_MAX {
            p.fact("time range", format_ns(max - min));
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
