//! Comparing runs across formats (`hpcscope diff`, `analysis::diff`): an hpcrun measurement
//! against the database hpcprof made from it (corpus pairs) and a generated measurement against
//! a prof2 database written here from it give equal totals and equal self and total values for
//! every function; every corpus dataset compared with itself differs nowhere; per-function deltas
//! add up to the difference of the totals.

use hpcscope::analysis::diff::view::{ADDED, REMOVED};
use hpcscope::analysis::diff::{diff_functions, function_totals, Comparison, FunctionDiff};
use hpcscope::analysis::diff::{MetricPair, Normalize};
use hpcscope::analysis::values::{metric_columns, Selection};
use hpcscope::bytes::Endian;
use hpcscope::formats;
use hpcscope::formats::prof2::meta::{
    Callee, CodeTables, FunctionSpec, Lexical, MetaContext, MetaDb, MetaMetric, MetaScope,
    MetaSummary, PathSpec, HAS_FUNCTION, HAS_POINT, HAS_SRCLINE,
};
use hpcscope::formats::prof2::profile::IdElem;
use hpcscope::formats::prof2::Version;
use hpcscope::model::{Dataset, LexicalType, NodeKind, Relation};
use hpcscope::synth::hpcrun::{HpcrunSpec, Measurement};
use hpcscope::synth::prof2::{cct_db, meta_db, profile_db, ProfileFixture};
use std::path::Path;

mod common;

const PAIRS: [&str; 7] = [
    "small",
    "loops-cputime-t",
    "loops-cuda-nvidia-t",
    "loops-cuda-nvidiapc-t",
    "loops-hip-amd-t",
    "loops-perf",
    "recursion-cuda-nvidiapc-t",
];

fn open_dir(dir: &Path) -> Dataset {
    let inputs = hpcscope::cli::read_inputs(dir).unwrap();
    let (groups, _) = formats::group(inputs);
    formats::open(&groups[0]).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// Per-function values of two runs for a metric pair.
fn functions(b: &Dataset, n: &Dataset, pair: MetricPair) -> (Vec<FunctionDiff>, f64, f64) {
    let (rb, tb) = function_totals(b, pair.base as usize).unwrap();
    let (rn, tn) = function_totals(n, pair.new as usize).unwrap();
    (diff_functions(&rb, &rn, (1.0, 1.0)), tb, tn)
}

/// Equal totals and equal self values of every function (and equal total values when
/// `totals`), up to rounding of sums taken in another order (1e-9 of the run's total).
fn assert_same_functions(
    what: &str,
    b: &Dataset,
    n: &Dataset,
    pair: MetricPair,
    totals: bool,
) -> usize {
    let (rows, tb, tn) = functions(b, n, pair);
    let tol = 1e-9 * tb.abs().max(tn.abs()).max(1e-300);
    assert!((tb - tn).abs() <= tol, "{what}: totals {tb} vs {tn}");
    for r in &rows {
        assert!((r.base_self - r.new_self).abs() <= tol, "{what}: {r:?}");
        if totals {
            assert!((r.base_total - r.new_total).abs() <= tol, "{what}: {r:?}");
        }
    }
    rows.len()
}

#[test]
fn hpcrun_measurements_against_their_databases() {
    let Some(c) = common::corpus() else { return };
    for x in PAIRS {
        let m = open_dir(&c.join(format!("hpcrun/hpctoolkit-tests-{x}.m")));
        let d = open_dir(&c.join(format!("hpctoolkit/v4/hpctoolkit-tests-{x}.d")));
        let mut cmp = Comparison::new(&m, &d, false).unwrap();
        let pairs = cmp.pairs.clone();
        assert!(!pairs.is_empty(), "{x}: no metric matched");
        // The default metric (the first time-like one): every function's self and total value.
        let t = cmp.set_metric(&m, &d, None, Normalize::None).unwrap();
        let def = cmp.meta(&m, &d).default_pair.unwrap();
        assert_same_functions(&format!("{x} {}", t.base_metric), &m, &d, def, true);
        // Every other metric both have: self values. Inclusive values of GPU functions differ
        // where hpcprof rebuilt the GPU call graph from the gpubin for instruction samples
        // (recursion-cuda-nvidiapc-t: hpcrun keeps them flat under <gpu kernel>).
        for &p in &pairs {
            let name = &m.metrics[p.base as usize].name;
            let n = assert_same_functions(&format!("{x} {name}"), &m, &d, p, false);
            assert!(n > 0, "{x} {name}: no functions");
        }
        // The calling contexts match by path: every context with a value of the default metric
        // is in both runs, with equal values.
        let tol = 1e-9 * t.base_total.abs();
        assert!((t.base_total - t.new_total).abs() <= tol, "{x}: {t:?}");
        let cols = cmp.columns();
        let mut valued = 0;
        for u in 0..cmp.union.len() {
            if cols.base.inclusive[u] == 0.0 && cols.new.inclusive[u] == 0.0 {
                continue;
            }
            valued += 1;
            assert_eq!(
                cmp.flags(&m, &d, u as u32) & (ADDED | REMOVED),
                0,
                "{x}: {u}"
            );
            assert!(
                (cols.base.inclusive[u] - cols.new.inclusive[u]).abs() <= tol,
                "{x}: union node {u}"
            );
        }
        assert!(valued > 1, "{x}");
        if x != "recursion-cuda-nvidiapc-t" {
            let meta = cmp.meta(&m, &d);
            assert_eq!((meta.counts.added, meta.counts.removed), (0, 0), "{x}");
        }
    }
}

#[test]
fn every_corpus_dataset_against_itself() {
    let Some(c) = common::corpus() else { return };
    let mut dirs = Vec::new();
    for sub in [
        "hpctoolkit/v4",
        "hpctoolkit/v4-draft",
        "hpctoolkit/prof2",
        "hpcrun",
    ] {
        for e in std::fs::read_dir(c.join(sub)).unwrap() {
            dirs.push(e.unwrap().path());
        }
    }
    dirs.sort();
    let mut compared = 0;
    for dir in dirs {
        let ds = open_dir(&dir);
        let Ok(mut cmp) = Comparison::new(&ds, &ds, false) else {
            continue;
        };
        compared += 1;
        let t = cmp.set_metric(&ds, &ds, None, Normalize::None).unwrap();
        assert_eq!(t.base_total, t.new_total);
        // Siblings with one key (two call sites on one line) are one union node.
        assert!(cmp.union.len() <= ds.cct.tree.len(), "{}", dir.display());
        for u in 0..cmp.union.len() as u32 {
            assert_eq!(cmp.union.members(u, true), cmp.union.members(u, false));
        }
        let cols = cmp.columns();
        assert_eq!(cols.base.inclusive, cols.new.inclusive);
        assert_eq!(cols.base.exclusive, cols.new.exclusive);
        for u in 0..cmp.union.len() as u32 {
            assert_eq!(cmp.flags(&ds, &ds, u) & (ADDED | REMOVED), 0);
        }
        for p in cmp.pairs.clone() {
            let (rows, tb, tn) = functions(&ds, &ds, p);
            assert_eq!(tb, tn);
            for r in rows {
                assert_eq!((r.base_self, r.base_total), (r.new_self, r.new_total));
            }
        }
    }
    assert!(compared >= 20, "{compared} datasets compared");
}

/// Per-function deltas add up to the difference of the totals: the rows' self values partition
/// each run's total.
fn assert_deltas_add_up(b: &Dataset, n: &Dataset, pair: MetricPair) {
    let (rows, tb, tn) = functions(b, n, pair);
    let delta: f64 = rows.iter().map(|r| r.new_self - r.base_self).sum();
    let tol = 1e-9 * tb.abs().max(tn.abs());
    assert!(
        (delta - (tn - tb)).abs() <= tol,
        "deltas {delta} vs totals {tb} -> {tn}"
    );
    let base_sum: f64 = rows.iter().map(|r| r.base_self).sum();
    assert!((base_sum - tb).abs() <= tol, "{base_sum} vs {tb}");
}

#[test]
fn function_deltas_add_up_on_corpus_runs() {
    let Some(c) = common::corpus() else { return };
    let v4 = c.join("hpctoolkit/v4");
    let a = open_dir(&v4.join("hpctoolkit-tests-loops-cputime-t.d"));
    let b = open_dir(&v4.join("hpctoolkit-tests-small.d"));
    let s = open_dir(&v4.join("hpctoolkit-tests-loops-cputime-t.nostruct.d"));
    let p = MetricPair { base: 0, new: 0 };
    assert_deltas_add_up(&a, &b, p);
    assert_deltas_add_up(&b, &a, p);
    assert_deltas_add_up(&a, &s, p);
    // With and without loop structure: function-level trees match where the full ones cannot.
    let full = Comparison::new(&a, &s, false).unwrap().union.counts();
    let merged = Comparison::new(&a, &s, true).unwrap().union.counts();
    assert!(full.added > 0 && full.removed > 0, "{full:?}");
    assert!(
        merged.added + merged.removed < full.added + full.removed,
        "{merged:?}"
    );
}

// ----- a generated measurement and a prof2 database written from it -----

/// A prof2 database (meta.db, profile.db, cct.db) holding what `m` holds, as hpcprof would make
/// from a measurement: the same contexts (prof2 has no entry points: their children hang from the
/// root), each metric's inclusive and exclusive values for the summary and every thread profile.
fn prof2_from(m: &Dataset) -> Vec<(String, Vec<u8>)> {
    let nm = m.metrics.len() as u16;
    let metrics = m
        .metrics
        .iter()
        .enumerate()
        .map(|(k, x)| {
            let scope = |s: &str, id: u16| MetaScope {
                raw_mid: id,
                scope: s.into(),
                summaries: vec![MetaSummary {
                    summary_mid: id,
                    combine: 0,
                    formula: "$$".into(),
                }],
            };
            MetaMetric {
                name: x.name.clone(),
                scopes: vec![
                    scope("execution", k as u16),
                    scope("function", nm + k as u16),
                ],
            }
        })
        .collect();
    let path = |p: &str| PathSpec {
        flags: 0,
        path: p.into(),
    };
    // Context list position of each node (entry points and the root have none).
    let mut pos: Vec<Option<u32>> = vec![None; m.cct.tree.len()];
    let mut contexts = Vec::new();
    for i in 1..m.cct.tree.len() {
        let f = m.cct.frame[i];
        if f.kind != NodeKind::Context {
            continue;
        }
        let mut flags = 0;
        if f.code.function.is_some() {
            flags |= HAS_FUNCTION;
        }
        if f.code.file.is_some() {
            flags |= HAS_SRCLINE;
        }
        if f.code.module.is_some() {
            flags |= HAS_POINT;
        }
        pos[i] = Some(contexts.len() as u32);
        contexts.push(MetaContext {
            ctx_id: i as u32,
            parent: pos[m.cct.tree.parent[i] as usize],
            callee: match f.relation {
                Relation::Lexical => None,
                r => Some(Callee {
                    call_type: (r == Relation::InlinedCall) as u8,
                    flags: 0,
                    caller_file: None,
                    caller_line: None,
                }),
            },
            lexical: Lexical {
                lex_type: match f.lexical_type {
                    LexicalType::Function => 0,
                    LexicalType::Loop => 1,
                    LexicalType::Line => 2,
                    LexicalType::Instruction => 3,
                },
                flags,
                code: f.code,
            },
        });
    }
    let meta = MetaDb {
        version: Version { major: 4, minor: 0 },
        title: m.title.clone(),
        id_names: m.id_names.clone(),
        metrics,
        code: CodeTables {
            modules: m.modules.iter().map(|x| path(&x.path)).collect(),
            files: m.source_files.iter().map(|x| path(&x.path)).collect(),
            functions: m
                .functions
                .iter()
                .map(|f| FunctionSpec {
                    name: Some(f.name.clone()),
                    module: f.module,
                    offset: f.offset.unwrap_or(u64::MAX),
                    file: f.file,
                    line: f.line.unwrap_or(0),
                    flags: 0,
                })
                .collect(),
        },
        contexts,
    };
    let values = |sel: &Selection| {
        let cols: Vec<_> = (0..m.metrics.len())
            .map(|k| metric_columns(m, k, sel).unwrap())
            .collect();
        (0..m.cct.tree.len())
            .filter(|&i| i == 0 || pos[i].is_some())
            .map(|i| {
                let mut v = Vec::new();
                for (k, c) in cols.iter().enumerate() {
                    v.push((k as u16, c.inclusive[i]));
                    v.push((nm + k as u16, c.exclusive[i]));
                }
                v.retain(|x| x.1 != 0.0);
                (i as u32, v)
            })
            .filter(|x| !x.1.is_empty())
            .collect()
    };
    let mut profiles = vec![ProfileFixture {
        id_tuple: vec![IdElem {
            kind: 0,
            physical: 0,
            logical: 0,
        }],
        values: values(&Selection::Summary),
    }];
    for (p, info) in m.profiles.iter().enumerate() {
        if info.summary {
            continue;
        }
        profiles.push(ProfileFixture {
            id_tuple: info
                .id_tuple
                .iter()
                .map(|e| IdElem {
                    kind: e.kind,
                    physical: e.physical_id,
                    logical: e.logical_id as u64,
                })
                .collect(),
            values: values(&Selection::Profile(p)),
        });
    }
    let e = Endian::Little;
    vec![
        ("meta.db".into(), meta_db(&meta, e)),
        ("profile.db".into(), profile_db(&profiles, e)),
        ("cct.db".into(), cct_db(&profiles, e)),
    ]
}

#[test]
fn generated_measurement_against_a_database_made_from_it() {
    let spec = HpcrunSpec {
        threads: 3,
        samples: 300,
        ..HpcrunSpec::default()
    };
    let m = common::open_files("synth.m", Measurement::generate(&spec).files());
    let d = common::open_files("synth.d", prof2_from(&m));
    assert_eq!((m.format.as_str(), d.format.as_str()), ("hpcrun", "prof2"));
    let cmp = Comparison::new(&m, &d, false).unwrap();
    assert_eq!(cmp.pairs.len(), m.metrics.len());
    for &p in &cmp.pairs {
        assert_same_functions("generated", &m, &d, p, true);
        assert_deltas_add_up(&m, &d, p);
    }
    // prof2 has no entry points: they fold into the root, and then every context matches.
    let meta = cmp.meta(&m, &d);
    assert!(meta.walk.entries_hidden);
    assert_eq!((meta.counts.added, meta.counts.removed), (0, 0), "{meta:?}");
    assert!(
        meta.counts.matched as usize >= d.cct.tree.len() / 2,
        "{meta:?}"
    );
    // Two generated runs of another seed: deltas still add up.
    let other = common::open_files(
        "other.m",
        Measurement::generate(&HpcrunSpec {
            seed: 9,
            samples: 500,
            ..spec
        })
        .files(),
    );
    assert_deltas_add_up(&m, &other, MetricPair { base: 0, new: 0 });
}
