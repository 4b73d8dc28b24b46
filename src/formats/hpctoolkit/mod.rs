//! HPCToolkit v4.0 databases (meta.db, profile.db, cct.db, trace.db) in the final layout and the two
//! 2022 drafts, told apart by the strides the files state (../shared/FORMATS-NOTES.md). Opening reads
//! meta.db and the summary profile; other profiles, cct.db blocks and trace lines are read on demand.

pub mod cct;
pub mod meta;
pub mod probe;
pub mod profile;
pub mod trace;

use crate::bytes::Source;
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::formats::{DatasetGroup, FileKind, Format, InputFile, Probe};
use crate::model::{
    CctBuilder, Combine, Dataset, EntryKind, FileEntry, Frame, Function, Identifier, LazyData,
    LexicalType, Metric, MetricScope, Module, NodeKind, ProfileInfo, Relation, ScopeKind,
    SourceFile, SparseValues, SummaryStat, TraceInfo, TraceLineInfo, TraceSample, NONE,
};
use std::sync::Arc;

pub const LAYOUT_FINAL: &str = "v4.0 final";
pub const LAYOUT_APRIL: &str = "v4.0 draft (April 2022)";
pub const LAYOUT_MAY: &str = "v4.0 draft (May 2022)";

/// Which of the three layouts behind the `HPCTOOLKIT....` + `04` magic a database uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// HPCToolkit releases since mid-2022: metric scopes table, entry points, profile flags.
    Final,
    /// Seed 001: szMetric 24, no scope table, no entry points, no profile flags.
    DraftApril,
    /// Final meta.db, but profile.db without flags (szProfile 40).
    DraftMay,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Final => LAYOUT_FINAL,
            Layout::DraftApril => LAYOUT_APRIL,
            Layout::DraftMay => LAYOUT_MAY,
        }
    }
}

/// Checks magic, format code, major version 4 and footer of one file.
fn check_file(src: &Source, code: &[u8; 4], footer: &[u8; 8]) -> Result<()> {
    let head: [u8; 16] = src.array(0, "file header")?;
    if &head[..10] != b"HPCTOOLKIT" || &head[10..14] != code {
        return Err(src.err(
            ErrorKind::BadMagic,
            0,
            format!(
                "magic (expected HPCTOOLKIT{})",
                String::from_utf8_lossy(code)
            ),
        ));
    }
    if head[14] != 4 {
        return Err(Error::unsupported(
            src.name(),
            Some(0x0e),
            format!("major version {} (only 4 is known)", head[14]),
        ));
    }
    // Every format's first section pointer sits at 0x18 (meta.db: General Properties).
    src.u64_le_at(0x18, "first section pointer")?;
    let len = src.len();
    let tail: [u8; 8] = src.array(len - 8, "footer")?;
    if &tail != footer {
        return Err(src.err(
            ErrorKind::Truncated,
            len - 8,
            format!(
                "footer (expected {}; file truncated?)",
                String::from_utf8_lossy(footer)
            ),
        ));
    }
    Ok(())
}

struct Files {
    meta: Source,
    profile: Source,
    cct: Option<Source>,
    trace: Option<Source>,
}

/// The database's files; meta.db is checked first so a lone damaged meta.db reports its own
/// problem rather than the missing companions.
fn files(group: &DatasetGroup) -> Result<Files> {
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

/// Layout from the strides: meta.db `szMetric` 24 is the April draft; otherwise profile.db
/// `szProfile` below 48 (no flags) is the May draft.
fn layout_of(meta: &Source, profile: &Source) -> Result<Layout> {
    let sz_metric = meta::metric_stride(meta)?;
    if sz_metric < 24 {
        return Err(Error::invalid(
            meta.name(),
            0,
            format!("szMetric {sz_metric} is smaller than any known layout's"),
        ));
    }
    let sz_profile = profile::profile_stride(profile)?;
    if sz_profile < 40 {
        return Err(Error::invalid(
            profile.name(),
            0,
            format!("szProfile {sz_profile} is smaller than any known layout's"),
        ));
    }
    Ok(match (sz_metric >= 32, sz_profile >= 48) {
        (false, false) => Layout::DraftApril,
        (false, true) => {
            return Err(Error::mismatch(
                profile.name(),
                "meta.db has the April-2022 draft layout but profile.db the final one: files from different databases",
            ))
        }
        (true, false) => Layout::DraftMay,
        (true, true) => Layout::Final,
    })
}

/// The layout name of an HPCToolkit database group ("v4.0 final", "v4.0 draft (April 2022)",
/// "v4.0 draft (May 2022)"), from headers and strides only.
pub fn detect_layout(group: &DatasetGroup) -> Result<&'static str> {
    let f = files(group)?;
    check_file(&f.meta, b"meta", b"_meta.db")?;
    check_file(&f.profile, b"prof", b"_prof.db")?;
    Ok(layout_of(&f.meta, &f.profile)?.name())
}

/// An opened database: the raw structures of every file, for callers that want them as stored
/// (the transcript), and the on-demand readers behind the model's [`LazyData`].
pub struct Database {
    pub layout: Layout,
    /// meta.db as read, except `contexts`, which is left empty once the model's tree is built
    /// (it is the largest part and only the transcript wants it): see [`Database::contexts`].
    pub meta: meta::MetaDb,
    meta_src: Source,
    pub profile_src: Source,
    pub profiles: profile::ProfileDb,
    pub cct: Option<(Source, cct::CctDb)>,
    pub trace: Option<(Source, trace::TraceDb)>,
    /// Index of the summary profile in `profiles.profiles`.
    pub summary_index: Option<usize>,
    summary: Arc<SparseValues>,
    /// ctxId -> model node.
    ctx_map: CtxMap,
    /// ctxId of each model node.
    ctx_of_node: Vec<u32>,
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

    fn trace_line(&self, line: usize) -> Result<(&Source, &trace::TraceLine)> {
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
    fn sparse_of(&self, prof: usize) -> Result<SparseValues> {
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
        for ((id, v), p) in ids.iter_mut().zip(vals).zip(bytes.chunks_exact(10)) {
            *id = u16::from_le_bytes([p[0], p[1]]);
            let mut f = [0u8; 8];
            f.copy_from_slice(&p[2..10]);
            *v = f64::from_le_bytes(f);
        }
    })?;
    Ok(out)
}

/// ctxId -> model node: a direct table when ctxIds are dense (hpcprof numbers them from 1),
/// else pairs sorted by ctxId.
enum CtxMap {
    Dense(Vec<u32>),
    Sorted(Vec<(u32, u32)>),
}

impl CtxMap {
    fn new(ctx_of_node: &[u32]) -> CtxMap {
        let max = ctx_of_node.iter().copied().max().unwrap_or(0) as usize;
        if max <= 4 * ctx_of_node.len() + 4096 {
            let mut t = vec![NONE; max + 1];
            for (n, &c) in ctx_of_node.iter().enumerate() {
                t[c as usize] = n as u32;
            }
            CtxMap::Dense(t)
        } else {
            let mut v: Vec<(u32, u32)> = ctx_of_node
                .iter()
                .enumerate()
                .map(|(n, &c)| (c, n as u32))
                .collect();
            v.sort_unstable();
            CtxMap::Sorted(v)
        }
    }
    fn get(&self, ctx: u32) -> Option<u32> {
        match self {
            CtxMap::Dense(t) => t.get(ctx as usize).copied().filter(|&n| n != NONE),
            CtxMap::Sorted(v) => v
                .binary_search_by_key(&ctx, |&(c, _)| c)
                .ok()
                .map(|i| v[i].1),
        }
    }
}

/// The database and, per trace line searched so far, its first and last timestamps (two reads
/// once, then every search of the line starts with an interpolated guess).
struct HpcData(
    Arc<Database>,
    std::cell::RefCell<std::collections::HashMap<usize, (u64, u64)>>,
);

impl LazyData for HpcData {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        Ok(Arc::unwrap_or_clone(self.profile_values_shared(prof)?))
    }

    fn profile_values_shared(&self, prof: usize) -> Result<Arc<SparseValues>> {
        if Some(prof) == self.0.summary_index {
            return Ok(self.0.summary.clone());
        }
        Ok(Arc::new(self.0.sparse_of(prof)?))
    }

    fn context_values(&self, node: u32) -> Result<Vec<(u32, u16, f64)>> {
        let Some(&ctx) = self.0.ctx_of_node.get(node as usize) else {
            return Ok(Vec::new());
        };
        Ok(self
            .0
            .context_raw(ctx)?
            .into_iter()
            .map(|(m, p, v)| (p, m, v))
            .collect())
    }

    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        Ok(self
            .0
            .trace_raw(line, start, count)?
            .into_iter()
            // ctxId 0 ("not running") is the root; a ctxId the tree does not list also shows
            // as the root rather than as a dangling node.
            .map(|(time, ctx)| TraceSample {
                time,
                node: self.0.node_of_ctx(ctx).unwrap_or(0),
            })
            .collect())
    }

    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        let (src, l) = self.0.trace_line(line)?;
        let n = l.samples();
        if n == 0 {
            return Ok(None);
        }
        let known = self.1.borrow().get(&line).copied();
        let ends = match known {
            Some(e) => e,
            None => {
                let at = |i: u64| {
                    src.u64_le_at(l.p_start + i * trace::SZ_ELEM, "trace sample timestamp")
                };
                let e = (at(0)?, at(n - 1)?);
                self.1.borrow_mut().insert(line, e);
                e
            }
        };
        trace::find_guided(src, l, time, ends)
    }

    fn trace_scan(
        &self,
        line: usize,
        start: u64,
        count: u64,
        f: &mut dyn FnMut(TraceSample) -> bool,
    ) -> Result<u64> {
        let (src, l) = self.0.trace_line(line)?;
        let n = l.samples();
        let start = start.min(n);
        let end = start.saturating_add(count).min(n);
        // 4 MiB of samples per streamed read, decoded in place (one buffer, reused).
        const CHUNK: u64 = (4 << 20) / trace::SZ_ELEM;
        let mut buf = vec![0u8; (CHUNK.min(end - start) * trace::SZ_ELEM) as usize];
        src.advise_sequential(
            l.p_start + start * trace::SZ_ELEM,
            (end - start) * trace::SZ_ELEM,
        );
        let mut i = start;
        while i < end {
            let k = CHUNK.min(end - i);
            let bytes = &mut buf[..(k * trace::SZ_ELEM) as usize];
            src.read_streamed(l.p_start + i * trace::SZ_ELEM, bytes, "trace samples")?;
            for e in bytes.chunks_exact(trace::SZ_ELEM as usize) {
                let mut t = [0u8; 8];
                t.copy_from_slice(&e[0..8]);
                let ctx = u32::from_le_bytes([e[8], e[9], e[10], e[11]]);
                i += 1;
                let s = TraceSample {
                    time: u64::from_le_bytes(t),
                    // As trace_samples: ctxId 0 and unknown ids show as the root.
                    node: self.0.node_of_ctx(ctx).unwrap_or(0),
                };
                if !f(s) {
                    return Ok(i - start);
                }
            }
        }
        Ok(i - start)
    }

    fn trace_find_many(&self, queries: &[(usize, u64)]) -> Result<Vec<Option<u64>>> {
        let Some((src, _)) = self.0.trace.as_ref() else {
            return Ok(vec![None; queries.len()]);
        };
        let q = queries
            .iter()
            .map(|&(l, t)| Ok((self.0.trace_line(l)?.1, t)))
            .collect::<Result<Vec<_>>>()?;
        trace::find_many(src, &q)
    }

    fn trace_sample_many(&self, queries: &[(usize, u64)]) -> Result<Vec<Option<TraceSample>>> {
        let Some((src, _)) = self.0.trace.as_ref() else {
            return Ok(vec![None; queries.len()]);
        };
        let q = queries
            .iter()
            .map(|&(l, i)| Ok((self.0.trace_line(l)?.1, i)))
            .collect::<Result<Vec<_>>>()?;
        Ok(trace::samples_at(src, &q)?
            .into_iter()
            .map(|s| {
                s.map(|(time, ctx)| TraceSample {
                    time,
                    node: self.0.node_of_ctx(ctx).unwrap_or(0),
                })
            })
            .collect())
    }
}

/// Opens an HPCToolkit database group into the format-neutral model.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    open_database(group).map(|(ds, _)| ds)
}

fn scope_kind(s: &meta::Scope) -> ScopeKind {
    match s.scope_type {
        Some(1) => ScopeKind::Point,
        Some(2) => ScopeKind::Execution,
        Some(3) => ScopeKind::Function,
        Some(_) => ScopeKind::Custom,
        // April draft: scopes are named only.
        None => match s.name.as_str() {
            "point" => ScopeKind::Point,
            "execution" => ScopeKind::Execution,
            "function" => ScopeKind::Function,
            _ => ScopeKind::Custom,
        },
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

/// Opens a database, returning the model and the raw reader (for the transcript and for callers
/// that want values by file ids).
pub fn open_database(group: &DatasetGroup) -> Result<(Dataset, Arc<Database>)> {
    // `files` checks meta.db's header and footer.
    let f = files(group)?;
    // meta.db is read whole first: every structure in it is visited once, and the layout
    // check below then reads it from memory.
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
    let mut warnings = Vec::new();

    let m = meta::read(&meta_src, layout, &mut warnings)?;
    // Everything was copied out: free the bytes before the values are read (lower peak).
    drop(meta_src);
    let profiles = profile::read(&f.profile)?;
    let cct = optional(f.cct, b"ctxt", b"__ctx.db", cct::read, &mut warnings);
    let trace = optional(f.trace, b"trce", b"trace.db", trace::read, &mut warnings);

    // The model's tree: root = ctxId 0, entry points under it, contexts below.
    let meta_name = f.meta.name().to_string();
    let mut b = CctBuilder::with_capacity(0, m.entry_points.len() + m.contexts.len());
    let mut ep_index = Vec::with_capacity(m.entry_points.len());
    for ep in &m.entry_points {
        let kind = match ep.entry_point {
            0 => EntryKind::UnknownEntry,
            1 => EntryKind::MainThread,
            2 => EntryKind::ApplicationThread,
            k => {
                warnings.push(Error::invalid(
                    &meta_name,
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
        let relation = match c.relation {
            0 => Relation::Lexical,
            1 => Relation::Call,
            2 => Relation::InlinedCall,
            _ => {
                odd_enums += 1;
                Relation::Call
            }
        };
        let lexical_type = match c.lexical_type {
            0 => LexicalType::Function,
            1 => LexicalType::Loop,
            2 => LexicalType::Line,
            3 => LexicalType::Instruction,
            _ => {
                odd_enums += 1;
                LexicalType::Function
            }
        };
        let frame = Frame {
            kind: NodeKind::Context,
            relation,
            lexical_type,
            function: c.function,
            file: c.file,
            line: c.line,
            module: c.module,
            offset: c.offset,
        };
        ctx_index.push(b.add(parent, c.ctx_id, frame));
    }
    if odd_enums > 0 {
        warnings.push(Error::invalid(&meta_name, 0, format!("{odd_enums} contexts with an unknown relation or lexical type (shown as calls / functions)")));
    }
    let tree = b.finish(&meta_name)?;
    // Top-level contexts: entry points (final layout) or root contexts (April draft).
    let tops: Vec<u32> = if m.entry_points.is_empty() {
        m.contexts
            .iter()
            .filter(|c| c.parent == meta::ParentRef::Root)
            .map(|c| c.ctx_id)
            .collect()
    } else {
        m.entry_points.iter().map(|e| e.ctx_id).collect()
    };
    // The tree holds what the records said: free them before the values are read.
    let mut m = m;
    m.contexts = Vec::new();
    let ctx_map = CtxMap::new(&tree.ctx_id);
    let max_ctx = tree.ctx_id.iter().copied().max().unwrap_or(0);

    // Cross-file checks: what ties the files of one run together.
    let n_profiles = profiles.profiles.len() as u64;
    if let Some((src, c)) = &cct {
        if c.n_ctxs() <= max_ctx as u64 {
            return Err(Error::mismatch(src.name(), format!("cct.db has {} contexts but meta.db uses context id {max_ctx}: files from different runs", c.n_ctxs())));
        }
    }
    let summary_index = profiles
        .profiles
        .iter()
        .enumerate()
        .position(|(i, p)| p.is_summary(i));
    let mut unknown_elsewhere: Option<u16> = None;
    let (summary_index_raw, summary) = match summary_index {
        Some(i) => {
            let block = &profiles.profiles[i].block;
            let index = profile::read_index(&f.profile, block)?;
            // Values of contexts the tree does not list are only checked (statMetricIds).
            let declared = declared_stats(&m);
            let values = read_sparse(&f.profile, block, &index, &ctx_map, tree.len(), |b| {
                if unknown_elsewhere.is_none() {
                    unknown_elsewhere = b
                        .chunks_exact(10)
                        .map(|p| u16::from_le_bytes([p[0], p[1]]))
                        .find(|&id| !declared.get(id as usize).copied().unwrap_or(false));
                }
            })?;
            (index, values)
        }
        None => Default::default(),
    };
    check_run(
        &m,
        &tops,
        &SummaryView {
            index: &summary_index_raw,
            values: &summary,
            map: &ctx_map,
            src: &f.profile,
            unknown_elsewhere,
        },
        cct.as_ref(),
        trace.as_ref(),
        n_profiles,
    )?;
    drop(summary_index_raw);

    let db = Database {
        layout,
        meta: m,
        meta_src: f.meta.clone(),
        profile_src: f.profile.clone(),
        profiles,
        cct,
        trace,
        summary_index,
        summary: Arc::new(summary),
        ctx_map,
        ctx_of_node: tree.ctx_id.clone(),
    };
    let ds = dataset(&db, group, tree, warnings);
    let db = Arc::new(db);
    let ds = Dataset {
        data: Box::new(HpcData(db.clone(), Default::default())),
        ..ds
    };
    Ok((ds, db))
}

/// Evenly spaced picks of at most `k` out of `0..n`.
fn spread(n: usize, k: usize) -> impl Iterator<Item = usize> {
    let k = k.min(n);
    (0..k).map(move |i| if k <= 1 { 0 } else { i * (n - 1) / (k - 1) })
}

fn is_execution(s: &meta::Scope) -> bool {
    s.scope_type == Some(2) || (s.scope_type.is_none() && s.name == "execution")
}

/// The summary profile as [`check_run`] sees it: the stored context index and the model values.
struct SummaryView<'a> {
    index: &'a [(u32, u64, u64)],
    values: &'a SparseValues,
    map: &'a CtxMap,
    src: &'a Source,
    /// First statMetricId meta.db does not declare among the values of contexts the tree does
    /// not list (found while the values were read).
    unknown_elsewhere: Option<u16>,
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
fn declared_stats(m: &meta::MetaDb) -> Vec<bool> {
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

/// What ties the files of one run together (HPCToolkit writes no run id), checked at open time
/// from the summary profile (read anyway) and about forty small reads of the other files:
/// - profile.db's summary profile uses only statMetricIds meta.db declares;
/// - cct.db indexes contexts by ctxId: it must list every ctxId of meta.db and of the summary;
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
fn check_run(
    m: &meta::MetaDb,
    tops: &[u32],
    summary: &SummaryView,
    cct: Option<&(Source, cct::CctDb)>,
    trace: Option<&(Source, trace::TraceDb)>,
    n_profiles: u64,
) -> Result<()> {
    let different = |file: &str, what: String| {
        Error::mismatch(file, format!("{what}: files from different runs"))
    };
    let profile_name = summary.src.name();
    let tree_has = |ctx: u32| summary.has(ctx);
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
            profile_name,
            format!("the summary profile holds metric id {id}, which meta.db does not declare"),
        ));
    }
    let root_stats = summary.at(0);
    if !root_stats.is_empty() && !tops.is_empty() {
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
        let pick = |v: &[(u16, f64)]| -> Vec<(u16, f64)> {
            v.iter().copied().filter(|r| exec(r.0)).collect()
        };
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
                return Err(different(profile_name, format!("the summary's total {v} of metric id {id} is below the sum {total} over meta.db's top-level contexts")));
            }
        }
    }
    if let Some((src, t)) = trace {
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
        // Each picked line gives 16 consecutive samples, taken further into the run from one
        // line to the next so the picks still cover the whole run.
        let (mut checked, mut unknown, mut example) = (0u32, 0u32, 0u32);
        let picks: Vec<usize> = spread(t.lines.len(), 16).collect();
        for (k, &li) in picks.iter().enumerate() {
            let l = &t.lines[li];
            let n = l.samples();
            let take = n.min(16);
            let first = if picks.len() > 1 {
                (n - take) * k as u64 / (picks.len() as u64 - 1)
            } else {
                0
            };
            let bytes = src.bytes(
                l.p_start + first * trace::SZ_ELEM,
                take * trace::SZ_ELEM,
                "trace samples",
            )?;
            for e in bytes.chunks_exact(trace::SZ_ELEM as usize) {
                let ctx = u32::from_le_bytes([e[8], e[9], e[10], e[11]]);
                if ctx != 0 {
                    checked += 1;
                    if !tree_has(ctx) {
                        unknown += 1;
                        example = ctx;
                    }
                }
            }
        }
        if unknown > 0 {
            return Err(different(src.name(), format!("{unknown} of {checked} sampled trace contexts (e.g. {example}) are not in meta.db")));
        }
    }
    let Some((src, c)) = cct else { return Ok(()) };
    let summary_ctx = summary.index;
    if let Some(&(ctx, _, _)) = summary_ctx
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
    // ctxId 0, then picks from both files in turn, among the contexts of meta.db's tree (the
    // model keeps the summary's values of those only).
    let from_summary: Vec<u32> = spread(summary_ctx.len(), 8)
        .map(|i| summary_ctx[i].0)
        .filter(|&c| tree_has(c))
        .collect();
    let from_cct: Vec<u32> = spread(c.n_ctxs() as usize, 8)
        .map(|i| i as u32)
        .filter(|&c| tree_has(c))
        .collect();
    let mut ctxs: Vec<u32> = vec![0];
    for i in 0..from_summary.len().max(from_cct.len()) {
        for v in [from_summary.get(i), from_cct.get(i)].into_iter().flatten() {
            if !ctxs.contains(v) {
                ctxs.push(*v);
            }
        }
    }
    // (metric name, statMetricId of the `$$` sum, of the `1` sum if declared, propMetricId) of
    // every execution-scope metric: custom scopes (lex_aware) are summarized differently and are
    // not compared.
    let mut pairs: Vec<(&str, u16, Option<u16>, u16)> = Vec::new();
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
    // The run whose values are read: (values, ctx, block, first, end, metric name, summary sum).
    let mut fewest: Option<(u64, u32, profile::ValueBlock, u64, u64, &str, f64)> = None;
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
                if counted != n as f64 {
                    return Err(different(src.name(), format!("at context {ctx}, metric '{name}': profile.db's summary counts {counted} profiles with a value, cct.db has {n}")));
                }
            }
            let stat = stat_of(sum_id);
            if n == 0 {
                if stat != 0.0 {
                    return Err(different(src.name(), format!("at context {ctx}, metric '{name}': profile.db's summary is {stat} but cct.db has no values")));
                }
            } else if fewest.map_or(true, |f| n < f.0) {
                fewest = Some((n, ctx, block, a, b, name, stat));
            }
        }
    }
    if let Some((_, ctx, block, a, b, name, stat)) = fewest {
        let vals = cct::CctDb::run_values(src, &block, a, b)?;
        if let Some(&(p, _)) = vals.iter().find(|&&(p, _)| p as u64 >= n_profiles) {
            return Err(different(
                src.name(),
                format!(
                    "cct.db has values of profile {p} but profile.db has {n_profiles} profiles"
                ),
            ));
        }
        let total: f64 = vals.iter().map(|v| v.1).sum();
        let magnitude: f64 = vals.iter().map(|v| v.1.abs()).sum();
        // Summation order differs between writer and reader: tolerate rounding relative to the
        // magnitudes summed.
        let scale = magnitude.max(stat.abs());
        if scale > 0.0 && (total - stat).abs() > 1e-6 * scale {
            return Err(different(src.name(), format!("at context {ctx}, metric '{name}': profile.db's summary {stat} differs from cct.db's total {total}")));
        }
    }
    Ok(())
}

/// The format-neutral dataset of an opened database (values stay behind `Dataset::data`).
fn dataset(
    db: &Database,
    group: &DatasetGroup,
    tree: crate::model::Cct,
    mut warnings: Vec<Warning>,
) -> Dataset {
    let m = &db.meta;
    let modules: Vec<Module> = m
        .modules
        .iter()
        .map(|x| Module {
            path: x.path.clone(),
        })
        .collect();
    let functions = m
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
        .collect();
    let mut bad_combine = 0;
    let metrics: Vec<Metric> = m
        .metrics
        .iter()
        .map(|d| Metric {
            name: d.name.clone(),
            unit: if d.name.contains("(sec)") {
                "s".into()
            } else {
                String::new()
            },
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
                    let combine = match s.combine {
                        0 => Combine::Sum,
                        1 => Combine::Min,
                        2 => Combine::Max,
                        _ => {
                            bad_combine += 1;
                            return None;
                        }
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
        })
        .collect();
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
    let profiles: Vec<ProfileInfo> = db
        .profiles
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
        .collect();
    let trace = db.trace.as_ref().map(|(_, t)| {
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
    });
    let n_samples: u64 = trace
        .iter()
        .flat_map(|t| t.lines.iter())
        .map(|l| l.samples)
        .sum();
    let mut facts = vec![
        ("title".to_string(), m.title.clone()),
        ("layout".to_string(), db.layout.name().to_string()),
        ("description".to_string(), m.description.clone()),
        ("metrics".to_string(), metrics.len().to_string()),
        (
            "contexts".to_string(),
            tree.len().saturating_sub(1).to_string(),
        ),
        ("entry points".to_string(), m.entry_points.len().to_string()),
        (
            "profiles".to_string(),
            profiles.iter().filter(|p| !p.summary).count().to_string(),
        ),
        ("load modules".to_string(), m.modules.len().to_string()),
        ("source files".to_string(), m.files.len().to_string()),
        ("functions".to_string(), m.functions.len().to_string()),
    ];
    match &trace {
        Some(t) => {
            facts.push(("trace lines".into(), t.lines.len().to_string()));
            facts.push(("trace samples".into(), n_samples.to_string()));
            if let (Some(a), Some(b)) = (t.min_time, t.max_time) {
                facts.push((
                    "time range".into(),
                    format!("{a} .. {b} ns ({:.6} s)", b.saturating_sub(a) as f64 / 1e9),
                ));
            }
        }
        None => facts.push(("trace".into(), "none".into())),
    }
    Dataset {
        format: "hpctoolkit".into(),
        layout: db.layout.name().into(),
        title: m.title.clone(),
        files: group
            .files
            .iter()
            .map(|(_, f)| FileEntry {
                path: f.path.clone(),
                size: f.source.len(),
            })
            .collect(),
        facts,
        id_names: m.id_names.clone(),
        modules,
        source_files: m
            .files
            .iter()
            .map(|x| SourceFile {
                path: x.path.clone(),
            })
            .collect(),
        functions,
        cct: tree,
        metrics,
        summary_profile: db.summary_index,
        profiles,
        trace,
        warnings,
        data: Box::new(crate::model::NoLazyData),
    }
}

/// The format id of v4.0 databases.
pub const ID: &str = "hpctoolkit";
pub const META_DB: FileKind = FileKind::new(ID, "meta.db");
pub const PROFILE_DB: FileKind = FileKind::new(ID, "profile.db");
pub const CCT_DB: FileKind = FileKind::new(ID, "cct.db");
pub const TRACE_DB: FileKind = FileKind::new(ID, "trace.db");

/// HPCToolkit v4.0 databases in the registry ([`crate::formats::FORMATS`]).
pub struct HpcToolkit;
pub static HPCTOOLKIT: HpcToolkit = HpcToolkit;

impl Format for HpcToolkit {
    fn id(&self) -> &'static str {
        ID
    }
    fn display_name(&self) -> &'static str {
        "HPCToolkit database"
    }
    /// `HPCTOOLKIT` + `meta`/`prof`/`ctxt`/`trce` (the final layout and the 2022 drafts).
    fn detect(&self, _path: &str, _name: &str, head: &[u8]) -> Option<FileKind> {
        match head.get(..14)? {
            b"HPCTOOLKITmeta" => Some(META_DB),
            b"HPCTOOLKITprof" => Some(PROFILE_DB),
            b"HPCTOOLKITctxt" => Some(CCT_DB),
            b"HPCTOOLKITtrce" => Some(TRACE_DB),
            _ => None,
        }
    }
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool {
        files.iter().any(|(k, _)| *k == META_DB || *k == PROFILE_DB)
    }
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()> {
        probe::probe(group, p)
    }
    fn open(&self, group: &DatasetGroup) -> Result<Dataset> {
        open(group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A meta.db whose metrics section (pointer at 0x38) states `sz_metric`, and a profile.db
    /// whose profile infos section (pointer at 0x18) states `sz_profile`: all layout_of reads.
    fn pair(sz_metric: u8, sz_profile: u8) -> (Source, Source) {
        let mut meta = vec![0u8; 0xa0];
        meta[0x38..0x40].copy_from_slice(&0x90u64.to_le_bytes()); // pMetrics section
        meta[0x90 + 0x0c] = sz_metric;
        let mut prof = vec![0u8; 0x40];
        prof[0x18..0x20].copy_from_slice(&0x30u64.to_le_bytes()); // pProfileInfos section
        prof[0x30 + 0x0c] = sz_profile;
        (
            Source::from_vec("meta.db", meta),
            Source::from_vec("profile.db", prof),
        )
    }

    #[test]
    fn layout_from_strides() {
        let l = |m, p| {
            let (a, b) = pair(m, p);
            layout_of(&a, &b)
        };
        assert_eq!(l(32, 48).unwrap(), Layout::Final);
        assert_eq!(l(40, 56).unwrap(), Layout::Final); // newer minor versions: larger strides
        assert_eq!(l(32, 40).unwrap(), Layout::DraftMay);
        assert_eq!(l(24, 40).unwrap(), Layout::DraftApril);
        assert_eq!(l(24, 48).unwrap_err().kind, ErrorKind::Mismatch);
        assert_eq!(l(16, 48).unwrap_err().kind, ErrorKind::Invalid);
        assert_eq!(l(32, 32).unwrap_err().kind, ErrorKind::Invalid);
        assert_eq!(Layout::DraftMay.name(), "v4.0 draft (May 2022)");
    }

    #[test]
    fn ctx_map_dense_and_sparse() {
        let dense = CtxMap::new(&[0, 7, 3]);
        assert!(matches!(dense, CtxMap::Dense(_)));
        assert_eq!(
            (dense.get(7), dense.get(3), dense.get(5), dense.get(99)),
            (Some(1), Some(2), None, None)
        );
        let sparse = CtxMap::new(&[0, 4_000_000_000, 12]);
        assert!(matches!(sparse, CtxMap::Sorted(_)));
        assert_eq!(
            (sparse.get(4_000_000_000), sparse.get(12), sparse.get(13)),
            (Some(1), Some(2), None)
        );
    }

    #[test]
    fn spread_picks_ends_evenly() {
        assert_eq!(spread(10, 4).collect::<Vec<_>>(), vec![0, 3, 6, 9]);
        assert_eq!(spread(2, 16).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(spread(1, 16).collect::<Vec<_>>(), vec![0]);
        assert_eq!(spread(0, 16).count(), 0);
    }
}
