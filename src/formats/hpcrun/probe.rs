//! The summary probe of an hpcrun measurement folder: the magic line (version and byte order) of
//! the first profile and trace, and the program named in the profile's header name-value pairs,
//! read with the readers' own header functions (profile/header.rs, trace/).

use super::profile::header;
use super::{trace, HPCSTRUCT, PROFILE, TRACE};
use crate::bytes::Slice;
use crate::error::Result;
use crate::formats::probe::Probe;
use crate::formats::{DatasetGroup, InputFile};

/// Bytes of a profile's start the probe reads: the magic line and header name-value pairs take a
/// few hundred bytes in every known file.
const PROFILE_HEAD: u64 = 64 * 1024;

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
        let src = &first.source;
        let head = src.bytes(0, src.len().min(PROFILE_HEAD), "profile header")?;
        let s = Slice::new(&head, 0, src.name());
        let line = header::magic_line(s)?;
        p.layout = format!("hpcrun profile {}", line.label());
        line.require_big_endian(src.name(), "profile")?;
        let (pairs, _) = header::name_values(s, 0, s.len())?;
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
        let line = trace::magic_line(&first.source)?;
        line.require_big_endian(first.source.name(), "trace")?;
        if profiles.is_empty() {
            p.layout = format!("hpcrun trace {}", line.label());
        }
        p.fact("trace version", line.label());
    }
    Ok(())
}
