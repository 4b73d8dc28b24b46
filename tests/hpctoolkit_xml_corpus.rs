//! XML-era databases of ../shared/corpus/hpctoolkit/xml: every one opens; the root's inclusive
//! value of every inclusive metric, as the views compute it, equals the `<M>` value experiment.xml
//! states for its root; per-thread values add up to the summary; hatchet's own expected values for
//! its cpi database; trace records land on the scopes their `it` ids name; and every file of every
//! database, truncated or bit-flipped, gives errors or warnings, never a panic.

use hpcscope::analysis::values::{metric_columns, Selection};
use hpcscope::bytes::Source;
use hpcscope::formats::{self, InputFile};
use hpcscope::model::Dataset;
use std::path::Path;

mod common;

fn open(dir: &Path) -> Dataset {
    let inputs = hpcscope::cli::read_inputs(dir).unwrap();
    let (groups, _) = formats::group(inputs);
    assert_eq!(groups.len(), 1, "{dir:?}");
    assert_eq!(groups[0].format_id(), "hpctoolkit-xml");
    formats::open(&groups[0]).unwrap_or_else(|e| panic!("{dir:?}: {e}"))
}

/// The `<M n v>` values written for the root, straight from the text: those between
/// `<SecCallPathProfileData>` and the first scope element.
fn stated_root_values(xml: &str) -> Vec<(u16, f64)> {
    let data = &xml[xml.find("<SecCallPathProfileData>").unwrap()..];
    let head = &data[..data.find("<PF").unwrap_or(data.len())];
    head.split("<M ")
        .skip(1)
        .map(|m| {
            let attr = |k: &str| {
                let s = &m[m.find(&format!("{k}=\"")).unwrap() + k.len() + 2..];
                s[..s.find('"').unwrap()].to_string()
            };
            (attr("n").parse().unwrap(), attr("v").parse().unwrap())
        })
        .collect()
}

#[test]
fn every_database_opens_and_its_root_shows_the_stated_inclusive_values() {
    let Some(dbs) = common::corpus_subdirs("hpctoolkit/xml") else {
        return;
    };
    assert_eq!(dbs.len(), 7);
    for dir in dbs {
        let ds = open(&dir);
        ds.cct.check().unwrap();
        assert!(ds.cct.tree.len() > 1, "{dir:?}: empty tree");
        let xml = std::fs::read_to_string(dir.join("experiment.xml")).unwrap();
        let stated = stated_root_values(&xml);
        let mut checked = 0;
        for (mi, m) in ds.metrics.iter().enumerate() {
            let Some(id) = m.inclusive(true) else {
                continue;
            };
            let want = stated.iter().find(|s| s.0 == id).map_or(0.0, |s| s.1);
            let cols = metric_columns(&ds, mi, &Selection::Summary).unwrap();
            assert_eq!(cols.inclusive[0], want, "{dir:?}: {}", m.name);
            checked += 1;
        }
        // The databases with metrics state a root value for each inclusive summary column.
        let inclusive_stated = stated.len();
        assert!(
            checked * 2 >= inclusive_stated,
            "{dir:?}: {checked} checked"
        );
    }
}

#[test]
fn hatchet_cpi_per_rank_values_are_the_ones_hatchet_expects() {
    let Some(root) = common::corpus_dir("hpctoolkit/xml/hatchet-cpi") else {
        return;
    };
    let ds = open(&root);
    // hatchet/tests/hpctoolkit.py, test_read_calc_pi_database: 5 load modules, 12 files, 16
    // procedures in the tables.
    assert_eq!(
        (ds.modules.len(), ds.source_files.len(), ds.functions.len()),
        (5, 12, 16)
    );
    assert_eq!(ds.profiles.len(), 5); // the summary and ranks 0-3
    let m = ds
        .metrics
        .iter()
        .position(|m| m.name == "CPUTIME (usec)")
        .unwrap();
    let node = |ctx: u32| ds.cct.node_of_ctx(ctx).unwrap() as usize;
    let rank0 = metric_columns(&ds, m, &Selection::Profile(1)).unwrap();
    // hatchet/tests/hpctoolkit.py, test_tree, rank 0 thread 0, "time (inc)":
    // "999238.000 230:psm_dofinalize" (scope 35) and "17989.000 interp.c:0" (scope 59).
    assert_eq!(rank0.inclusive[node(35)], 999238.0);
    assert_eq!(rank0.inclusive[node(59)], 17989.0);
    assert_eq!(ds.frame_name(node(35) as u32), "psm_dofinalize");
    // Every rank's root: together they are the summary's 3.99824e+06 (experiment.xml keeps six
    // significant digits).
    let mut total = 0.0;
    for p in 1..=4 {
        let c = metric_columns(&ds, m, &Selection::Profile(p)).unwrap();
        assert!(
            c.inclusive[0] > 9.9e5 && c.inclusive[0] < 1.01e6,
            "rank {p}"
        );
        assert_eq!(
            c.inclusive[0],
            c.inclusive[node(2)],
            "rank {p}: root = <program root>"
        );
        total += c.inclusive[0];
    }
    assert_eq!(total, 999238.0 + 999390.0 + 1000306.0 + 999308.0);
    assert!((total - 3.99824e6).abs() < 5.0, "{total}");
    // Exclusive values stay on the scopes hpcprof gave them: main has none, the
    // sched_yield statement (scope 59) all of its 17989.
    assert_eq!(rank0.exclusive[node(4)], 0.0);
    assert_eq!(rank0.exclusive[node(59)], 17989.0);
}

#[test]
fn merged_thread_values_add_up_to_the_summary() {
    for db in [
        "hpcviewer-inline.xml.db",
        "hpcviewer-vectorAdd",
        "hatchet-cpi",
    ] {
        let Some(dir) = common::corpus_dir(&format!("hpctoolkit/xml/{db}")) else {
            return;
        };
        let ds = open(&dir);
        let threads: Vec<usize> = (1..ds.profiles.len()).collect();
        for (mi, m) in ds.metrics.iter().enumerate() {
            if m.inclusive(false).is_none() || m.inclusive(true).is_none() {
                continue;
            }
            let sum = metric_columns(&ds, mi, &Selection::Subset(threads.clone())).unwrap();
            let summary = metric_columns(&ds, mi, &Selection::Summary).unwrap();
            for n in 0..ds.cct.tree.len() {
                let (a, b) = (sum.inclusive[n], summary.inclusive[n]);
                // experiment.xml writes values with %g: six significant digits.
                assert!(
                    (a - b).abs() <= 1e-5 * a.abs().max(b.abs()),
                    "{db} {} node {n}: threads {a}, summary {b}",
                    m.name
                );
            }
        }
    }
}

#[test]
fn trace_records_land_on_the_scopes_their_ids_name() {
    let Some(dir) = common::corpus_dir("hpctoolkit/xml/hpcviewer-acc_f3") else {
        return;
    };
    let ds = open(&dir);
    let t = ds.trace.as_ref().unwrap();
    assert_eq!(
        t.lines.iter().map(|l| l.samples).collect::<Vec<_>>(),
        vec![137, 58]
    );
    // The first record of thread 0 is (1663195784210965000, 19): <S i="3" it="19"> under
    // <no activity>.
    let s = ds.data.trace_samples(0, 0, 1).unwrap()[0];
    assert_eq!(s.time, 1663195784210965000);
    assert_eq!(ds.cct.ctx_id[s.node as usize], 3);
    let p = ds.cct.tree.parent[s.node as usize];
    assert_eq!(ds.frame_name(p), "<no activity>");
    // experiment.mt: 8 lines of hpcviewer's merged inline.xml.db traces.
    let Some(dir) = common::corpus_dir("hpctoolkit/xml/hpcviewer-inline.xml.db") else {
        return;
    };
    let ds = open(&dir);
    let t = ds.trace.as_ref().unwrap();
    assert_eq!(t.lines.len(), 8);
    let first = ds.data.trace_samples(0, 0, 2).unwrap();
    assert_eq!(ds.cct.ctx_id[first[0].node as usize], 3); // it="19"
    assert_eq!(ds.cct.ctx_id[first[1].node as usize], 23); // it="87"
    assert_eq!(ds.data.trace_find(0, first[1].time).unwrap(), Some(1));
}

/// Opens a database whose file `victim` is replaced by `bytes`, and touches what the views read.
fn open_mutated(dir: &Path, victim: &Path, bytes: &[u8]) {
    let inputs: Vec<InputFile> = hpcscope::cli::read_inputs(dir)
        .unwrap()
        .into_iter()
        .map(|f| {
            if dir.join(&f.path).ends_with(victim) || f.path.ends_with(victim.to_str().unwrap()) {
                InputFile {
                    source: Source::from_vec(f.path.as_str(), bytes.to_vec()),
                    path: f.path,
                }
            } else {
                f
            }
        })
        .collect();
    let (groups, _) = formats::group(inputs);
    for g in &groups {
        let _ = formats::probe::probe(g);
        let Ok(ds) = formats::open(g) else { continue };
        ds.cct.check().unwrap();
        for p in 0..ds.profiles.len() {
            if let Ok(v) = ds.data.profile_values(p) {
                assert!(v.nodes.iter().all(|&n| (n as usize) < ds.cct.tree.len()));
            }
        }
        for n in 0..ds.cct.tree.len().min(64) as u32 {
            let _ = ds.data.context_values(n);
        }
        if let Some(t) = &ds.trace {
            for (i, l) in t.lines.iter().enumerate() {
                if let Ok(s) = ds.data.trace_samples(i, 0, l.samples.min(512)) {
                    assert!(s.iter().all(|s| (s.node as usize) < ds.cct.tree.len()));
                }
                let _ = ds.data.trace_find(i, t.min_time.unwrap_or(0));
            }
        }
    }
}

#[test]
fn truncated_and_bit_flipped_files_give_errors_not_panics() {
    let Some(dbs) = common::corpus_subdirs("hpctoolkit/xml") else {
        return;
    };
    for dir in dbs {
        let mut files = Vec::new();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() && !p.ends_with("experiment.dtd") {
                files.push(p);
            }
        }
        files.sort();
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            let name = Path::new(f.file_name().unwrap());
            let n = bytes.len();
            // 16 truncation lengths spread over the file, its first and last bytes included.
            for k in 0..16 {
                let len = if k == 15 {
                    n.saturating_sub(1)
                } else {
                    n * k / 16
                };
                open_mutated(&dir, name, &bytes[..len]);
            }
            // 24 single-bit flips at spread offsets (a fixed pattern, so failures reproduce).
            for k in 0..24usize {
                let mut m = bytes.clone();
                if m.is_empty() {
                    break;
                }
                let at = (k * 7919 + k * k * 104729) % m.len();
                m[at] ^= 1 << (k % 8);
                open_mutated(&dir, name, &m);
            }
        }
    }
}

#[test]
fn threads_known_only_from_their_traces_have_no_distribution() {
    let Some(dir) = common::corpus_dir("hpctoolkit/xml/hpcviewer-acc_f3") else {
        return;
    };
    let ds = open(&dir);
    // Two trace files and no metric-db or .mdb: two thread profiles, without values.
    assert_eq!(ds.profiles.len(), 3);
    let d = hpcscope::analysis::values::node_distribution(&ds, 0, 0, false).unwrap();
    assert!(d.is_empty(), "{d:?}");
    // With values (hatchet's cpi: one metric-db per rank), every rank is in it.
    let Some(dir) = common::corpus_dir("hpctoolkit/xml/hatchet-cpi") else {
        return;
    };
    let ds = open(&dir);
    let d = hpcscope::analysis::values::node_distribution(&ds, 0, 0, false).unwrap();
    assert_eq!(d.len(), 4);
}
