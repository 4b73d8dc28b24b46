//! XML-era HPCToolkit databases (experiment.xml v2.0-2.2, written from about 2012 to 2022): the
//! tree and summary values of experiment.xml, per-thread values from `*.metric-db` files or
//! hpcviewer's merged `experiment[-N].mdb`, and traces from `*.hpctrace` files or `experiment.mt`.

pub mod data;
pub mod experiment;
pub mod formulas;
pub mod mdb;
pub mod metric_db;
pub mod probe;
pub mod to_model;
pub mod trace;
pub mod tree;

#[cfg(test)]
mod tests;

use crate::formats::{FileKind, FormatEntry, EXPERIMENT_XML};

/// The format id of XML-era databases.
pub const ID: &str = "hpctoolkit-xml";
/// A thread's metric database (`HPCPROF-metricdb__` magic).
pub const METRIC_DB: FileKind = FileKind::new(ID, "metric-db");
/// hpcviewer's merged metric databases, `experiment.mdb` or `experiment-N.mdb`.
pub const MDB: FileKind = FileKind::new(ID, "merged metric-db");
/// hpcviewer's merged traces, `experiment.mt`.
pub const MT: FileKind = FileKind::new(ID, "merged traces");

/// XML-era databases in the registry ([`crate::formats::FORMATS`]): a folder with experiment.xml
/// and no prof2 binary files (prof2 is asked first).
pub static HPCTOOLKIT_XML: FormatEntry = FormatEntry {
    id: ID,
    display_name: "HPCToolkit XML database",
    detect,
    claimed_by: &[EXPERIMENT_XML],
    one_dataset_per_file: false,
    probe: probe::probe,
    open: to_model::open,
};

/// metric-db files by magic, the merged files by name; experiment.xml is shared with prof2
/// ([`EXPERIMENT_XML`]) and .hpctrace files are hpcrun's traces.
fn detect(_path: &str, name: &str, head: &[u8]) -> Option<FileKind> {
    if head.starts_with(metric_db::MAGIC) {
        return Some(METRIC_DB);
    }
    let merged_mdb = name == "experiment.mdb"
        || name
            .strip_prefix("experiment-")
            .and_then(|r| r.strip_suffix(".mdb"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
    if merged_mdb {
        return Some(MDB);
    }
    (name == "experiment.mt").then_some(MT)
}
