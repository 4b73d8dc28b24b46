//! The project's own hpcrun measurement folder and uftrace recording (src/synth/hpcrun.rs,
//! src/synth/uftrace_recording.rs) read back by the format readers: the context tree, the
//! per-function and per-thread totals and every trace sample equal what the generator's run
//! says, computed here from the run, not from the files. The recording is also checked against
//! the installed `uftrace report` when there is one.

use hpcscope::analysis::values::{metric_columns, point_from_inclusive, Selection};
use hpcscope::formats::{self, uftrace};
use hpcscope::model::{Dataset, NodeKind, Relation};
use hpcscope::synth::hpcrun::{HpcrunSpec, Measurement, CPUTIME_PER_SAMPLE_S, CYCLES_PERIOD};
use hpcscope::synth::uftrace_recording::{self as ufrec, ArgValue, Recording, UftraceSpec};
use std::collections::{BTreeMap, BTreeSet};

mod common;

/// Frame names from the root's child down to `node`.
fn names(ds: &Dataset, node: u32) -> Vec<String> {
    ds.cct.tree.path(node)[1..]
        .iter()
        .map(|&n| ds.frame_name(n))
        .collect()
}

fn index_of_metric(ds: &Dataset, name: &str) -> usize {
    ds.metrics.iter().position(|m| m.name == name).unwrap()
}

/// Frames that are calls (the function-level frames, not loops and lines nor entry points).
fn is_call(ds: &Dataset, node: u32) -> bool {
    let f = &ds.cct.frame[node as usize];
    f.kind == NodeKind::Context && f.relation != Relation::Lexical
}

#[test]
fn hpcrun_measurement_reads_back_as_generated() {
    let spec = HpcrunSpec {
        threads: 3,
        samples: 250,
        ..HpcrunSpec::default()
    };
    let m = Measurement::generate(&spec);
    let ds = formats::open(&common::group_files("synth.m", m.files())).unwrap();
    assert_eq!(ds.format, "hpcrun");
    assert_eq!(ds.layout, "hpcrun profile 04.00b");
    assert_eq!(ds.title, spec.program);
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    ds.cct.check().unwrap();
    let labels: Vec<String> = ds.profiles.iter().map(|p| p.label(&ds.id_names)).collect();
    assert_eq!(
        labels,
        [
            "NODE 0 / THREAD 0",
            "NODE 0 / THREAD 1",
            "NODE 0 / THREAD 2",
            "summary"
        ]
    );

    // The tree: exactly the prefixes of the sampled paths' frames.
    let mut want_paths = BTreeSet::new();
    let mut leaf_value: BTreeMap<Vec<String>, (f64, f64)> = BTreeMap::new();
    let mut exclusive_by_fn: BTreeMap<String, f64> = BTreeMap::new();
    let mut inclusive_by_fn: BTreeMap<String, f64> = BTreeMap::new();
    for (t, samples) in m.threads.iter().enumerate() {
        for s in samples {
            let frames = m.frame_names(t as u32, s.path);
            for k in 1..=frames.len() {
                want_paths.insert(frames[..k].to_vec());
            }
            let v = leaf_value.entry(frames).or_default();
            v.0 += CPUTIME_PER_SAMPLE_S;
            v.1 += (s.cycles * CYCLES_PERIOD) as f64;
            let calls = m.call_path(s.path);
            *exclusive_by_fn
                .entry(calls.last().unwrap().clone())
                .or_default() += CPUTIME_PER_SAMPLE_S;
            for f in calls.iter().collect::<BTreeSet<_>>() {
                *inclusive_by_fn.entry(f.clone()).or_default() += CPUTIME_PER_SAMPLE_S;
            }
        }
    }
    let got_paths: BTreeSet<Vec<String>> = (1..ds.cct.tree.len() as u32)
        .map(|n| names(&ds, n))
        .collect();
    assert_eq!(got_paths, want_paths);
    assert_eq!(ds.cct.tree.len(), want_paths.len() + 1);

    // Values: every sampled context's inclusive value (it has no children) and the per-function
    // exclusive and inclusive totals, CPUTIME and CYCLES (stored counts times the period).
    let cpu = index_of_metric(&ds, "CPUTIME (sec)");
    let cyc = index_of_metric(&ds, "CYCLES");
    let cols = metric_columns(&ds, cpu, &Selection::Summary).unwrap();
    let cyc_cols = metric_columns(&ds, cyc, &Selection::Summary).unwrap();
    let node_of: BTreeMap<Vec<String>, u32> = (1..ds.cct.tree.len() as u32)
        .map(|n| (names(&ds, n), n))
        .collect();
    for (path, &(cpu_s, cycles)) in &leaf_value {
        let n = node_of[path] as usize;
        assert_eq!(cols.inclusive[n], cpu_s, "{path:?}");
        assert_eq!(cols.exclusive[n], cpu_s, "{path:?}");
        assert_eq!(cyc_cols.inclusive[n], cycles, "{path:?}");
    }
    let mut got_excl: BTreeMap<String, f64> = BTreeMap::new();
    let mut got_incl: BTreeMap<String, f64> = BTreeMap::new();
    for n in 1..ds.cct.tree.len() as u32 {
        if is_call(&ds, n) {
            *got_excl.entry(ds.frame_name(n)).or_default() += cols.exclusive[n as usize];
            *got_incl.entry(ds.frame_name(n)).or_default() += cols.inclusive[n as usize];
        }
    }
    got_excl.retain(|_, v| *v != 0.0);
    assert_eq!(got_excl, exclusive_by_fn);
    assert_eq!(got_incl, inclusive_by_fn);
    let total = (spec.threads * spec.samples) as f64 * CPUTIME_PER_SAMPLE_S;
    assert_eq!(cols.inclusive[0], total);
    for (t, samples) in m.threads.iter().enumerate() {
        let c = metric_columns(&ds, cpu, &Selection::Profile(t)).unwrap();
        assert_eq!(c.inclusive[0], samples.len() as f64 * CPUTIME_PER_SAMPLE_S);
    }

    // Traces: one line per thread, each sample at its time in its path's innermost context.
    let trace = ds.trace.as_ref().unwrap();
    assert_eq!(trace.lines.len(), m.threads.len());
    assert_eq!(trace.min_time, Some(m.threads[0][0].time_ns));
    for (line, info) in trace.lines.iter().enumerate() {
        let t = info.prof_index as usize;
        let want = &m.threads[t];
        let got = ds.data.trace_samples(line, 0, info.samples).unwrap();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g.time, w.time_ns);
            assert_eq!(names(&ds, g.node), m.frame_names(t as u32, w.path));
        }
    }
}

#[test]
fn uftrace_recording_reads_back_as_generated() {
    let spec = UftraceSpec::default();
    let rec = Recording::generate(&spec);
    let g = common::group_files("uftrace.data", rec.files());
    let (ds, rep) = uftrace::open_report(&g).unwrap();
    assert_eq!(ds.format, "uftrace");
    assert_eq!(ds.layout, "uftrace file version 4");
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    ds.cct.check().unwrap();

    // `uftrace report`: per function total, self time and calls.
    let mut got: Vec<(String, u64, u64, u64)> = rep
        .functions
        .iter()
        .map(|r| (r.function.clone(), r.total_ns, r.self_ns, r.calls))
        .collect();
    got.sort();
    let mut want: Vec<(String, u64, u64, u64)> = ufrec::function_totals(&rec)
        .into_iter()
        .map(|(f, a, b, c)| (f.to_string(), a, b, c))
        .collect();
    want.sort();
    assert_eq!(got, want);
    let records: u64 = rec.tasks.iter().map(|t| 2 * t.calls.len() as u64).sum();
    assert_eq!(rep.counts.records, records);
    let compute_calls: u64 = rec.tasks.iter().map(|_| spec.iterations as u64).sum();
    assert_eq!(
        rep.counts.args,
        compute_calls + 1,
        "compute(n) and setup(\"input.cfg\")"
    );
    assert_eq!(rep.counts.retvals, compute_calls);

    // The tree: one node per distinct call path, with its inclusive time and its calls (a
    // point value: the node alone).
    let mut want_nodes: BTreeMap<Vec<String>, (u64, u64)> = BTreeMap::new();
    for (k, t) in rec.tasks.iter().enumerate() {
        for (i, c) in t.calls.iter().enumerate() {
            let path = rec.call_path(k, i).iter().map(|s| s.to_string()).collect();
            let e = want_nodes.entry(path).or_default();
            e.0 += c.exit_ns - c.entry_ns;
            e.1 += 1;
        }
    }
    let time = index_of_metric(&ds, "time");
    let calls = index_of_metric(&ds, "calls");
    let tcols = metric_columns(&ds, time, &Selection::Summary).unwrap();
    let ccols = metric_columns(&ds, calls, &Selection::Summary).unwrap();
    let calls_at = point_from_inclusive(&ds, &ccols.inclusive);
    let mut got_nodes = BTreeMap::new();
    for n in 1..ds.cct.tree.len() as u32 {
        got_nodes.insert(
            names(&ds, n),
            (
                tcols.inclusive[n as usize] as u64,
                calls_at[n as usize] as u64,
            ),
        );
    }
    assert_eq!(got_nodes, want_nodes);

    // Each task is a trace line whose samples are its records: at each, the call path open
    // after it (the callee after an ENTRY, the caller after an EXIT).
    let trace = ds.trace.as_ref().unwrap();
    assert_eq!(trace.lines.len(), rec.tasks.len());
    for (k, t) in rec.tasks.iter().enumerate() {
        let line = trace
            .lines
            .iter()
            .position(|l| ds.profiles[l.prof_index as usize].id_tuple[0].logical_id == t.tid)
            .unwrap();
        let want = rec.records(k);
        let got = ds
            .data
            .trace_samples(line, 0, trace.lines[line].samples)
            .unwrap();
        assert_eq!(got.len(), want.len());
        for (g, r) in got.iter().zip(&want) {
            assert_eq!(g.time, r.time_ns);
            let open = if r.exit {
                t.calls[r.call].parent
            } else {
                Some(r.call)
            };
            let path: Vec<String> = match open {
                Some(i) => rec.call_path(k, i).iter().map(|s| s.to_string()).collect(),
                None => Vec::new(),
            };
            assert_eq!(names(&ds, g.node), path, "task {} at {}", t.tid, r.time_ns);
        }
        // The arguments and return value of a call, as the tooltip shows them.
        let (i, c) = t
            .calls
            .iter()
            .enumerate()
            .find(|(_, c)| c.func == 5)
            .unwrap();
        let kernel_end = t.calls[i + 1].exit_ns;
        let span = ds.data.span_at(line, kernel_end).unwrap().unwrap();
        assert_eq!(names(&ds, span.node), rec.call_path(k, i));
        assert_eq!((span.start, span.end), (c.entry_ns, Some(c.exit_ns)));
        let (Some(ArgValue::Int(n)), Some(ArgValue::Int(r))) = (&c.arg, &c.retval) else {
            panic!("compute without its argument");
        };
        assert_eq!(span.payload.args, [format!("arg1={n}")]);
        assert_eq!(span.payload.retval, Some(format!("retval={r}")));
    }
}

/// The installed uftrace (when there is one) reads the generated recording as we do: its report
/// equals the generator's totals.
#[test]
fn uftrace_itself_reports_the_generated_recording() {
    let ok = std::process::Command::new("uftrace")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("skipping: uftrace not installed");
        return;
    }
    let rec = Recording::generate(&UftraceSpec::default());
    let dir = std::env::temp_dir().join(format!("hpcscope-ufrec-{}", std::process::id()));
    let data = dir.join("uftrace.data");
    std::fs::create_dir_all(&data).unwrap();
    for (name, bytes) in rec.files() {
        std::fs::write(data.join(name), bytes).unwrap();
    }
    let out = std::process::Command::new("uftrace")
        .args(["--no-pager", "--color=no", "report", "-d"])
        .arg(&data)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let theirs = String::from_utf8_lossy(&out.stdout);
    let mut rows: Vec<uftrace::ReportRow> = ufrec::function_totals(&rec)
        .into_iter()
        .map(|(f, total_ns, self_ns, calls)| uftrace::ReportRow {
            function: f.to_string(),
            total_ns,
            self_ns,
            calls,
        })
        .collect();
    uftrace::sort_rows(&mut rows);
    let want = hpcscope::cli::report::format_table(&rows);
    assert_eq!(theirs, want);
}
