//! An XML-era database as the format-neutral model: experiment.xml's tree with its ids as context
//! ids and its `M` values as the summary profile, one profile per thread whose values come from
//! the metric-db files or experiment.mdb, and trace lines from .hpctrace files or experiment.mt.
//! Metrics pair a MetricTable column (summary) with its MetricDB column (per thread) by name.

use super::data::{Thread, XmlData};
use super::experiment::{self, Experiment, MetricType};
use super::formulas::{self, is_view_only};
use super::mdb::Merged;
use super::metric_db::{rank_thread, MetricDbFile};
use super::trace::{self, XmlTraceLine};
use super::{MDB, METRIC_DB, MT};
use crate::error::{Error, Result, Warning};
use crate::formats::hpcrun::{DEFAULT_ID_NAMES, TRACE};
use crate::formats::{DatasetGroup, EXPERIMENT_XML};
use crate::model::{
    Combine, Dataset, Identifier, Metric, MetricScope, ProfileInfo, ScopeKind, SummaryStat,
    TraceInfo, TraceLineInfo,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Statistic names hpcprof appends to a summary metric ("cycles:Sum (I)").
const STATS: [&str; 6] = ["Sum", "Mean", "StdDev", "CfVar", "Min", "Max"];

/// A metric name split into its base, its statistic and its scope: "cycles:Sum (I)" is
/// ("cycles", Some("Sum"), Some(Execution)); "cycles (E)" is ("cycles", None, Some(Function)).
pub(super) fn split_name(name: &str) -> (&str, Option<&str>, Option<ScopeKind>) {
    let (rest, kind) = if let Some(b) = name.strip_suffix(" (I)") {
        (b, Some(ScopeKind::Execution))
    } else if let Some(b) = name.strip_suffix(" (E)") {
        (b, Some(ScopeKind::Function))
    } else {
        (name, None)
    };
    match rest.rsplit_once(':') {
        Some((base, stat)) if STATS.contains(&stat) => (base, Some(stat), kind),
        _ => (rest, None, kind),
    }
}

fn kind_of(t: MetricType, from_name: Option<ScopeKind>) -> ScopeKind {
    match t {
        MetricType::Inclusive => ScopeKind::Execution,
        MetricType::Exclusive => ScopeKind::Function,
        MetricType::Nil => from_name.unwrap_or(ScopeKind::Point),
    }
}

fn scope_name(k: ScopeKind) -> &'static str {
    match k {
        ScopeKind::Execution => "execution",
        ScopeKind::Function => "function",
        _ => "point",
    }
}

/// Model metrics: one per base name, with the summary columns of the MetricTable and the
/// per-thread columns of the MetricDBTable. Returns them and the view-only columns left out.
fn metrics(x: &Experiment, warnings: &mut Vec<Warning>, file: &str) -> (Vec<Metric>, Vec<String>) {
    let mut out: Vec<Metric> = Vec::new();
    let mut views = Vec::new();
    let index = |out: &mut Vec<Metric>, base: &str| -> usize {
        if let Some(i) = out.iter().position(|m| m.name == base) {
            return i;
        }
        out.push(Metric::named(base));
        out.len() - 1
    };
    let mut wide_ids = 0;
    for m in &x.tables.metrics {
        if is_view_only(m) {
            let f = m
                .formulas
                .iter()
                .find(|(t, _)| t == "view")
                .map(|f| f.1.as_str());
            views.push(format!("{} = {}", m.name, f.unwrap_or("")));
            continue;
        }
        let Ok(id) = u16::try_from(m.id) else {
            wide_ids += 1;
            continue;
        };
        let (base, stat, from_name) = split_name(&m.name);
        let kind = kind_of(m.t, from_name);
        let combine_f = m
            .formulas
            .iter()
            .find(|(t, _)| t == "combine")
            .map(|f| f.1.trim());
        let combine = match (stat, combine_f) {
            (Some("Min"), _) => Combine::Min,
            (Some("Max"), _) => Combine::Max,
            (_, Some(f)) if f.starts_with("min(") => Combine::Min,
            (_, Some(f)) if f.starts_with("max(") => Combine::Max,
            _ => Combine::Sum,
        };
        // The statistic's name stands for its formula: `Metric::value_id` takes the first sum
        // that is not a count, and sums are listed first.
        let formula = match stat {
            Some(s) => s.to_string(),
            None => "$$".to_string(),
        };
        let i = index(&mut out, base);
        let s = SummaryStat {
            scope: scope_name(kind).into(),
            kind,
            formula,
            combine,
            stat_metric_id: id,
        };
        out[i].summaries.push(s);
    }
    for m in &mut out {
        crate::sort::sort_by_key(&mut m.summaries, |s| {
            s.formula != "Sum" && s.formula != "$$"
        });
    }
    for d in &x.tables.metric_dbs {
        let Ok(col) = u16::try_from(d.db_id) else {
            wide_ids += 1;
            continue;
        };
        let (base, _, from_name) = split_name(&d.name);
        let kind = kind_of(d.t, from_name);
        let i = index(&mut out, base);
        out[i].scopes.push(MetricScope {
            scope: scope_name(kind).into(),
            kind,
            prop_metric_id: col,
        });
    }
    if wide_ids > 0 {
        warnings.push(Error::invalid(
            file,
            0,
            format!("{wide_ids} metric columns with ids above 65535 left out"),
        ));
    }
    (out, views)
}

/// Per-thread value sources: experiment-N.mdb (what hpcviewer reads, N from the MetricDB glob's
/// first character, 1 when it is not a digit) or else experiment.mdb, or else the metric-db files.
fn threads(
    group: &DatasetGroup,
    x: &Experiment,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<Thread>> {
    let mdbs: Vec<_> = group.files_of(MDB).collect();
    let n = x
        .tables
        .metric_dbs
        .first()
        .and_then(|d| d.db_glob.chars().next())
        .and_then(|c| c.to_digit(10))
        .unwrap_or(1);
    let wanted = format!("experiment-{n}.mdb");
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let chosen = mdbs
        .iter()
        .find(|f| base(&f.path) == wanted)
        .or_else(|| mdbs.iter().find(|f| base(&f.path) == "experiment.mdb"))
        .or(mdbs.first());
    let mut out = Vec::new();
    if let Some(f) = chosen {
        let merged = Merged::open(&f.source, warnings)?;
        for (i, e) in merged.entries.iter().enumerate() {
            out.push(Thread {
                rank: e.process,
                thread: e.thread,
                db: Some(merged.metric_db(i)?),
            });
        }
        if group.files_of(METRIC_DB).next().is_some() {
            warnings.push(Error::mismatch(
                &f.path,
                "metric-db files beside a merged experiment .mdb: the merged file is read",
            ));
        }
        return Ok(out);
    }
    for (i, f) in group.files_of(METRIC_DB).enumerate() {
        let (rank, thread) = rank_thread(&f.path).unwrap_or((0, i as u32));
        out.push(Thread {
            rank,
            thread,
            db: Some(MetricDbFile::open(&f.source, 0, f.source.len())?),
        });
    }
    Ok(out)
}

/// Checks each thread's column count against the MetricDBTable's.
fn check_columns(threads: &[Thread], x: &Experiment, warnings: &mut Vec<Warning>) {
    let want = x
        .tables
        .metric_dbs
        .iter()
        .filter_map(|d| d.num_metrics)
        .max();
    let cols = x
        .tables
        .metric_dbs
        .iter()
        .map(|d| d.db_id as u64 + 1)
        .max()
        .unwrap_or(0);
    for t in threads {
        let Some(db) = &t.db else { continue };
        if want.is_some_and(|w| w != db.num_metrics) || (db.num_metrics as u64) < cols {
            warnings.push(Error::mismatch(
                db.source.name(),
                format!(
                    "thread {}.{} stores {} metric columns, experiment.xml describes {}",
                    t.rank,
                    t.thread,
                    db.num_metrics,
                    want.unwrap_or(cols as u32)
                ),
            ));
        }
    }
}

/// The trace lines: the .hpctrace files, else experiment.mt.
fn trace_lines(group: &DatasetGroup, warnings: &mut Vec<Warning>) -> Result<Vec<XmlTraceLine>> {
    let files: Vec<_> = group.files_of(TRACE).map(|f| &f.source).collect();
    if !files.is_empty() {
        return Ok(trace::from_files(files.into_iter(), warnings));
    }
    match group.file(MT) {
        Some(f) => trace::from_mt(&f.source, warnings),
        None => Ok(Vec::new()),
    }
}

/// Opens an XML-era database.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    let xml = group
        .file(EXPERIMENT_XML)
        .ok_or_else(|| Error::mismatch(&group.root, "XML-era database without experiment.xml"))?;
    let mut warnings = Vec::new();
    let x = experiment::read(&xml.source, &mut warnings)?;
    let file = xml.source.name().to_string();
    let (metrics, views) = metrics(&x, &mut warnings, &file);
    let taxonomy = formulas::taxonomy(&x, &metrics, &mut warnings, &file);
    let mut threads = threads(group, &x, &mut warnings)?;
    check_columns(&threads, &x, &mut warnings);
    let lines = trace_lines(group, &mut warnings)?;
    // A traced thread without values of its own still needs a profile for its line.
    let mut by_id: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for (i, t) in threads.iter().enumerate() {
        by_id.entry((t.rank, t.thread)).or_insert(i);
    }
    let mut line_profile = Vec::with_capacity(lines.len());
    for l in &lines {
        let i = *by_id.entry((l.rank, l.thread)).or_insert_with(|| {
            threads.push(Thread {
                rank: l.rank,
                thread: l.thread,
                db: None,
            });
            threads.len() - 1
        });
        line_profile.push(i);
    }
    let id_names: Vec<String> = DEFAULT_ID_NAMES.iter().map(|s| s.to_string()).collect();
    let mut profiles = vec![ProfileInfo {
        summary: true,
        id_tuple: Vec::new(),
    }];
    for t in &threads {
        let id = |kind: u16, v: u32| Identifier {
            kind,
            logical_id: v,
            physical_id: v as u64,
            physical: false,
        };
        profiles.push(ProfileInfo {
            summary: false,
            id_tuple: vec![id(2, t.rank), id(3, t.thread)],
        });
    }
    let trace = trace_info(&lines, &line_profile)?;
    let facts = facts(&x, &metrics, &views, &threads, trace.as_ref());
    let files = group.file_entries();
    let node_ids = x.tree.cct.ctx_id.clone();
    let data = XmlData::new(
        Arc::new(x.tree.summary),
        threads,
        lines,
        node_ids,
        x.tree.trace_ids,
    );
    Ok(Dataset {
        format: super::ID.into(),
        layout: format!("experiment.xml v{}", x.version),
        title: x.title,
        files,
        facts,
        id_names,
        modules: x.tables.modules,
        source_files: x.tables.source_files,
        functions: x.tables.functions,
        cct: x.tree.cct,
        metrics,
        profiles,
        summary_profile: Some(0),
        trace,
        taxonomy,
        warnings,
        data: Box::new(data),
    })
}

/// Lines and time range of the trace (`None` without trace lines).
fn trace_info(lines: &[XmlTraceLine], line_profile: &[usize]) -> Result<Option<TraceInfo>> {
    if lines.is_empty() {
        return Ok(None);
    }
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for l in lines {
        if let Some((a, b)) = l.ends()? {
            lo = lo.min(a.min(b));
            hi = hi.max(a.max(b));
        }
    }
    Ok(Some(TraceInfo {
        min_time: (lo <= hi).then_some(lo),
        max_time: (lo <= hi).then_some(hi),
        lines: lines
            .iter()
            .zip(line_profile)
            .map(|(l, &p)| TraceLineInfo {
                prof_index: p as u32 + 1,
                samples: l.trace.count,
            })
            .collect(),
    }))
}

/// The facts the summary shows, in display order.
fn facts(
    x: &Experiment,
    metrics: &[Metric],
    views: &[String],
    threads: &[Thread],
    trace: Option<&TraceInfo>,
) -> Vec<(String, String)> {
    let with_values = threads.iter().filter(|t| t.db.is_some()).count();
    let mut facts = vec![
        ("title".to_string(), x.title.clone()),
        (
            "layout".to_string(),
            format!("experiment.xml v{}", x.version),
        ),
        ("metrics".to_string(), metrics.len().to_string()),
        (
            "contexts".to_string(),
            x.tree.cct.tree.len().saturating_sub(1).to_string(),
        ),
        ("profiles".to_string(), threads.len().to_string()),
        (
            "per-thread values".to_string(),
            if with_values > 0 {
                format!("{with_values} threads")
            } else {
                "none (views use the summary values of experiment.xml)".to_string()
            },
        ),
        (
            "load modules".to_string(),
            x.tables.modules.len().to_string(),
        ),
        (
            "source files".to_string(),
            x.tables.source_files.len().to_string(),
        ),
        (
            "functions".to_string(),
            x.tables.functions.len().to_string(),
        ),
    ];
    facts.extend(x.tree.facts.iter().cloned());
    let hidden: Vec<&str> = x
        .tables
        .metrics
        .iter()
        .filter(|m| m.show == 0 || m.show == 4)
        .map(|m| m.name.as_str())
        .collect();
    if !hidden.is_empty() {
        facts.push(("hidden metric columns".into(), hidden.join("; ")));
    }
    if !views.is_empty() {
        // Computed as formula metrics (formulas.rs); one that is not has a warning.
        facts.push(("view formulas".into(), views.join("; ")));
    }
    facts.extend(TraceInfo::facts(trace));
    facts
}
