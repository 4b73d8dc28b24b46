//! HPCToolkit pre-release ("prof2") databases (seed 000 and ../shared/FORMATS-NOTES.md):
//! profile.db, cct.db and trace.db with `HPCPROF-*` magics (big-endian in real files, version 1.0),
//! the calling-context tree from experiment.xml "4.0" or from a binary meta.db (`HPCTOOLKIT_expmt`).
//!
//! Metric ids: per-thread profiles store the MetricDB ids of experiment.xml (`2` = "REALTIME (sec)
//! (I)"), the summary profile stores the partial ids of its MetricTable, `(MetricDB id << 8) |
//! partial index` (`512` = partial 0 of column 2, a sum): both become value ids of one model metric.

pub mod cct;
pub mod meta;
pub mod probe;
pub mod profile;
pub mod trace;
pub mod xml;

use crate::bytes::{Endian, Source};
use crate::error::{Error, Result, Warning};
use crate::formats::{DatasetGroup, FileKind, Format, InputFile, Probe, EXPERIMENT_XML};
use crate::model::{
    Cct, Dataset, FileEntry, Function, Identifier, LazyData, Metric, Module, ProfileInfo,
    SourceFile, SparseValues, TraceInfo, TraceLineInfo, TraceSample,
};

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
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The byte order a file's footer names; without a known footer, the order in which the u64 at
/// `probe` (a section offset) lies inside the file, big-endian when both or neither do.
pub fn byte_order(
    src: &Source,
    be: &[u8; 8],
    le: &[u8; 8],
    probe: u64,
    file: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Endian> {
    if let Some(at) = src.len().checked_sub(8) {
        let tail: [u8; 8] = src.array(at, "footer")?;
        if &tail == be {
            return Ok(Endian::Big);
        }
        if &tail == le {
            return Ok(Endian::Little);
        }
    }
    let e = guess_order(src, probe);
    warnings.push(Error::bad_magic(
        src.name(),
        src.len().saturating_sub(8),
        format!(
            "{file} footer is neither {:?} nor {:?}; byte order guessed as {e:?}",
            String::from_utf8_lossy(be),
            String::from_utf8_lossy(le)
        ),
    ));
    Ok(e)
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

/// What the tree source (experiment.xml or meta.db) gives the model.
#[derive(Default)]
pub struct Prof2Tree {
    pub title: String,
    pub id_names: Vec<String>,
    pub modules: Vec<Module>,
    pub source_files: Vec<SourceFile>,
    pub functions: Vec<Function>,
    pub cct: Cct,
    pub metrics: Vec<Metric>,
    pub facts: Vec<(String, String)>,
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
                out.sort_by_key(|&(p, m, _)| (p, m));
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

/// hpcrun keeps how to read an identifier's values in the kind's top two bits (0: both valid,
/// 3: logical only); the kind proper is the low 14 bits.
fn identifier(e: &profile::IdElem) -> Identifier {
    Identifier {
        kind: e.kind & 0x3fff,
        logical_id: u32::try_from(e.logical).unwrap_or(u32::MAX),
        physical_id: e.physical,
        physical: e.kind >> 14 == 0,
    }
}

/// Opens a prof2 database: the tree from meta.db (when present and readable) or experiment.xml,
/// values from profile.db (and cct.db), the trace from trace.db.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    let mut warnings = Vec::new();
    let mut facts: Vec<(String, String)> = Vec::new();
    let meta_f = group.file(META_DB);
    let xml_f = group.file(EXPERIMENT_XML);
    let tree = match (meta_f, xml_f) {
        (Some(m), xml) => match meta::MetaDb::read(&m.source, &mut warnings) {
            Ok(db) => db.to_tree(),
            Err(e) => match xml {
                Some(x) => {
                    warnings.push(e.context("meta.db unreadable, using experiment.xml"));
                    xml::read(&x.source, &mut warnings)?
                }
                None => return Err(e),
            },
        },
        (None, Some(x)) => xml::read(&x.source, &mut warnings)?,
        (None, None) => {
            return Err(Error::mismatch(
                &group.root,
                "prof2 database without experiment.xml or meta.db: no calling-context tree",
            ))
        }
    };
    let Prof2Tree {
        title,
        mut id_names,
        modules,
        source_files,
        functions,
        cct: tree_cct,
        metrics,
        facts: tree_facts,
    } = tree;
    facts.extend(tree_facts);
    if id_names.is_empty() {
        id_names = DEFAULT_ID_NAMES.iter().map(|s| s.to_string()).collect();
    }

    let profile_db = match group.file(PROFILE_DB) {
        Some(f) => Some(profile::ProfileDb::read(&f.source, &mut warnings)?),
        None => {
            warnings.push(Error::mismatch(
                &group.root,
                "no profile.db: the tree has no metric values",
            ));
            None
        }
    };
    let mut endian = profile_db.as_ref().map(|p| p.endian);
    let cct_db = match group.file(CCT_DB) {
        Some(f) => match cct::CctDb::read(&f.source, &mut warnings) {
            Ok(c) => {
                endian = endian.or(Some(c.endian));
                Some(c)
            }
            Err(e) => {
                warnings.push(e.context("cct.db ignored"));
                None
            }
        },
        None => None,
    };
    let cct_usable = match &cct_db {
        Some(c) => match c.has_nonzero_values(64) {
            Ok(true) => true,
            Ok(false) => {
                warnings.push(Error::invalid(
                    c.src.name(),
                    c.ci_ptr,
                    "cct.db stores only zero values (pre-release hpcprof2 left them unfilled); context values are read from profile.db",
                ));
                false
            }
            Err(e) => {
                warnings.push(e.context("cct.db values unreadable, read from profile.db"));
                false
            }
        },
        None => false,
    };

    let mut profiles = Vec::new();
    let mut summary_profile = None;
    if let Some(p) = &profile_db {
        for (i, info) in p.profiles.iter().enumerate() {
            // The seed: "index 0 is always a summary profile"; its tuple is (SUMMARY 0) or absent.
            let summary = i == 0 || info.id_tuple.iter().all(|e| e.kind & 0x3fff == 0);
            if summary && summary_profile.is_none() {
                summary_profile = Some(i);
            }
            profiles.push(ProfileInfo {
                summary,
                id_tuple: if summary {
                    Vec::new()
                } else {
                    info.id_tuple.iter().map(identifier).collect()
                },
            });
        }
        facts.push((
            "profile.db".into(),
            format!(
                "version {}, {} profiles ({} summary)",
                p.version,
                p.profiles.len(),
                profiles.iter().filter(|p| p.summary).count()
            ),
        ));
    }
    if let Some(c) = &cct_db {
        facts.push((
            "cct.db".into(),
            format!(
                "version {}, {} contexts{}",
                c.version,
                c.num_ctx,
                if cct_usable {
                    ""
                } else {
                    " (values all zero: unused)"
                }
            ),
        ));
    }

    let mut trace_info = None;
    let mut trace_lines = Vec::new();
    let trace_db = match group.file(TRACE_DB) {
        Some(f) => {
            let e = endian.unwrap_or_else(|| guess_order(&f.source, 32));
            match trace::TraceDb::read(&f.source, e, &mut warnings) {
                Ok(t) => Some(t),
                Err(e) => {
                    warnings.push(e.context("trace.db ignored"));
                    None
                }
            }
        }
        None => None,
    };
    if let Some(t) = &trace_db {
        let mut lines = Vec::new();
        let mut metric_lines = 0;
        for (i, h) in t.headers.iter().enumerate() {
            if h.trace_type != 0 {
                metric_lines += 1;
                continue;
            }
            if h.prof_info_idx as usize >= profiles.len() {
                warnings.push(Error::invalid(
                    t.src.name(),
                    t.hdr_ptr + i as u64 * trace::TRACE_HEADER_SIZE,
                    format!(
                        "trace line {i} names profile {} of {}",
                        h.prof_info_idx,
                        profiles.len()
                    ),
                ));
            }
            trace_lines.push(i);
            lines.push(TraceLineInfo {
                prof_index: h.prof_info_idx,
                samples: h.samples(),
            });
        }
        let total: u64 = lines.iter().map(|l| l.samples).sum();
        // An empty trace stores min/max 0/0 (or HPCToolkit's sentinels): no time range.
        let has_range = total > 0 && t.min_time <= t.max_time && t.max_time != 0;
        facts.push((
            "trace.db".into(),
            format!(
                "version {}, {} lines{}",
                t.version,
                t.headers.len(),
                if metric_lines > 0 {
                    format!(" ({metric_lines} metric traces not shown)")
                } else {
                    String::new()
                }
            ),
        ));
        facts.push((
            "trace".into(),
            if total == 0 {
                format!("no samples ({} empty lines)", lines.len())
            } else {
                format!("{total} samples, {}..{} ns", t.min_time, t.max_time)
            },
        ));
        trace_info = Some(TraceInfo {
            min_time: has_range.then_some(t.min_time),
            max_time: has_range.then_some(t.max_time),
            lines,
        });
    }
    if let Some(e) = endian {
        facts.push((
            "byte order".into(),
            match e {
                Endian::Big => "big-endian".into(),
                Endian::Little => "little-endian".into(),
            },
        ));
    }
    facts.push(("contexts".into(), tree_cct.len().to_string()));
    // Real prof2 databases hold values for contexts experiment.xml does not list: say how many
    // (only when the summary is small enough to read at open time).
    if let (Some(p), Some(s)) = (&profile_db, summary_profile) {
        if p.profiles[s].num_vals <= 1 << 20 {
            if let Ok(vals) = p.values(s) {
                let mut ctxs: Vec<u32> = vals.iter().map(|v| v.0).collect();
                ctxs.dedup();
                let missing = ctxs
                    .iter()
                    .filter(|&&c| tree_cct.node_of_ctx(c).is_none())
                    .count();
                if missing > 0 {
                    facts.push((
                        "contexts with values but no tree node".into(),
                        format!("{missing} of {} (not shown)", ctxs.len()),
                    ));
                }
            }
        }
    }

    let mut ctx_to_node: Vec<(u32, u32)> = tree_cct
        .ctx_id
        .iter()
        .enumerate()
        .map(|(n, &c)| (c, n as u32))
        .collect();
    ctx_to_node.sort_unstable();
    let layout = match (&profile_db, endian) {
        (Some(p), Some(Endian::Big)) => format!("prof2 pre-release {} (big-endian)", p.version),
        (Some(p), _) => format!("prof2 pre-release {} (little-endian)", p.version),
        _ => "prof2 pre-release".to_string(),
    };
    let files = group
        .files
        .iter()
        .map(|(_, f)| FileEntry {
            path: f.path.clone(),
            size: f.source.len(),
        })
        .collect();
    Ok(Dataset {
        format: "prof2".into(),
        layout,
        title,
        files,
        facts,
        id_names,
        modules,
        source_files,
        functions,
        metrics,
        profiles,
        summary_profile,
        trace: trace_info,
        warnings,
        data: Box::new(Prof2Data {
            profile: profile_db,
            cct: cct_db,
            cct_usable,
            trace: trace_db,
            trace_lines,
            ctx_to_node,
            node_ctx: tree_cct.ctx_id.clone(),
        }),
        cct: tree_cct,
    })
}

/// The format id of prof2 databases.
pub const ID: &str = "prof2";
pub const META_DB: FileKind = FileKind::new(ID, "meta.db");
pub const PROFILE_DB: FileKind = FileKind::new(ID, "profile.db");
pub const CCT_DB: FileKind = FileKind::new(ID, "cct.db");
pub const TRACE_DB: FileKind = FileKind::new(ID, "trace.db");

/// Pre-release prof2 databases in the registry ([`crate::formats::FORMATS`]).
pub struct Prof2;
pub static PROF2: Prof2 = Prof2;

impl Format for Prof2 {
    fn id(&self) -> &'static str {
        ID
    }
    fn display_name(&self) -> &'static str {
        "HPCToolkit database (prof2)"
    }
    /// `HPCTOOLKIT_expmt` (binary meta.db) and `HPCPROF-profdb__`, `-cctdb___`, `-tracedb_`.
    fn detect(&self, _path: &str, _name: &str, head: &[u8]) -> Option<FileKind> {
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
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool {
        files
            .iter()
            .any(|(k, _)| *k == PROFILE_DB || *k == META_DB || *k == CCT_DB)
    }
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()> {
        probe::probe(group, p)
    }
    fn open(&self, group: &DatasetGroup) -> Result<Dataset> {
        open(group)
    }
}
