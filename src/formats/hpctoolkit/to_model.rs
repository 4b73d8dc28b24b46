//! An opened v4.0 database as the format-neutral model: meta.db's entry points and contexts as the
//! calling-context tree, its metrics, scopes and summary statistics, profile.db's identifier
//! tuples and trace.db's lines (FORMATS.md "meta.db", "profile.db", "trace.db" version 4.0).

use super::database::Database;
use super::meta;
use crate::error::{Error, Result, Warning};
use crate::formats::DatasetGroup;
use crate::model::{
    Cct, CctBuilder, Combine, Dataset, EntryKind, Frame, Function, Identifier, LexicalType, Metric,
    MetricScope, Module, ProfileInfo, Relation, ScopeKind, SummaryStat, TraceInfo, TraceLineInfo,
};

/// The model's tree: root = ctxId 0, entry points under it, contexts below; and the ctxIds of the
/// top-level contexts: entry points (final layout) or root contexts (April draft). Unknown entry
/// kinds, relations and lexical types become warnings.
pub(super) fn build_tree(
    m: &meta::MetaDb,
    meta_name: &str,
    warnings: &mut Vec<Warning>,
) -> Result<(Cct, Vec<u32>)> {
    let mut b = CctBuilder::with_capacity(0, m.entry_points.len() + m.contexts.len());
    let mut ep_index = Vec::with_capacity(m.entry_points.len());
    for ep in &m.entry_points {
        let kind = match ep.entry_point {
            0 => EntryKind::UnknownEntry,
            1 => EntryKind::MainThread,
            2 => EntryKind::ApplicationThread,
            k => {
                warnings.push(Error::invalid(
                    meta_name,
                    0,
                    format!(
                        "entry point {}: unknown kind {k}, shown as unknown entry",
                        ep.ctx_id
                    ),
                ));
                EntryKind::UnknownEntry
            }
        };
        ep_index.push(b.add(0, ep.ctx_id, Frame::entry(kind)));
    }
    let mut ctx_index: Vec<u32> = Vec::with_capacity(m.contexts.len());
    let mut odd_enums = 0u32;
    for c in &m.contexts {
        let parent = match c.parent {
            meta::ParentRef::Root => 0,
            meta::ParentRef::Entry(i) => ep_index[i as usize],
            meta::ParentRef::Context(i) => ctx_index[i as usize],
        };
        ctx_index.push(b.add(parent, c.ctx_id, context_frame(c, &mut odd_enums)));
    }
    if odd_enums > 0 {
        warnings.push(Error::invalid(meta_name, 0, format!("{odd_enums} contexts with an unknown relation or lexical type (shown as calls / functions)")));
    }
    let tree = b.finish(meta_name)?;
    let tops: Vec<u32> = if m.entry_points.is_empty() {
        m.contexts
            .iter()
            .filter(|c| c.parent == meta::ParentRef::Root)
            .map(|c| c.ctx_id)
            .collect()
    } else {
        m.entry_points.iter().map(|e| e.ctx_id).collect()
    };
    Ok((tree, tops))
}

/// The model frame of a context; an unknown relation or lexical type counts in `odd_enums` and
/// shows as a call / a function.
fn context_frame(c: &meta::ContextSpec, odd_enums: &mut u32) -> Frame {
    let relation = match c.relation {
        0 => Relation::Lexical,
        1 => Relation::Call,
        2 => Relation::InlinedCall,
        _ => {
            *odd_enums += 1;
            Relation::Call
        }
    };
    let lexical_type = match c.lexical_type {
        0 => LexicalType::Function,
        1 => LexicalType::Loop,
        2 => LexicalType::Line,
        3 => LexicalType::Instruction,
        _ => {
            *odd_enums += 1;
            LexicalType::Function
        }
    };
    Frame::context(relation, lexical_type, c.code)
}

fn scope_kind(s: &meta::Scope) -> ScopeKind {
    match s.scope_type {
        Some(1) => ScopeKind::Point,
        Some(2) => ScopeKind::Execution,
        Some(3) => ScopeKind::Function,
        Some(_) => ScopeKind::Custom,
        // April draft: scopes are named only.
        None => ScopeKind::of_name(&s.name),
    }
}

/// Functions with their names; an anonymous one is named after its module and offset.
fn functions(m: &meta::MetaDb, modules: &[Module]) -> Vec<Function> {
    m.code
        .functions
        .iter()
        .map(|f| {
            let name = f.name.clone().unwrap_or_else(|| {
                match (f.module.and_then(|i| modules.get(i as usize)), f.module) {
                    (Some(md), _) => format!(
                        "<unknown function> [{}+{:#x}]",
                        crate::model::short_path(&md.path),
                        f.offset
                    ),
                    _ => "<unknown function>".to_string(),
                }
            });
            Function {
                name,
                module: f.module,
                offset: f.module.map(|_| f.offset),
                file: f.file,
                line: f.file.map(|_| f.line),
            }
        })
        .collect()
}

/// The metrics with their scopes and summary statistics; statistics with an unknown combine
/// function are left out and counted in `bad_combine`.
fn metrics(m: &meta::MetaDb, bad_combine: &mut u32) -> Vec<Metric> {
    m.metrics
        .iter()
        .map(|d| Metric {
            scopes: d
                .scope_insts
                .iter()
                .map(|i| MetricScope {
                    scope: m.scopes[i.scope].name.clone(),
                    kind: scope_kind(&m.scopes[i.scope]),
                    prop_metric_id: i.prop_metric_id,
                })
                .collect(),
            summaries: d
                .summaries
                .iter()
                .filter_map(|s| {
                    let Some(combine) = Combine::of_code(s.combine) else {
                        *bad_combine += 1;
                        return None;
                    };
                    Some(SummaryStat {
                        scope: m.scopes[s.scope].name.clone(),
                        kind: scope_kind(&m.scopes[s.scope]),
                        formula: s.formula.clone(),
                        combine,
                        stat_metric_id: s.stat_metric_id,
                    })
                })
                .collect(),
            ..Metric::named(&d.name)
        })
        .collect()
}

/// Every stored profile, the summary flagged, with its identifier tuple.
fn profiles(db: &Database) -> Vec<ProfileInfo> {
    db.profiles
        .profiles
        .iter()
        .enumerate()
        .map(|(i, p)| ProfileInfo {
            summary: p.is_summary(i),
            id_tuple: db
                .profiles
                .id_tuple(i)
                .unwrap_or(&[])
                .iter()
                .map(|id| Identifier {
                    kind: id.kind as u16,
                    logical_id: id.logical_id,
                    physical_id: id.physical_id,
                    physical: id.flags & 1 != 0,
                })
                .collect(),
        })
        .collect()
}

/// trace.db's lines and time range (`None` without a trace.db).
fn trace_info(db: &Database) -> Option<TraceInfo> {
    db.trace.as_ref().map(|(_, t)| {
        let range = t.range();
        TraceInfo {
            min_time: range.map(|r| r.0),
            max_time: range.map(|r| r.1),
            lines: t
                .lines
                .iter()
                .map(|l| TraceLineInfo {
                    prof_index: l.prof_index,
                    samples: l.samples(),
                })
                .collect(),
        }
    })
}

/// The facts the summary shows, in display order.
fn facts(
    db: &Database,
    n_metrics: usize,
    n_contexts: usize,
    profiles: &[ProfileInfo],
    trace: Option<&TraceInfo>,
) -> Vec<(String, String)> {
    let m = &db.meta;
    let mut facts = vec![
        ("title".to_string(), m.general.title.clone()),
        ("layout".to_string(), db.layout.name().to_string()),
        ("description".to_string(), m.general.description.clone()),
        ("metrics".to_string(), n_metrics.to_string()),
        ("contexts".to_string(), n_contexts.to_string()),
        ("entry points".to_string(), m.entry_points.len().to_string()),
        (
            "profiles".to_string(),
            profiles.iter().filter(|p| !p.summary).count().to_string(),
        ),
        ("load modules".to_string(), m.code.modules.len().to_string()),
        ("source files".to_string(), m.code.files.len().to_string()),
        ("functions".to_string(), m.code.functions.len().to_string()),
    ];
    facts.extend(TraceInfo::facts(trace));
    facts
}

/// The format-neutral dataset of an opened database (values stay behind `Dataset::data`).
pub(super) fn dataset(
    db: &Database,
    group: &DatasetGroup,
    tree: Cct,
    mut warnings: Vec<Warning>,
) -> Dataset {
    let m = &db.meta;
    let (modules, source_files) = m.code.model_paths();
    let functions = functions(m, &modules);
    let mut bad_combine = 0;
    let metrics = metrics(m, &mut bad_combine);
    if bad_combine > 0 {
        warnings.push(
            Error::invalid(
                db.profile_src.name(),
                0,
                format!(
                    "{bad_combine} summary statistics with an unknown combine function left out"
                ),
            )
            .context("meta.db"),
        );
    }
    let profiles = profiles(db);
    let trace = trace_info(db);
    let n_contexts = tree.tree.len().saturating_sub(1);
    let facts = facts(db, metrics.len(), n_contexts, &profiles, trace.as_ref());
    let taxonomy = super::taxonomy::from_group(group, &metrics, &mut warnings);
    Dataset {
        format: "hpctoolkit".into(),
        layout: db.layout.name().into(),
        title: m.general.title.clone(),
        files: group.file_entries(),
        facts,
        id_names: m.id_names.clone(),
        modules,
        source_files,
        functions,
        cct: tree,
        metrics,
        summary_profile: db.summary_index,
        profiles,
        trace,
        taxonomy,
        warnings,
        data: Box::new(crate::model::NoLazyData),
    }
}
