//! Opening a prof2 database, phase by phase: the tree from meta.db or experiment.xml, the profile
//! and context values (profile.db, cct.db), the trace lines (trace.db), then the facts the summary
//! shows (seed 000, ../shared/FORMATS-NOTES.md).

use super::{
    cct, guess_order, meta, profile, trace, xml, Prof2Data, CCT_DB, DEFAULT_ID_NAMES, META_DB,
    PROFILE_DB, TRACE_DB,
};
use crate::bytes::Endian;
use crate::error::{Error, Result, Warning};
use crate::formats::{DatasetGroup, EXPERIMENT_XML};
use crate::model::{Cct, Dataset, Identifier, ProfileInfo, TraceInfo, TraceLineInfo};

type Facts = Vec<(String, String)>;

/// Opens a prof2 database: the tree from meta.db (when present and readable) or experiment.xml,
/// values from profile.db (and cct.db), the trace from trace.db.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    let mut warnings = Vec::new();
    // Names, tree and metrics; the facts of the other files follow the tree's own.
    let mut tree = read_tree(group, &mut warnings)?;
    let facts = &mut tree.facts;
    if tree.id_names.is_empty() {
        tree.id_names = DEFAULT_ID_NAMES.iter().map(|s| s.to_string()).collect();
    }
    let v = Values::read(group, &mut warnings)?;
    let (profiles, summary_profile) = profiles(v.profile.as_ref(), facts);
    if let Some(c) = &v.cct {
        facts.push((
            "cct.db".into(),
            format!(
                "version {}, {} contexts{}",
                c.version,
                c.num_ctx,
                if v.cct_usable {
                    ""
                } else {
                    " (values all zero: unused)"
                }
            ),
        ));
    }
    let trace = read_trace(group, v.endian, profiles.len(), &mut warnings, facts);
    if let Some(e) = v.endian {
        facts.push((
            "byte order".into(),
            match e {
                Endian::Big => "big-endian".into(),
                Endian::Little => "little-endian".into(),
            },
        ));
    }
    facts.push(("contexts".into(), tree.cct.tree.len().to_string()));
    unattached_contexts(v.profile.as_ref(), summary_profile, &tree.cct, facts);

    let mut ctx_to_node: Vec<(u32, u32)> = tree
        .cct
        .ctx_id
        .iter()
        .enumerate()
        .map(|(n, &c)| (c, n as u32))
        .collect();
    crate::sort::sort_by(&mut ctx_to_node, |a, b| a.cmp(b));
    let layout = match (&v.profile, v.endian) {
        (Some(p), Some(Endian::Big)) => format!("prof2 pre-release {} (big-endian)", p.version),
        (Some(p), _) => format!("prof2 pre-release {} (little-endian)", p.version),
        _ => "prof2 pre-release".to_string(),
    };
    Ok(Dataset {
        format: "prof2".into(),
        layout,
        files: group.file_entries(),
        profiles,
        summary_profile,
        trace: trace.info,
        warnings,
        data: Box::new(Prof2Data {
            profile: v.profile,
            cct: v.cct,
            cct_usable: v.cct_usable,
            trace: trace.db,
            trace_lines: trace.lines,
            ctx_to_node,
            node_ctx: tree.cct.ctx_id.clone(),
        }),
        ..tree
    })
}

/// The tree: from meta.db when it reads, else from experiment.xml.
fn read_tree(group: &DatasetGroup, warnings: &mut Vec<Warning>) -> Result<Dataset> {
    match (group.file(META_DB), group.file(EXPERIMENT_XML)) {
        (Some(m), xml) => match meta::MetaDb::read(&m.source, warnings) {
            Ok(db) => Ok(db.to_tree()),
            Err(e) => match xml {
                Some(x) => {
                    warnings.push(e.context("meta.db unreadable, using experiment.xml"));
                    xml::read(&x.source, warnings)
                }
                None => Err(e),
            },
        },
        (None, Some(x)) => xml::read(&x.source, warnings),
        (None, None) => Err(Error::mismatch(
            &group.root,
            "prof2 database without experiment.xml or meta.db: no calling-context tree",
        )),
    }
}

/// The value files: profile.db (an error when unreadable), cct.db (ignored when unreadable, and
/// unused when it stores only zeros), and the byte order they are written in.
struct Values {
    profile: Option<profile::ProfileDb>,
    cct: Option<cct::CctDb>,
    cct_usable: bool,
    endian: Option<Endian>,
}

impl Values {
    fn read(group: &DatasetGroup, warnings: &mut Vec<Warning>) -> Result<Values> {
        let profile = match group.file(PROFILE_DB) {
            Some(f) => Some(profile::ProfileDb::read(&f.source, warnings)?),
            None => {
                warnings.push(Error::mismatch(
                    &group.root,
                    "no profile.db: the tree has no metric values",
                ));
                None
            }
        };
        let mut endian = profile.as_ref().map(|p| p.endian);
        let cct = match group.file(CCT_DB) {
            Some(f) => match cct::CctDb::read(&f.source, warnings) {
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
        let cct_usable = match &cct {
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
        Ok(Values {
            profile,
            cct,
            cct_usable,
            endian,
        })
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

/// The profiles profile.db lists and which one is the summary.
fn profiles(
    profile_db: Option<&profile::ProfileDb>,
    facts: &mut Facts,
) -> (Vec<ProfileInfo>, Option<usize>) {
    let mut profiles = Vec::new();
    let mut summary_profile = None;
    let Some(p) = profile_db else {
        return (profiles, summary_profile);
    };
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
    (profiles, summary_profile)
}

/// trace.db, what the model says of it, and which of its lines are calling-context lines.
#[derive(Default)]
struct Trace {
    db: Option<trace::TraceDb>,
    info: Option<TraceInfo>,
    /// Indexes into the trace.db headers of the calling-context lines, in `info.lines` order.
    lines: Vec<usize>,
}

/// Reads trace.db (ignored with a warning when unreadable) in the value files' byte order.
fn read_trace(
    group: &DatasetGroup,
    endian: Option<Endian>,
    n_profiles: usize,
    warnings: &mut Vec<Warning>,
    facts: &mut Facts,
) -> Trace {
    let Some(f) = group.file(TRACE_DB) else {
        return Trace::default();
    };
    let e = endian.unwrap_or_else(|| guess_order(&f.source, 32));
    let t = match trace::TraceDb::read(&f.source, e, warnings) {
        Ok(t) => t,
        Err(e) => {
            warnings.push(e.context("trace.db ignored"));
            return Trace::default();
        }
    };
    let mut lines = Vec::new();
    let mut trace_lines = Vec::new();
    let mut metric_lines = 0;
    for (i, h) in t.headers.iter().enumerate() {
        if h.trace_type != 0 {
            metric_lines += 1;
            continue;
        }
        if h.prof_info_idx as usize >= n_profiles {
            warnings.push(Error::invalid(
                t.src.name(),
                t.hdr_ptr + i as u64 * trace::TRACE_HEADER_SIZE,
                format!(
                    "trace line {i} names profile {} of {n_profiles}",
                    h.prof_info_idx,
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
    Trace {
        info: Some(TraceInfo {
            min_time: has_range.then_some(t.min_time),
            max_time: has_range.then_some(t.max_time),
            lines,
        }),
        db: Some(t),
        lines: trace_lines,
    }
}

/// Real prof2 databases hold values for contexts experiment.xml does not list: says how many
/// (only when the summary is small enough to read at open time).
fn unattached_contexts(
    profile_db: Option<&profile::ProfileDb>,
    summary_profile: Option<usize>,
    tree: &Cct,
    facts: &mut Facts,
) {
    let (Some(p), Some(s)) = (profile_db, summary_profile) else {
        return;
    };
    if p.profiles[s].num_vals > 1 << 20 {
        return;
    }
    let Ok(vals) = p.values(s) else {
        return;
    };
    let mut ctxs: Vec<u32> = vals.iter().map(|v| v.0).collect();
    ctxs.dedup();
    let missing = ctxs
        .iter()
        .filter(|&&c| tree.node_of_ctx(c).is_none())
        .count();
    if missing > 0 {
        facts.push((
            "contexts with values but no tree node".into(),
            format!("{missing} of {} (not shown)", ctxs.len()),
        ));
    }
}
