//! Tests of opening measurement folders (merging, values, traces, warnings) and of the summary
//! probe, on hand-made profiles and traces.

use super::names::PH_ROOT_PRIMARY;
use super::*;
use crate::formats::{group, InputFile};
use crate::model::Dataset;

fn input(path: &str, bytes: Vec<u8>) -> InputFile {
    InputFile::from_vec(path, bytes)
}

#[test]
fn merges_two_threads_and_propagates() {
    let fx = profile::tests::v4_fixture();
    let (groups, _) = group(vec![
        input("m/app-000000-000-abc-1-0.hpcrun", fx.clone()),
        input("m/app-000000-001-abc-1-0.hpcrun", fx),
    ]);
    let ds = open(&groups[0]).unwrap();
    ds.cct.check().unwrap();
    // root -> app+0x10 -> app+0x20, shared by both threads.
    assert_eq!(ds.cct.tree.len(), 3);
    assert_eq!(ds.frame_name(2), "app+0x20");
    assert_eq!(ds.metrics.len(), 2);
    assert_eq!(ds.profiles.len(), 3);
    assert_eq!(ds.layout, "hpcrun profile 04.00b");
    let cpu = &ds.metrics[0];
    let v = ds.data.profile_values(0).unwrap();
    let incl = cpu.inclusive(false).unwrap();
    let excl = cpu.exclusive(false).unwrap();
    assert_eq!(v.get(0, incl), 0.75);
    assert_eq!(v.get(1, incl), 0.75);
    assert_eq!(v.get(1, excl), 0.25);
    assert_eq!(v.get(2, excl), 0.5);
    // CYCLES: 7 samples x period 1000.
    assert_eq!(v.get(0, ds.metrics[1].inclusive(false).unwrap()), 7000.0);
    let s = ds.data.profile_values(2).unwrap();
    assert_eq!(s.get(0, cpu.inclusive(true).unwrap()), 1.5);
    assert_eq!(ds.profiles[0].label(&ds.id_names), "NODE 0 / THREAD 5");
}

/// A call path `depth` deep stored leaf first (every node's parent comes after it), opened.
fn reversed_chain(depth: u32) -> Dataset {
    let mut nodes = vec![(1u32, 0u32, 0u16, PH_ROOT_PRIMARY)];
    for i in 2..=depth + 1 {
        nodes.push((i, i - 1, 1, 0x1000 + i as u64));
    }
    nodes.reverse();
    let bytes =
        profile::tests::v4_build(false, &nodes, &[(depth + 1, vec![(2.0f64.to_bits(), 0)])]);
    let (groups, _) = group(vec![input("m/app-000000-000-abc-1-0.hpcrun", bytes)]);
    open(&groups[0]).unwrap()
}

#[test]
fn deep_reversed_tree_merges_without_recursion() {
    // 100,000 deep: no recursion per level (the test thread's 2 MB stack), and each node is
    // walked to once: twice the depth, twice the nodes visited.
    const DEPTH: u32 = 100_000;
    crate::work::assert_scales(
        crate::work::Work::TreeNodes,
        "reversed chain",
        20_000,
        2.2,
        |n| {
            assert_eq!(reversed_chain(n as u32).cct.tree.len(), n + 1);
        },
    );
    let ds = reversed_chain(DEPTH);
    assert_eq!(ds.cct.tree.len(), DEPTH as usize + 1);
    assert_eq!(ds.cct.tree.depth[DEPTH as usize], DEPTH);
    let v = ds.data.profile_values(0).unwrap();
    assert_eq!(v.get(0, ds.metrics[0].inclusive(false).unwrap()), 2.0);
    assert_eq!(v.get(DEPTH, ds.metrics[0].exclusive(false).unwrap()), 2.0);
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
}

#[test]
fn disordered_trace_is_sorted_and_mapped() {
    let prof = profile::tests::v4_build_nv(
        false,
        &[("trace-disorder", "1")],
        &[(1, 0, 0, PH_ROOT_PRIMARY), (2, 1, 1, 0x10), (3, 2, 1, 0x20)],
        &[],
    );
    let mut tr = b"HPCRUN-trace______01.01b".to_vec();
    tr.extend_from_slice(&0u64.to_be_bytes());
    for (t, c) in [(300u64, 3u32), (100, 2), (200, 99)] {
        tr.extend_from_slice(&t.to_be_bytes());
        tr.extend_from_slice(&c.to_be_bytes());
    }
    let (groups, _) = group(vec![
        input("m/app-000000-000-abc-1-0.hpcrun", prof),
        input("m/app-000000-000-abc-1-0.hpctrace", tr),
    ]);
    let ds = open(&groups[0]).unwrap();
    let t = ds.trace.as_ref().unwrap();
    assert_eq!((t.min_time, t.max_time), (Some(100), Some(300)));
    let s = ds.data.trace_samples(0, 0, 10).unwrap();
    let times: Vec<u64> = s.iter().map(|x| x.time).collect();
    assert_eq!(times, vec![100, 200, 300]);
    // ctx 2 -> app+0x10 (node 1), unknown ctx 99 -> root, ctx 3 -> app+0x20 (node 2).
    let nodes: Vec<u32> = s.iter().map(|x| x.node).collect();
    assert_eq!(nodes, vec![1, 0, 2]);
    assert_eq!(ds.data.trace_find(0, 250).unwrap(), Some(1));
    assert_eq!(ds.data.trace_find(0, 50).unwrap(), None);
}

#[test]
fn parent_cycles_and_unknown_modules_become_warnings() {
    let bytes = profile::tests::v4_build(
        false,
        &[
            (1, 0, 0, PH_ROOT_PRIMARY),
            (2, 3, 1, 0x10),
            (3, 2, 1, 0x20),
            (4, 1, 9, 0x30),
            (5, 0, 65533, 0),
            (6, 5, 65531, 1),
        ],
        &[(3, vec![(1.0f64.to_bits(), 0)])],
    );
    let (groups, _) = group(vec![input("m/app-000000-000-abc-1-0.hpcrun", bytes)]);
    let ds = open(&groups[0]).unwrap();
    ds.cct.check().unwrap();
    assert_eq!(ds.cct.tree.len(), 6);
    // The cycle and load module 9; the GPU range nodes are named, not warned about.
    assert_eq!(ds.warnings.len(), 2, "{:?}", ds.warnings);
    let names: Vec<String> = (0..6).map(|n| ds.frame_name(n)).collect();
    assert!(
        names.contains(&"<gpu range root 0>".to_string()),
        "{names:?}"
    );
    assert!(names.contains(&"<gpu context 1>".to_string()), "{names:?}");
    let v = ds.data.profile_values(0).unwrap();
    assert_eq!(v.get(0, ds.metrics[0].inclusive(false).unwrap()), 1.0);
}

#[test]
fn probe_reads_the_readers_headers() {
    let prof = profile::tests::v4_build_nv(
        false,
        &[("program-path", "/bin/app"), ("mpi-rank", "3")],
        &[(1, 0, 0, PH_ROOT_PRIMARY)],
        &[],
    );
    let mut tr = b"HPCRUN-trace______01.00b".to_vec();
    tr.extend_from_slice(&100u64.to_be_bytes());
    tr.extend_from_slice(&1u32.to_be_bytes());
    let (groups, _) = group(vec![
        input("m/app-000003-000-abc-1-0.hpcrun", prof.clone()),
        input("m/app-000003-000-abc-1-0.hpctrace", tr.clone()),
    ]);
    let p = crate::formats::probe::probe(&groups[0]);
    assert_eq!(p.problem, None);
    assert_eq!(p.layout, "hpcrun profile 04.00b");
    assert_eq!(p.layout, open(&groups[0]).unwrap().layout);
    assert_eq!(p.title, "app");
    assert_eq!(p.fact_value("program path"), Some("/bin/app"));
    assert_eq!(p.fact_value("MPI rank"), Some("3"));
    assert_eq!(p.fact_value("trace version"), Some("01.00b"));
    assert_eq!(p.count_value("profiles"), Some(1));

    // A trace alone: its magic line gives the layout.
    let (groups, _) = group(vec![input("m/app-000003-000-abc-1-0.hpctrace", tr)]);
    let p = crate::formats::probe::probe(&groups[0]);
    assert_eq!(
        (p.layout.as_str(), p.problem),
        ("hpcrun trace 01.00b", None)
    );

    // A byte order the readers do not know: the layout is shown, the problem is the reader's.
    let mut little = prof.clone();
    little[23] = b'l';
    let (groups, _) = group(vec![input("m/app-000003-000-abc-1-0.hpcrun", little)]);
    let p = crate::formats::probe::probe(&groups[0]);
    assert_eq!(p.layout, "hpcrun profile 04.00l");
    let e = p.problem.expect("little-endian profile");
    assert_eq!(
        (e.kind, e.offset),
        (crate::ErrorKind::Unsupported, Some(23))
    );

    // Name-value pairs cut inside the second name (count at 24, "program-name" at 28, "app" at
    // 44, "program-path" at 51): the error names the file and the offset of the broken string.
    let (groups, _) = group(vec![input(
        "m/app-000003-000-abc-1-0.hpcrun",
        prof[..60].to_vec(),
    )]);
    let p = crate::formats::probe::probe(&groups[0]);
    let e = p.problem.expect("truncated header");
    assert_eq!(e.file, "m/app-000003-000-abc-1-0.hpcrun");
    assert_eq!((e.kind, e.offset), (crate::ErrorKind::Truncated, Some(51)));
}
