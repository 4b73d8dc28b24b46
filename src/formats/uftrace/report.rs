//! The `uftrace report` view of a recording (uftrace `cmds/report.c`, `cmds/dump.c --flame-graph`):
//! the per-function table over all tasks and per task, the record counts `uftrace dump` shows, and
//! the folded stacks, all made from the per-task sums of the streaming pass ([`super::scan`]).

use super::dat::{RecordKind, UftraceRecord};
use super::fstack::{FuncStat, TaskAccum, TreeBuilder};
use super::resolve::Resolver;
use super::scan::TaskScan;
use std::collections::HashMap;

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
    pub(super) fn count(&mut self, rec: &UftraceRecord) {
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

/// Sorts rows like uftrace's default `report` order: total descending, ties by name (strcmp).
pub fn sort_rows(rows: &mut [ReportRow]) {
    crate::sort::sort_by(rows, |a, b| {
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
            .entry(info.function.name.as_str())
            .or_insert_with(|| ReportRow {
                function: info.function.name.clone(),
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

/// The report tables of the scanned tasks (in scan order) and the folded stacks.
pub(super) fn report(tasks: &[TaskScan], tree: &TreeBuilder, res: &Resolver) -> UftraceReport {
    let mut all: HashMap<u32, FuncStat> = HashMap::new();
    let mut tasks_report = Vec::new();
    let mut counts = RecordCounts::default();
    let mut task_counts = Vec::new();
    for t in tasks {
        let stats: Vec<(u32, FuncStat)> = t
            .acc
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
        let rows = rows_from(&stats, res);
        let total: u64 = rows.iter().fold(0u64, |a, r| a.wrapping_add(r.self_ns));
        let calls = rows.iter().map(|r| r.calls).sum();
        tasks_report.push(TaskReport {
            tid: t.line.tid,
            name: t.comm.clone(),
            total_ns: total,
            self_ns: total.saturating_sub(t.idle_ns),
            calls,
            rows,
        });
        counts.add(&t.counts);
        task_counts.push(t.counts);
    }
    let all: Vec<(u32, FuncStat)> = all.into_iter().collect();
    let accs: Vec<&TaskAccum> = tasks.iter().map(|t| &t.acc).collect();
    UftraceReport {
        functions: rows_from(&all, res),
        tasks: tasks_report,
        counts,
        task_counts,
        flame: folded_stacks(tree, &node_sums(tree, &accs), res),
    }
}

/// Per builder node, the sums of its values over all tasks.
fn node_sums(tree: &TreeBuilder, accs: &[&TaskAccum]) -> Vec<[u64; 4]> {
    let mut sums: Vec<[u64; 4]> = vec![[0; 4]; tree.parent.len()];
    for acc in accs {
        for (b, v) in acc.node_vals.iter() {
            if let Some(sv) = sums.get_mut(b as usize) {
                for k in 0..4 {
                    sv[k] = sv[k].wrapping_add(v[k]);
                }
            }
        }
    }
    sums
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
            .map(|f| f.function.name.as_str())
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
