//! The format-neutral model every reader fills: names (modules, files, functions), the
//! calling-context tree in DFS preorder columns, metric descriptions, profiles (threads, ranks, GPU
//! streams) with id tuples, sparse values, and trace lines. Values and trace samples are read lazily
//! through [`LazyData`], so opening a multi-GB database reads only its metadata.

pub mod cct;
pub mod formula_text;
pub mod id_map;
pub mod preorder;
pub mod taxonomy;
pub mod values;

pub use cct::{Cct, CctBuilder, CodeRef, EntryKind, Frame, LexicalType, NodeKind, Relation, NONE};
pub use id_map::IdMap;
pub use preorder::Preorder;
pub use taxonomy::{DerivedMetric, Expr, MetricTaxonomy, MetricVariant, TaxonomyNode};
pub use values::SparseValues;

use crate::error::{Result, Warning};

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Module {
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SourceFile {
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Function {
    pub name: String,
    pub module: Option<u32>,
    pub offset: Option<u64>,
    pub file: Option<u32>,
    pub line: Option<u32>,
}

impl Function {
    /// A function known by its name only (no module, offset or source line).
    pub fn named(name: impl Into<String>) -> Function {
        Function {
            name: name.into(),
            module: None,
            offset: None,
            file: None,
            line: None,
        }
    }
}

/// How a metric's value propagates up the tree (HPCToolkit propagation scope types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKind {
    /// Only the node itself (no propagation).
    Point,
    /// Inclusive: the node and everything it calls.
    Execution,
    /// Exclusive: the node and its lexical children within the same function.
    Function,
    /// Anything else the format names (e.g. HPCToolkit `lex_aware`).
    Custom,
}

impl ScopeKind {
    /// The kind HPCToolkit's scope names stand for ("point", "execution", "function"; any other
    /// name is custom).
    pub fn of_name(name: &str) -> ScopeKind {
        match name {
            "point" => ScopeKind::Point,
            "execution" => ScopeKind::Execution,
            "function" => ScopeKind::Function,
            _ => ScopeKind::Custom,
        }
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MetricScope {
    /// The scope's name as the file gives it ("execution", "function", "point", "lex_aware").
    pub scope: String,
    pub kind: ScopeKind,
    /// Value id of this metric in this scope, in non-summary profiles.
    pub prop_metric_id: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Combine {
    Sum,
    Min,
    Max,
}

impl Combine {
    /// The combine function of meta.db's code (0 sum, 1 min, 2 max); `None` for another code.
    pub fn of_code(code: u8) -> Option<Combine> {
        match code {
            0 => Some(Combine::Sum),
            1 => Some(Combine::Min),
            2 => Some(Combine::Max),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SummaryStat {
    pub scope: String,
    pub kind: ScopeKind,
    pub formula: String,
    pub combine: Combine,
    /// Value id of this statistic in the summary profile.
    pub stat_metric_id: u16,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Metric {
    pub name: String,
    /// Unit for display ("s", "ns", "samples", "" when unknown).
    pub unit: String,
    pub scopes: Vec<MetricScope>,
    pub summaries: Vec<SummaryStat>,
}

impl Metric {
    /// The display unit HPCToolkit's metric names imply: "s" for a name with `(sec)`, else none.
    pub fn unit_of_name(name: &str) -> String {
        if name.contains("(sec)") {
            "s".into()
        } else {
            String::new()
        }
    }

    /// A metric of an HPCToolkit-family format, named `name`, with the unit its name implies and
    /// no scopes or summaries yet.
    pub fn named(name: &str) -> Metric {
        Metric {
            name: name.to_string(),
            unit: Metric::unit_of_name(name),
            scopes: Vec::new(),
            summaries: Vec::new(),
        }
    }

    /// A metric whose value in each scope `(name, kind, value id)` is summed over profiles (the
    /// summary statistic `sum` of `$$` of the same value id): what formats without hpcprof's
    /// statistics (hpcrun, uftrace, DCPI, comparisons) declare.
    pub fn summed(
        name: impl Into<String>,
        unit: impl Into<String>,
        scopes: &[(&str, ScopeKind, u16)],
    ) -> Metric {
        Metric {
            name: name.into(),
            unit: unit.into(),
            scopes: scopes
                .iter()
                .map(|&(s, kind, id)| MetricScope {
                    scope: s.into(),
                    kind,
                    prop_metric_id: id,
                })
                .collect(),
            summaries: scopes
                .iter()
                .map(|&(s, kind, id)| SummaryStat {
                    scope: s.into(),
                    kind,
                    formula: "$$".into(),
                    combine: Combine::Sum,
                    stat_metric_id: id,
                })
                .collect(),
        }
    }

    /// Value id holding this metric in scope `kind`: in the summary profile the `sum` statistic of
    /// that scope, in other profiles the propagated value.
    pub fn value_id(&self, kind: ScopeKind, summary: bool) -> Option<u16> {
        if summary {
            // hpcprof lists `sum` of `1` (a count of profiles) before `sum` of `$$`: the value
            // is the sum of the values themselves; another `sum` only when there is none.
            let sums = || {
                self.summaries
                    .iter()
                    .filter(move |s| s.kind == kind && s.combine == Combine::Sum)
            };
            sums()
                .find(|s| s.formula.trim() == "$$")
                .or_else(|| sums().find(|s| s.formula.trim() != "1"))
                .map(|s| s.stat_metric_id)
        } else {
            self.scopes
                .iter()
                .find(|s| s.kind == kind)
                .map(|s| s.prop_metric_id)
        }
    }
    /// Inclusive value id (execution scope).
    pub fn inclusive(&self, summary: bool) -> Option<u16> {
        self.value_id(ScopeKind::Execution, summary)
    }
    /// Exclusive value id (function scope).
    pub fn exclusive(&self, summary: bool) -> Option<u16> {
        self.value_id(ScopeKind::Function, summary)
    }
}

/// One element of a profile's identifier tuple (`RANK 3`, `THREAD 1`, `NODE 0 [0x11ac0300]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Identifier {
    /// Index into `Dataset::id_names`.
    pub kind: u16,
    pub logical_id: u32,
    pub physical_id: u64,
    pub physical: bool,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProfileInfo {
    pub summary: bool,
    pub id_tuple: Vec<Identifier>,
}

impl ProfileInfo {
    /// "NODE 0 / RANK 3 / THREAD 1" (logical ids), "summary" for the summary profile.
    pub fn label(&self, id_names: &[String]) -> String {
        if self.summary {
            return "summary".into();
        }
        if self.id_tuple.is_empty() {
            return "(no id)".into();
        }
        let parts: Vec<String> = self
            .id_tuple
            .iter()
            .map(|id| {
                let name = id_names
                    .get(id.kind as usize)
                    .map(String::as_str)
                    .unwrap_or("?");
                format!("{name} {}", id.logical_id)
            })
            .collect();
        parts.join(" / ")
    }

    /// Sort key putting profiles in rank, thread order: logical ids compared numerically, element
    /// by element in tuple order, NODE ids last (a node id says where a rank ran, not which it
    /// is). The summary comes first.
    pub fn order_key(&self, id_names: &[String]) -> (bool, Vec<(bool, u16, u32)>) {
        let is_node = |id: &Identifier| {
            id_names
                .get(id.kind as usize)
                .is_some_and(|n| n.eq_ignore_ascii_case("node"))
        };
        let mut key: Vec<(bool, u16, u32)> = self
            .id_tuple
            .iter()
            .map(|id| (is_node(id), id.kind, id.logical_id))
            .collect();
        crate::sort::sort_by_key(&mut key, |k| k.0); // stable: tuple order kept within non-node and node ids
        (!self.summary, key)
    }
}

/// Position of each profile in rank, thread order ([`ProfileInfo::order_key`]); equal keys keep
/// file order.
pub fn profile_order(profiles: &[ProfileInfo], id_names: &[String]) -> Vec<u32> {
    let mut by_key: Vec<usize> = (0..profiles.len()).collect();
    let keys: Vec<_> = profiles.iter().map(|p| p.order_key(id_names)).collect();
    crate::sort::sort_by(&mut by_key, |&a, &b| keys[a].cmp(&keys[b]));
    let mut pos = vec![0u32; profiles.len()];
    for (p, &i) in by_key.iter().enumerate() {
        pos[i] = p as u32;
    }
    pos
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TraceLineInfo {
    /// Index into `Dataset::profiles` of the profile this line belongs to.
    pub prof_index: u32,
    /// Number of samples in the line.
    pub samples: u64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TraceInfo {
    /// Time range over all lines, in the format's unit (HPCToolkit: ns since the epoch). `None`
    /// when the trace has no samples (HPCToolkit's sentinel min/max).
    pub min_time: Option<u64>,
    pub max_time: Option<u64>,
    pub lines: Vec<TraceLineInfo>,
}

impl TraceInfo {
    /// Samples of line `line` (0 for a line the trace does not have).
    pub fn samples(&self, line: usize) -> u64 {
        self.lines.get(line).map_or(0, |l| l.samples)
    }

    /// The summary's facts about a database's trace (HPCToolkit databases of both eras): lines,
    /// samples and time range (in ns), or `trace: none`.
    pub fn facts(trace: Option<&TraceInfo>) -> Vec<(String, String)> {
        let Some(t) = trace else {
            return vec![("trace".into(), "none".into())];
        };
        let n_samples: u64 = t.lines.iter().map(|l| l.samples).sum();
        let mut facts = vec![
            ("trace lines".into(), t.lines.len().to_string()),
            ("trace samples".into(), n_samples.to_string()),
        ];
        if let (Some(a), Some(b)) = (t.min_time, t.max_time) {
            facts.push((
                "time range".into(),
                format!("{a} .. {b} ns ({:.6} s)", b.saturating_sub(a) as f64 / 1e9),
            ));
        }
        facts
    }
}

/// One trace sample: from `time` on, the thread was in context `node` (a model node index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TraceSample {
    pub time: u64,
    pub node: u32,
}

/// The call open on a trace line at some time (see [`LazyData::span_at`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SpanDetail {
    /// Model node of the call.
    pub node: u32,
    pub start: u64,
    /// `None` when the call had not returned by the end of the recording.
    pub end: Option<u64>,
    #[serde(flatten)]
    pub payload: CallPayload,
}

/// What a call recorded: its arguments and return value as text (`arg1=10`, `arg2="hello"`,
/// `retval=55`), empty when none were recorded.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct CallPayload {
    pub args: Vec<String>,
    pub retval: Option<String>,
}

/// What a dataset reads on demand through its byte sources. Implemented by each format reader.
pub trait LazyData {
    /// All non-zero values of profile `prof` (index into `Dataset::profiles`).
    fn profile_values(&self, prof: usize) -> Result<SparseValues>;
    /// The same values, shared: a reader that keeps a profile in memory (HPCToolkit's summary)
    /// hands it out without copying. Default: [`LazyData::profile_values`] wrapped.
    fn profile_values_shared(&self, prof: usize) -> Result<std::sync::Arc<SparseValues>> {
        self.profile_values(prof).map(std::sync::Arc::new)
    }
    /// False for a profile that stands for a thread whose values the dataset does not have (an
    /// XML-era database with traces but no metric-db files): the distribution leaves it out.
    fn profile_has_values(&self, _prof: usize) -> bool {
        true
    }
    /// Values of one context across profiles: (prof index, value id, value). Default: none stored
    /// context-major (formats without a cct.db answer through the profiles).
    fn context_values(&self, _node: u32) -> Result<Vec<(u32, u16, f64)>> {
        Ok(Vec::new())
    }
    /// Samples `start..start+count` of trace line `line` (index into `TraceInfo::lines`).
    fn trace_samples(&self, _line: usize, _start: u64, _count: u64) -> Result<Vec<TraceSample>> {
        Ok(Vec::new())
    }
    /// Index of the last sample of `line` with time <= `time` (binary search through the source),
    /// `None` when `time` is before the first sample.
    fn trace_find(&self, _line: usize, _time: u64) -> Result<Option<u64>> {
        Ok(None)
    }
    /// Calls `f` on samples `start..start + count` of `line` in order until it returns false;
    /// returns how many it was given. Readers override it to decode large streamed reads in
    /// place (scanning a trace line for the timeline); the default reads chunks of samples.
    fn trace_scan(
        &self,
        line: usize,
        start: u64,
        count: u64,
        f: &mut dyn FnMut(TraceSample) -> bool,
    ) -> Result<u64> {
        let mut i = start;
        let end = start.saturating_add(count);
        while i < end {
            let got = self.trace_samples(line, i, (end - i).min(1 << 16))?;
            if got.is_empty() {
                break;
            }
            for s in got {
                i += 1;
                if !f(s) {
                    return Ok(i - start);
                }
            }
        }
        Ok(i - start)
    }
    /// `trace_find` for many (line, time) queries at once. Readers over sources with a cheap
    /// batch (HTTP multi-range) run the binary searches in lock step, one batch per round.
    fn trace_find_many(&self, queries: &[(usize, u64)]) -> Result<Vec<Option<u64>>> {
        queries
            .iter()
            .map(|&(l, t)| self.trace_find(l, t))
            .collect()
    }
    /// Sample `index` of each (line, index) query (`None` past the line's end), read with one
    /// batched call of the byte source where the reader supports it.
    fn trace_sample_many(&self, queries: &[(usize, u64)]) -> Result<Vec<Option<TraceSample>>> {
        queries
            .iter()
            .map(|&(l, i)| Ok(self.trace_samples(l, i, 1)?.first().copied()))
            .collect()
    }
    /// Details of the call open on trace line `line` at `time`, for a tooltip: the innermost
    /// call's node, start and end times and its recorded arguments and return value as text
    /// (uftrace). Default: nothing known.
    fn span_at(&self, _line: usize, _time: u64) -> Result<Option<SpanDetail>> {
        Ok(None)
    }
    /// The recorded arguments and return value (as `span_at` gives them) of the call of context
    /// `node` on `line` that began at `start` and, when given, returned at `end`. Default: none.
    fn call_payloads(
        &self,
        _line: usize,
        _node: u32,
        _start: u64,
        _end: Option<u64>,
    ) -> Result<CallPayload> {
        Ok(CallPayload::default())
    }
    /// Sample counts by instruction address for formats that record them per address (DCPI):
    /// `bins` equal-width bins over the sampled address range, as (first address of the bin,
    /// samples in the bin), empty bins included. Default: no per-address data.
    fn address_histogram(&self, _bins: usize) -> Result<Vec<(u64, u64)>> {
        Ok(Vec::new())
    }
}

/// A dataset with no lazily read parts (everything was read at open time, or there is nothing).
pub struct NoLazyData;
impl LazyData for NoLazyData {
    fn profile_values(&self, _prof: usize) -> Result<SparseValues> {
        Ok(SparseValues::default())
    }
}

impl Default for Box<dyn LazyData> {
    fn default() -> Self {
        Box::new(NoLazyData)
    }
}

/// One file of a dataset, as shown in the summary panel.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FileEntry {
    pub path: String,
    pub size: u64,
}

/// An opened dataset: metadata in memory, values and traces behind `data`. The default is an
/// empty one, for a reader to fill in.
#[derive(Default)]
pub struct Dataset {
    /// Format name, stable for tests and the UI: "hpctoolkit", "prof2", "hpcrun", "dcpi", "uftrace".
    pub format: String,
    /// Layout or era within the format: "v4.0 final", "v4.0 draft (April 2022)", "04.00b" ...
    pub layout: String,
    pub title: String,
    pub files: Vec<FileEntry>,
    /// Header facts for the summary panel, in display order.
    pub facts: Vec<(String, String)>,
    pub id_names: Vec<String>,
    pub modules: Vec<Module>,
    pub source_files: Vec<SourceFile>,
    pub functions: Vec<Function>,
    pub cct: Cct,
    pub metrics: Vec<Metric>,
    pub profiles: Vec<ProfileInfo>,
    /// Index of the summary profile in `profiles`, if the format has one.
    pub summary_profile: Option<usize>,
    pub trace: Option<TraceInfo>,
    /// The metric tree the format ships with the data (HPCToolkit's metrics/default.yaml), with
    /// its formula metrics; `None` shows the metrics as a flat list.
    pub taxonomy: Option<MetricTaxonomy>,
    pub warnings: Vec<Warning>,
    pub data: Box<dyn LazyData>,
}

impl Dataset {
    /// Number of metrics the views list: the dataset's own, then its taxonomy's formula metrics.
    pub fn view_metrics(&self) -> usize {
        self.metrics.len() + self.taxonomy.as_ref().map_or(0, |t| t.derived.len())
    }

    /// The formula metric that view metric `metric` is (`None` for the dataset's own metrics).
    pub fn derived_metric(&self, metric: usize) -> Option<&DerivedMetric> {
        let i = metric.checked_sub(self.metrics.len())?;
        self.taxonomy.as_ref()?.derived.get(i)
    }

    /// Name and unit of view metric `metric` ("" for an index no metric has).
    pub fn metric_label(&self, metric: usize) -> (&str, &str) {
        match (self.metrics.get(metric), self.derived_metric(metric)) {
            (Some(m), _) => (&m.name, &m.unit),
            (None, Some(d)) => (&d.name, &d.unit),
            (None, None) => ("", ""),
        }
    }

    /// Samples of trace line `line` (0 without a trace or such a line).
    pub fn trace_line_samples(&self, line: usize) -> u64 {
        self.trace.as_ref().map_or(0, |t| t.samples(line))
    }

    /// Where node `node` is, from its frame or else its function: source file path, line and
    /// load module path (each `None` when neither says).
    pub fn frame_place(&self, node: u32) -> (Option<&str>, Option<u32>, Option<&str>) {
        let Some(code) = self.cct.frame.get(node as usize).map(|f| f.code) else {
            return (None, None, None);
        };
        let func = code.function.and_then(|f| self.functions.get(f as usize));
        let file = code.file.or(func.and_then(|f| f.file));
        let module = code.module.or(func.and_then(|f| f.module));
        (
            file.and_then(|i| self.source_files.get(i as usize))
                .map(|s| s.path.as_str()),
            code.line.or(func.and_then(|f| f.line)),
            module
                .and_then(|i| self.modules.get(i as usize))
                .map(|m| m.path.as_str()),
        )
    }

    /// Display name of a node's frame: function name, "file:line", "loop at file:line",
    /// "module+0xoffset", entry point name.
    pub fn frame_name(&self, node: u32) -> String {
        let mut s = String::new();
        self.write_frame_name(node, &mut s);
        s
    }

    /// [`Dataset::frame_name`] appended to `out` (no allocation of its own: a comparison names
    /// a million frames).
    pub fn write_frame_name(&self, node: u32, out: &mut String) {
        use std::fmt::Write;
        let Some(f) = self.cct.frame.get(node as usize) else {
            return;
        };
        let file = |i: Option<u32>| {
            i.and_then(|i| self.source_files.get(i as usize))
                .map(|s| short_path(&s.path))
                .unwrap_or("?")
        };
        let fixed = match f.kind {
            NodeKind::Root => "<root>",
            NodeKind::EntryPoint(EntryKind::MainThread) => "main thread",
            NodeKind::EntryPoint(EntryKind::ApplicationThread) => "application thread",
            NodeKind::EntryPoint(EntryKind::UnknownEntry) => "unknown entry",
            NodeKind::Context => "",
        };
        if f.kind != NodeKind::Context {
            out.push_str(fixed);
            return;
        }
        let code = f.code;
        if let Some(func) = code.function.and_then(|i| self.functions.get(i as usize)) {
            out.push_str(&func.name);
            return;
        }
        // Writing to a String cannot fail.
        let _ = match f.lexical_type {
            LexicalType::Loop => write!(
                out,
                "loop at {}:{}",
                file(code.file),
                code.line.unwrap_or(0)
            ),
            LexicalType::Line if code.file.is_some() => {
                write!(out, "{}:{}", file(code.file), code.line.unwrap_or(0))
            }
            _ => {
                let module = code
                    .module
                    .and_then(|i| self.modules.get(i as usize))
                    .map(|m| short_path(&m.path));
                match (module, code.offset) {
                    (Some(m), Some(off)) => write!(out, "{m}+{off:#x}"),
                    (None, Some(off)) => write!(out, "{off:#x}"),
                    _ if code.file.is_some() => {
                        write!(out, "{}:{}", file(code.file), code.line.unwrap_or(0))
                    }
                    _ => {
                        out.push_str("<unknown>");
                        Ok(())
                    }
                }
            }
        };
    }
}

/// The index of `key` among the ids `ids` gives to `items`: a new key gets the next index and
/// `make()` is pushed for it (the readers' string tables: modules, files, functions).
pub fn intern<K, Q, T, S>(
    ids: &mut std::collections::HashMap<K, u32, S>,
    items: &mut Vec<T>,
    key: &Q,
    make: impl FnOnce() -> T,
) -> u32
where
    K: std::borrow::Borrow<Q> + std::hash::Hash + Eq,
    Q: ToOwned<Owned = K> + std::hash::Hash + Eq + ?Sized,
    S: std::hash::BuildHasher,
{
    if let Some(&i) = ids.get(key) {
        return i;
    }
    let i = items.len() as u32;
    items.push(make());
    ids.insert(key.to_owned(), i);
    i
}

/// Last component of a path, for compact labels.
pub fn short_path(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Identifier kind names as HPCToolkit numbers them, up to THREAD.
    fn kind_names() -> Vec<String> {
        ["SUMMARY", "NODE", "RANK", "THREAD"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn profiles_in_rank_thread_order() {
        let names = kind_names();
        let id = |kind: u16, logical_id: u32| Identifier {
            kind,
            logical_id,
            physical_id: 0,
            physical: false,
        };
        let p = |summary: bool, ids: &[(u16, u32)]| ProfileInfo {
            summary,
            id_tuple: ids.iter().map(|&(k, v)| id(k, v)).collect(),
        };
        // uftrace-like threads in file order 5, 0, 10, 4: numeric, not textual, order.
        let threads = [
            p(false, &[(3, 5)]),
            p(false, &[(3, 0)]),
            p(false, &[(3, 10)]),
            p(false, &[(3, 4)]),
            p(true, &[]),
        ];
        assert_eq!(profile_order(&threads, &names), vec![3, 1, 4, 2, 0]);
        // Rank before node: rank 0 on node 1 comes before rank 1 on node 0; threads of a rank
        // follow it.
        let ranks = [
            p(false, &[(1, 0), (2, 1), (3, 0)]),
            p(false, &[(1, 1), (2, 0), (3, 1)]),
            p(false, &[(1, 1), (2, 0), (3, 0)]),
        ];
        assert_eq!(profile_order(&ranks, &names), vec![2, 1, 0]);
    }

    #[test]
    fn profile_labels() {
        let names = kind_names();
        let p = ProfileInfo {
            summary: false,
            id_tuple: vec![
                Identifier {
                    kind: 1,
                    logical_id: 0,
                    physical_id: 0x11ac0300,
                    physical: true,
                },
                Identifier {
                    kind: 2,
                    logical_id: 3,
                    physical_id: 3,
                    physical: false,
                },
                Identifier {
                    kind: 3,
                    logical_id: 1,
                    physical_id: 1,
                    physical: false,
                },
            ],
        };
        assert_eq!(p.label(&names), "NODE 0 / RANK 3 / THREAD 1");
        assert_eq!(
            ProfileInfo {
                summary: true,
                id_tuple: vec![]
            }
            .label(&names),
            "summary"
        );
    }

    #[test]
    fn metric_value_ids_by_scope() {
        let m = Metric {
            name: "CPUTIME (sec)".into(),
            unit: "s".into(),
            scopes: vec![
                MetricScope {
                    scope: "function".into(),
                    kind: ScopeKind::Function,
                    prop_metric_id: 1,
                },
                MetricScope {
                    scope: "execution".into(),
                    kind: ScopeKind::Execution,
                    prop_metric_id: 3,
                },
            ],
            summaries: vec![
                // hpcprof's order: the count of profiles comes first.
                SummaryStat {
                    scope: "execution".into(),
                    kind: ScopeKind::Execution,
                    formula: "1".into(),
                    combine: Combine::Sum,
                    stat_metric_id: 5,
                },
                SummaryStat {
                    scope: "execution".into(),
                    kind: ScopeKind::Execution,
                    formula: "$$".into(),
                    combine: Combine::Max,
                    stat_metric_id: 9,
                },
                SummaryStat {
                    scope: "execution".into(),
                    kind: ScopeKind::Execution,
                    formula: "$$".into(),
                    combine: Combine::Sum,
                    stat_metric_id: 7,
                },
            ],
        };
        assert_eq!(m.inclusive(false), Some(3));
        assert_eq!(m.exclusive(false), Some(1));
        assert_eq!(m.inclusive(true), Some(7));
        assert_eq!(m.exclusive(true), None);
    }
}
