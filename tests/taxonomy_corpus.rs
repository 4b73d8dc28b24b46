//! Metric taxonomies (metrics/default.yaml) of the HPCToolkit v4 corpus databases: every one reads
//! without warnings into the tree its file describes; the formula metrics of
//! hpcviewer-derived-metrics.db (hpcviewer.e4 tests/resources/metadb/derived-metrics.db) have the
//! values hpcviewer computes. The expected values are computed here, independently of the
//! evaluator, from the raw values of the input metrics with hpcviewer's rules (hpcviewer.e4
//! `HierarchicalMetricDerivedFormula`, `MetricVarMap`, graphbuilder `DivNode`): a missing input is
//! 0, a division by zero is 0, and a result of 0 is no value. hpcviewer keeps the result as a
//! 32-bit float (`MetricValue`); hpcscope keeps the 64-bit value, so they agree to float precision.

use hpcscope::analysis::derived::taxonomy_default;
use hpcscope::analysis::profile::{ProfileView, TableKind};
use hpcscope::formats;
use hpcscope::model::Dataset;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let p = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/hpctoolkit/v4"
    ));
    if p.is_dir() {
        Some(p.to_path_buf())
    } else {
        eprintln!("skipping: ../shared/corpus absent");
        None
    }
}

fn open(dir: &Path) -> Dataset {
    let inputs = hpcscope::cli::read_inputs(dir).unwrap();
    let (mut groups, _) = formats::group(inputs);
    assert_eq!(groups.len(), 1, "{}", dir.display());
    formats::open(&groups.remove(0)).unwrap()
}

fn metric(ds: &Dataset, name: &str) -> usize {
    (0..ds.view_metrics())
        .find(|&m| ds.metric_label(m).0 == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
}

#[test]
fn every_taxonomy_reads_without_warnings() {
    let Some(c) = corpus() else { return };
    let mut seen = 0;
    for e in std::fs::read_dir(&c).unwrap() {
        let dir = e.unwrap().path();
        if !dir.join("metrics/default.yaml").is_file() {
            continue;
        }
        let ds = open(&dir);
        let t = ds
            .taxonomy
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no taxonomy ({:?})", dir.display(), ds.warnings));
        assert!(
            ds.warnings.is_empty(),
            "{}: {:?}",
            dir.display(),
            ds.warnings
        );
        // As many top-level `- name:` entries as the file's `roots:` lists at its first level.
        let text = std::fs::read_to_string(dir.join("metrics/default.yaml")).unwrap();
        let roots = text.split("\nroots:\n").nth(1).unwrap();
        assert_eq!(
            roots
                .lines()
                .filter(|l| l.starts_with("  - name: "))
                .count(),
            t.roots.len(),
            "{}",
            dir.display()
        );
        assert_eq!(
            text.lines()
                .filter(|l| l.trim_start().starts_with("- name: "))
                .count(),
            t.nodes.len(),
            "{}",
            dir.display()
        );
        // Every variant with formulas is a metric: every `formula:` mapping or `sum`/`first`.
        let with_formula = t
            .nodes
            .iter()
            .flat_map(|n| &n.variants)
            .filter(|v| v.metric.is_some())
            .count();
        assert_eq!(
            with_formula,
            text.lines()
                .filter(|l| {
                    let l = l.trim();
                    l == "formula:" || l == "formula: sum" || l == "formula: first"
                })
                .count(),
            "{}",
            dir.display()
        );
        seen += 1;
    }
    assert!(seen >= 20, "{seen}");
}

#[test]
fn the_gpu_database_of_81_metrics() {
    let Some(c) = corpus() else { return };
    let ds = open(&c.join("hpctoolkit-tests-loops-cuda-nvidiapc-t.d"));
    assert_eq!(ds.metrics.len(), 81);
    let t = ds.taxonomy.as_ref().unwrap();
    assert_eq!(t.roots.len(), 81);
    // The first root is GINS (instructions); the first time metric is GPUOP (sec).
    assert_eq!(t.nodes[t.roots[0] as usize].name, "GINS");
    let m = taxonomy_default(&ds, false).unwrap();
    assert_eq!(ds.metric_label(m).0, "GPUOP (sec)");
    let pv = ProfileView::new(&ds);
    let meta = pv.meta(&ds);
    assert_eq!(meta.default_metric as usize, m);
    let tax = meta.taxonomy.unwrap();
    // Hidden by default: the 22 metrics `visible by default: false` in the file.
    let hidden = t.nodes.iter().filter(|n| !n.visible).count();
    assert_eq!(hidden, 22);
    // Each node has one variant with a metric: the visible ones are the default columns.
    assert_eq!(tax.default_columns.len(), t.nodes.len() - hidden);
    assert!(!tax.default_columns.iter().any(|&c| {
        t.nodes
            .iter()
            .any(|n| !n.visible && n.variants.iter().any(|v| v.metric == Some(c)))
    }));
    // has_values (the tables leave the others out of the default columns): a raw metric has
    // values exactly when some context has one; a formula metric without is 0 everywhere.
    let mut pv = pv;
    let mut empty = 0;
    for mi in &meta.metrics {
        let c = pv.columns(&ds, mi.metric.index as usize).unwrap();
        let any = c.inclusive.iter().chain(&c.exclusive).any(|&v| v != 0.0);
        if (mi.metric.index as usize) < ds.metrics.len() {
            assert_eq!(mi.has_values, any, "{}", mi.metric.name);
        } else if !mi.has_values {
            assert!(!any, "{}", mi.metric.name);
        }
        empty += usize::from(!mi.has_values);
    }
    assert!(empty > 0 && meta.metrics[m].has_values, "{empty}");
}

#[test]
fn vector_add_sums_its_children() {
    let Some(c) = corpus() else { return };
    let ds = open(&c.join("hpcviewer-vectorAdd"));
    // The GPU root sums its children (`formula: sum`); Uncatagorized only groups (hidden).
    let gpu = metric(&ds, "GPU");
    let mut pv = ProfileView::new(&ds);
    let parts: Vec<f64> = [
        "GKER (sec)",
        "GSYNC:STR (sec)",
        "GSYNC:STRE (sec)",
        "GSYNC:EVT (sec)",
        "GSYNC:CTX (sec)",
        "GSYNC:UNK (sec)",
        "GXCOPY (sec)",
        "GICOPY (sec)",
        "GMSET (sec)",
        "GMEM (sec)",
    ]
    .iter()
    .map(|n| pv.columns(&ds, metric(&ds, n)).unwrap().inclusive[0])
    .collect();
    let want: f64 = parts.iter().sum();
    assert!(want > 0.0);
    let got = pv.columns(&ds, gpu).unwrap().inclusive[0];
    assert!((got - want).abs() <= 1e-12 * want, "{got} {want}");
    // The CPU's cycles, not the GPU sum, come first.
    assert_eq!(
        ds.metric_label(taxonomy_default(&ds, false).unwrap()).0,
        "cycles"
    );
}

/// hpcviewer's division (graphbuilder DivNode): 0 when dividing by 0.
fn div(a: f64, b: f64) -> f64 {
    if b != 0.0 {
        a / b
    } else {
        0.0
    }
}

/// View metric named `name`, or with the space after the colon that some hpcprof versions write
/// ("GINS: LAT_COV").
fn metric_sp(ds: &Dataset, name: &str) -> usize {
    let spaced = name.replacen(':', ": ", 1);
    (0..ds.view_metrics())
        .find(|&m| {
            let n = ds.metric_label(m).0;
            n == name || n == spaced
        })
        .unwrap_or_else(|| panic!("no metric {name}"))
}

/// Checks every formula metric of an nvidia-pc-sampling taxonomy against values computed here from
/// the raw inputs; returns how many contexts and rows have a value, per formula metric.
fn check_formulas(ds: &Dataset) -> std::collections::BTreeMap<String, usize> {
    let mut pv = ProfileView::new(ds);
    let mut col = |name: &str, exclusive: bool| -> Vec<f64> {
        let c = pv.columns(ds, metric_sp(ds, name)).unwrap();
        if exclusive {
            c.exclusive.clone()
        } else {
            c.inclusive.clone()
        }
    };
    let n = ds.cct.tree.len();
    // (formula metric, exclusive, expected per context from the raw inputs).
    let mut cases: Vec<(&str, bool, Vec<f64>)> = Vec::new();
    for (name, acc) in [
        ("GKER:STMEM (B)", "GKER:STMEM_ACUMU (B)"),
        ("GKER:DYMEM (B)", "GKER:DYMEM_ACUMU (B)"),
        ("GKER:LMEM (B)", "GKER:LMEM_ACUMU (B)"),
        ("GKER:FGP_ACT", "GKER:FGP_ACT_ACUMU"),
        ("GKER:FGP_MAX", "GKER:FGP_MAX_ACUMU"),
        ("GKER:THR_REG", "GKER:THR_REG_ACUMU"),
        ("GKER:BLK_THR", "GKER:BLK_THR_ACUMU"),
        ("GKER:BLK_SM (B)", "GKER:BLK_SM_ACUMU"),
        ("GKER:BLKS", "GKER:BLKS_ACUMU"),
    ] {
        let (a, k) = (col(acc, true), col("GKER:COUNT", true));
        cases.push((name, true, (0..n).map(|i| div(a[i], k[i])).collect()));
    }
    let (act, max) = (
        col("GKER:FGP_ACT_ACUMU", true),
        col("GKER:FGP_MAX_ACUMU", true),
    );
    cases.push((
        "GKER:OCC_THR",
        true,
        (0..n).map(|i| 100.0 * div(act[i], max[i])).collect(),
    ));
    for x in [false, true] {
        let (cov, ucv) = (col("GINS:LAT_COV", x), col("GINS:LAT_UCV", x));
        cases.push((
            "GINS:LAT_THR",
            x,
            (0..n)
                .map(|i| div(cov[i], cov[i]) + div(ucv[i], cov[i]))
                .collect(),
        ));
        let (tot, exp) = (col("GSAMP:TOT", x), col("GSAMP:EXP", x));
        cases.push((
            "GSAMP:UTIL",
            x,
            (0..n)
                .map(|i| 100f64.min(0f64.max(div(100.0 * tot[i], exp[i]))))
                .collect(),
        ));
    }
    let mut seen = std::collections::BTreeMap::new();
    for (name, exclusive, want) in &cases {
        let c = pv.columns(ds, metric_sp(ds, name)).unwrap();
        let got = if *exclusive {
            &c.exclusive
        } else {
            &c.inclusive
        };
        assert_eq!(got, want, "{name} exclusive={exclusive}");
        *seen.entry(name.to_string()).or_insert(0) += want.iter().filter(|&&v| v != 0.0).count();
        // Formula metrics of exclusive values only have no inclusive values.
        if *name != "GINS:LAT_THR" && *name != "GSAMP:UTIL" {
            assert!(c.inclusive.iter().all(|&v| v == 0.0), "{name}");
        }
    }

    // Bottom-up and flat rows: the formula over the row's sums of the inputs, not a sum of the
    // contexts' ratios (hpcviewer evaluates a derived metric on each view's own values).
    for kind in [TableKind::BottomUp, TableKind::Flat] {
        pv.table_expand_all(ds, kind, 100_000).unwrap();
        let len = pv.table_len(ds, kind).unwrap() as usize;
        let w = pv.table_window(ds, kind, 0, len).unwrap();
        let nm = ds.view_metrics();
        let at = |row: usize, name: &str, x: bool| {
            w.values[(row * nm + metric_sp(ds, name)) * 2 + x as usize]
        };
        for row in 0..len {
            let want = 100.0
                * div(
                    at(row, "GKER:FGP_ACT_ACUMU", true),
                    at(row, "GKER:FGP_MAX_ACUMU", true),
                );
            assert_eq!(at(row, "GKER:OCC_THR", true), want, "{kind:?} row {row}");
            *seen.entry(format!("{kind:?} GKER:OCC_THR")).or_insert(0) += (want != 0.0) as usize;
            let want = 100f64.min(0f64.max(div(
                100.0 * at(row, "GSAMP:TOT", false),
                at(row, "GSAMP:EXP", false),
            )));
            assert_eq!(at(row, "GSAMP:UTIL", false), want, "{kind:?} row {row}");
            *seen.entry(format!("{kind:?} GSAMP:UTIL")).or_insert(0) += (want != 0.0) as usize;
        }
    }
    seen
}

#[test]
fn derived_metrics_have_hpcviewers_values() {
    let Some(c) = corpus() else { return };
    let mut seen = std::collections::BTreeMap::new();
    for db in [
        "hpcviewer-derived-metrics.db",
        "hpctoolkit-tests-loops-cuda-nvidiapc-t.d",
        "hpctoolkit-tests-recursion-cuda-nvidiapc-t.d",
    ] {
        for (k, v) in check_formulas(&open(&c.join(db))) {
            *seen.entry(k).or_insert(0) += v;
        }
    }
    // Every formula has values somewhere, except where its inputs are 0 in every context of
    // these runs: the kernels' static, dynamic and block memory, and the latency coverage.
    for (name, n) in &seen {
        let zero = [
            "GKER:STMEM (B)",
            "GKER:DYMEM (B)",
            "GKER:BLK_SM (B)",
            "GINS:LAT_THR",
        ];
        assert_eq!(*n == 0, zero.contains(&name.as_str()), "{name}: {n}");
    }
}

#[test]
fn without_a_taxonomy_nothing_changes() {
    let Some(c) = corpus() else { return };
    let ds = open(&c.join("hpctoolkit-formats-small"));
    assert!(ds.taxonomy.is_none());
    assert_eq!(ds.view_metrics(), ds.metrics.len());
    assert_eq!(taxonomy_default(&ds, false), None);
    let meta = ProfileView::new(&ds).meta(&ds);
    assert!(meta.taxonomy.is_none());
    assert!(meta
        .metrics
        .iter()
        .all(|m| m.percent && m.has_inclusive && m.has_exclusive && !m.derived));
}
