//! hpcrun measurement folders as one dataset: every `.hpcrun` profile (one per thread or GPU
//! stream) is read (profile/), their trees merged by call path (merge.rs) with frames named through
//! `structs/*.hpcstruct` or as load module + offset (names.rs), and each `.hpctrace` becomes the
//! trace line of its profile; values are point values times the metric period, as in hpcprof.

pub mod hpcstruct;
pub mod kernel_symbols;
mod lazy;
pub mod magic;
mod merge;
mod metrics;
mod names;
mod open;
pub mod probe;
pub mod profile;
pub mod trace;
mod trace_lines;

#[cfg(test)]
mod tests;

use crate::formats::{FileKind, FormatEntry};

pub use open::open;

/// Identifier kind names hpcrun uses when a file carries no dictionary (`IDTUPLE_*`); the other
/// readers of HPCToolkit data use them too.
pub const DEFAULT_ID_NAMES: [&str; 8] = [
    "SUMMARY",
    "NODE",
    "RANK",
    "THREAD",
    "GPUDEVICE",
    "GPUCONTEXT",
    "GPUSTREAM",
    "CORE",
];

/// The format id of hpcrun measurement folders.
pub const ID: &str = "hpcrun";
pub const PROFILE: FileKind = FileKind::new(ID, "profile");
pub const TRACE: FileKind = FileKind::new(ID, "trace");
pub const HPCSTRUCT: FileKind = FileKind::new(ID, "hpcstruct");

/// hpcrun measurement folders in the registry ([`crate::formats::FORMATS`]).
pub static HPCRUN: FormatEntry = FormatEntry {
    id: ID,
    display_name: "hpcrun measurements",
    detect,
    claimed_by: &[PROFILE, TRACE],
    one_dataset_per_file: false,
    probe: probe::probe,
    open,
};

/// `HPCRUN-profile`, `HPCRUN-trace` and `*.hpcstruct` XML (the structure files beside them).
fn detect(_path: &str, name: &str, head: &[u8]) -> Option<FileKind> {
    if head.starts_with(b"HPCRUN-profile") {
        Some(PROFILE)
    } else if head.starts_with(b"HPCRUN-trace") {
        Some(TRACE)
    } else if name.ends_with(".hpcstruct") && crate::formats::is_xml(head) {
        Some(HPCSTRUCT)
    } else {
        None
    }
}
