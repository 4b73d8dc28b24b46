//! Fills the model from the pass over a uftrace recording: the calling-context tree in preorder,
//! one profile per task plus their sum, the time and call metrics, one trace line per task, and
//! the facts of the `info` file (seed 004, "The info file").

use super::fstack::TreeBuilder;
use super::info::UftraceInfo;
use super::report::RecordCounts;
use super::resolve::Resolver;
use super::scan::{Scan, TaskScan};
use super::timeline::UftraceData;
use super::{VAL_CALLS, VAL_TIME_EXCL, VAL_TIME_INCL};
use crate::error::{Result, Warning};
use crate::formats::{base_name, DatasetGroup};
use crate::model::{
    Cct, CctBuilder, Dataset, Frame, Function, Identifier, Metric, Module, ProfileInfo, ScopeKind,
    SparseValues, TraceInfo, TraceLineInfo,
};

/// The dataset of a scanned recording, whose tree is `tree` ([`cct`]); `counts` are the record
/// counts over all tasks.
pub(super) fn dataset(
    group: &DatasetGroup,
    info: Option<&UftraceInfo>,
    scan: Scan,
    tasks: Vec<TaskScan>,
    tree: (Cct, Vec<u32>),
    counts: &RecordCounts,
    warnings: Vec<Warning>,
) -> Result<Dataset> {
    let (cct, builder_to_node) = tree;
    let Scan {
        res,
        tree,
        min_time,
        max_time,
        little,
        ..
    } = scan;
    let profiles_vals = profile_values(&tasks, &builder_to_node);
    let lines: Vec<_> = tasks.into_iter().map(|t| t.line).collect();
    let exename = info
        .and_then(|i| i.exename().map(str::to_string))
        .or_else(|| res.tasks.sessions.first().map(|s| s.exename.clone()))
        .unwrap_or_default();
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
    let layout = match info {
        Some(i) => format!("uftrace file version {}", i.header.version),
        None => "uftrace (no info file)".into(),
    };
    Ok(Dataset {
        format: "uftrace".into(),
        layout,
        title: base_name(&exename).to_string(),
        files: group.file_entries(),
        facts: facts(info, lines.len(), &res, counts),
        id_names: vec!["THREAD".into()],
        modules: res
            .modules
            .iter()
            .map(|m| Module {
                path: m.path.clone(),
            })
            .collect(),
        source_files: Vec::new(),
        functions: functions(&res),
        cct,
        metrics: metrics(),
        profiles,
        summary_profile: Some(0),
        trace: Some(trace),
        taxonomy: None,
        warnings,
        data: Box::new(UftraceData {
            res,
            little,
            lines,
            tree_parent: tree.parent,
            tree_children: tree.children,
            builder_to_node,
            profiles: profiles_vals,
        }),
    })
}

/// The tree in preorder from the pass's tree builder, and the tree node of each builder node.
pub(super) fn cct(tree: &TreeBuilder, res: &Resolver, root: &str) -> Result<(Cct, Vec<u32>)> {
    let (parent, func) = (&tree.parent, &tree.func);
    let mut cb = CctBuilder::new(0);
    for i in 1..parent.len() {
        let f = func[i];
        let mut frame = Frame::call(f);
        if let Some(fi) = res.funcs.get(f as usize) {
            frame.code.module = fi.function.module;
            frame.code.offset = fi.function.offset;
        }
        cb.add(parent[i], i as u32, frame);
    }
    let cct: Cct = cb.finish(root)?;
    let builder_to_node: Vec<u32> = (0..parent.len() as u32)
        .map(|b| cct.node_of_ctx(b).unwrap_or(0))
        .collect();
    Ok((cct, builder_to_node))
}

/// Profile values: the summary (the sum over tasks), then one per task.
fn profile_values(tasks: &[TaskScan], builder_to_node: &[u32]) -> Vec<SparseValues> {
    let mut profiles_vals = Vec::new();
    let mut summary: Vec<(u32, u16, f64)> = Vec::new();
    for t in tasks {
        let mut triples = Vec::new();
        for (b, v) in t.acc.node_vals.iter() {
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
    profiles_vals
}

/// What the summary shows of a recording: the `info` header and text, and the counts.
fn facts(
    info: Option<&UftraceInfo>,
    tasks: usize,
    res: &Resolver,
    counts: &RecordCounts,
) -> Vec<(String, String)> {
    let mut facts = Vec::new();
    if let Some(i) = info {
        facts.push(("file version".into(), i.header.version.to_string()));
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
    facts.push(("tasks".into(), tasks.to_string()));
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
    facts
}

fn functions(res: &Resolver) -> Vec<Function> {
    res.funcs.iter().map(|f| f.function.clone()).collect()
}

/// Time (inclusive as the execution scope, exclusive as the function scope) and calls.
fn metrics() -> Vec<Metric> {
    vec![
        Metric::summed(
            "time",
            "ns",
            &[
                ("execution", ScopeKind::Execution, VAL_TIME_INCL),
                ("function", ScopeKind::Function, VAL_TIME_EXCL),
            ],
        ),
        Metric::summed("calls", "", &[("point", ScopeKind::Point, VAL_CALLS)]),
    ]
}
