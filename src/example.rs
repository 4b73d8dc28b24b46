//! The built-in example dataset the page shows at start. It is made by the project's own code: the
//! HPCToolkit writer's small database once that writer exists, until then a tiny two-thread
//! profile built directly in the model (same shape a reader produces).

use crate::error::Result;
use crate::formats::InputFile;
use crate::model::{
    CctBuilder, Combine, Dataset, EntryKind, Frame, Function, Identifier, LazyData, Metric,
    MetricScope, Module, ProfileInfo, ScopeKind, SparseValues, SummaryStat,
};

/// Files of the example database written by our own HPCToolkit writer, when it is built in.
pub fn example_files() -> Option<Vec<InputFile>> {
    None
}

/// Values computed when the example is built: one `SparseValues` per profile.
struct InMemory(Vec<SparseValues>);

impl LazyData for InMemory {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        Ok(self.0.get(prof).cloned().unwrap_or_default())
    }
}

/// Value ids: exclusive (function scope) 0, inclusive (execution scope) 1; in the summary profile
/// their sums are 2 and 3.
const EXCL: u16 = 0;
const INCL: u16 = 1;

/// main -> {solve -> {compute, mpi_wait}, write_output}, two threads, "time (s)".
pub fn example_dataset() -> Dataset {
    let names = ["main", "solve", "compute", "mpi_wait", "write_output"];
    let functions: Vec<Function> = names
        .iter()
        .map(|n| Function {
            name: n.to_string(),
            module: Some(0),
            offset: None,
            file: None,
            line: None,
        })
        .collect();
    let mut b = CctBuilder::new(0);
    let entry = b.add(0, 1, Frame::entry(EntryKind::MainThread));
    let main = b.add(entry, 2, Frame::call(0));
    let solve = b.add(main, 3, Frame::call(1));
    b.add(solve, 4, Frame::call(2));
    b.add(solve, 5, Frame::call(3));
    b.add(main, 6, Frame::call(4));
    let cct = b
        .finish("example")
        .expect("the example tree is well formed");
    // Exclusive seconds per thread, at context ids (builder order = preorder here).
    let self_time: [[f64; 7]; 2] = [
        [0.0, 0.0, 0.5, 0.25, 6.0, 1.5, 0.75],
        [0.0, 0.0, 0.25, 0.25, 5.0, 2.5, 0.0],
    ];
    let mut profiles_values = Vec::new();
    let mut summary = Vec::new();
    for excl in &self_time {
        let mut triples = Vec::new();
        // Inclusive = own value plus the subtree's: sum over the contiguous preorder range.
        for node in 0..cct.len() as u32 {
            let end = cct.subtree_end[node as usize];
            let incl: f64 = (node..end).map(|n| excl[n as usize]).sum();
            triples.push((node, EXCL, excl[node as usize]));
            triples.push((node, INCL, incl));
            summary.push((node, EXCL + 2, excl[node as usize]));
            summary.push((node, INCL + 2, incl));
        }
        profiles_values.push(SparseValues::from_triples(triples));
    }
    let mut values = vec![SparseValues::from_triples(summary)];
    values.extend(profiles_values);
    let scopes = vec![
        MetricScope {
            scope: "function".into(),
            kind: ScopeKind::Function,
            prop_metric_id: EXCL,
        },
        MetricScope {
            scope: "execution".into(),
            kind: ScopeKind::Execution,
            prop_metric_id: INCL,
        },
    ];
    let summaries = scopes
        .iter()
        .map(|s| SummaryStat {
            scope: s.scope.clone(),
            kind: s.kind,
            formula: "$$".into(),
            combine: Combine::Sum,
            stat_metric_id: s.prop_metric_id + 2,
        })
        .collect();
    let thread = |i: u32| ProfileInfo {
        summary: false,
        id_tuple: vec![Identifier {
            kind: 1,
            logical_id: i,
            physical_id: u64::from(i),
            physical: false,
        }],
    };
    Dataset {
        format: "example".into(),
        layout: "built in memory".into(),
        title: "hpcscope example".into(),
        files: Vec::new(),
        facts: vec![
            ("program".into(), "example (two threads)".into()),
            (
                "note".into(),
                "drop an HPCToolkit database, hpcrun measurements or a uftrace.data folder".into(),
            ),
        ],
        id_names: vec!["SUMMARY".into(), "THREAD".into()],
        modules: vec![Module {
            path: "/usr/bin/example".into(),
        }],
        source_files: Vec::new(),
        functions,
        cct,
        metrics: vec![Metric {
            name: "time (s)".into(),
            unit: "s".into(),
            scopes,
            summaries,
        }],
        profiles: vec![
            ProfileInfo {
                summary: true,
                id_tuple: Vec::new(),
            },
            thread(0),
            thread(1),
        ],
        summary_profile: Some(0),
        trace: None,
        warnings: Vec::new(),
        data: Box::new(InMemory(values)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_values_add_up() {
        let d = example_dataset();
        assert!(d.cct.check().is_ok());
        assert_eq!(d.cct.len(), 7);
        let summary = d.data.profile_values(0).unwrap();
        // Root inclusive = all self time of both threads = 9.0 + 8.0.
        assert_eq!(summary.get(0, INCL + 2), 17.0);
        let t0 = d.data.profile_values(1).unwrap();
        // solve (node 3) inclusive on thread 0: 0.25 + 6.0 + 1.5.
        assert_eq!(t0.get(3, INCL), 7.75);
        assert_eq!(d.frame_name(3), "solve");
        assert_eq!(d.frame_name(1), "main thread");
    }
}
