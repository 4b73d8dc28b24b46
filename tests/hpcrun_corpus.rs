//! hpcrun measurement folders of the corpus against the databases hpcprof built from the same runs.
//!
//! Unit conversion (stated as the acceptance asks): hpcprof's hpcrun reader
//! (HPCToolkit `src/tool/hpcprof/sources/hpcrun4.cpp`, `Hpcrun4::realread`) sets
//! `met.factor = m.period` for every metric without a formula and accumulates
//! `v = (isInt ? (double)val.i : val.r) * factor` at the context of each stored value. So a
//! database value is the stored value (an integer or a double, by the metric's value format)
//! times the metric's sampling period: CPUTIME (sec) is stored in seconds with period 1,
//! perf::task-clock is stored as 1.0 per sample with period 100000000 (ns per sample), and so on.
//! A thread's total of a metric is the value of its root in the execution (inclusive) scope.

use common::yaml::Node;
use common::{corpus, golden};
use hpcscope::formats::hpcrun::profile;
use hpcscope::formats::{self, InputFile};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

mod common;

fn read_dir_inputs(dir: &Path) -> Vec<InputFile> {
    hpcscope::cli::read_inputs(dir).expect("read measurement folder")
}

/// Metric name by the prop metric id of its execution (inclusive) scope instance.
fn execution_ids(yaml: &Node) -> BTreeMap<u64, String> {
    let mut out = BTreeMap::new();
    for m in yaml.get("meta").get("metrics").get("metrics").seq() {
        for i in m.get("scope_insts").seq() {
            if golden::scope_name(yaml, i) == Some("execution") {
                let name = m.get("name").str().unwrap_or("").to_string();
                out.insert(i.get("prop_metric_id").u64().unwrap(), name);
            }
        }
    }
    out
}

/// Totals per profile label and metric name from a golden transcript: the root's value in the
/// execution scope of each non-summary profile.
fn golden_totals(yaml: &Node) -> BTreeMap<String, BTreeMap<String, f64>> {
    let exec = execution_ids(yaml);
    let names = golden::id_names(yaml);
    let mut out = BTreeMap::new();
    for p in golden::profiles(yaml) {
        if p.get("flags").flags().contains(&"is_summary") {
            continue;
        }
        let mut totals = BTreeMap::new();
        for (id, v) in p.get("values").opt("0").map_or(&[][..], Node::entries) {
            if let Some(name) = exec.get(&id.parse().unwrap()) {
                totals.insert(name.clone(), v.f64());
            }
        }
        out.insert(golden::profile_label(p, &names, true), totals);
    }
    out
}

fn label(info: &hpcscope::model::ProfileInfo, names: &[String]) -> String {
    info.id_tuple
        .iter()
        .map(|id| {
            let mut s = format!("{} {}", names[id.kind as usize], id.logical_id);
            if id.physical {
                s += &format!(" [{:#x}]", id.physical_id);
            }
            s
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300)
}

/// `got` has the keys of `want` and a value `close` to each of its values.
fn assert_close_maps<K: Ord + std::fmt::Debug>(
    got: &BTreeMap<K, f64>,
    want: &BTreeMap<K, f64>,
    what: &str,
) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}"
    );
    for (k, v) in got {
        assert!(close(*v, want[k]), "{what}: {k:?}: {v} vs {}", want[k]);
    }
}

const TESTS: [&str; 7] = [
    "hpctoolkit-tests-small",
    "hpctoolkit-tests-loops-cputime-t",
    "hpctoolkit-tests-loops-perf",
    "hpctoolkit-tests-loops-cuda-nvidia-t",
    "hpctoolkit-tests-loops-cuda-nvidiapc-t",
    "hpctoolkit-tests-loops-hip-amd-t",
    "hpctoolkit-tests-recursion-cuda-nvidiapc-t",
];

#[test]
fn per_thread_totals_match_hpcprof() {
    let Some(c) = corpus() else { return };
    for name in TESTS {
        let yaml = golden::golden_parts(&format!("{name}.d"), &["meta", "profile"]).unwrap();
        let golden = golden_totals(&yaml);
        assert!(!golden.is_empty(), "{name}: no profiles in golden");

        let dir = c.join(format!("hpcrun/{name}.m"));
        let (groups, _) = formats::group(read_dir_inputs(&dir));
        let g = groups
            .iter()
            .find(|g| g.format_id() == formats::hpcrun::ID)
            .unwrap();
        let ds = formats::open(g).unwrap();
        ds.cct.check().unwrap();
        assert_eq!(ds.format, "hpcrun");
        assert_eq!(ds.layout, "hpcrun profile 04.00b");

        // 1. Straight from each file: sum of stored values x period, per metric.
        let mut seen = 0;
        let mut grand: BTreeMap<String, f64> = BTreeMap::new();
        for f in g.files_of(formats::hpcrun::PROFILE) {
            let p = profile::read(&f.source).unwrap();
            let mut totals: BTreeMap<String, f64> = BTreeMap::new();
            for e in &p.epochs {
                for &(_, m, v) in &e.values {
                    let d = &e.metrics[m as usize];
                    *totals.entry(d.name.clone()).or_default() += v * d.period as f64;
                }
            }
            let names: Vec<String> = (0..8)
                .map(|k| {
                    p.id_names
                        .iter()
                        .find(|(i, _)| *i == k)
                        .map(|(_, n)| n.clone())
                        .unwrap()
                })
                .collect();
            let info = hpcscope::model::ProfileInfo {
                summary: false,
                id_tuple: p
                    .id_tuple
                    .iter()
                    .map(|e| hpcscope::model::Identifier {
                        kind: e.kind,
                        logical_id: e.logical as u32,
                        physical_id: e.physical,
                        physical: e.interpret != 3,
                    })
                    .collect(),
            };
            let l = label(&info, &names);
            let want = golden
                .get(&l)
                .unwrap_or_else(|| panic!("{name}: profile {l} ({}) not in golden", f.path));
            totals.retain(|_, v| *v != 0.0);
            assert_close_maps(&totals, want, &format!("{name} {l}: metrics with values"));
            for (m, v) in &totals {
                *grand.entry(m.clone()).or_default() += v;
            }
            seen += 1;
        }
        assert_eq!(seen, golden.len(), "{name}: profile count");

        // 2. Through the dataset: every profile's root inclusive value, and the summary.
        for (pi, info) in ds.profiles.iter().enumerate() {
            let vals = ds.data.profile_values(pi).unwrap();
            for m in &ds.metrics {
                let got = vals.get(0, m.inclusive(info.summary).unwrap());
                let want = if info.summary {
                    grand.get(&m.name).copied().unwrap_or(0.0)
                } else {
                    golden[&label(info, &ds.id_names)]
                        .get(&m.name)
                        .copied()
                        .unwrap_or(0.0)
                };
                assert!(
                    close(got, want),
                    "{name} profile {pi} {}: {got} vs {want}",
                    m.name
                );
            }
        }
    }
}

#[test]
fn small_tree_is_named_from_hpcstruct() {
    let Some(c) = corpus() else { return };
    let (groups, _) = formats::group(read_dir_inputs(&c.join("hpcrun/hpctoolkit-tests-small.m")));
    let ds = formats::open(&groups[0]).unwrap();
    let names: Vec<String> = (0..ds.cct.tree.len() as u32)
        .map(|n| ds.frame_name(n))
        .collect();
    for f in ["main", "caller", "spinsleep", "main thread"] {
        assert!(names.iter().any(|n| n == f), "{f} missing from {names:?}");
    }
    assert!(names.iter().any(|n| n == "loop at small.c:3"), "{names:?}");
    // spinsleep's exclusive (function-scope) time is its whole time: it calls nothing.
    let vals = ds.data.profile_values(0).unwrap();
    let m = &ds.metrics[0];
    let mut spin_excl = 0.0;
    let mut spin_incl = 0.0;
    for n in 0..ds.cct.tree.len() as u32 {
        if ds.frame_name(n) == "spinsleep" {
            spin_excl += vals.get(n, m.exclusive(false).unwrap());
            spin_incl += vals.get(n, m.inclusive(false).unwrap());
        }
    }
    // From the golden database: spinsleep 0.604943 (under main) + 0.605316 (under caller).
    assert!(close(spin_incl, 0.604943 + 0.605316), "{spin_incl}");
    assert!(close(spin_excl, spin_incl), "{spin_excl}");
    // The trace line maps every sample to a node of the tree.
    let t = ds.trace.as_ref().unwrap();
    assert_eq!(t.lines.len(), 1);
    assert_eq!(t.lines[0].samples, 13);
    let s = ds.data.trace_samples(0, 0, 13).unwrap();
    assert_eq!(s.len(), 13);
    assert!(s.windows(2).all(|w| w[0].time <= w[1].time));
    // The first sample is hpcrun's "no activity" context, which hpcprof (and we) fold into the
    // root; every later one is a real call path.
    assert_eq!(s[0].node, 0);
    assert!(s[1..]
        .iter()
        .all(|x| x.node != 0 && (x.node as usize) < ds.cct.tree.len()));
    assert_eq!(ds.data.trace_find(0, s[5].time).unwrap(), Some(5));
}

#[test]
fn vdso_v2_opens() {
    let Some(c) = corpus() else { return };
    let (groups, _) = formats::group(read_dir_inputs(&c.join("hpcrun/hpctoolkit-vdso-v2")));
    let ds = formats::open(&groups[0]).unwrap();
    ds.cct.check().unwrap();
    assert_eq!(ds.layout, "hpcrun profile 02.00b");
    assert_eq!(ds.metrics.len(), 1);
    assert_eq!(ds.metrics[0].name, "CPUTIME (usec)");
    let f = &groups[0].files_of(formats::hpcrun::PROFILE).next().unwrap();
    let p = profile::read(&f.source).unwrap();
    assert_eq!(p.epochs.len(), 1);
    assert_eq!(p.epochs[0].nodes.len(), 42);
    assert_eq!(p.epochs[0].loadmap.len(), 11);
    // 37 nodes carry samples (checked with an independent script); their sum (in microseconds, period 1) is the root's inclusive value.
    let total: f64 = p.epochs[0].values.iter().map(|v| v.2).sum();
    assert_eq!(p.epochs[0].values.len(), 37);
    let vals = ds.data.profile_values(0).unwrap();
    assert_eq!(vals.get(0, ds.metrics[0].inclusive(false).unwrap()), total);
    assert_eq!(total, 2_891_602.0);
}

/// Every corpus profile and trace truncated at many lengths and with bytes flipped: errors or
/// warnings, never a panic; reading at most a few times what the whole file takes (counted).
#[test]
fn truncated_and_flipped_files_never_panic() {
    use hpcscope::work::{count, Work::XmlBytes};
    let Some(c) = corpus() else { return };
    for dir in std::fs::read_dir(c.join("hpcrun")).unwrap() {
        let dir = dir.unwrap().path();
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.is_dir() {
                continue;
            }
            let name = f.to_string_lossy().to_string();
            let bytes = std::fs::read(&f).unwrap();
            let is_prof = name.ends_with(".hpcrun");
            let is_trace = name.ends_with(".hpctrace");
            if !is_prof && !is_trace {
                continue;
            }
            let read = |b: Vec<u8>| {
                if is_prof {
                    let _ = profile::parse(&b, "x");
                } else {
                    let s = hpcscope::bytes::Source::from_vec("x", b);
                    if let Ok(t) = hpcscope::formats::hpcrun::trace::RunTrace::open(&s) {
                        let _ = t.records(0, 1000);
                        let _ = t.find(u64::MAX / 2);
                    }
                }
            };
            let ((), base) = common::bytes_read(|| read(bytes.clone()));
            let check = |b: Vec<u8>, what: String| common::read_at_most(base, 4, &what, || read(b));
            let step = (bytes.len() / 97).max(1);
            for len in (0..bytes.len()).step_by(step) {
                check(bytes[..len].to_vec(), format!("{name} cut at {len}"));
            }
            let mut x = 0x9E37_79B9u32;
            for _ in 0..150 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let mut b = bytes.clone();
                let i = x as usize % b.len();
                b[i] ^= 1 << (x >> 29);
                // Also plant huge counts in places counts live.
                if x.is_multiple_of(3) && i + 4 <= b.len() {
                    b[i..i + 4].copy_from_slice(&[0xff, 0xff, 0xff, 0xf0]);
                }
                check(b, format!("{name} changed at {i:#x}"));
            }
        }
    }
    // Structure files: truncated anywhere (mid-tag, mid-attribute), they still parse or fail.
    let s = std::fs::read_to_string(
        c.join("hpcrun/hpctoolkit-tests-small.m/structs/testmeas-small.hpcstruct"),
    )
    .unwrap();
    let parse = |text: &str| {
        count(XmlBytes, || {
            let _ = hpcscope::formats::hpcrun::hpcstruct::parse(text, "x");
        })
        .1
    };
    let whole = parse(&s);
    for len in (0..s.len()).step_by(7) {
        if s.is_char_boundary(len) {
            let n = parse(&s[..len]);
            assert!(
                n <= 2 * whole,
                "{n} bytes examined in {len} bytes (the whole: {whole})"
            );
        }
    }
}

/// Whole datasets with a corrupted profile: Ok with warnings or Err, never a panic.
#[test]
fn corrupted_member_of_a_folder() {
    let Some(c) = corpus() else { return };
    let inputs = read_dir_inputs(&c.join("hpcrun/hpctoolkit-tests-loops-cputime-t.m"));
    let prof_ix = inputs
        .iter()
        .position(|f| f.path.ends_with(".hpcrun"))
        .unwrap();
    let orig = inputs[prof_ix].source.as_slice().unwrap().to_vec();
    for (k, cut) in [100usize, 2000, 5000, orig.len() - 1].iter().enumerate() {
        let mut inp = inputs.clone();
        let mut b = orig[..*cut].to_vec();
        if k == 3 {
            b = orig.clone();
            b[3000] ^= 0x40;
        }
        inp[prof_ix].source = hpcscope::bytes::Source::from_vec("x.hpcrun", b);
        let (groups, _) = formats::group(inp);
        let g = groups
            .iter()
            .find(|g| g.format_id() == formats::hpcrun::ID)
            .unwrap();
        match formats::open(g) {
            Ok(ds) => {
                ds.cct.check().unwrap();
                if k < 3 {
                    assert_eq!(ds.profiles.len(), 4, "3 threads + summary");
                    assert!(!ds.warnings.is_empty());
                }
                for p in 0..ds.profiles.len() {
                    let _ = ds.data.profile_values(p);
                }
            }
            Err(e) => panic!("one bad file should not sink the folder: {e}"),
        }
    }
}

/// The last part of a path (`/a/small.c` -> `small.c`).
fn base(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A context's label as hpctesttool names it in its comments: `F:main`, `S:loops.c:1004`,
/// `L:loops.c:1010`, `I:libgomp.so.1.0.0+0x1a86d`.
fn context_label(c: &Node, anchors: &HashMap<usize, &Node>) -> String {
    let target = |key: &str| anchors[&c.get(key).alias().unwrap()];
    let src = || {
        let file = target("file").get("path").str().unwrap();
        format!("{}:{}", base(file), c.get("line").u64().unwrap())
    };
    match c.get("lexical_type").str() {
        Some("function") => {
            let name = target("function").get("name").str().unwrap();
            format!("F:{}", name.split(" [").next().unwrap())
        }
        Some("line") => format!("S:{}", src()),
        Some("loop") => format!("L:{}", src()),
        _ => {
            let module = target("module").get("path").str().unwrap();
            let offset = c.get("offset").u64().unwrap();
            format!("I:{}+{offset:#x}", base(module))
        }
    }
}

/// Per-context execution values of every non-summary profile of a golden transcript, keyed by
/// profile label and by the context's path of labels from the root (`F:main`, `S:loops.c:1004`,
/// `L:loops.c:1010`, `E:main thread`, `I:libgomp.so.1.0.0+0x1a86d`).
fn golden_paths(yaml: &Node, metric: &str) -> BTreeMap<String, BTreeMap<String, f64>> {
    let exec_id = execution_ids(yaml)
        .into_iter()
        .find(|(_, name)| name == metric)
        .map(|(id, _)| id.to_string())
        .unwrap_or_else(|| panic!("no metric {metric}"));
    // ctx id -> label path, from the context tree in preorder.
    let anchors = yaml.anchors();
    let mut paths: BTreeMap<u64, String> = BTreeMap::new();
    let entry_points = yaml.get("meta").get("context").get("entry_points").seq();
    let mut stack: Vec<(&Node, String)> = entry_points
        .iter()
        .rev()
        .map(|e| (e, format!("E:{}", e.get("pretty_name").str().unwrap())))
        .collect();
    while let Some((n, path)) = stack.pop() {
        for c in n.get("children").seq().iter().rev() {
            stack.push((c, format!("{path};{}", context_label(c, &anchors))));
        }
        paths.insert(n.get("ctx_id").u64().unwrap(), path);
    }
    let names = golden::id_names(yaml);
    let mut out = BTreeMap::new();
    for p in golden::profiles(yaml) {
        if p.get("flags").flags().contains(&"is_summary") {
            continue;
        }
        let mut vals: BTreeMap<String, f64> = BTreeMap::new();
        for (ctx, ms) in p.get("values").entries() {
            let Some(path) = paths.get(&ctx.parse().unwrap()) else {
                continue;
            };
            for (id, v) in ms.entries() {
                if *id == exec_id {
                    *vals.entry(path.clone()).or_default() += v.f64();
                }
            }
        }
        out.insert(golden::profile_label(p, &names, true), vals);
    }
    out
}

fn my_paths(ds: &hpcscope::model::Dataset, prof: usize, metric: usize) -> BTreeMap<String, f64> {
    use hpcscope::model::{LexicalType, NodeKind};
    let vals = ds.data.profile_values(prof).unwrap();
    let id = ds.metrics[metric].inclusive(false).unwrap();
    let mut label_path: Vec<String> = vec![String::new(); ds.cct.tree.len()];
    let mut out = BTreeMap::new();
    for n in 1..ds.cct.tree.len() {
        let f = &ds.cct.frame[n];
        let name = ds.frame_name(n as u32);
        let label = match (f.kind, f.lexical_type) {
            (NodeKind::EntryPoint(_), _) => format!("E:{name}"),
            (_, LexicalType::Function) => format!("F:{}", name.split(" [").next().unwrap()),
            (_, LexicalType::Line) => format!("S:{name}"),
            (_, LexicalType::Loop) => format!("L:{}", name.trim_start_matches("loop at ")),
            _ => format!("I:{name}"),
        };
        let p = ds.cct.tree.parent[n] as usize;
        label_path[n] = if p == 0 {
            label
        } else {
            format!("{};{label}", label_path[p])
        };
        let v = vals.get(n as u32, id);
        if v != 0.0 {
            *out.entry(label_path[n].clone()).or_default() += v;
        }
    }
    out
}

/// The merged, hpcstruct-named tree gives every calling context the same inclusive value as the
/// tree hpcprof built from the same files, GPU kernels included. Not compared:
/// recursion-cuda-nvidiapc, whose GPU PC samples inside device functions hpcprof spreads over the
/// GPU binary's call graph (fractional shares per call site), which this reader does not rebuild:
/// its samples stay at the kernel's call context (per-thread totals still match, see above).
#[test]
fn context_values_match_hpcprof_trees() {
    let Some(c) = corpus() else { return };
    for (name, metric) in [
        ("hpctoolkit-tests-small", "CPUTIME (sec)"),
        ("hpctoolkit-tests-loops-cputime-t", "CPUTIME (sec)"),
        ("hpctoolkit-tests-loops-perf", "perf::cpu-clock"),
        ("hpctoolkit-tests-loops-perf", "perf::task-clock"),
        ("hpctoolkit-tests-loops-cuda-nvidia-t", "GKER (sec)"),
        ("hpctoolkit-tests-loops-hip-amd-t", "GKER (sec)"),
        ("hpctoolkit-tests-loops-cuda-nvidiapc-t", "GINS"),
    ] {
        let yaml = golden::golden_parts(&format!("{name}.d"), &["meta", "profile"]).unwrap();
        let golden = golden_paths(&yaml, metric);
        let (groups, _) = formats::group(read_dir_inputs(&c.join(format!("hpcrun/{name}.m"))));
        let ds = formats::open(&groups[0]).unwrap();
        let mi = ds.metrics.iter().position(|m| m.name == metric).unwrap();
        for (pi, info) in ds.profiles.iter().enumerate() {
            if info.summary {
                continue;
            }
            let l = label(info, &ds.id_names);
            let want = &golden[&l];
            let got = my_paths(&ds, pi, mi);
            let mut diffs = Vec::new();
            for k in want.keys().chain(got.keys()) {
                let (a, b) = (
                    got.get(k).copied().unwrap_or(0.0),
                    want.get(k).copied().unwrap_or(0.0),
                );
                if !close(a, b) {
                    diffs.push(format!("{k}: ours {a} hpcprof {b}"));
                }
            }
            diffs.dedup();
            assert!(diffs.is_empty(), "{name} {l}:\n{}", diffs.join("\n"));
        }
    }
}

/// The same totals through both readers: the measurement folder through ours, the database hpcprof
/// made of it through the HPCToolkit reader. Root inclusive value per profile and metric, and the
/// summary's, after hpcprof's value x period conversion (see the top of this file).
#[test]
fn totals_equal_the_hpctoolkit_reader_on_the_database() {
    let Some(c) = corpus() else { return };
    for name in TESTS {
        let db_dir = c.join(format!("hpctoolkit/v4/{name}.d"));
        let (dbg, _) = formats::group(read_dir_inputs(&db_dir));
        let db = formats::open(&dbg[0]).unwrap();
        let (mg, _) = formats::group(read_dir_inputs(&c.join(format!("hpcrun/{name}.m"))));
        let g = mg
            .iter()
            .find(|g| g.format_id() == formats::hpcrun::ID)
            .unwrap();
        let ms = formats::open(g).unwrap();
        let totals = |ds: &hpcscope::model::Dataset| {
            let mut out: BTreeMap<(String, String), f64> = BTreeMap::new();
            for (pi, info) in ds.profiles.iter().enumerate() {
                let vals = ds.data.profile_values(pi).unwrap();
                let l = if info.summary {
                    "summary".to_string()
                } else {
                    label(info, &ds.id_names)
                };
                for m in &ds.metrics {
                    let Some(id) = m.inclusive(info.summary) else {
                        continue;
                    };
                    let v = vals.get(0, id);
                    if v != 0.0 {
                        out.insert((l.clone(), m.name.clone()), v);
                    }
                }
            }
            out
        };
        let (a, b) = (totals(&ms), totals(&db));
        assert!(!a.is_empty());
        assert_close_maps(
            &a,
            &b,
            &format!("{name}: (profile, metric) pairs with a total"),
        );
    }
}
