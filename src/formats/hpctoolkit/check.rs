//! What ties the files of one run together (HPCToolkit writes no run id), checked at open time so
//! files of different runs are refused: ids each file uses must exist in the others, and the
//! summary's statistics must agree with cct.db's values (FORMATS.md "profile.db", "cct.db").

// A cct.db of the right size that only lacks values profile.db has (2022 drafts left some out) is
// told apart and reported, so its context values are read from profile.db instead.

use super::database::CtxMap;
use super::{cct, meta, profile, trace};
use crate::bytes::Source;
use crate::error::{Error, Result};
use crate::model::SparseValues;

/// Evenly spaced picks of at most `k` out of `0..n`.
pub(super) fn spread(n: usize, k: usize) -> impl Iterator<Item = usize> {
    let k = k.min(n);
    (0..k).map(move |i| if k <= 1 { 0 } else { i * (n - 1) / (k - 1) })
}

fn is_execution(s: &meta::Scope) -> bool {
    s.scope_type == Some(2) || (s.scope_type.is_none() && s.name == "execution")
}

fn different(file: &str, what: String) -> Error {
    Error::mismatch(file, format!("{what}: files from different runs"))
}

/// The summary profile as [`check_run`] sees it: the stored context index and the model values.
pub(super) struct SummaryView<'a> {
    pub index: &'a [(u32, u64, u64)],
    pub values: &'a SparseValues,
    pub map: &'a CtxMap,
    pub src: &'a Source,
    /// First statMetricId meta.db does not declare among the values of contexts the tree does
    /// not list (found while the values were read).
    pub unknown_elsewhere: Option<u16>,
}

impl SummaryView<'_> {
    /// Values of a context of meta.db's tree: (statMetricId, value).
    fn at(&self, ctx: u32) -> Vec<(u16, f64)> {
        let v = self.values;
        let Some(i) = self
            .map
            .get(ctx)
            .and_then(|n| v.nodes.binary_search(&n).ok())
        else {
            return Vec::new();
        };
        let (a, b) = (v.starts[i] as usize, v.starts[i + 1] as usize);
        let ids = v.ids.get(a..b).unwrap_or(&[]);
        let vals = v.values.get(a..b).unwrap_or(&[]);
        ids.iter().copied().zip(vals.iter().copied()).collect()
    }
    fn has(&self, ctx: u32) -> bool {
        self.map.get(ctx).is_some()
    }
}

/// Declared statMetricIds as a table (the summary holds ~10 values per context).
pub(super) fn declared_stats(m: &meta::MetaDb) -> Vec<bool> {
    let mut declared: Vec<bool> = Vec::new();
    for s in m.metrics.iter().flat_map(|d| d.summaries.iter()) {
        let i = s.stat_metric_id as usize;
        if declared.len() <= i {
            declared.resize(i + 1, false);
        }
        declared[i] = true;
    }
    declared
}

/// cct.db indexes contexts by ctxId: it must have a context info for every ctxId of meta.db's
/// tree (`ctx_ids`).
pub(super) fn check_cct_covers(cct: Option<&(Source, cct::CctDb)>, ctx_ids: &[u32]) -> Result<()> {
    let max_ctx = ctx_ids.iter().copied().max().unwrap_or(0);
    if let Some((src, c)) = cct {
        if c.n_ctxs() <= max_ctx as u64 {
            return Err(different(
                src.name(),
                format!(
                    "cct.db has {} contexts but meta.db uses context id {max_ctx}",
                    c.n_ctxs()
                ),
            ));
        }
    }
    Ok(())
}

/// What ties the files of one run together, checked at open time from the summary profile (read
/// anyway) and about forty small reads of the other files:
/// - profile.db's summary profile uses only statMetricIds meta.db declares;
/// - cct.db indexes contexts by ctxId: it must list every ctxId of meta.db (see
///   [`check_cct_covers`]) and of the summary;
/// - cct.db and trace.db refer to profiles by index: every index they use (the values read
///   below, every trace line) must exist in profile.db;
/// - the global context (ctxId 0) aggregates the entry points: in the summary, each `sum`-of-`$$`
///   statistic at ctxId 0 is at least the sum over the top-level contexts of meta.db's tree;
/// - summary statistics are computed over profiles from the values cct.db stores (one per
///   profile with a non-zero value). At ctxId 0 and up to 16 spread contexts (chosen from both
///   files), cct.db's metric index alone (no values) gives, per metric, how many profiles have a
///   value; for every execution-scope metric it must equal the summary's count statistic (`1`
///   summed), and a non-zero `$$` sum in the summary needs values in cct.db. At the checked
///   context and metric with the fewest values, the values are read (one read): their sum must
///   equal the summary's `$$` sum;
/// - trace samples name contexts of meta.db: 16 consecutive samples of up to 16 lines (one read
///   per line) are checked.
///
/// Where cct.db has fewer values than the summary counts (or smaller sums), it lacks values: when
/// it lists exactly the contexts meta.db's tree numbers (`n_ctx_ids`, the largest ctxId plus one)
/// and nowhere has more values than the summary, it is of this run but incomplete, and the answer
/// says where (files of another run have another number of contexts and stay refused).
pub(super) fn check_run(
    m: &meta::MetaDb,
    tops: &[u32],
    summary: &SummaryView,
    cct: Option<&(Source, cct::CctDb)>,
    trace: Option<&(Source, trace::TraceDb)>,
    n_profiles: u64,
    n_ctx_ids: u64,
) -> Result<CctValues> {
    check_summary_ids(m, summary)?;
    check_root_totals(m, tops, summary)?;
    if let Some((src, t)) = trace {
        check_trace(src, t, summary, n_profiles)?;
    }
    let Some((src, c)) = cct else {
        return Ok(CctValues::Complete);
    };
    match check_cct(m, summary, src, c, n_profiles)? {
        CctValues::Incomplete(what) if c.n_ctxs() != n_ctx_ids => Err(different(
            src.name(),
            format!(
                "{what}, and cct.db lists {} contexts where meta.db numbers {n_ctx_ids}",
                c.n_ctxs()
            ),
        )),
        v => Ok(v),
    }
}

/// Whether cct.db holds every value the summary accounts for.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum CctValues {
    Complete,
    /// cct.db lacks values profile.db has: where first seen.
    Incomplete(String),
}

/// The summary profile uses only statMetricIds meta.db declares.
fn check_summary_ids(m: &meta::MetaDb, summary: &SummaryView) -> Result<()> {
    let declared = declared_stats(m);
    let bad = |id: u16| !declared.get(id as usize).copied().unwrap_or(false);
    // The tree's contexts from the model values (when the declared ids have no gap, their
    // maximum tells); the others were checked while the values were read.
    let ids = &summary.values.ids;
    let unknown = if declared.iter().all(|&d| d) {
        ids.iter().copied().max().filter(|&id| bad(id))
    } else {
        ids.iter().copied().find(|&id| bad(id))
    }
    .or(summary.unknown_elsewhere);
    if let Some(id) = unknown {
        return Err(different(
            summary.src.name(),
            format!("the summary profile holds metric id {id}, which meta.db does not declare"),
        ));
    }
    Ok(())
}

/// Each `sum`-of-`$$` execution-scope statistic at ctxId 0 is at least the sum over the
/// top-level contexts `tops`.
fn check_root_totals(m: &meta::MetaDb, tops: &[u32], summary: &SummaryView) -> Result<()> {
    let root_stats = summary.at(0);
    if root_stats.is_empty() || tops.is_empty() {
        return Ok(());
    }
    let mut below: Vec<(u16, f64)> = Vec::new();
    for &t in tops {
        below.extend(summary.at(t));
    }
    // Only execution-scope (inclusive) statistics add up from the top-level contexts.
    let exec = |id: u16| {
        m.metrics.iter().flat_map(|d| d.summaries.iter()).any(|s| {
            s.stat_metric_id == id
                && s.combine == 0
                && s.formula == "$$"
                && is_execution(&m.scopes[s.scope])
        })
    };
    let pick =
        |v: &[(u16, f64)]| -> Vec<(u16, f64)> { v.iter().copied().filter(|r| exec(r.0)).collect() };
    let (a, b) = (pick(&root_stats), pick(&below));
    // The global context may also hold values of its own (FORMATS.md: corner cases with no
    // context), so the top-level contexts can only add up to at most its total.
    for &(id, v) in &a {
        let parts: Vec<f64> = b.iter().filter(|r| r.0 == id).map(|r| r.1).collect();
        if v < 0.0 || parts.iter().any(|&x| x < 0.0) {
            continue;
        }
        let total: f64 = parts.iter().sum();
        if total > v * (1.0 + 1e-6) {
            return Err(different(summary.src.name(), format!("the summary's total {v} of metric id {id} is below the sum {total} over meta.db's top-level contexts")));
        }
    }
    Ok(())
}

/// Every trace line is of a profile of profile.db, and sampled trace contexts are in meta.db.
fn check_trace(
    src: &Source,
    t: &trace::TraceDb,
    summary: &SummaryView,
    n_profiles: u64,
) -> Result<()> {
    if let Some(l) = t.lines.iter().find(|l| l.prof_index as u64 >= n_profiles) {
        return Err(different(
            src.name(),
            format!(
                "trace.db has a line for profile {} but profile.db has {n_profiles} profiles",
                l.prof_index
            ),
        ));
    }
    // hpcprof writes trace samples with ids from meta.db's tree (true of every traced corpus
    // database, GPU and no-struct ones included): one unknown id means another analysis.
    let (mut checked, mut unknown, mut example) = (0u32, 0u32, 0u32);
    let picks = trace_picks(t);
    src.will_need(&picks);
    for &(at, len) in &picks {
        let bytes = src.bytes(at, len, "trace samples")?;
        for e in bytes.chunks_exact(trace::SZ_ELEM as usize) {
            let ctx = u32::from_le_bytes([e[8], e[9], e[10], e[11]]);
            if ctx != 0 {
                checked += 1;
                if !summary.has(ctx) {
                    unknown += 1;
                    example = ctx;
                }
            }
        }
    }
    if unknown > 0 {
        return Err(different(
            src.name(),
            format!(
                "{unknown} of {checked} sampled trace contexts (e.g. {example}) are not in meta.db"
            ),
        ));
    }
    Ok(())
}

/// The samples the trace check reads, as (offset, length): 16 lines spread over the file, 16
/// consecutive samples of each, taken further into the run from one line to the next so the
/// picks still cover the whole run.
pub(super) fn trace_picks(t: &trace::TraceDb) -> Vec<(u64, u64)> {
    let picks: Vec<usize> = spread(t.lines.len(), 16).collect();
    picks
        .iter()
        .enumerate()
        .map(|(k, &li)| {
            let l = &t.lines[li];
            let n = l.samples();
            let take = n.min(16);
            let first = if picks.len() > 1 {
                (n - take) * k as u64 / (picks.len() as u64 - 1)
            } else {
                0
            };
            (l.p_start + first * trace::SZ_ELEM, take * trace::SZ_ELEM)
        })
        .collect()
}

/// An execution-scope metric as cct.db and the summary store it: (metric name, statMetricId of
/// the `$$` sum, of the `1` sum if declared, propMetricId).
type ExecMetric<'a> = (&'a str, u16, Option<u16>, u16);

/// Every execution-scope metric: custom scopes (lex_aware) are summarized differently and are
/// not compared.
fn exec_metrics(m: &meta::MetaDb) -> Vec<ExecMetric<'_>> {
    let mut pairs: Vec<ExecMetric> = Vec::new();
    for d in &m.metrics {
        let sum_of = |s: &meta::Summary, formula: &str| {
            s.combine == 0 && s.formula == formula && is_execution(&m.scopes[s.scope])
        };
        for s in d.summaries.iter().filter(|s| sum_of(s, "$$")) {
            if let Some(inst) = d.scope_insts.iter().find(|i| i.scope == s.scope) {
                let count = d
                    .summaries
                    .iter()
                    .find(|c| c.scope == s.scope && sum_of(c, "1"))
                    .map(|c| c.stat_metric_id);
                pairs.push((&d.name, s.stat_metric_id, count, inst.prop_metric_id));
            }
        }
    }
    pairs
}

/// The contexts whose cct.db values are compared with the summary: ctxId 0, then picks from both
/// files in turn, among the contexts of meta.db's tree (the model keeps the summary's values of
/// those only).
fn contexts_to_compare(summary: &SummaryView, c: &cct::CctDb) -> Vec<u32> {
    let summary_ctx = summary.index;
    let from_summary: Vec<u32> = spread(summary_ctx.len(), 8)
        .map(|i| summary_ctx[i].0)
        .filter(|&c| summary.has(c))
        .collect();
    let from_cct: Vec<u32> = spread(c.n_ctxs() as usize, 8)
        .map(|i| i as u32)
        .filter(|&c| summary.has(c))
        .collect();
    let mut ctxs: Vec<u32> = vec![0];
    for i in 0..from_summary.len().max(from_cct.len()) {
        for v in [from_summary.get(i), from_cct.get(i)].into_iter().flatten() {
            if !ctxs.contains(v) {
                ctxs.push(*v);
            }
        }
    }
    ctxs
}

/// The run of cct.db values read to check a summary sum: (number of values, ctx, block, first,
/// end, metric name, summary sum).
type Fewest<'a> = (u64, u32, profile::ValueBlock, u64, u64, &'a str, f64);

/// cct.db lists every context of the summary; at the picked contexts, its per-metric value counts
/// match the summary's counts, and at the run with the fewest values, the values sum to the
/// summary's `$$` sum, and name profiles of profile.db. Fewer values than the summary accounts
/// for make the answer [`CctValues::Incomplete`]; more, files of different runs.
fn check_cct(
    m: &meta::MetaDb,
    summary: &SummaryView,
    src: &Source,
    c: &cct::CctDb,
    n_profiles: u64,
) -> Result<CctValues> {
    if let Some(&(ctx, _, _)) = summary
        .index
        .iter()
        .find(|&&(ctx, _, _)| ctx as u64 >= c.n_ctxs())
    {
        return Err(different(
            src.name(),
            format!(
                "profile.db has values for context {ctx} but cct.db lists {} contexts",
                c.n_ctxs()
            ),
        ));
    }
    let ctxs = contexts_to_compare(summary, c);
    // Every picked context's metric index, named at once (each is a round trip over a URL).
    let indexes: Vec<(u64, u64)> = ctxs
        .iter()
        .filter_map(|&ctx| c.block(src, ctx).ok().flatten())
        .map(|b| cct::index_range(&b))
        .collect();
    src.will_need(&indexes);
    let pairs = exec_metrics(m);
    let mut fewest: Option<Fewest> = None;
    let mut missing: Option<String> = None;
    for ctx in ctxs {
        let Some((block, runs)) = c.metric_runs(src, ctx)? else {
            continue;
        };
        let stats = summary.at(ctx);
        let stat_of = |id: u16| -> f64 { stats.iter().filter(|r| r.0 == id).map(|r| r.1).sum() };
        for &(name, sum_id, count_id, prop_id) in &pairs {
            let (a, b) = runs
                .iter()
                .find(|r| r.0 == prop_id)
                .map(|r| (r.1, r.2))
                .unwrap_or((0, 0));
            let n = b.saturating_sub(a);
            if let Some(count_id) = count_id {
                let counted = stat_of(count_id);
                let what = format!("at context {ctx}, metric '{name}': profile.db's summary counts {counted} profiles with a value, cct.db has {n}");
                if (n as f64) > counted {
                    return Err(different(src.name(), what));
                }
                if (n as f64) < counted {
                    missing.get_or_insert(what);
                    continue;
                }
            }
            let stat = stat_of(sum_id);
            if n == 0 {
                if stat != 0.0 {
                    missing.get_or_insert(format!("at context {ctx}, metric '{name}': profile.db's summary is {stat} but cct.db has no values"));
                }
            } else if fewest.is_none_or(|f| n < f.0) {
                fewest = Some((n, ctx, block, a, b, name, stat));
            }
        }
    }
    if let Some(f) = fewest {
        if let Some(what) = check_cct_sum(src, f, n_profiles)? {
            missing.get_or_insert(what);
        }
    }
    Ok(match missing {
        Some(what) => CctValues::Incomplete(what),
        None => CctValues::Complete,
    })
}

/// The values of one cct.db run name profiles of profile.db and sum to the summary's sum; a sum
/// of non-negative values short of the summary's is values missing (returned), any other
/// difference files of different runs.
fn check_cct_sum(
    src: &Source,
    (_, ctx, block, a, b, name, stat): Fewest,
    n_profiles: u64,
) -> Result<Option<String>> {
    let vals = cct::CctDb::run_values(src, &block, a, b)?;
    if let Some(&(p, _)) = vals.iter().find(|&&(p, _)| p as u64 >= n_profiles) {
        return Err(different(
            src.name(),
            format!("cct.db has values of profile {p} but profile.db has {n_profiles} profiles"),
        ));
    }
    let total: f64 = vals.iter().map(|v| v.1).sum();
    let magnitude: f64 = vals.iter().map(|v| v.1.abs()).sum();
    // Summation order differs between writer and reader: tolerate rounding relative to the
    // magnitudes summed.
    let scale = magnitude.max(stat.abs());
    if scale > 0.0 && (total - stat).abs() > 1e-6 * scale {
        let what = format!("at context {ctx}, metric '{name}': profile.db's summary {stat} differs from cct.db's total {total}");
        if vals.iter().all(|v| v.1 >= 0.0) && total < stat {
            return Ok(Some(what));
        }
        return Err(different(src.name(), what));
    }
    Ok(None)
}
