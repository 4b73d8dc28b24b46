//! HPCToolkit pre-release ("prof2") databases (seed 000 and ../shared/FORMATS-NOTES.md):
//! profile.db, cct.db and trace.db with `HPCPROF-*` magics (big-endian in real files, version 1.0),
//! the calling-context tree from experiment.xml "4.0" or from a binary meta.db (`HPCTOOLKIT_expmt`).

// Metric ids: per-thread profiles store the MetricDB ids of experiment.xml (`2` = "REALTIME (sec)
// (I)"), the summary profile stores the partial ids of its MetricTable, `(MetricDB id << 8) |
// partial index` (`512` = partial 0 of column 2, a sum): both become value ids of one model metric.

pub mod cct;
pub mod meta;
pub mod open;
pub mod probe;
pub mod profile;
pub mod trace;
pub mod xml;

pub use open::open;

use crate::bytes::{Endian, Source};
use crate::error::{Error, Result, Warning};
use crate::formats::{FileKind, FormatEntry};
use crate::model::{LazyData, SparseValues, TraceSample};

/// The version bytes (major, minor) after a magic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Version {
    pub major: u8,
    pub minor: u8,
}

impl Version {
    /// Reads the two version bytes; majors other than 1 (real files) and 4 (the seed) are warned
    /// about and read as the seed describes.
    pub fn read(
        src: &Source,
        off: u64,
        file: &str,
        warnings: &mut Vec<Warning>,
    ) -> Result<Version> {
        let [major, minor] = src.array::<2>(off, "version")?;
        if major != 1 && major != 4 {
            warnings.push(Error::unsupported(
                src.name(),
                Some(off),
                format!("{file} version {major}.{minor}: read as the pre-release layout"),
            ));
        }
        Ok(Version { major, minor })
    }

    /// Checks that a `file` ("cct.db" ...) starts with its 16-byte `magic`, then reads the
    /// version after it.
    pub fn after_magic(
        src: &Source,
        magic: &[u8; 16],
        file: &str,
        warnings: &mut Vec<Warning>,
    ) -> Result<Version> {
        let found: [u8; 16] = src.array(0, &format!("{file} magic"))?;
        if &found != magic {
            return Err(Error::bad_magic(
                src.name(),
                0,
                format!("{file} magic (want {})", String::from_utf8_lossy(magic)),
            ));
        }
        Version::read(src, 16, file, warnings)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A file's footer: one u64, spelled here as a little-endian file stores it (`PROFDBft`); a
/// big-endian file (as real ones are) stores its bytes reversed (`tfBDFORP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footer(pub [u8; 8]);

impl Footer {
    /// The footer as a file of byte order `e` stores it.
    pub fn bytes(self, e: Endian) -> [u8; 8] {
        let mut b = self.0;
        if e == Endian::Big {
            b.reverse();
        }
        b
    }

    /// The byte order in which `src` (`file`) ends with this footer; without it, the order in
    /// which the u64 at `probe` (a section offset) lies inside the file, big-endian when both or
    /// neither do.
    pub fn byte_order(
        self,
        src: &Source,
        probe: u64,
        file: &str,
        warnings: &mut Vec<Warning>,
    ) -> Result<Endian> {
        let (be, le) = (self.bytes(Endian::Big), self.bytes(Endian::Little));
        if let Some(at) = src.len().checked_sub(8) {
            let tail: [u8; 8] = src.array(at, "footer")?;
            if tail == be {
                return Ok(Endian::Big);
            }
            if tail == le {
                return Ok(Endian::Little);
            }
        }
        let e = guess_order(src, probe);
        warnings.push(Error::bad_magic(
            src.name(),
            src.len().saturating_sub(8),
            format!(
                "{file} footer is neither {:?} nor {:?}; byte order guessed as {e:?}",
                String::from_utf8_lossy(&be),
                String::from_utf8_lossy(&le)
            ),
        ));
        Ok(e)
    }
}

/// Big-endian unless only the little-endian reading of the u64 at `probe` lies in the file.
pub fn guess_order(src: &Source, probe: u64) -> Endian {
    let fits = |v: Result<u64>| v.is_ok_and(|v| v > 0 && v < src.len());
    if !fits(src.u64_be_at(probe, "probe")) && fits(src.u64_le_at(probe, "probe")) {
        Endian::Little
    } else {
        Endian::Big
    }
}

/// Identifier kind names hpcrun uses when the database names none.
pub use crate::formats::hpcrun::DEFAULT_ID_NAMES;

/// Values and traces read on demand.
struct Prof2Data {
    profile: Option<profile::ProfileDb>,
    cct: Option<cct::CctDb>,
    /// cct.db values are zero-filled in real pre-release files: answer from profile.db instead.
    cct_usable: bool,
    trace: Option<trace::TraceDb>,
    /// Indexes into `trace.headers` of the calling-context lines, in `TraceInfo::lines` order.
    trace_lines: Vec<usize>,
    /// (ctx id, node) sorted by ctx id.
    ctx_to_node: Vec<(u32, u32)>,
    /// ctx id of each node.
    node_ctx: Vec<u32>,
}

impl Prof2Data {
    fn node(&self, ctx: u32) -> Option<u32> {
        self.ctx_to_node
            .binary_search_by_key(&ctx, |&(c, _)| c)
            .ok()
            .map(|i| self.ctx_to_node[i].1)
    }
    fn trace_db(&self) -> Result<&trace::TraceDb> {
        self.trace
            .as_ref()
            .ok_or_else(|| Error::invalid("trace.db", 0, "the database has no trace.db"))
    }
    fn trace_line(&self, line: usize) -> Result<usize> {
        self.trace_lines
            .get(line)
            .copied()
            .ok_or_else(|| Error::invalid("trace.db", 0, format!("trace line {line} out of range")))
    }
}

impl LazyData for Prof2Data {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        let Some(p) = &self.profile else {
            return Ok(SparseValues::default());
        };
        let triples = p
            .values(prof)?
            .into_iter()
            .filter_map(|(ctx, mid, v)| self.node(ctx).map(|n| (n, mid, v)))
            .collect();
        Ok(SparseValues::from_triples(triples))
    }

    fn context_values(&self, node: u32) -> Result<Vec<(u32, u16, f64)>> {
        let Some(&ctx) = self.node_ctx.get(node as usize) else {
            return Ok(Vec::new());
        };
        if let (Some(c), true) = (&self.cct, self.cct_usable) {
            if ctx < c.num_ctx {
                let mut out: Vec<(u32, u16, f64)> = c
                    .values(ctx)?
                    .into_iter()
                    .filter(|&(_, _, v)| v != 0.0)
                    .map(|(mid, prof, v)| (prof, mid, v))
                    .collect();
                // One context's values: the shared sort (src/sort.rs).
                crate::sort::sort_by_key(&mut out, |&(p, m, _)| (p, m));
                return Ok(out);
            }
        }
        let mut out = Vec::new();
        if let Some(p) = &self.profile {
            for prof in 0..p.profiles.len() {
                for (mid, v) in p.context_values(prof, ctx)? {
                    out.push((prof as u32, mid, v));
                }
            }
        }
        Ok(out)
    }

    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        let t = self.trace_db()?;
        Ok(t.samples(self.trace_line(line)?, start, count)?
            .into_iter()
            // A context id the tree does not know (a damaged or foreign trace.db) shows as the
            // root, as in the v4 reader: every node a view receives must lie inside the tree.
            .map(|(time, ctx)| TraceSample {
                time,
                node: self.node(ctx).unwrap_or(0),
            })
            .collect())
    }

    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        self.trace_db()?.find(self.trace_line(line)?, time)
    }
}

/// The format id of prof2 databases.
pub const ID: &str = "prof2";
pub const META_DB: FileKind = FileKind::new(ID, "meta.db");
pub const PROFILE_DB: FileKind = FileKind::new(ID, "profile.db");
pub const CCT_DB: FileKind = FileKind::new(ID, "cct.db");
pub const TRACE_DB: FileKind = FileKind::new(ID, "trace.db");

/// Pre-release prof2 databases in the registry ([`crate::formats::FORMATS`]).
pub static PROF2: FormatEntry = FormatEntry {
    id: ID,
    display_name: "HPCToolkit database (prof2)",
    detect,
    claimed_by: &[PROFILE_DB, META_DB, CCT_DB],
    one_dataset_per_file: false,
    probe: probe::probe,
    open,
};

/// `HPCTOOLKIT_expmt` (binary meta.db) and `HPCPROF-profdb__`, `-cctdb___`, `-tracedb_`.
fn detect(_path: &str, _name: &str, head: &[u8]) -> Option<FileKind> {
    if head.starts_with(b"HPCTOOLKIT_expmt") {
        return Some(META_DB);
    }
    match head.get(..16)? {
        b"HPCPROF-profdb__" => Some(PROFILE_DB),
        b"HPCPROF-cctdb___" => Some(CCT_DB),
        b"HPCPROF-tracedb_" => Some(TRACE_DB),
        _ => None,
    }
}
