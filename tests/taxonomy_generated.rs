//! Generated databases (src/synth): a taxonomy written beside a synthetic database reads into its
//! tree with the default metric, formula values and default columns it describes, values checked
//! against the generator's own (not the reader's); a damaged taxonomy leaves the flat metric
//! list with a warning naming file and line; a May-2022 draft whose cct.db lacks the values of
//! some contexts opens with a warning and answers those contexts from profile.db, while a cct.db
//! of another run (another number of contexts) stays refused.

use hpcscope::analysis::derived::taxonomy_default;
use hpcscope::analysis::profile::{ProfileView, TableKind};
use hpcscope::analysis::values::{default_metric, node_distribution};
use hpcscope::formats::{self, InputFile};
use hpcscope::model::Dataset;
use hpcscope::synth::values::{SCOPE_EXECUTION, SCOPE_FUNCTION, STAT_SUM};
use hpcscope::synth::{SynthDb, SynthSpec};
use hpcscope::ErrorKind;

fn spec(metrics: u32) -> SynthSpec {
    SynthSpec {
        ranks: 2,
        threads: 2,
        contexts: 120,
        depth: 6,
        metrics,
        samples: 0,
        seed: 11,
        ..SynthSpec::default()
    }
}

fn open(files: &[(String, Vec<u8>)]) -> hpcscope::error::Result<Dataset> {
    let inputs = files
        .iter()
        .map(|(n, b)| InputFile::from_vec(format!("db/{n}"), b.clone()))
        .collect();
    let (mut groups, _) = formats::group(inputs);
    assert_eq!(groups.len(), 1);
    formats::open(&groups.remove(0))
}

fn with_taxonomy(db: &SynthDb) -> Vec<(String, Vec<u8>)> {
    let mut files = db.to_files();
    files.push((
        "metrics/default.yaml".into(),
        db.metrics_yaml().into_bytes(),
    ));
    files
}

fn metric(ds: &Dataset, name: &str) -> usize {
    (0..ds.view_metrics())
        .find(|&m| ds.metric_label(m).0 == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// The generator's summary sum of metric `m` in scope `s`, per model node.
/// The inclusive or exclusive values of metric `name` at every node.
fn values(pv: &mut ProfileView, ds: &Dataset, name: &str, exclusive: bool) -> Vec<f64> {
    let c = pv.columns(ds, metric(ds, name)).unwrap();
    if exclusive {
        c.exclusive.clone()
    } else {
        c.inclusive.clone()
    }
}

fn generated_sums(db: &SynthDb, ds: &Dataset, m: usize, s: usize) -> Vec<f64> {
    let id = SynthDb::stat_metric_id(m, STAT_SUM, s);
    let mut by_ctx = std::collections::HashMap::new();
    for (ctx, vid, v) in db.profile_values(0) {
        if vid == id {
            by_ctx.insert(ctx, v);
        }
    }
    (0..ds.cct.tree.len())
        .map(|n| by_ctx.get(&ds.cct.ctx_id[n]).copied().unwrap_or(0.0))
        .collect()
}

#[test]
fn taxonomy_of_a_synthetic_database() {
    let db = SynthDb::new(&spec(6)).unwrap();
    let ds = open(&with_taxonomy(&db)).unwrap();
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    let t = ds.taxonomy.as_ref().unwrap();
    let roots: Vec<&str> = t
        .roots
        .iter()
        .map(|&r| t.nodes[r as usize].name.as_str())
        .collect();
    assert_eq!(roots, ["Counters", "IPC", "CPU"]);
    // CPU time although it is the last root (and PAPI_TOT_CYC, cycles, comes first in preorder).
    assert_eq!(ds.metric_label(default_metric(&ds)).0, "CPUTIME (sec)");
    assert_eq!(taxonomy_default(&ds, true), Some(0));
    let mut pv = ProfileView::new(&ds);
    let meta = pv.meta(&ds);
    let tax = meta.taxonomy.as_ref().unwrap();
    let shown: Vec<&str> = tax
        .default_columns
        .iter()
        .map(|&m| ds.metric_label(m as usize).0)
        .collect();
    // Counters hides its own values (render: hidden) and PAPI_TOT_INS is hidden by default.
    assert_eq!(
        shown,
        [
            "PAPI_TOT_CYC",
            "PAPI_FP_OPS",
            "Misses",
            "PAPI_L2_TCM",
            "PAPI_BR_MSP",
            "IPC",
            "CPUTIME (sec)"
        ]
    );
    let ipc = &meta.metrics[metric(&ds, "IPC")];
    assert!(ipc.derived && ipc.has_inclusive && ipc.has_exclusive && !ipc.percent);
    assert_eq!(ipc.format.as_deref(), Some("%.3f"));
    assert_eq!(
        ipc.formula_inclusive.as_deref(),
        Some("PAPI_TOT_INS (I) / PAPI_TOT_CYC (I)")
    );
    assert_eq!(ipc.description, "Instructions per cycle");

    // Values: from the generator's summary sums, with hpcviewer's rules (x/0 is 0).
    let div = |a: f64, b: f64| if b != 0.0 { a / b } else { 0.0 };
    let mut with_value = 0;
    for (s, exclusive) in [(SCOPE_EXECUTION, false), (SCOPE_FUNCTION, true)] {
        let (cyc, ins) = (
            generated_sums(&db, &ds, 1, s),
            generated_sums(&db, &ds, 2, s),
        );
        let (l2, br) = (
            generated_sums(&db, &ds, 3, s),
            generated_sums(&db, &ds, 5, s),
        );
        let got = values(&mut pv, &ds, "IPC", exclusive);
        for n in 0..ds.cct.tree.len() {
            let want = div(ins[n], cyc[n]);
            let rel = (got[n] - want).abs() / want.abs().max(1e-300);
            assert!(
                rel < 1e-12,
                "IPC node {n} exclusive={exclusive}: {} vs {want}",
                got[n]
            );
            with_value += (want != 0.0) as usize;
        }
        let got = values(&mut pv, &ds, "Misses", exclusive);
        for n in 0..ds.cct.tree.len() {
            let want = l2[n] + br[n];
            assert!(
                (got[n] - want).abs() <= 1e-9 * want.abs(),
                "Misses node {n}"
            );
        }
    }
    assert!(with_value > 50, "{with_value}");
    // A flat row's IPC is the ratio of the row's sums.
    let nm = ds.view_metrics();
    pv.table_expand_all(&ds, TableKind::Flat, 10_000).unwrap();
    let len = pv.table_len(&ds, TableKind::Flat).unwrap() as usize;
    let w = pv.table_window(&ds, TableKind::Flat, 0, len).unwrap();
    let at = |row: usize, m: usize, x: usize| w.values[(row * nm + m) * 2 + x];
    let (cyc, ins, ipc) = (
        metric(&ds, "PAPI_TOT_CYC"),
        metric(&ds, "PAPI_TOT_INS"),
        metric(&ds, "IPC"),
    );
    for row in 0..len {
        for x in 0..2 {
            assert_eq!(
                at(row, ipc, x),
                div(at(row, ins, x), at(row, cyc, x)),
                "row {row}"
            );
        }
    }
}

#[test]
fn a_damaged_taxonomy_leaves_the_flat_list() {
    let db = SynthDb::new(&spec(3)).unwrap();
    let plain = open(&db.to_files()).unwrap();
    let mut files = db.to_files();
    let mut text = db.metrics_yaml();
    text.insert_str(text.find("roots:").unwrap(), "broken: [1, 2\n");
    let line = text[..text.find("broken").unwrap()].matches('\n').count() + 1;
    files.push(("metrics/default.yaml".into(), text.into_bytes()));
    let ds = open(&files).unwrap();
    assert!(ds.taxonomy.is_none());
    assert_eq!(ds.warnings.len(), 1, "{:?}", ds.warnings);
    let w = ds.warnings[0].to_string();
    assert!(
        w.contains("db/metrics/default.yaml") && w.contains("flat list"),
        "{w}"
    );
    // The parser names the line where it gave up: the broken one or the next.
    let said: usize = w
        .split("line ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        said == line || said == line + 1,
        "{w} (broken at line {line})"
    );
    assert_eq!(ds.view_metrics(), plain.metrics.len());
    assert_eq!(default_metric(&ds), default_metric(&plain));
}

#[test]
fn a_draft_whose_cct_db_lacks_values() {
    let db = SynthDb::new(&spec(3)).unwrap();
    let (files, dropped) = db.draft_lacking_values();
    assert!(dropped.len() > 10, "{}", dropped.len());
    let ds = open(&files).unwrap();
    assert_eq!(ds.layout, "v4.0 draft (May 2022)");
    let w: Vec<String> = ds.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("cct.db lacks values profile.db has")
            && w[0].contains("read from profile.db"),
        "{w:?}"
    );
    assert_eq!(ds.warnings[0].kind, ErrorKind::Mismatch);
    // The taxonomy came along.
    assert!(ds.taxonomy.is_some());
    // Every profile's values of a context, from the generator, against what the dataset answers
    // by context: the dropped contexts (from profile.db) and the others (from cct.db).
    let per_profile: Vec<Vec<(u32, u16, f64)>> =
        (1..=db.profiles()).map(|p| db.profile_values(p)).collect();
    let mut checked_dropped = 0;
    for n in 1..ds.cct.tree.len() as u32 {
        let ctx = ds.cct.ctx_id[n as usize];
        let mut want: Vec<(u32, u16, f64)> = Vec::new();
        for (p, vals) in per_profile.iter().enumerate() {
            for &(c, m, v) in vals {
                if c == ctx {
                    // Profile index in profile.db: the summary is profile 0.
                    want.push((p as u32 + 1, m, v));
                }
            }
        }
        let mut got = ds.data.context_values(n).unwrap();
        got.sort_by_key(|&(p, m, _)| (p, m));
        want.sort_by_key(|&(p, m, _)| (p, m));
        assert_eq!(got, want, "ctx {ctx}");
        if dropped.contains(&ctx) && !want.is_empty() {
            checked_dropped += 1;
        }
    }
    assert!(checked_dropped > 10, "{checked_dropped}");
    // The distribution view of a dropped context: CPUTIME in each profile.
    let n = (0..ds.cct.tree.len() as u32)
        .find(|&n| dropped.contains(&ds.cct.ctx_id[n as usize]))
        .unwrap();
    let d = node_distribution(&ds, 0, n, false).unwrap();
    assert!(d.iter().any(|&(_, v)| v > 0.0), "{d:?}");
}

#[test]
fn a_cct_db_of_another_run_stays_refused() {
    let db = SynthDb::new(&spec(3)).unwrap();
    let other = SynthDb::new(&SynthSpec {
        contexts: 160,
        ..spec(3)
    })
    .unwrap();
    let (mut files, _) = db.draft_lacking_values();
    let (theirs, _) = other.draft_lacking_values();
    let k = files.iter().position(|f| f.0 == "cct.db").unwrap();
    files[k].1 = theirs.iter().find(|f| f.0 == "cct.db").unwrap().1.clone();
    let Err(e) = open(&files) else {
        panic!("a cct.db of another run was accepted")
    };
    assert_eq!(e.kind, ErrorKind::Mismatch);
    assert!(e.to_string().contains("different runs"), "{e}");
}
