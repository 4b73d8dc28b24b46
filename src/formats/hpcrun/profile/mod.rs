//! One hpcrun measurement profile (`.hpcrun`, `HPCRUN-profile____` + version + `b`): the 04.00
//! sparse layout (`v4.rs`) and the 02.00 epoch layout (`v2.rs`), all big-endian. Follows
//! HPCToolkit's `hpcrun-fmt.{h,c}` (src/common/lean, 2024; src/lib/prof-lean for the
//! 96-byte-footer 04.00 and the 02.00 eras); seed 002 gives the 02.00 grammar.

mod cursor;
pub mod header;
mod tables;
#[cfg(test)]
pub(crate) mod tests;
mod v2;
mod v4;

use crate::bytes::{Slice, Source};
use crate::error::{Error, Result, Warning};

pub const MAGIC: &[u8; 18] = b"HPCRUN-profile____";

/// Layout generation of a profile file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileLayout {
    /// 02.00: epochs with dense per-node metric values.
    V2,
    /// 04.00 with the 96-byte footer (2020-2022): no id-tuple dictionary, 18-byte CCT nodes.
    V4Footer96,
    /// 04.00 with the 112-byte footer (2022 on): id-tuple dictionary, 19-byte CCT nodes with flags.
    V4Footer112,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MetricDesc {
    pub name: String,
    pub description: String,
    /// 1 raw, 2 final, 3 derived.
    pub ty: u8,
    /// 1 inclusive, 2 exclusive, 0 unset.
    pub val_ty: u8,
    /// 1 integer, 2 real, 0 unset (read as real, as hpcrun does).
    pub val_fmt: u8,
    /// Value belongs to the call-site relation rather than the full context (hpcprof `isRelation`).
    pub move2proc: bool,
    pub partner: u16,
    /// 0 hide, 1 show, 2 inclusive only, 3 exclusive only, 4 invisible.
    pub show: u8,
    pub show_percent: bool,
    /// Sampling period: hpcprof multiplies every stored value by it.
    pub period: u64,
    /// Non-empty for derived metrics computed from others (`#43/#61`); they carry no values.
    pub formula: String,
    pub format: String,
    pub is_frequency: bool,
}

impl MetricDesc {
    /// Decodes a stored 64-bit value as hpcrun wrote it (integer or IEEE double).
    pub fn decode(&self, bits: u64) -> f64 {
        if self.val_fmt == 1 {
            bits as f64
        } else {
            f64::from_bits(bits)
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoadModule {
    pub id: u16,
    pub name: String,
    pub flags: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CctNode {
    pub id: u32,
    /// 0 for a root.
    pub parent: u32,
    pub lm_id: u16,
    pub ip: u64,
    /// False for nodes not produced by a stack unwind (GPU samples); always true before 2022.
    pub unwound: bool,
}

/// One element of the profile's identifier tuple (`IDTUPLE_*` kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdElem {
    /// Kind without the interpretation bits: 0 SUMMARY, 1 NODE, 2 RANK, 3 THREAD, 4 GPUDEVICE,
    /// 5 GPUCONTEXT, 6 GPUSTREAM, 7 CORE.
    pub kind: u16,
    /// Top two bits of the stored kind: 0 both ids valid, 1 logical local, 2 logical global,
    /// 3 logical only.
    pub interpret: u8,
    pub physical: u64,
    pub logical: u64,
}

/// One measurement epoch: its own metric table, load map, tree and values. 04.00 files have one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Epoch {
    pub flags: u64,
    pub metrics: Vec<MetricDesc>,
    pub loadmap: Vec<LoadModule>,
    pub nodes: Vec<CctNode>,
    /// Raw point values: (index into `nodes`, metric index, decoded value before the period).
    pub values: Vec<(u32, u16, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunProfile {
    pub layout: ProfileLayout,
    /// "04.00", "02.00".
    pub version: String,
    pub nvpairs: Vec<(String, String)>,
    pub epochs: Vec<Epoch>,
    /// Identifier tuple (04.00 only).
    pub id_tuple: Vec<IdElem>,
    /// Names of identifier kinds from the file's dictionary (112-byte-footer files only).
    pub id_names: Vec<(u16, String)>,
    pub warnings: Vec<Warning>,
}

impl RunProfile {
    pub fn nv(&self, name: &str) -> Option<&str> {
        self.nvpairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Reads a whole profile file.
pub fn read(src: &Source) -> Result<RunProfile> {
    let bytes = src.bytes(0, src.len(), "hpcrun profile")?;
    parse(&bytes, src.name())
}

/// Parses the bytes of a profile file named `file` (for messages).
pub fn parse(bytes: &[u8], file: &str) -> Result<RunProfile> {
    let s = Slice::new(bytes, 0, file);
    let line = header::magic_line(s)?;
    line.require_big_endian(file, "profile")?;
    let version = line.version;
    match version.as_str() {
        "04.00" => v4::parse(s, version),
        "02.00" => v2::parse(s, version),
        v => Err(Error::unsupported(
            file,
            Some(18),
            format!("hpcrun profile version {v:?} (known: 02.00, 04.00)"),
        )),
    }
}

/// Parts of a measurement file name `program-RANK-THREAD-HOSTID-PID-GEN.hpcrun`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileNameParts {
    pub program: String,
    pub rank: u32,
    pub thread: u32,
    pub host_id: u64,
    pub pid: u32,
    pub generation: u32,
}

/// Splits a measurement file name from the right (the program name may contain dashes).
pub fn parse_file_name(name: &str) -> Option<FileNameParts> {
    let base = name.rsplit('/').next()?;
    let stem = base
        .strip_suffix(".hpcrun")
        .or_else(|| base.strip_suffix(".hpctrace"))?;
    let mut parts = stem.rsplitn(6, '-');
    let generation = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    let host_id = u64::from_str_radix(parts.next()?, 16).ok()?;
    let thread = parts.next()?.parse().ok()?;
    let rank = parts.next()?.parse().ok()?;
    let program = parts.next()?.to_string();
    Some(FileNameParts {
        program,
        rank,
        thread,
        host_id,
        pid,
        generation,
    })
}
