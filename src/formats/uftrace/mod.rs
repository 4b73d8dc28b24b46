//! uftrace recordings (`uftrace.data/`, seed 004, FORMATS-NOTES "uftrace"): `info`, `task.txt`,
//! `sid-*.map`, `*.sym`, `*.dbg`, `<tid>.dat`, `perf-cpu*.dat` become one dataset (one tree over
//! the tasks, a profile and a timeline per task) and the `uftrace report` tables. `open.rs` reads
//! the headers, `scan.rs` streams records once (`stream.rs`: fed bytes), `timeline.rs` re-reads.

pub mod dat;
pub mod dbg;
pub mod demangle;
mod fstack;
pub mod info;
pub mod map;
mod open;
pub mod pattern;
pub mod perf;
pub mod probe;
mod report;
pub mod resolve;
mod scan;
mod span;
mod stream;
pub mod sym;
pub mod task;
#[cfg(test)]
mod tests;
mod timeline;
mod to_model;

pub use fstack::FuncStat;
pub use open::open_report;
pub use report::{sort_rows, RecordCounts, ReportRow, TaskReport, UftraceReport, FOLDED_MAX_BYTES};
pub use stream::Streaming;
pub use timeline::{UftraceData, CHECKPOINT_EVERY};

use crate::error::Result;
use crate::formats::{DatasetGroup, FileKind, Format, InputFile, Probe};
use crate::model::Dataset;

/// Value ids of the metrics in every profile.
pub const VAL_TIME_INCL: u16 = 0;
pub const VAL_TIME_EXCL: u16 = 1;
pub const VAL_CALLS: u16 = 2;

/// Opens a recording as a dataset.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    open_report(group).map(|(d, _)| d)
}

/// The format id of uftrace recordings.
pub const ID: &str = "uftrace";
pub const INFO: FileKind = FileKind::new(ID, "info");
pub const TASK_TXT: FileKind = FileKind::new(ID, "task.txt");
pub const MAP: FileKind = FileKind::new(ID, "map");
pub const SYM: FileKind = FileKind::new(ID, "sym");
pub const DBG: FileKind = FileKind::new(ID, "dbg");
pub const DAT: FileKind = FileKind::new(ID, "task data");
pub const PERF_DAT: FileKind = FileKind::new(ID, "perf data");

/// uftrace recordings in the registry ([`crate::formats::FORMATS`]).
pub struct Uftrace;
pub static UFTRACE: Uftrace = Uftrace;

/// uftrace .sym lines: `<hex addr> <TYPE> <name>` (0.13) or `<hex addr> <hex size> <TYPE> <name>`.
fn looks_like_sym(head: &[u8]) -> bool {
    // uftrace 0.13+ starts with `# symbols:` / `# path name:` comment lines.
    let line = head
        .split(|&b| b == b'\n')
        .find(|l| !l.starts_with(b"#"))
        .unwrap_or(&[]);
    let mut words = line.split(|&b| b == b' ').filter(|w| !w.is_empty());
    matches!(words.next(), Some(w) if w.iter().all(u8::is_ascii_hexdigit)) || head.is_empty()
}

impl Format for Uftrace {
    fn id(&self) -> &'static str {
        ID
    }
    fn display_name(&self) -> &'static str {
        "uftrace recording"
    }
    /// `info` by its magic; the other members of `uftrace.data/` by their names.
    fn detect(&self, _path: &str, name: &str, head: &[u8]) -> Option<FileKind> {
        if head.starts_with(b"Ftrace!\0") {
            return Some(INFO);
        }
        if name == "task.txt"
            && (head.starts_with(b"SESS") || head.starts_with(b"TASK") || head.is_empty())
        {
            return Some(TASK_TXT);
        }
        if name.starts_with("sid-") && name.ends_with(".map") {
            return Some(MAP);
        }
        if name.ends_with(".sym") && looks_like_sym(head) {
            return Some(SYM);
        }
        if name.ends_with(".dbg") {
            return Some(DBG);
        }
        if name.starts_with("perf-cpu") && name.ends_with(".dat") {
            return Some(PERF_DAT);
        }
        let tid = name.strip_suffix(".dat")?;
        (!tid.is_empty() && tid.chars().all(|c| c.is_ascii_digit())).then_some(DAT)
    }
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool {
        files.iter().any(|(k, _)| *k == INFO || *k == DAT)
    }
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()> {
        probe::probe(group, p)
    }
    fn open(&self, group: &DatasetGroup) -> Result<Dataset> {
        open(group)
    }
}
