//! Fuzz harness shared by the cargo-fuzz targets (fuzz/fuzz_targets/*.rs) and the committed
//! regression test (tests/fuzz_regressions.rs): each target replaces ONE on-disk structure of a
//! known-good dataset with the fuzzer's bytes, opens the dataset and reads every lazy part, bounded.

use hpcscope::formats::{self, InputFile};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// (target name, companion dataset under ../shared/corpus or "@example", file replaced by the input).
/// A replaced name ending in '/' means "a new file of that name", not in the companion set.
pub const TARGETS: &[(&str, &str, &str)] = &[
    ("hpctoolkit_meta", "@example", "meta.db"),
    ("hpctoolkit_profile", "@example", "profile.db"),
    ("hpctoolkit_cct", "@example", "cct.db"),
    ("hpctoolkit_trace", "@example", "trace.db"),
    (
        "hpctoolkit_draft_meta",
        "hpctoolkit/v4-draft/small-apr2022",
        "meta.db",
    ),
    (
        "hpctoolkit_draft_profile",
        "hpctoolkit/v4-draft/small-apr2022",
        "profile.db",
    ),
    (
        "hpctoolkit_draft_trace",
        "hpctoolkit/v4-draft/small-may2022",
        "trace.db",
    ),
    (
        "prof2_profile",
        "hpctoolkit/prof2/hpcviewer-empty-trace",
        "profile.db",
    ),
    (
        "prof2_cct",
        "hpctoolkit/prof2/hpcviewer-empty-trace",
        "cct.db",
    ),
    (
        "prof2_trace",
        "hpctoolkit/prof2/hpcviewer-empty-trace",
        "trace.db",
    ),
    (
        "prof2_xml",
        "hpctoolkit/prof2/hpcviewer-empty-trace",
        "experiment.xml",
    ),
    (
        "prof2_meta",
        "hpctoolkit/prof2/hpcviewer-empty-trace",
        "meta.db/",
    ),
    (
        "hpcrun_profile",
        "hpcrun/hpctoolkit-tests-small.m",
        "testmeas-small-000000-000-11ac0300-5560-0.hpcrun",
    ),
    (
        "hpcrun_trace",
        "hpcrun/hpctoolkit-tests-small.m",
        "testmeas-small-000000-000-11ac0300-5560-0.hpctrace",
    ),
    (
        "hpcrun_hpcstruct",
        "hpcrun/hpctoolkit-tests-small.m",
        "structs/testmeas-small.hpcstruct",
    ),
    (
        "hpctoolkit_xml_experiment",
        "hpctoolkit/xml/hpcviewer-inline.xml.db",
        "experiment.xml",
    ),
    (
        "hpctoolkit_xml_metric_db",
        "hpctoolkit/xml/hatchet-cpi",
        "1.cpi-000000-000-a8c00270-160443-0.metric-db",
    ),
    (
        "hpctoolkit_xml_mdb",
        "hpctoolkit/xml/hpcviewer-inline.xml.db",
        "experiment-1.mdb",
    ),
    (
        "hpctoolkit_xml_mt",
        "hpctoolkit/xml/hpcviewer-inline.xml.db",
        "experiment.mt",
    ),
    (
        "hpctoolkit_metrics_yaml",
        "hpctoolkit/v4/hpcviewer-derived-metrics.db",
        "metrics/default.yaml",
    ),
    (
        "hpctoolkit_xml_hpctrace",
        "hpctoolkit/xml/hpcviewer-acc_f3",
        "acc_f3.out-000000-000-2a803c80-3444792-0.hpctrace",
    ),
    ("dcpi", "@none", "profile.dcpi/"),
    (
        "uftrace_info",
        "uftrace/recorded-single-args/uftrace.data",
        "info",
    ),
    (
        "uftrace_task",
        "uftrace/recorded-single-args/uftrace.data",
        "task.txt",
    ),
    (
        "uftrace_map",
        "uftrace/recorded-single-args/uftrace.data",
        "sid-572a79ee0b90ff73.map",
    ),
    (
        "uftrace_sym",
        "uftrace/recorded-single-args/uftrace.data",
        "single.sym",
    ),
    (
        "uftrace_dbg",
        "uftrace/recorded-single-args/uftrace.data",
        "single.dbg",
    ),
    (
        "uftrace_dat",
        "uftrace/recorded-single-args/uftrace.data",
        "17009.dat",
    ),
    (
        "uftrace_perf",
        "uftrace/recorded-single-args/uftrace.data",
        "perf-cpu0.dat",
    ),
];

/// The corpus folder: $HPCSCOPE_CORPUS, else ../shared/corpus beside the repository.
pub fn corpus_dir() -> PathBuf {
    if let Ok(p) = std::env::var("HPCSCOPE_CORPUS") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .components()
        .collect::<PathBuf>()
}

fn find_root() -> PathBuf {
    // CARGO_MANIFEST_DIR is the repo for the regression test and fuzz/ for the targets.
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for base in [here, here.parent().unwrap_or(here)] {
        let c = base.join("../shared/corpus");
        if c.is_dir() {
            return c;
        }
    }
    corpus_dir()
}

/// Companion files of a target: (relative path, bytes), the replaced file included (its seed).
pub fn companions(dataset: &str) -> Option<Vec<(String, Vec<u8>)>> {
    match dataset {
        "@none" => Some(Vec::new()),
        "@example" => Some(hpcscope::synth::example::example_database()),
        rel => {
            let dir = find_root().join(rel);
            let mut out = Vec::new();
            let mut stack = vec![dir.clone()];
            while let Some(p) = stack.pop() {
                for e in std::fs::read_dir(&p).ok()?.flatten() {
                    let path = e.path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if let Ok(bytes) = std::fs::read(&path) {
                        let name = path
                            .strip_prefix(&dir)
                            .ok()?
                            .to_string_lossy()
                            .replace('\\', "/");
                        out.push((name, bytes));
                    }
                }
            }
            out.sort();
            Some(out)
        }
    }
}

struct Target {
    replaced: String,
    files: Vec<(String, Vec<u8>)>,
}

fn target(name: &str) -> Option<&'static Target> {
    static ALL: OnceLock<Vec<(&'static str, Option<Target>)>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        TARGETS
            .iter()
            .map(|&(n, ds, file)| {
                let t = companions(ds).map(|files| Target {
                    replaced: file.trim_end_matches('/').to_string(),
                    files: files.into_iter().filter(|(p, _)| p != file).collect(),
                });
                (n, t)
            })
            .collect()
    });
    all.iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, t)| t.as_ref())
}

/// True when the target's companion dataset can be loaded (the corpus is present).
pub fn available(name: &str) -> bool {
    target(name).is_some()
}

/// Runs one fuzz input through target `name`: open, then read every lazily read part, bounded so
/// one execution stays short. Any panic is a bug; errors and warnings are fine.
pub fn run(name: &str, data: &[u8]) {
    let Some(t) = target(name) else { return };
    let root = "fuzz.d";
    let mut files: Vec<InputFile> = t
        .files
        .iter()
        .map(|(p, b)| InputFile::from_vec(format!("{root}/{p}"), b.clone()))
        .collect();
    files.push(InputFile::from_vec(
        format!("{root}/{}", t.replaced),
        data.to_vec(),
    ));
    let (groups, _loose) = formats::group(files);
    for g in &groups {
        let _ = formats::probe::probe(g);
        let Ok(ds) = formats::open(g) else { continue };
        exercise(&ds);
    }
}

/// Touches what the views would: every profile's values, some contexts' values, trace windows.
pub fn exercise(ds: &hpcscope::model::Dataset) {
    if let Err(e) = ds.cct.check() {
        panic!("reader produced an inconsistent tree: {e}");
    }
    for n in 0..ds.cct.tree.len().min(2000) as u32 {
        let _ = ds.frame_name(n);
    }
    for p in 0..ds.profiles.len().min(64) {
        if let Ok(v) = ds.data.profile_values(p) {
            for (node, _, _) in v.iter().take(100_000) {
                assert!(
                    (node as usize) < ds.cct.tree.len(),
                    "value for node {node} outside the tree"
                );
            }
        }
    }
    for n in 0..ds.cct.tree.len().min(64) as u32 {
        let _ = ds.data.context_values(n);
    }
    // Formula metrics (a taxonomy's, experiment.xml's view formulas): their text, the default
    // metric and every value column, evaluated as the views evaluate them.
    if ds.view_metrics() > ds.metrics.len() {
        let mut view = hpcscope::analysis::profile::ProfileView::new(ds);
        let meta = view.meta(ds);
        assert_eq!(meta.metrics.len(), ds.view_metrics());
        for m in 0..ds.view_metrics().min(512) {
            let _ = view.columns(ds, m);
        }
    }
    if let Some(tr) = &ds.trace {
        for (i, line) in tr.lines.iter().enumerate().take(64) {
            if let Ok(samples) = ds.data.trace_samples(i, 0, line.samples.min(4096)) {
                for s in &samples {
                    assert!(
                        (s.node as usize) < ds.cct.tree.len(),
                        "trace sample node {} outside the tree",
                        s.node
                    );
                }
            }
            if let (Some(a), Some(b)) = (tr.min_time, tr.max_time) {
                for t in [a, a / 2 + b / 2, b, u64::MAX] {
                    let _ = ds.data.trace_find(i, t);
                }
            }
        }
    }
}
