//! The summary probe of an hpcrun measurement folder: the version and byte order of the first
//! profile's and trace's magic, and the program named in the profile's name-value pairs (seed 002).

use super::{HPCSTRUCT, PROFILE, TRACE};
use crate::bytes::{Endian, Source};
use crate::error::Result;
use crate::formats::probe::{Probe, MAX_NAME};
use crate::formats::{DatasetGroup, InputFile};

/// Version and byte order from the 24-byte magic line (`HPCRUN-profile____` `04.00` `b`).
fn hpcrun_magic(src: &Source, prefix: &str) -> Result<(String, Endian)> {
    let magic = src.bytes(0, 24, "magic and version")?;
    let text = String::from_utf8_lossy(&magic).into_owned();
    let version = text
        .strip_prefix(prefix)
        .map(|v| v.trim_start_matches('_').to_string())
        .ok_or_else(|| src.err(crate::ErrorKind::BadMagic, 0, "hpcrun magic"))?;
    let endian = match version.as_bytes().last() {
        Some(b'b') => Endian::Big,
        Some(b'l') => Endian::Little,
        _ => {
            return Err(src.err(
                crate::ErrorKind::Unsupported,
                18,
                format!("hpcrun version '{version}' without byte order letter"),
            ))
        }
    };
    Ok((version, endian))
}

/// The header's name-value pairs: `u32 count`, then `u32 len` + chars for each name and value.
fn hpcrun_nv_pairs(src: &Source, endian: Endian) -> Result<Vec<(String, String)>> {
    let mut at = 24u64;
    let n = src.u32_at(at, endian, "nv-pair count")?;
    at += 4;
    if n > 64 {
        return Err(src.err(
            crate::ErrorKind::TooLarge,
            24,
            format!("{n} header name-value pairs"),
        ));
    }
    let mut out = Vec::new();
    let string = |at: &mut u64, what: &str| -> Result<String> {
        let len = src.u32_at(*at, endian, what)?;
        if u64::from(len) > MAX_NAME {
            return Err(src.err(
                crate::ErrorKind::TooLarge,
                *at,
                format!("{what} length {len}"),
            ));
        }
        let b = src.bytes(*at + 4, len.into(), what)?;
        *at += 4 + u64::from(len);
        Ok(String::from_utf8_lossy(&b).into_owned())
    };
    for _ in 0..n {
        let k = string(&mut at, "nv-pair name")?;
        let v = string(&mut at, "nv-pair value")?;
        out.push((k, v));
    }
    Ok(out)
}

pub(super) fn probe(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let profiles: Vec<&InputFile> = g.files_of(PROFILE).collect();
    let traces: Vec<&InputFile> = g.files_of(TRACE).collect();
    let structs = g.files_of(HPCSTRUCT).count();
    p.count("profiles", profiles.len() as u64);
    p.count("trace lines", traces.len() as u64);
    if structs > 0 {
        p.count("structure files", structs as u64);
    }
    if let Some(first) = profiles.first() {
        let (version, endian) = hpcrun_magic(&first.source, "HPCRUN-profile")?;
        p.layout = format!("hpcrun profile {version}");
        let pairs = hpcrun_nv_pairs(&first.source, endian)?;
        // Named as the hpcrun reader names them, so the summary shows each once.
        for (k, v) in pairs {
            match k.as_str() {
                "program-name" => {
                    p.title = v.clone();
                    p.fact("program", v);
                }
                "program-path" => p.fact("program path", v),
                "mpi-rank" => p.fact("MPI rank", v),
                _ => {}
            }
        }
    }
    if let Some(first) = traces.first() {
        let (version, _) = hpcrun_magic(&first.source, "HPCRUN-trace")?;
        if profiles.is_empty() {
            p.layout = format!("hpcrun trace {version}");
        }
        p.fact("trace version", version);
    }
    Ok(())
}
