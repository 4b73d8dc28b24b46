//! HPCToolkit v4.0 databases (meta.db, profile.db, cct.db, trace.db) in the final layout and the two
//! 2022 drafts (../shared/FORMATS-NOTES.md): one module per file and per phase of opening; this one
//! holds the format's ids and its registry entry. Opening reads meta.db and the summary profile;
//! other profiles, cct.db blocks and trace lines are read on demand.

pub mod cct;
mod check;
mod database;
pub mod layout;
mod lazy;
pub mod meta;
pub mod probe;
pub mod profile;
pub mod taxonomy;
mod to_model;
pub mod trace;

pub use database::{open, open_database, Database};
pub use layout::{detect_layout, Layout, LAYOUT_APRIL, LAYOUT_FINAL, LAYOUT_MAY};

use crate::formats::{FileKind, FormatEntry};

/// The format id of v4.0 databases.
pub const ID: &str = "hpctoolkit";
pub const META_DB: FileKind = FileKind::new(ID, "meta.db");
pub const PROFILE_DB: FileKind = FileKind::new(ID, "profile.db");
pub const CCT_DB: FileKind = FileKind::new(ID, "cct.db");
pub const TRACE_DB: FileKind = FileKind::new(ID, "trace.db");

/// HPCToolkit v4.0 databases in the registry ([`crate::formats::FORMATS`]).
pub static HPCTOOLKIT: FormatEntry = FormatEntry {
    id: ID,
    display_name: "HPCToolkit database",
    detect,
    claimed_by: &[META_DB, PROFILE_DB],
    one_dataset_per_file: false,
    probe: probe::probe,
    open,
};

/// `HPCTOOLKIT` + `meta`/`prof`/`ctxt`/`trce` (the final layout and the 2022 drafts).
fn detect(_path: &str, _name: &str, head: &[u8]) -> Option<FileKind> {
    match head.get(..14)? {
        b"HPCTOOLKITmeta" => Some(META_DB),
        b"HPCTOOLKITprof" => Some(PROFILE_DB),
        b"HPCTOOLKITctxt" => Some(CCT_DB),
        b"HPCTOOLKITtrce" => Some(TRACE_DB),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
