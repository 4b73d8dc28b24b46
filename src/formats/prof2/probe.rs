//! The summary probe of a prof2 database: the version bytes after each `HPCPROF-*` magic, the byte
//! order from a footer, and the title and version of experiment.xml (seed 000).

use super::{CCT_DB, META_DB, PROFILE_DB, TRACE_DB};
use crate::bytes::Source;
use crate::error::Result;
use crate::formats::probe::{text_head, Probe};
use crate::formats::xml::first_attr;
use crate::formats::{DatasetGroup, EXPERIMENT_XML};

pub(super) fn probe(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let mut big_endian = None;
    let mut version = None;
    for (kind, name) in [
        (META_DB, "meta.db"),
        (PROFILE_DB, "profile.db"),
        (CCT_DB, "cct.db"),
        (TRACE_DB, "trace.db"),
    ] {
        let Some(f) = g.file(kind) else { continue };
        let src = &f.source;
        let major = src.u8_at(0x10, "major version")?;
        let minor = src.u8_at(0x11, "minor version")?;
        p.fact(&format!("{name} version"), format!("{major}.{minor}"));
        // The profile.db's version names the era, as the prof2 reader does; else the first file's.
        if version.is_none() || kind == PROFILE_DB {
            version = Some(format!("{major}.{minor}"));
        }
        if big_endian.is_none() {
            big_endian = footer_endian(src);
        }
    }
    if let Some(xml) = g.file(EXPERIMENT_XML) {
        let head = text_head(xml)?;
        if let Some(v) = first_attr(head.as_bytes(), "HPCToolkitExperiment", "version") {
            p.fact("experiment.xml version", v);
        }
        if let Some(t) = first_attr(head.as_bytes(), "Header", "n") {
            p.title = t;
        }
    }
    // Real prof2 files are big-endian (footers `tfBDFORP`, `rtfBDTCC`); the seed also allows
    // little-endian ones.
    let version = version.map(|v| format!(" {v}")).unwrap_or_default();
    p.layout = match big_endian {
        Some(false) => format!("prof2 pre-release{version} (little-endian)"),
        _ => format!("prof2 pre-release{version} (big-endian)"),
    };
    Ok(())
}

/// Byte order from a prof2 footer: the little-endian writer spells it forwards.
fn footer_endian(src: &Source) -> Option<bool> {
    let n = src.len();
    let footer: [u8; 8] = src.array(n.checked_sub(8)?, "footer").ok()?;
    match &footer {
        b"tfBDFORP" | b"rtfBDTCC" | b"nmBDFORP" | b"ecrtBDFR" => Some(true),
        b"PROFDBft" | b"CCTDBftr" | b"PROFDBmn" => Some(false),
        _ => None,
    }
}
