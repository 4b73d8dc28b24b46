//! uftrace recordings (`uftrace.data/`, seed 004 and FORMATS-NOTES "uftrace"): `info`, `task.txt`,
//! `sid-*.map`, `*.sym`, `*.dbg`, `<tid>.dat` and `perf-cpu*.dat` become one dataset whose tree
//! merges the call paths of every task, with one profile per task and one timeline per task.
//! One streaming pass over each task's records computes the tree values and the `uftrace report`
//! table; the timeline is re-read on demand from a sparse index of checkpoints.

pub mod dat;
pub mod dbg;
pub mod demangle;
mod fstack;
pub mod info;
pub mod map;
pub mod pattern;
pub mod perf;
pub mod probe;
pub mod resolve;
pub mod sym;
pub mod task;

pub use fstack::FuncStat;

use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::formats::{DatasetGroup, FileKind, Format, InputFile, Probe};
use crate::model::{
    Cct, CctBuilder, Combine, Dataset, FileEntry, Frame, Function, Identifier, LazyData, Metric,
    MetricScope, Module, ProfileInfo, ScopeKind, SparseValues, SummaryStat, TraceInfo,
    TraceLineInfo, TraceSample,
};
use dat::{event_payload_len, DatReader, Payload, RecordKind, UftraceRecord};
use fstack::{fixup_of, tree_key, BuildFx, Fixup, TaskAccum, TaskStack, TreeBuilder};
use perf::{PerfEvent, PerfKind};
use resolve::{FuncKey, Resolver};
use std::collections::HashMap;
use std::sync::Arc;

/// Value ids of the metrics in every profile.
pub const VAL_TIME_INCL: u16 = 0;
pub const VAL_TIME_EXCL: u16 = 1;
pub const VAL_CALLS: u16 = 2;
/// Timeline samples between two checkpoints of the sparse index.
pub const CHECKPOINT_EVERY: u64 = 4096;

/// One row of the `uftrace report` table.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReportRow {
    pub function: String,
    pub total_ns: u64,
    pub self_ns: u64,
    pub calls: u64,
}

/// Totals of one task (`uftrace report --task` and the task's own function table).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TaskReport {
    pub tid: u32,
    /// Task name (last `comm` seen in the scheduler events, else the program's name).
    pub name: String,
    /// Time covered by reported functions (uftrace's "Total time" of `--task`).
    pub total_ns: u64,
    /// `total_ns` minus the time the task was switched out.
    pub self_ns: u64,
    /// Number of reported calls (uftrace's "Num funcs").
    pub calls: u64,
    pub rows: Vec<ReportRow>,
}

/// Counts of a recording, as `uftrace dump` shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecordCounts {
    pub records: u64,
    pub entries: u64,
    pub exits: u64,
    pub events: u64,
    pub lost_records: u64,
    /// LOST records' total of lost records.
    pub lost: u64,
    /// Records followed by an argument payload, a return-value payload, an event payload.
    pub args: u64,
    pub retvals: u64,
    pub event_data: u64,
}

impl RecordCounts {
    #[inline(always)]
    fn count(&mut self, rec: &UftraceRecord) {
        self.records += 1;
        match rec.kind {
            RecordKind::Entry => {
                self.entries += 1;
                self.args += rec.more as u64;
            }
            RecordKind::Exit => {
                self.exits += 1;
                self.retvals += rec.more as u64;
            }
            RecordKind::Event => {
                self.events += 1;
                self.event_data += rec.more as u64;
            }
            RecordKind::Lost => {
                self.lost_records += 1;
                self.lost = self.lost.wrapping_add(rec.addr);
            }
        }
    }
    fn add(&mut self, o: &RecordCounts) {
        self.records += o.records;
        self.entries += o.entries;
        self.exits += o.exits;
        self.events += o.events;
        self.lost_records += o.lost_records;
        self.lost = self.lost.wrapping_add(o.lost);
        self.args += o.args;
        self.retvals += o.retvals;
        self.event_data += o.event_data;
    }
}

/// The `uftrace report` view of a recording.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct UftraceReport {
    /// Over all tasks, sorted like uftrace: total time descending, then name.
    pub functions: Vec<ReportRow>,
    pub tasks: Vec<TaskReport>,
    pub counts: RecordCounts,
    /// Per task, counts in the same order as `tasks`.
    pub task_counts: Vec<RecordCounts>,
    /// Folded stacks like `uftrace dump --flame-graph`: call path and microseconds of self time,
    /// where a child call counts only its whole microseconds against its parent (uftrace's
    /// sampling at 1 us); paths with 0 are left out. Tree preorder, children in call order.
    /// At most [`FOLDED_MAX_BYTES`] of path text (only recordings thousands of calls deep reach it).
    pub flame: Vec<(String, u64)>,
}

/// Opens a recording as a dataset.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    open_report(group).map(|(d, _)| d)
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Sorts rows like uftrace's default `report` order: total descending, ties by name (strcmp).
pub fn sort_rows(rows: &mut [ReportRow]) {
    rows.sort_by(|a, b| {
        b.total_ns
            .cmp(&a.total_ns)
            .then_with(|| a.function.as_bytes().cmp(b.function.as_bytes()))
    });
}

/// Merges per-function stats into report rows by name (uftrace keys its table by name).
fn rows_from(stats: &[(u32, FuncStat)], res: &Resolver) -> Vec<ReportRow> {
    let mut by_name: HashMap<&str, ReportRow> = HashMap::new();
    for (f, s) in stats {
        if s.calls == 0 {
            continue;
        }
        let Some(info) = res.funcs.get(*f as usize) else {
            continue;
        };
        let r = by_name
            .entry(info.name.as_str())
            .or_insert_with(|| ReportRow {
                function: info.name.clone(),
                total_ns: 0,
                self_ns: 0,
                calls: 0,
            });
        r.total_ns = r.total_ns.wrapping_add(s.total_ns);
        r.self_ns = r.self_ns.wrapping_add(s.self_ns);
        r.calls += s.calls;
    }
    let mut rows: Vec<ReportRow> = by_name.into_values().collect();
    sort_rows(&mut rows);
    rows
}

/// A saved reader position every [`CHECKPOINT_EVERY`] timeline samples.
#[derive(Clone, Copy, Debug)]
struct Checkpoint {
    sample: u64,
    time: u64,
    /// Offset of the next user record to read.
    pos: u64,
    /// Accepted scheduler events consumed so far.
    sched: u32,
    /// Builder node before the sample.
    node: u32,
}

/// A scheduler switch that became a pseudo-function call: (time, out?, function).
type SchedStep = (u64, bool, u32);

struct TaskLine {
    tid: u32,
    src: Source,
    checkpoints: Vec<Checkpoint>,
    sched: Vec<SchedStep>,
    samples: u64,
    /// Per timeline point: the builder session breakpoints for address resolution.
    sessions: Vec<(u64, Option<u32>)>,
}

/// The lazily read parts of a uftrace dataset.
pub struct UftraceData {
    res: Arc<Resolver>,
    little: bool,
    lines: Vec<TaskLine>,
    tree_parent: Vec<u32>,
    tree_children: HashMap<u64, u32, BuildFx>,
    builder_to_node: Vec<u32>,
    profiles: Vec<SparseValues>,
}

/// Entries of the direct-mapped address cache.
const MEMO: usize = 1024;

/// Key of the (session, address) -> function cache: addresses have 48 bits.
fn cache_key(sess: Option<u32>, addr: u64) -> u64 {
    (sess.map(|s| s as u64 + 1).unwrap_or(0) << 48) ^ addr
}

/// Function id of an address in a task: a direct-mapped cache in front of the map, because hot
/// loops hit few addresses.
#[inline(always)]
fn resolve_func(
    res: &mut Resolver,
    cache: &mut HashMap<u64, u32, BuildFx>,
    memo: &mut [(u64, u32); MEMO],
    single_session: Option<Option<u32>>,
    breaks: &[(u64, Option<u32>)],
    t: u64,
    addr: u64,
) -> u32 {
    let sess = match single_session {
        Some(s) => s,
        None => session_at(breaks, t),
    };
    let key = cache_key(sess, addr);
    let slot = &mut memo[(addr as usize ^ (addr >> 12) as usize) & (MEMO - 1)];
    if slot.0 == key {
        return slot.1;
    }
    let f = match cache.get(&key) {
        Some(&f) => f,
        None => {
            let k = res.key_of(sess, addr);
            let f = res.func(k);
            cache.insert(key, f);
            f
        }
    };
    *slot = (key, f);
    f
}

fn session_at(breaks: &[(u64, Option<u32>)], t: u64) -> Option<u32> {
    let i = breaks.partition_point(|b| b.0 <= t);
    breaks.get(i.saturating_sub(1)).and_then(|b| b.1)
}

/// Node after a record: ENTRY goes to the callee's node, EXIT back to the parent, LOST to the root.
fn step_node(parent: &[u32], node: u32, kind: RecordKind, child: u32) -> u32 {
    match kind {
        RecordKind::Entry => child,
        RecordKind::Exit => {
            if node == 0 {
                0
            } else {
                parent.get(node as usize).copied().unwrap_or(0)
            }
        }
        RecordKind::Lost => 0,
        RecordKind::Event => node,
    }
}

impl UftraceData {
    /// Replays line `line` from the last checkpoint at or before `from`, calling `f(index, time,
    /// builder node)` for each sample until it returns false.
    fn replay(
        &self,
        line: usize,
        cp: Checkpoint,
        mut f: impl FnMut(u64, u64, u32) -> bool,
    ) -> Result<()> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(());
        };
        let res = &self.res;
        let mut reader = DatReader::new(&tl.src, self.little, cp.pos);
        let mut node = cp.node;
        let mut sample = cp.sample;
        let mut sched_i = cp.sched as usize;
        let mut last_time = cp.time;
        let mut cache: HashMap<u64, u32, BuildFx> = HashMap::default();
        let mut func_of = |t: u64, addr: u64| -> u32 {
            let sess = session_at(&tl.sessions, t);
            *cache.entry(cache_key(sess, addr)).or_insert_with(|| {
                res.func_index
                    .get(&res.key_of(sess, addr))
                    .copied()
                    .unwrap_or(u32::MAX)
            })
        };
        let mut pending = next_record(&mut reader, res, &mut func_of)?;
        loop {
            let take_user = match (&pending, tl.sched.get(sched_i)) {
                (Some((_, r, _)), Some(s)) => r.time <= s.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_user {
                let Some((_, rec, func)) = pending.take() else {
                    break;
                };
                if rec.kind != RecordKind::Event {
                    let child = if rec.kind == RecordKind::Entry {
                        self.tree_children
                            .get(&tree_key(node, func))
                            .copied()
                            .unwrap_or(node)
                    } else {
                        node
                    };
                    node = step_node(&self.tree_parent, node, rec.kind, child);
                    if rec.kind != RecordKind::Lost {
                        last_time = rec.time;
                    }
                    if !f(sample, last_time, node) {
                        return Ok(());
                    }
                    sample += 1;
                }
                pending = next_record(&mut reader, res, &mut func_of)?;
            } else {
                let (t, out, func) = tl.sched[sched_i];
                sched_i += 1;
                node = if out {
                    self.tree_children
                        .get(&tree_key(node, func))
                        .copied()
                        .unwrap_or(node)
                } else {
                    step_node(&self.tree_parent, node, RecordKind::Exit, node)
                };
                last_time = t;
                if !f(sample, t, node) {
                    return Ok(());
                }
                sample += 1;
            }
        }
        Ok(())
    }

    fn checkpoint_for_sample(&self, line: usize, sample: u64) -> Option<Checkpoint> {
        let tl = self.lines.get(line)?;
        let i = tl.checkpoints.partition_point(|c| c.sample <= sample);
        tl.checkpoints.get(i.checked_sub(1)?).copied()
    }

    fn node_of(&self, b: u32) -> u32 {
        self.builder_to_node.get(b as usize).copied().unwrap_or(0)
    }
}

/// Reads the next record of a replay, sizing payloads from the function's specs.
fn next_record(
    reader: &mut DatReader,
    res: &Resolver,
    func_of: &mut impl FnMut(u64, u64) -> u32,
) -> Result<Option<(u64, UftraceRecord, u32)>> {
    let mut fid = u32::MAX;
    let r = reader.next(|rec, data| match rec.kind {
        RecordKind::Event => event_payload_len(data),
        RecordKind::Entry | RecordKind::Exit => {
            fid = func_of(rec.time, rec.addr);
            match res.specs.get(fid as usize).and_then(|s| s.as_ref()) {
                Some(s) => match dbg::payload_len(
                    if rec.kind == RecordKind::Exit {
                        &s.rets
                    } else {
                        &s.args
                    },
                    rec.kind == RecordKind::Exit,
                    data,
                ) {
                    Some(0) | None if data.len() < 1 << 17 => Payload::Short,
                    Some(0) => Payload::Unknown,
                    Some(n) => Payload::Len(n),
                    None => Payload::Unknown,
                },
                None => Payload::Unknown,
            }
        }
        RecordKind::Lost => Payload::Len(0),
    })?;
    Ok(r.map(|(off, rec)| {
        let f = if matches!(rec.kind, RecordKind::Entry | RecordKind::Exit) {
            if rec.more {
                fid
            } else {
                func_of(rec.time, rec.addr)
            }
        } else {
            u32::MAX
        };
        (off, rec, f)
    }))
}

/// A call opened during a replay: builder node, start time, arguments.
struct OpenCall {
    node: u32,
    start: u64,
    args: Vec<String>,
}

impl UftraceData {
    /// Payload of the record at `off` of line `line` (its bytes up to `next`) as text.
    fn payload_text(
        &self,
        tl: &TaskLine,
        off: u64,
        next: u64,
        rec: &UftraceRecord,
        func: u32,
    ) -> Vec<String> {
        let len = next.saturating_sub(off + dat::RECORD_SIZE);
        if !rec.more || len == 0 || len > 1 << 20 {
            return Vec::new();
        }
        let Some(specs) = self.res.specs.get(func as usize).and_then(|s| s.as_ref()) else {
            return Vec::new();
        };
        let exit = rec.kind == RecordKind::Exit;
        match tl.src.bytes(off + dat::RECORD_SIZE, len, "record payload") {
            Ok(b) => dbg::format_payload(if exit { &specs.rets } else { &specs.args }, exit, &b),
            Err(_) => Vec::new(),
        }
    }

    /// The innermost call open at `time` when it opened after checkpoint `cp`: replays from
    /// there until the call returns. `Ok(None)` when it opened before the checkpoint.
    fn span_from(
        &self,
        line: usize,
        cp: Checkpoint,
        time: u64,
    ) -> Result<Option<crate::model::SpanDetail>> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(None);
        };
        let res = &self.res;
        let mut reader = DatReader::new(&tl.src, self.little, cp.pos);
        let mut cache: HashMap<u64, u32, BuildFx> = HashMap::default();
        let mut func_of = |t: u64, addr: u64| -> u32 {
            let sess = session_at(&tl.sessions, t);
            *cache.entry(cache_key(sess, addr)).or_insert_with(|| {
                res.func_index
                    .get(&res.key_of(sess, addr))
                    .copied()
                    .unwrap_or(u32::MAX)
            })
        };
        let mut stack: Vec<OpenCall> = Vec::new();
        let mut sched_i = cp.sched as usize;
        // Once past `time`: the depth of the call we report, and the call itself.
        let mut target: Option<(usize, OpenCall)> = None;
        let mut pending = next_record(&mut reader, res, &mut func_of)?;
        let mut steps = 0u64;
        loop {
            steps += 1;
            // Bounded: a tooltip never scans more than a few million records.
            if steps > 4_000_000 {
                return Ok(None);
            }
            let (t, is_user) = match (&pending, tl.sched.get(sched_i)) {
                (Some((_, r, _)), Some(s)) => {
                    if r.time <= s.0 {
                        (r.time, true)
                    } else {
                        (s.0, false)
                    }
                }
                (Some((_, r, _)), None) => (r.time, true),
                (None, Some(s)) => (s.0, false),
                (None, None) => break,
            };
            if target.is_none() && t > time {
                match stack.pop() {
                    Some(call) => target = Some((stack.len(), call)),
                    None => return Ok(None),
                }
            }
            let mut popped_end = None;
            if is_user {
                let Some((off, rec, func)) = pending.take() else {
                    break;
                };
                pending = next_record(&mut reader, res, &mut func_of)?;
                let next_off = pending.as_ref().map(|p| p.0).unwrap_or(reader.pos());
                match rec.kind {
                    RecordKind::Entry => {
                        let parent = stack.last().map(|c| c.node).unwrap_or(cp.node);
                        let node = self
                            .tree_children
                            .get(&tree_key(parent, func))
                            .copied()
                            .unwrap_or(parent);
                        let args = self.payload_text(tl, off, next_off, &rec, func);
                        stack.push(OpenCall {
                            node,
                            start: rec.time,
                            args,
                        });
                    }
                    RecordKind::Exit => match &target {
                        // Nothing above the target: this is its return.
                        Some((depth, _)) if stack.len() == *depth => {
                            popped_end =
                                Some((rec.time, self.payload_text(tl, off, next_off, &rec, func)));
                        }
                        _ => {
                            stack.pop();
                        }
                    },
                    RecordKind::Lost => {
                        if target.is_some() {
                            break;
                        }
                        return Ok(None);
                    }
                    RecordKind::Event => {}
                }
            } else {
                let (st, out, func) = tl.sched[sched_i];
                sched_i += 1;
                if out {
                    let parent = stack.last().map(|c| c.node).unwrap_or(cp.node);
                    let node = self
                        .tree_children
                        .get(&tree_key(parent, func))
                        .copied()
                        .unwrap_or(parent);
                    stack.push(OpenCall {
                        node,
                        start: st,
                        args: Vec::new(),
                    });
                } else {
                    match &target {
                        Some((depth, _)) if stack.len() == *depth => {
                            popped_end = Some((st, Vec::new()));
                        }
                        _ => {
                            stack.pop();
                        }
                    }
                }
            }
            // The target returns when the stack is back at its depth after a pop of it.
            if let (Some((_, call)), Some((end, ret))) = (&target, popped_end) {
                {
                    return Ok(Some(crate::model::SpanDetail {
                        node: self.node_of(call.node),
                        start: call.start,
                        end: Some(end),
                        args: call.args.clone(),
                        retval: ret.into_iter().next(),
                    }));
                }
            }
        }
        Ok(target.map(|(_, call)| crate::model::SpanDetail {
            node: self.node_of(call.node),
            start: call.start,
            end: None,
            args: call.args,
            retval: None,
        }))
    }
}

impl LazyData for UftraceData {
    fn span_at(&self, line: usize, time: u64) -> Result<Option<crate::model::SpanDetail>> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(None);
        };
        let i = tl.checkpoints.partition_point(|c| c.time <= time);
        // Calls that opened up to 8 checkpoints earlier are found; older ones (main of a huge
        // recording) would need a scan from the start.
        for back in 0..8 {
            let Some(ci) = i.checked_sub(1 + back) else {
                break;
            };
            if let Some(d) = self.span_from(line, tl.checkpoints[ci], time)? {
                return Ok(Some(d));
            }
        }
        Ok(None)
    }

    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        Ok(self.profiles.get(prof).cloned().unwrap_or_default())
    }

    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        let Some(cp) = self.checkpoint_for_sample(line, start) else {
            return Ok(Vec::new());
        };
        // Bounded: a view asks for a window, never a whole 100-million-sample line.
        let count = count.min(1 << 22);
        let mut out = Vec::with_capacity(count.min(1 << 16) as usize);
        self.replay(line, cp, |i, t, n| {
            if i >= start {
                out.push(TraceSample {
                    time: t,
                    node: self.node_of(n),
                });
            }
            (out.len() as u64) < count
        })?;
        Ok(out)
    }

    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(None);
        };
        let i = tl.checkpoints.partition_point(|c| c.time <= time);
        if i == 0 {
            return Ok(None);
        }
        let cp = tl.checkpoints[i - 1];
        let mut found = None;
        self.replay(line, cp, |idx, t, _| {
            if t <= time {
                found = Some(idx);
                true
            } else {
                false
            }
        })?;
        Ok(found)
    }
}

struct Files<'a> {
    info: Option<&'a InputFile>,
    task: Option<&'a InputFile>,
    maps: HashMap<String, &'a InputFile>,
    syms: HashMap<String, &'a InputFile>,
    dbgs: HashMap<String, &'a InputFile>,
    dats: Vec<(u32, &'a InputFile)>,
    perf: Vec<&'a InputFile>,
}

fn collect(group: &DatasetGroup) -> Files<'_> {
    let mut f = Files {
        info: None,
        task: None,
        maps: HashMap::new(),
        syms: HashMap::new(),
        dbgs: HashMap::new(),
        dats: Vec::new(),
        perf: Vec::new(),
    };
    for (kind, file) in &group.files {
        let name = base_name(&file.path);
        match *kind {
            INFO => f.info = Some(file),
            TASK_TXT => f.task = Some(file),
            MAP => {
                let sid = name
                    .trim_start_matches("sid-")
                    .trim_end_matches(".map")
                    .to_string();
                f.maps.insert(sid, file);
            }
            SYM => {
                f.syms
                    .insert(name.trim_end_matches(".sym").to_string(), file);
            }
            DBG => {
                f.dbgs
                    .insert(name.trim_end_matches(".dbg").to_string(), file);
            }
            DAT => {
                if let Ok(tid) = name.trim_end_matches(".dat").parse::<u32>() {
                    f.dats.push((tid, file));
                }
            }
            PERF_DAT => f.perf.push(file),
            _ => {}
        }
    }
    // perf-cpu2.dat before perf-cpu10.dat, as uftrace's glob order does not matter for a merge by
    // time but a stable order keeps ties deterministic.
    f.perf.sort_by_key(|p| {
        base_name(&p.path)
            .trim_start_matches("perf-cpu")
            .trim_end_matches(".dat")
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    });
    f
}

/// Most bytes of path text in [`UftraceReport::flame`]; the list stops before going over.
pub const FOLDED_MAX_BYTES: usize = 64 << 20;

/// Folded stacks (see [`UftraceReport::flame`]) from per-builder-node sums. Like uftrace's call
/// graph, siblings with the same name are one node (e.g. `std::allocator<char>` and
/// `std::allocator<T*>` constructors both print as `std::allocator::allocator`), and children come
/// in the order they were first called.
fn folded_stacks(tree: &TreeBuilder, sums: &[[u64; 4]], res: &Resolver) -> Vec<(String, u64)> {
    let name_of = |f: u32| {
        res.funcs
            .get(f as usize)
            .map(|f| f.name.as_str())
            .unwrap_or("?")
    };
    // Merged tree: builder ids are in order of first call, parents before children.
    let mut merged_of = vec![0u32; tree.parent.len()];
    let mut m_parent: Vec<u32> = vec![u32::MAX];
    let mut m_name: Vec<&str> = vec![""];
    let mut m_children: Vec<Vec<u32>> = vec![Vec::new()];
    let mut m_val: Vec<i128> = vec![0];
    let mut index: HashMap<(u32, &str), u32> = HashMap::new();
    for b in 1..tree.parent.len() {
        let mp = merged_of.get(tree.parent[b] as usize).copied().unwrap_or(0);
        let name = name_of(tree.func[b]);
        let m = *index.entry((mp, name)).or_insert_with(|| {
            let id = m_parent.len() as u32;
            m_parent.push(mp);
            m_name.push(name);
            m_children.push(Vec::new());
            m_val.push(0);
            m_children[mp as usize].push(id);
            id
        });
        merged_of[b] = m;
        let v = sums.get(b).copied().unwrap_or([0; 4]);
        // Own time, minus what the calls of this node count against their parent.
        m_val[m as usize] += v[0] as i128;
        m_val[mp as usize] -= v[3] as i128;
    }
    let mut out = Vec::new();
    let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
    let mut path: Vec<&str> = Vec::new();
    // Path text grows with depth squared (100,000 nested calls would make gigabytes): stop at
    // a budget, as the output is for comparison with uftrace's dump, not for the views.
    let mut bytes = 0usize;
    while let Some(&mut (m, ref mut next)) = stack.last_mut() {
        if *next == 0 && m != 0 {
            path.push(m_name[m as usize]);
            let us = m_val[m as usize].max(0) as u64 / 1000;
            if us > 0 {
                bytes += path.iter().map(|p| p.len() + 1).sum::<usize>();
                if bytes > FOLDED_MAX_BYTES {
                    break;
                }
                out.push((path.join(";"), us));
            }
        }
        if let Some(&c) = m_children[m as usize].get(*next) {
            *next += 1;
            stack.push((c, 0));
        } else {
            stack.pop();
            if m != 0 {
                path.pop();
            }
        }
    }
    out
}

/// Opens a recording: the dataset and the `uftrace report` tables from the same pass.
pub fn open_report(group: &DatasetGroup) -> Result<(Dataset, UftraceReport)> {
    let files = collect(group);
    let mut warnings: Vec<Warning> = Vec::new();
    let info = match files.info {
        Some(f) => Some(info::UftraceInfo::parse(&f.source)?),
        None => {
            if files.dats.is_empty() {
                return Err(Error::unrecognized(
                    &group.root,
                    "uftrace recording without info file",
                ));
            }
            warnings.push(Error::mismatch(
                &group.root,
                "no info file: assuming a little-endian 64-bit recording",
            ));
            None
        }
    };
    let little = info.as_ref().map(|i| i.little_endian()).unwrap_or(true);
    let task_file = match files.task {
        Some(f) => task::TaskFile::parse(&f.source, &mut warnings)?,
        None => {
            if !files.dats.is_empty() {
                warnings.push(Error::mismatch(
                    &group.root,
                    "no task.txt: addresses are shown without symbols",
                ));
            }
            task::TaskFile::default()
        }
    };
    let mut res = Resolver::new(info.as_ref(), task_file);

    // Sessions and their maps.
    let sessions = res.tasks.sessions.clone();
    for s in &sessions {
        res.sessions.push(resolve::SessionData {
            sid: s.sid.clone(),
            pid: s.pid,
            time_ns: s.time_ns,
            ..Default::default()
        });
        let idx = res.sessions.len() - 1;
        match files.maps.get(&s.sid) {
            Some(mf) => match map::parse_map(&mf.source) {
                Ok(mods) => res.add_session_maps(idx, &mods, &s.exename),
                Err(e) => warnings.push(e),
            },
            None => warnings.push(Error::mismatch(
                &group.root,
                format!(
                    "no map for session {}: its addresses stay unresolved",
                    s.sid
                ),
            )),
        }
    }
    for d in res.tasks.dlopens.clone() {
        let mi = res.module(&d.libname);
        let sess = res
            .sessions
            .iter()
            .position(|s| s.sid == d.sid)
            .or_else(|| res.session_for(d.tid, d.time_ns).map(|s| s as usize));
        if let Some(s) = sess.and_then(|s| res.sessions.get_mut(s)) {
            s.dlopens.push((d.base, mi));
            s.dlopens.sort_unstable();
        }
    }
    // Symbol tables and debug info, by module base name.
    let lp64 = res.lp64;
    for m in res.modules.iter_mut() {
        let b = base_name(&m.path).to_string();
        let sym = files.syms.get(&b).or_else(|| {
            // Newer uftrace may suffix names with a build id: `libc.so.6-<id>.sym`.
            files
                .syms
                .iter()
                .find(|(k, _)| k.starts_with(&format!("{b}-")))
                .map(|(_, v)| v)
        });
        m.sym_src = sym.map(|f| f.source.clone());
        if let Some(f) = files.dbgs.get(&b) {
            match dbg::DebugInfo::parse(&f.source, lp64) {
                Ok(d) => m.dbg = Some(Arc::new(d)),
                Err(e) => warnings.push(e),
            }
        }
    }

    // Scheduler events of known tasks, merged over CPUs by time.
    let info_tids = info.as_ref().map(|i| i.tids()).unwrap_or_default();
    let mut tids: Vec<u32> = Vec::new();
    for t in &info_tids {
        if files.dats.iter().any(|(d, _)| d == t) && !tids.contains(t) {
            tids.push(*t);
        }
    }
    let mut rest: Vec<u32> = files
        .dats
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| !tids.contains(t))
        .collect();
    rest.sort_unstable();
    tids.extend(rest);
    let mut perf_events: Vec<PerfEvent> = Vec::new();
    for p in &files.perf {
        perf_events.extend(perf::parse_perf(&p.source, little, &mut warnings)?);
    }
    perf_events.retain(|e| tids.contains(&e.tid));
    perf_events.sort_by_key(|e| e.time);
    let global_last_perf = perf_events.last().map(|e| e.time);
    let sched_f = res.func(FuncKey::Sched);
    let sched_p = res.func(FuncKey::SchedPreempt);

    let mut tree = TreeBuilder::new();
    let mut lines = Vec::new();
    let mut accs = Vec::new();
    let mut task_counts = Vec::new();
    let mut comms: Vec<String> = Vec::new();
    let mut idle: Vec<u64> = Vec::new();
    let mut min_time = u64::MAX;
    let mut max_time = 0u64;
    // Session breakpoints: where a task's session can change.
    let mut break_times: Vec<u64> = res.sessions.iter().map(|s| s.time_ns).collect();
    break_times.extend(res.tasks.forks.iter().map(|f| f.time_ns));
    break_times.push(0);
    break_times.sort_unstable();
    break_times.dedup();

    let mut fixups: Vec<Fixup> = Vec::new();
    for &tid in &tids {
        let Some((_, file)) = files.dats.iter().find(|(t, _)| *t == tid) else {
            continue;
        };
        let src = file.source.clone();
        let breaks: Vec<(u64, Option<u32>)> = break_times
            .iter()
            .map(|&t| (t, res.session_for(tid, t.max(1))))
            .collect();
        // Most tasks live in one session: skip the lookup by time.
        let single_session = breaks
            .iter()
            .all(|b| b.1 == breaks[0].1)
            .then(|| breaks[0].1);
        let events: Vec<&PerfEvent> = perf_events.iter().filter(|e| e.tid == tid).collect();
        let mut comm = String::new();
        let mut acc = TaskAccum::default();
        let mut stack = TaskStack::default();
        let mut counts = RecordCounts::default();
        let mut checkpoints = Vec::new();
        let mut sched_steps: Vec<SchedStep> = Vec::new();
        let mut samples = 0u64;
        let mut last_user_time = 0u64;
        let mut last_is_perf = false;
        let mut idle_ns = 0u64;
        let mut sched_out_at: Option<u64> = None;
        let mut cache: HashMap<u64, u32, BuildFx> = HashMap::default();
        let mut memo = [(u64::MAX, 0u32); MEMO];
        let mut reader = DatReader::new(&src, little, 0);
        let mut ev_i = 0usize;
        let mut read_err: Option<Error> = None;

        let next = |reader: &mut DatReader,
                    res: &mut Resolver,
                    cache: &mut HashMap<u64, u32, BuildFx>,
                    memo: &mut [(u64, u32); MEMO],
                    counts: &mut RecordCounts|
         -> Result<Option<(u64, UftraceRecord, u32)>> {
            let mut fid = u32::MAX;
            let mut resolve = |res: &mut Resolver, t: u64, addr: u64| -> u32 {
                resolve_func(res, cache, memo, single_session, &breaks, t, addr)
            };
            let r = reader.next(|rec, data| match rec.kind {
                RecordKind::Event => event_payload_len(data),
                RecordKind::Entry | RecordKind::Exit => {
                    fid = resolve(res, rec.time, rec.addr);
                    let s = res.spec_cached(fid);
                    let exit = rec.kind == RecordKind::Exit;
                    let specs = if exit { &s.rets } else { &s.args };
                    if specs.is_empty() {
                        return Payload::Unknown;
                    }
                    match dbg::payload_len(specs, exit, data) {
                        Some(n) => Payload::Len(n),
                        None => Payload::Short,
                    }
                }
                RecordKind::Lost => Payload::Len(0),
            })?;
            Ok(match r {
                Some((off, rec)) => {
                    counts.count(&rec);
                    let f = match rec.kind {
                        RecordKind::Entry | RecordKind::Exit if rec.more => fid,
                        RecordKind::Entry | RecordKind::Exit => resolve(res, rec.time, rec.addr),
                        _ => u32::MAX,
                    };
                    Some((off, rec, f))
                }
                None => None,
            })
        };

        let mut pending = match next(&mut reader, &mut res, &mut cache, &mut memo, &mut counts) {
            Ok(p) => p,
            Err(e) => {
                read_err = Some(e);
                None
            }
        };
        loop {
            let take_user = match (&pending, events.get(ev_i)) {
                (Some((_, r, _)), Some(e)) => r.time <= e.time,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_user {
                let Some((off, rec, func)) = pending.take() else {
                    break;
                };
                last_is_perf = false;
                if rec.kind != RecordKind::Lost {
                    stack.timestamp_last = rec.time;
                    last_user_time = rec.time;
                    min_time = min_time.min(rec.time);
                    max_time = max_time.max(rec.time);
                } else {
                    last_user_time = 0;
                }
                if rec.kind != RecordKind::Event {
                    if samples % CHECKPOINT_EVERY == 0 {
                        checkpoints.push(Checkpoint {
                            sample: samples,
                            time: if rec.kind == RecordKind::Lost {
                                stack.timestamp_last
                            } else {
                                rec.time
                            },
                            pos: off,
                            sched: sched_steps.len() as u32,
                            node: stack.node,
                        });
                    }
                    samples += 1;
                }
                match rec.kind {
                    RecordKind::Entry => {
                        stack.before_record(&rec);
                        let node = tree.child(stack.node, func);
                        let fi = func as usize;
                        while fixups.len() < res.funcs.len() {
                            let f = &res.funcs[fixups.len()];
                            fixups.push(fixup_of(&f.name));
                        }
                        let fix = fixups.get(fi).copied().unwrap_or(Fixup::None);
                        stack.entry(rec.time, func, node, fix);
                        stack.node = node;
                    }
                    RecordKind::Exit => {
                        stack.before_record(&rec);
                        stack.exit(rec.time, func, &mut acc);
                        stack.node = step_node(&tree.parent, stack.node, rec.kind, 0);
                    }
                    RecordKind::Lost => {
                        stack.lost(&mut acc);
                        stack.node = 0;
                    }
                    RecordKind::Event => {}
                }
                // Fast path: a plain ENTRY/EXIT wholly inside the current window (nearly all of
                // them); anything else takes the general reader below.
                if let Some((off, rec)) = reader.next_plain() {
                    counts.count(&rec);
                    let f = resolve_func(
                        &mut res,
                        &mut cache,
                        &mut memo,
                        single_session,
                        &breaks,
                        rec.time,
                        rec.addr,
                    );
                    pending = Some((off, rec, f));
                    continue;
                }
                pending = match next(&mut reader, &mut res, &mut cache, &mut memo, &mut counts) {
                    Ok(p) => p,
                    Err(e) => {
                        read_err = Some(e);
                        None
                    }
                };
            } else {
                let e = events[ev_i];
                ev_i += 1;
                last_is_perf = true;
                stack.timestamp_last = e.time;
                // uftrace replays every switch as a call of a pseudo-function (even outside any
                // function, where it leaves only a stale frame behind) but reports a switch only
                // when it happened inside a function.
                let step = match &e.kind {
                    PerfKind::SchedOut | PerfKind::SchedOutPreempt => {
                        let f = if e.kind == PerfKind::SchedOut {
                            sched_f
                        } else {
                            sched_p
                        };
                        Some((true, f))
                    }
                    PerfKind::SchedIn => {
                        let f = match stack.top_func() {
                            Some(f) if f == sched_p => sched_p,
                            _ => sched_f,
                        };
                        Some((false, f))
                    }
                    PerfKind::Comm(name) => {
                        comm = name.clone();
                        None
                    }
                    _ => None,
                };
                match &e.kind {
                    PerfKind::SchedOut => sched_out_at = Some(e.time),
                    PerfKind::SchedIn => {
                        if let Some(t) = sched_out_at.take() {
                            idle_ns = idle_ns.saturating_add(e.time.saturating_sub(t));
                        }
                    }
                    _ => {}
                }
                if let Some((out, f)) = step {
                    if samples % CHECKPOINT_EVERY == 0 {
                        checkpoints.push(Checkpoint {
                            sample: samples,
                            time: e.time,
                            pos: pending.as_ref().map(|p| p.0).unwrap_or(src.len()),
                            sched: sched_steps.len() as u32,
                            node: stack.node,
                        });
                    }
                    samples += 1;
                    sched_steps.push((e.time, out, f));
                    if out {
                        let node = tree.child(stack.node, f);
                        stack.entry(e.time, f, node, Fixup::None);
                        stack.node = node;
                    } else {
                        let report = stack.depth() > 1;
                        stack.exit_reported(e.time, f, &mut acc, report);
                        stack.node = step_node(&tree.parent, stack.node, RecordKind::Exit, 0);
                    }
                }
            }
        }
        if let Some(e) = read_err {
            warnings.push(e.context(format!("task {tid}: records after this point are ignored")));
        }
        if reader.resynced > 0 {
            warnings.push(Error::invalid(
                src.name(),
                0,
                format!(
                    "{} record payloads had no known size; skipped to the next record",
                    reader.resynced
                ),
            ));
        }
        if counts.lost_records > 0 {
            warnings.push(Error::new(
                crate::ErrorKind::Invalid,
                src.name(),
                None,
                format!(
                    "{} LOST records: {} records of task {tid} were lost while recording; call times around them are partial",
                    counts.lost_records, counts.lost
                ),
            ));
        }
        // uftrace closes open frames at the task's last record time; when that record was a
        // perf event, uftrace's shared record buffer holds the globally last perf event's time.
        let last_time = if last_is_perf {
            global_last_perf.unwrap_or(stack.timestamp_last)
        } else {
            last_user_time
        };
        stack.finish(last_time, &mut acc);
        if comm.is_empty() {
            comm = res
                .session_for(tid, u64::MAX)
                .and_then(|s| res.tasks.sessions.get(s as usize))
                .map(|s| base_name(&s.exename).to_string())
                .unwrap_or_default();
        }
        comms.push(comm);
        idle.push(idle_ns);
        task_counts.push(counts);
        accs.push(acc);
        lines.push(TaskLine {
            tid,
            src,
            checkpoints,
            sched: sched_steps,
            samples,
            sessions: breaks,
        });
    }
    for m in &res.modules {
        if let Some(e) = m.sym_err.get() {
            warnings.push(e.clone());
        }
    }
    // Make every function's spec known for replays.
    for f in 0..res.funcs.len() as u32 {
        res.spec_cached(f);
    }

    // The tree in preorder.
    let mut cb = CctBuilder::new(0);
    for i in 1..tree.parent.len() {
        let f = tree.func[i];
        let mut frame = Frame::call(f);
        if let Some(fi) = res.funcs.get(f as usize) {
            frame.module = fi.module;
            frame.offset = fi.offset;
        }
        cb.add(tree.parent[i], i as u32, frame);
    }
    let cct: Cct = cb.finish(&group.root)?;
    let builder_to_node: Vec<u32> = (0..tree.parent.len() as u32)
        .map(|b| cct.node_of_ctx(b).unwrap_or(0))
        .collect();

    // Folded stacks over all tasks, from builder-node sums.
    let mut sums: Vec<[u64; 4]> = vec![[0; 4]; tree.parent.len()];
    for acc in &accs {
        for (b, v) in acc.node_vals.iter() {
            if let Some(sv) = sums.get_mut(b as usize) {
                for k in 0..4 {
                    sv[k] = sv[k].wrapping_add(v[k]);
                }
            }
        }
    }
    let flame = folded_stacks(&tree, &sums, &res);

    // Profiles: the summary, then one per task.
    let mut profiles_vals = Vec::new();
    let mut summary: Vec<(u32, u16, f64)> = Vec::new();
    for acc in &accs {
        let mut triples = Vec::new();
        for (b, v) in acc.node_vals.iter() {
            let n = builder_to_node.get(b as usize).copied().unwrap_or(0);
            for (id, x) in [
                (VAL_TIME_INCL, v[0]),
                (VAL_TIME_EXCL, v[1]),
                (VAL_CALLS, v[2]),
            ] {
                if x != 0 {
                    triples.push((n, id, x as f64));
                }
            }
        }
        summary.extend_from_slice(&triples);
        profiles_vals.push(SparseValues::from_triples(triples));
    }
    profiles_vals.insert(0, SparseValues::from_triples(summary));

    // Report tables.
    let mut all: HashMap<u32, FuncStat> = HashMap::new();
    let mut tasks_report = Vec::new();
    let mut counts = RecordCounts::default();
    for (i, acc) in accs.iter().enumerate() {
        let stats: Vec<(u32, FuncStat)> = acc
            .stats
            .iter()
            .filter(|(_, s)| s.calls > 0)
            .map(|(f, s)| (f, *s))
            .collect();
        for (f, s) in &stats {
            let e = all.entry(*f).or_default();
            e.total_ns = e.total_ns.wrapping_add(s.total_ns);
            e.self_ns = e.self_ns.wrapping_add(s.self_ns);
            e.calls += s.calls;
        }
        let rows = rows_from(&stats, &res);
        let total: u64 = rows.iter().fold(0u64, |a, r| a.wrapping_add(r.self_ns));
        let calls = rows.iter().map(|r| r.calls).sum();
        tasks_report.push(TaskReport {
            tid: lines[i].tid,
            name: comms[i].clone(),
            total_ns: total,
            self_ns: total.saturating_sub(idle[i]),
            calls,
            rows,
        });
        counts.add(&task_counts[i]);
    }
    let all: Vec<(u32, FuncStat)> = all.into_iter().collect();
    let report = UftraceReport {
        functions: rows_from(&all, &res),
        tasks: tasks_report,
        counts,
        task_counts,
        flame,
    };

    // The dataset.
    let exename = info
        .as_ref()
        .and_then(|i| i.exename().map(str::to_string))
        .or_else(|| res.tasks.sessions.first().map(|s| s.exename.clone()))
        .unwrap_or_default();
    let mut facts = Vec::new();
    if let Some(i) = &info {
        facts.push(("file version".into(), i.version.to_string()));
        facts.push(("features".into(), i.feature_names()));
        if let Some(c) = i.cmdline() {
            facts.push(("command line".into(), c.to_string()));
        }
        if let Some(v) = i.get("uftrace_version") {
            facts.push(("uftrace".into(), v.to_string()));
        }
        if let Some(v) = i.get("record_date") {
            facts.push(("recorded on".into(), v.to_string()));
        }
    }
    facts.push(("tasks".into(), lines.len().to_string()));
    facts.push(("sessions".into(), res.sessions.len().to_string()));
    facts.push(("records".into(), counts.records.to_string()));
    facts.push((
        "payloads (args / retvals / events)".into(),
        format!(
            "{} / {} / {}",
            counts.args, counts.retvals, counts.event_data
        ),
    ));
    if counts.lost_records > 0 {
        facts.push(("lost records".into(), counts.lost.to_string()));
    }
    let mut profiles = vec![ProfileInfo {
        summary: true,
        id_tuple: vec![],
    }];
    for l in &lines {
        profiles.push(ProfileInfo {
            summary: false,
            id_tuple: vec![Identifier {
                kind: 0,
                logical_id: l.tid,
                physical_id: l.tid as u64,
                physical: false,
            }],
        });
    }
    let trace = TraceInfo {
        min_time: (min_time != u64::MAX).then_some(min_time),
        max_time: (min_time != u64::MAX).then_some(max_time),
        lines: lines
            .iter()
            .enumerate()
            .map(|(i, l)| TraceLineInfo {
                prof_index: i as u32 + 1,
                samples: l.samples,
            })
            .collect(),
    };
    let metrics = vec![
        Metric {
            name: "time".into(),
            unit: "ns".into(),
            scopes: vec![
                MetricScope {
                    scope: "execution".into(),
                    kind: ScopeKind::Execution,
                    prop_metric_id: VAL_TIME_INCL,
                },
                MetricScope {
                    scope: "function".into(),
                    kind: ScopeKind::Function,
                    prop_metric_id: VAL_TIME_EXCL,
                },
            ],
            summaries: vec![
                SummaryStat {
                    scope: "execution".into(),
                    kind: ScopeKind::Execution,
                    formula: "$$".into(),
                    combine: Combine::Sum,
                    stat_metric_id: VAL_TIME_INCL,
                },
                SummaryStat {
                    scope: "function".into(),
                    kind: ScopeKind::Function,
                    formula: "$$".into(),
                    combine: Combine::Sum,
                    stat_metric_id: VAL_TIME_EXCL,
                },
            ],
        },
        Metric {
            name: "calls".into(),
            unit: "".into(),
            scopes: vec![MetricScope {
                scope: "point".into(),
                kind: ScopeKind::Point,
                prop_metric_id: VAL_CALLS,
            }],
            summaries: vec![SummaryStat {
                scope: "point".into(),
                kind: ScopeKind::Point,
                formula: "$$".into(),
                combine: Combine::Sum,
                stat_metric_id: VAL_CALLS,
            }],
        },
    ];
    let modules = res
        .modules
        .iter()
        .map(|m| Module {
            path: m.path.clone(),
        })
        .collect();
    let functions = res
        .funcs
        .iter()
        .map(|f| Function {
            name: f.name.clone(),
            module: f.module,
            offset: f.offset,
            file: None,
            line: None,
        })
        .collect();
    let layout = match &info {
        Some(i) => format!("uftrace file version {}", i.version),
        None => "uftrace (no info file)".into(),
    };
    let ds = Dataset {
        format: "uftrace".into(),
        layout,
        title: base_name(&exename).to_string(),
        files: group
            .files
            .iter()
            .map(|(_, f)| FileEntry {
                path: f.path.clone(),
                size: f.source.len(),
            })
            .collect(),
        facts,
        id_names: vec!["THREAD".into()],
        modules,
        source_files: Vec::new(),
        functions,
        cct,
        metrics,
        profiles,
        summary_profile: Some(0),
        trace: Some(trace),
        taxonomy: None,
        warnings,
        data: Box::new(UftraceData {
            res: Arc::new(res),
            little,
            lines,
            tree_parent: tree.parent,
            tree_children: tree.children,
            builder_to_node,
            profiles: profiles_vals,
        }),
    };
    Ok((ds, report))
}

/// The format id of uftrace recordings.
pub const ID: &str = "uftrace";
pub const INFO: FileKind = FileKind::new(ID, "info");
pub const TASK_TXT: FileKind = FileKind::new(ID, "task.txt");
pub const MAP: FileKind = FileKind::new(ID, "map");
pub const SYM: FileKind = FileKind::new(ID, "sym");
pub const DBG: FileKind = FileKind::new(ID, "dbg");
pub const DAT: FileKind = FileKind::new(ID, "task data");
pub const PERF_DAT: FileKind = FileKind::new(ID, "perf data");

/// uftrace recordings in the registry ([`crate::formats::FORMATS`]).
pub struct Uftrace;
pub static UFTRACE: Uftrace = Uftrace;

/// uftrace .sym lines: `<hex addr> <TYPE> <name>` (0.13) or `<hex addr> <hex size> <TYPE> <name>`.
fn looks_like_sym(head: &[u8]) -> bool {
    // uftrace 0.13+ starts with `# symbols:` / `# path name:` comment lines.
    let line = head
        .split(|&b| b == b'\n')
        .find(|l| !l.starts_with(b"#"))
        .unwrap_or(&[]);
    let mut words = line.split(|&b| b == b' ').filter(|w| !w.is_empty());
    matches!(words.next(), Some(w) if w.iter().all(u8::is_ascii_hexdigit)) || head.is_empty()
}

impl Format for Uftrace {
    fn id(&self) -> &'static str {
        ID
    }
    fn display_name(&self) -> &'static str {
        "uftrace recording"
    }
    /// `info` by its magic; the other members of `uftrace.data/` by their names.
    fn detect(&self, _path: &str, name: &str, head: &[u8]) -> Option<FileKind> {
        if head.starts_with(b"Ftrace!\0") {
            return Some(INFO);
        }
        if name == "task.txt"
            && (head.starts_with(b"SESS") || head.starts_with(b"TASK") || head.is_empty())
        {
            return Some(TASK_TXT);
        }
        if name.starts_with("sid-") && name.ends_with(".map") {
            return Some(MAP);
        }
        if name.ends_with(".sym") && looks_like_sym(head) {
            return Some(SYM);
        }
        if name.ends_with(".dbg") {
            return Some(DBG);
        }
        if name.starts_with("perf-cpu") && name.ends_with(".dat") {
            return Some(PERF_DAT);
        }
        let tid = name.strip_suffix(".dat")?;
        (!tid.is_empty() && tid.chars().all(|c| c.is_ascii_digit())).then_some(DAT)
    }
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool {
        files.iter().any(|(k, _)| *k == INFO || *k == DAT)
    }
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()> {
        probe::probe(group, p)
    }
    fn open(&self, group: &DatasetGroup) -> Result<Dataset> {
        open(group)
    }
}
