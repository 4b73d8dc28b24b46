//! Probes every dataset folder of ../shared/corpus and checks the format and era the summary panel
//! shows against corpus/README.md's table.

use common::corpus;
use hpcscope::formats::{group, probe::probe};

mod common;

/// (folder under corpus/, format id, layout) for every dataset in corpus/README.md.
fn expected() -> Vec<(String, &'static str, &'static str)> {
    let mut v: Vec<(String, &str, &str)> = Vec::new();
    for d in [
        "hpctoolkit-formats-small",
        "hpctoolkit-tests-loops-cputime-t.d",
        "hpctoolkit-tests-loops-cputime-t.nostruct.d",
        "hpctoolkit-tests-loops-cuda-nvidia-t.d",
        "hpctoolkit-tests-loops-cuda-nvidia-t.nostruct.d",
        "hpctoolkit-tests-loops-cuda-nvidiapc-t.d",
        "hpctoolkit-tests-loops-cuda-nvidiapc-t.nostruct.d",
        "hpctoolkit-tests-loops-hip-amd-t.d",
        "hpctoolkit-tests-loops-hip-amd-t.nostruct.d",
        "hpctoolkit-tests-loops-perf.d",
        "hpctoolkit-tests-loops-perf.nostruct.d",
        "hpctoolkit-tests-recursion-cuda-nvidiapc-t.d",
        "hpctoolkit-tests-recursion-cuda-nvidiapc-t.nostruct.d",
        "hpctoolkit-tests-small.d",
        "hpctoolkit-tests-small.nostruct.d",
        "hpcviewer-acc_f3",
        "hpcviewer-d.foo",
        "hpcviewer-d.x",
        "hpcviewer-derived-metrics.db",
        "hpcviewer-inline.meta.db",
        "hpcviewer-lmp-openmp",
        "hpcviewer-loop-fork-cycles",
        "hpcviewer-vectorAdd",
    ] {
        v.push((format!("hpctoolkit/v4/{d}"), "hpctoolkit", "v4.0 final"));
    }
    v.push((
        "hpctoolkit/v4-draft/hpcviewer-loop-inline".into(),
        "hpctoolkit",
        "v4.0 draft (April 2022)",
    ));
    v.push((
        "hpctoolkit/v4-draft/small-apr2022".into(),
        "hpctoolkit",
        "v4.0 draft (April 2022)",
    ));
    v.push((
        "hpctoolkit/v4-draft/small-may2022".into(),
        "hpctoolkit",
        "v4.0 draft (May 2022)",
    ));
    v.push((
        "hpctoolkit/prof2/hpcviewer-empty-trace".into(),
        "prof2",
        "prof2 pre-release 1.0 (big-endian)",
    ));
    v.push((
        "hpctoolkit/xml/hatchet-cpi".into(),
        "hpctoolkit-xml",
        "experiment.xml v2.0",
    ));
    for d in [
        "hpcviewer-acc_f3",
        "hpcviewer-bug-empty",
        "hpcviewer-bug-no-gpu-trace",
        "hpcviewer-bug-nometric",
        "hpcviewer-inline.xml.db",
        "hpcviewer-vectorAdd",
    ] {
        v.push((
            format!("hpctoolkit/xml/{d}"),
            "hpctoolkit-xml",
            "experiment.xml v2.2",
        ));
    }
    for d in [
        "hpctoolkit-tests-loops-cputime-t.m",
        "hpctoolkit-tests-loops-cuda-nvidia-t.m",
        "hpctoolkit-tests-loops-cuda-nvidiapc-t.m",
        "hpctoolkit-tests-loops-hip-amd-t.m",
        "hpctoolkit-tests-loops-perf.m",
        "hpctoolkit-tests-recursion-cuda-nvidiapc-t.m",
        "hpctoolkit-tests-small.m",
    ] {
        v.push((format!("hpcrun/{d}"), "hpcrun", "hpcrun profile 04.00b"));
    }
    v.push((
        "hpcrun/hpctoolkit-vdso-v2".into(),
        "hpcrun",
        "hpcrun profile 02.00b",
    ));
    for d in [
        "recorded-cxx",
        "recorded-forkexec",
        "recorded-single",
        "recorded-single-args",
        "recorded-threads",
        "public-oslab_ringbuf",
        "public-opencv_tests/Makefile_test1",
        "public-opencv_tests/tests",
        "public-opencv_tests/tracing_test1",
        "public-opencv_tests/tracing_test2",
        "public-opencv_tests/uftrace_test1",
        "public-opencv_tests/uftrace_test2",
    ] {
        v.push((
            format!("uftrace/{d}/uftrace.data"),
            "uftrace",
            "uftrace file version 4",
        ));
    }
    v
}

#[test]
fn probes_every_corpus_dataset() {
    let Some(corpus) = corpus() else { return };
    let mut failures = Vec::new();
    for (dir, format, layout) in expected() {
        let path = corpus.join(&dir);
        let inputs = hpcscope::cli::read_inputs(&path).expect("corpus folder readable");
        let (groups, _loose) = group(inputs);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(g) = groups.iter().find(|g| g.root == name) else {
            failures.push(format!(
                "{dir}: no dataset at the folder's root: {groups:?}"
            ));
            continue;
        };
        if groups.len() != 1 {
            failures.push(format!("{dir}: {} datasets", groups.len()));
        }
        let p = probe(g);
        if p.format != format || p.layout != layout || p.problem.is_some() {
            failures.push(format!(
                "{dir}: got {} / {} / {:?}, want {format} / {layout}",
                p.format, p.layout, p.problem
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn probe_facts_of_known_datasets() {
    let Some(corpus) = corpus() else { return };
    let get = |dir: &str| {
        let (groups, _) = group(hpcscope::cli::read_inputs(&corpus.join(dir)).unwrap());
        probe(&groups[0])
    };
    // small.d: one metric stride-32 meta.db, one trace.db; values checked with a hex dump.
    let p = get("hpctoolkit/v4/hpctoolkit-tests-small.d");
    assert_eq!(p.fact_value("meta.db szMetric"), Some("32"), "{p:?}");
    assert_eq!(p.fact_value("profile.db szProfile"), Some("48"), "{p:?}");
    assert_eq!(p.count_value("metrics"), Some(1), "{p:?}");
    // Two profiles stored: the summary and one thread.
    assert_eq!(p.count_value("profiles"), Some(1), "{p:?}");
    let p = get("hpcrun/hpctoolkit-tests-small.m");
    assert_eq!(p.title, "testmeas-small");
    let p = get("uftrace/recorded-single/uftrace.data");
    assert_eq!(p.title, "single");
}
