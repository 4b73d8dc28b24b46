//! Opening a v4.0 database: the group's files, meta.db and profile.db read in full, cct.db and
//! trace.db opened (a damaged one is dropped with a warning), the summary profile read, the
//! cross-file checks run; other profiles, cct.db blocks and trace lines stay on demand ([`Database`]).

use super::check::{
    check_cct_covers, check_run, declared_stats, trace_picks, CctValues, SummaryView,
};
use super::layout::{check_file, layout_of, section, Layout, Slot};
use super::lazy::HpcData;
use super::to_model::{build_tree, dataset};
use super::{cct, meta, profile, trace};
use super::{CCT_DB, META_DB, PROFILE_DB, TRACE_DB};
use crate::bytes::Source;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::formats::{DatasetGroup, FileKind};
use crate::model::{Dataset, SparseValues, NONE};
use std::rc::Rc;
use std::sync::Arc;

pub(super) struct Files {
    pub meta: Source,
    pub profile: Source,
    pub cct: Option<Source>,
    pub trace: Option<Source>,
}

/// The database's files; meta.db is checked first so a lone damaged meta.db reports its own
/// problem rather than the missing companions.
pub(super) fn files(group: &DatasetGroup) -> Result<Files> {
    if let Some(m) = group.file(META_DB) {
        check_file(&m.source, b"meta", b"_meta.db")?;
    }
    let get = |k: FileKind| group.file(k).map(|f| f.source.clone());
    let missing = |what: &str| {
        Error::new(
            ErrorKind::Mismatch,
            &group.root,
            None,
            format!("HPCToolkit database without its {what} (drop the whole database folder)"),
        )
    };
    Ok(Files {
        meta: get(META_DB).ok_or_else(|| missing("meta.db"))?,
        profile: get(PROFILE_DB).ok_or_else(|| missing("profile.db"))?,
        cct: get(CCT_DB),
        trace: get(TRACE_DB),
    })
}

/// An opened database: the raw structures of every file, for callers that want them as stored
/// (the transcript), and the on-demand readers behind the model's [`crate::model::LazyData`].
pub struct Database {
    pub layout: Layout,
    /// meta.db as read, except `contexts`, which is left empty once the model's tree is built
    /// (it is the largest part and only the transcript wants it): see [`Database::contexts`].
    pub meta: meta::MetaDb,
    meta_src: Source,
    pub profile_src: Source,
    pub profiles: profile::ProfileDb,
    pub cct: Option<(Source, cct::CctDb)>,
    /// cct.db holds every value profile.db has; when not (a 2022 draft left some out), values
    /// by context are read from profile.db.
    pub cct_complete: bool,
    pub trace: Option<(Source, trace::TraceDb)>,
    /// Index of the summary profile in `profiles.profiles`.
    pub summary_index: Option<usize>,
    pub(super) summary: Arc<SparseValues>,
    /// ctxId -> model node.
    ctx_map: CtxMap,
    /// ctxId of each model node.
    pub(super) ctx_of_node: Vec<u32>,
}

impl Database {
    /// meta.db's context records in file order, read again from meta.db.
    pub fn contexts(&self) -> Result<Vec<meta::ContextSpec>> {
        let src = if self.meta_src.as_slice().is_some() {
            self.meta_src.clone()
        } else {
            let all = self.meta_src.bytes(0, self.meta_src.len(), "meta.db")?;
            Source::from_vec(self.meta_src.name(), all.into_owned())
        };
        Ok(meta::read(&src, self.layout, &mut Vec::new())?.contexts)
    }

    /// Model node of a ctxId (0 is the root).
    pub fn node_of_ctx(&self, ctx: u32) -> Option<u32> {
        self.ctx_map.get(ctx)
    }

    fn profile_record(&self, prof: usize) -> Result<&profile::ProfileRecord> {
        self.profiles
            .profiles
            .get(prof)
            .ok_or_else(|| Error::invalid(self.profile_src.name(), 0, format!("no profile {prof}")))
    }

    /// The values of one profile exactly as stored (ctxIds and metric ids of the file).
    pub fn profile_raw(&self, prof: usize) -> Result<profile::ProfileValues> {
        profile::read_values(&self.profile_src, &self.profile_record(prof)?.block)
    }

    /// One stored value, by binary search through profile.db.
    pub fn value_at(&self, prof: usize, ctx: u32, metric: u16) -> Result<Option<f64>> {
        profile::value_at(
            &self.profile_src,
            &self.profile_record(prof)?.block,
            ctx,
            metric,
        )
    }

    /// The values of one context in every profile, read from profile.db (one binary search per
    /// profile): (metricId, profIndex, value), as cct.db would give them.
    pub fn context_from_profiles(&self, ctx: u32) -> Result<cct::ContextValues> {
        let mut out = Vec::new();
        for (i, p) in self.profiles.profiles.iter().enumerate() {
            if Some(i) == self.summary_index {
                continue;
            }
            for (m, v) in profile::context_values(&self.profile_src, &p.block, ctx)? {
                out.push((m, i as u32, v));
            }
        }
        // One context's values (metrics x profiles): the shared sort (src/sort.rs).
        crate::sort::sort_by_key(&mut out, |&(m, p, _)| (m, p));
        Ok(out)
    }

    /// The values of one context exactly as stored in cct.db: (metricId, profIndex, value).
    pub fn context_raw(&self, ctx: u32) -> Result<cct::ContextValues> {
        match &self.cct {
            Some((src, c)) => c.values(src, ctx),
            None => Ok(Vec::new()),
        }
    }

    /// Number of context infos in cct.db (0 without one).
    pub fn n_cct_contexts(&self) -> u64 {
        self.cct.as_ref().map(|(_, c)| c.n_ctxs()).unwrap_or(0)
    }

    pub(super) fn trace_line(&self, line: usize) -> Result<(&Source, &trace::TraceLine)> {
        let (src, t) = self.trace.as_ref().ok_or_else(|| {
            Error::invalid(self.profile_src.name(), 0, "database has no trace.db")
        })?;
        let l = t
            .lines
            .get(line)
            .ok_or_else(|| Error::invalid(src.name(), 0, format!("no trace line {line}")))?;
        Ok((src, l))
    }

    /// Samples of a trace line as stored: (timestamp, ctxId).
    pub fn trace_raw(&self, line: usize, start: u64, count: u64) -> Result<Vec<(u64, u32)>> {
        let (src, l) = self.trace_line(line)?;
        trace::samples(src, l, start, count)
    }

    /// Model values of one profile (see [`read_sparse`]).
    pub(super) fn sparse_of(&self, prof: usize) -> Result<SparseValues> {
        let block = &self.profile_record(prof)?.block;
        let index = profile::read_index(&self.profile_src, block)?;
        read_sparse(
            &self.profile_src,
            block,
            &index,
            &self.ctx_map,
            self.ctx_of_node.len(),
            |_| {},
        )
    }
}

/// Model values of a stored profile-major block with context index `index`: ctxIds become nodes
/// (ascending); ctxIds the tree does not list (hpcprof keeps values of contexts it does not
/// describe) are left out. Each node's place in the output follows from the run lengths (a
/// counting sort, stable), so the values are read in file order and copied once, straight to it.
/// The stored pairs of the contexts left out go to `other`, in the same pass.
fn read_sparse(
    src: &Source,
    block: &profile::ValueBlock,
    index: &[(u32, u64, u64)],
    map: &CtxMap,
    n_nodes: usize,
    mut other: impl FnMut(&[u8]),
) -> Result<SparseValues> {
    // Non-empty runs in file order: (node, or None for a context the tree does not list, first,
    // end).
    let runs = || {
        index.iter().filter(|&&(_, a, b)| b > a).map(|&(c, a, b)| {
            let node = map.get(c).map(|n| n as usize).filter(|&n| n < n_nodes);
            (node, a, b)
        })
    };
    // Values per node, then where each node's values start.
    let mut at = vec![0u64; n_nodes];
    for (n, a, b) in runs() {
        if let Some(n) = n {
            at[n] += b - a;
        }
    }
    let n_present = at.iter().filter(|&&n| n > 0).count();
    let mut out = SparseValues {
        nodes: Vec::with_capacity(n_present),
        starts: Vec::with_capacity(n_present + 1),
        ..SparseValues::default()
    };
    let mut total = 0u64;
    for (node, n) in at.iter_mut().enumerate() {
        if *n > 0 {
            out.nodes.push(node as u32);
            out.starts.push(total as u32);
            let len = *n;
            *n = total;
            total += len;
        }
    }
    out.starts.push(total as u32);
    out.ids = vec![0u16; total as usize];
    out.values = vec![0f64; total as usize];
    // Each run goes after the earlier runs of its node: `at` is the node's next free place.
    profile::visit_runs(src, block, runs(), |node, bytes| {
        let Some(node) = node else {
            other(bytes);
            return;
        };
        let n = bytes.len() / 10;
        let Some(slot) = at.get_mut(node) else {
            return;
        };
        let d = *slot as usize;
        *slot += n as u64;
        let (Some(ids), Some(vals)) = (out.ids.get_mut(d..d + n), out.values.get_mut(d..d + n))
        else {
            return;
        };
        for ((id, v), p) in ids.iter_mut().zip(vals).zip(bytes.as_chunks().0) {
            (*id, *v) = profile::value_pair(p);
        }
    })?;
    Ok(out)
}

/// ctxId -> model node: a direct table when ctxIds are dense (hpcprof numbers them from 1),
/// else pairs sorted by ctxId.
pub(super) enum CtxMap {
    Dense(Vec<u32>),
    Sorted(Vec<(u32, u32)>),
}

impl CtxMap {
    pub(super) fn new(ctx_of_node: &[u32]) -> CtxMap {
        let max = ctx_of_node.iter().copied().max().unwrap_or(0) as usize;
        if max <= 4 * ctx_of_node.len() + 4096 {
            let mut t = vec![NONE; max + 1];
            for (n, &c) in ctx_of_node.iter().enumerate() {
                t[c as usize] = n as u32;
            }
            CtxMap::Dense(t)
        } else {
            CtxMap::Sorted(crate::model::cct::by_ctx(ctx_of_node))
        }
    }
    pub(super) fn get(&self, ctx: u32) -> Option<u32> {
        match self {
            CtxMap::Dense(t) => t.get(ctx as usize).copied().filter(|&n| n != NONE),
            CtxMap::Sorted(v) => v
                .binary_search_by_key(&ctx, |&(c, _)| c)
                .ok()
                .map(|i| v[i].1),
        }
    }
}

/// Opens an HPCToolkit database group into the format-neutral model.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    open_database(group).map(|(ds, _)| ds)
}

/// Names what every open reads once the headers are known, all files at once (over a URL each
/// read is a round trip; see `Source::will_need`): meta.db whole, each file's footer, profile
/// infos and identifier tuples, context infos, trace headers.
fn name_sections(f: &Files) {
    f.meta.will_need(&[(0, f.meta.len())]);
    let name = |src: &Source, slots: &[Slot]| {
        let mut ranges: Vec<(u64, u64)> = slots
            .iter()
            .filter_map(|&slot| section(src, slot).ok())
            .map(|(size, ptr)| (ptr, size))
            .collect();
        ranges.push((src.len().saturating_sub(8), 8));
        src.will_need(&ranges);
    };
    name(&f.profile, &[profile::PROFILE_INFOS, profile::ID_TUPLES]);
    if let Some(c) = &f.cct {
        name(c, &[cct::CONTEXT_INFOS]);
    }
    if let Some(t) = &f.trace {
        name(t, &[trace::CONTEXT_TRACES]);
    }
}

/// Opens an optional companion; a damaged one is dropped with a warning so the profiles stay
/// viewable.
fn optional<T>(
    src: Option<Source>,
    code: &[u8; 4],
    footer: &[u8; 8],
    read: impl FnOnce(&Source) -> Result<T>,
    warnings: &mut Vec<Warning>,
) -> Option<(Source, T)> {
    let src = src?;
    match check_file(&src, code, footer).and_then(|_| read(&src)) {
        Ok(t) => Some((src, t)),
        Err(e) => {
            warnings.push(e.context("ignored"));
            None
        }
    }
}

/// The layout and meta.db as read. meta.db is read whole first: every structure in it is visited
/// once, and the layout check then reads it from memory; the bytes are freed on return, before
/// any value is read (lower peak).
fn read_meta(f: &Files, warnings: &mut Vec<Warning>) -> Result<(Layout, meta::MetaDb)> {
    let meta_src = if f.meta.as_slice().is_some() {
        f.meta.clone()
    } else {
        Source::from_vec(
            f.meta.name(),
            f.meta.bytes(0, f.meta.len(), "meta.db")?.into_owned(),
        )
    };
    check_file(&f.profile, b"prof", b"_prof.db")?;
    let layout = layout_of(&meta_src, &f.profile)?;
    let m = meta::read(&meta_src, layout, warnings)?;
    Ok((layout, m))
}

/// The summary profile (the first flagged one), read once at open time.
struct Summary {
    /// Its index in profile.db.
    index: Option<usize>,
    /// Its stored context index: (ctxId, first value, end).
    ctx_index: Vec<(u32, u64, u64)>,
    /// Its values of the contexts of the tree.
    values: SparseValues,
    /// First statMetricId meta.db does not declare among the values of contexts the tree does not
    /// list.
    unknown_elsewhere: Option<u16>,
}

/// Reads the summary profile's values; those of contexts the tree does not list are only
/// checked against the statMetricIds `m` declares.
fn read_summary(
    src: &Source,
    profiles: &profile::ProfileDb,
    m: &meta::MetaDb,
    ctx_map: &CtxMap,
    n_nodes: usize,
) -> Result<Summary> {
    let index = profiles
        .profiles
        .iter()
        .enumerate()
        .position(|(i, p)| p.is_summary(i));
    let mut unknown_elsewhere: Option<u16> = None;
    let Some(i) = index else {
        return Ok(Summary {
            index,
            ctx_index: Vec::new(),
            values: SparseValues::default(),
            unknown_elsewhere,
        });
    };
    let block = &profiles.profiles[i].block;
    let ctx_index = profile::read_index(src, block)?;
    let declared = declared_stats(m);
    let values = read_sparse(src, block, &ctx_index, ctx_map, n_nodes, |b| {
        if unknown_elsewhere.is_none() {
            unknown_elsewhere = b
                .chunks_exact(10)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .find(|&id| !declared.get(id as usize).copied().unwrap_or(false));
        }
    })?;
    Ok(Summary {
        index,
        ctx_index,
        values,
        unknown_elsewhere,
    })
}

/// Opens a database, returning the model and the raw reader (for the transcript and for callers
/// that want values by file ids).
pub fn open_database(group: &DatasetGroup) -> Result<(Dataset, Rc<Database>)> {
    // `files` checks meta.db's header and footer.
    let f = files(group)?;
    name_sections(&f);
    let mut warnings = Vec::new();
    let (layout, mut m) = read_meta(&f, &mut warnings)?;
    let profiles = profile::read(&f.profile)?;
    // What the summary and the trace check read next, named before the first of them is read.
    if let Some(p) = profiles
        .profiles
        .iter()
        .enumerate()
        .find_map(|(i, p)| p.is_summary(i).then_some(p))
    {
        f.profile.will_need(&profile::block_ranges(&p.block));
    }
    let cct = optional(f.cct, b"ctxt", b"__ctx.db", cct::read, &mut warnings);
    let trace = optional(f.trace, b"trce", b"trace.db", trace::read, &mut warnings);
    if let Some((src, t)) = &trace {
        src.will_need(&trace_picks(t));
    }

    let (tree, tops) = build_tree(&m, f.meta.name(), &mut warnings)?;
    // The tree holds what the records said: free them before the values are read.
    m.contexts = Vec::new();
    let ctx_map = CtxMap::new(&tree.ctx_id);

    // Cross-file checks: what ties the files of one run together.
    check_cct_covers(cct.as_ref(), &tree.ctx_id)?;
    let Summary {
        index: summary_index,
        ctx_index,
        values: summary,
        unknown_elsewhere,
    } = read_summary(&f.profile, &profiles, &m, &ctx_map, tree.tree.len())?;
    let n_ctx_ids = tree.ctx_id.iter().copied().max().unwrap_or(0) as u64 + 1;
    let cct_values = check_run(
        &m,
        &tops,
        &SummaryView {
            index: &ctx_index,
            values: &summary,
            map: &ctx_map,
            src: &f.profile,
            unknown_elsewhere,
        },
        cct.as_ref(),
        trace.as_ref(),
        profiles.profiles.len() as u64,
        n_ctx_ids,
    )?;
    if let (CctValues::Incomplete(what), Some((src, _))) = (&cct_values, &cct) {
        warnings.push(Error::new(
            ErrorKind::Mismatch,
            src.name(),
            None,
            format!("cct.db lacks values profile.db has ({what}): values by context are read from profile.db"),
        ));
    }
    drop(ctx_index);

    let db = Database {
        layout,
        meta: m,
        meta_src: f.meta.clone(),
        profile_src: f.profile.clone(),
        profiles,
        cct,
        cct_complete: cct_values == CctValues::Complete,
        trace,
        summary_index,
        summary: Arc::new(summary),
        ctx_map,
        ctx_of_node: tree.ctx_id.clone(),
    };
    let ds = dataset(&db, group, tree, warnings);
    let db = Rc::new(db);
    let ds = Dataset {
        data: Box::new(HpcData::new(db.clone())),
        ..ds
    };
    Ok((ds, db))
}
