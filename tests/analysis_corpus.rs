//! The profile views on every final-layout corpus database, against HPCToolkit's own transcript
//! (golden YAML): the summary profile's inclusive (execution) and exclusive (function) value of
//! every context as the views show them, bottom-up and flat totals equal to the root's, flame
//! rectangles of the top frames, and search finding `main`.

use common::golden;
use common::yaml::Node;
use hpcscope::analysis::flame::Viewport;
use hpcscope::analysis::profile::{ProfileView, TableKind};
use hpcscope::formats;
use std::collections::HashMap;

mod common;

/// Per metric name: (sum/execution stat id, sum/function stat id); and the summary profile's
/// values: ctx id -> stat id -> value.
struct Golden {
    stats: Vec<(String, Option<u64>, Option<u64>)>,
    summary: HashMap<u64, HashMap<u64, f64>>,
}

/// The metrics' `sum / '$$'` statistics in the execution and function scopes, and the summary
/// profile's values, from a golden transcript.
fn golden_of(yaml: &Node) -> Golden {
    let metrics = yaml.get("meta").get("metrics").get("metrics").seq();
    let stats = metrics
        .iter()
        .map(|m| {
            let mut ids = (None, None);
            for s in m.get("summaries").seq() {
                if s.get("combine").str() != Some("sum") || s.get("formula").str() != Some("$$") {
                    continue;
                }
                let id = s.get("stat_metric_id").u64();
                match golden::scope_name(yaml, s) {
                    Some("execution") => ids.0 = id,
                    Some("function") => ids.1 = id,
                    _ => {}
                }
            }
            (m.get("name").str().unwrap_or("").to_string(), ids.0, ids.1)
        })
        .collect();
    let mut summary: HashMap<u64, HashMap<u64, f64>> = HashMap::new();
    let first = golden::profiles(yaml).first();
    if let Some(p) = first.filter(|p| p.get("flags").flags().contains(&"is_summary")) {
        for (ctx, vals) in p.get("values").entries() {
            let by_stat = summary.entry(ctx.parse().unwrap()).or_default();
            for (stat, v) in vals.entries() {
                by_stat.insert(stat.parse().unwrap(), v.f64());
            }
        }
    }
    Golden { stats, summary }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300)
}

#[test]
fn views_match_golden_summary_values() {
    let Some(entries) = common::corpus_subdirs("hpctoolkit/v4") else {
        return;
    };
    let mut checked = 0;
    for dir in entries {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let Some(yaml) = golden::golden_parts(&name, &["meta", "profile"]) else {
            continue;
        };
        let g = golden_of(&yaml);

        let files = hpcscope::cli::read_inputs(&dir).unwrap();
        let (groups, _) = formats::group(files);
        let ds = formats::open(&groups[0]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut pv = ProfileView::new(&ds);
        assert_eq!(g.stats.len(), ds.metrics.len(), "{name}: metric count");
        for (m, (mname, exec, func)) in g.stats.iter().enumerate() {
            assert_eq!(&ds.metrics[m].name, mname, "{name}");
            let cols = pv.columns(&ds, m).unwrap().clone();
            let want = |ctx: u32, id: Option<u64>| -> Option<f64> {
                let id = id?;
                Some(
                    g.summary
                        .get(&(ctx as u64))
                        .and_then(|v| v.get(&id))
                        .copied()
                        .unwrap_or(0.0),
                )
            };
            for node in 0..ds.cct.tree.len() {
                let ctx = ds.cct.ctx_id[node];
                if let Some(w) = want(ctx, *exec) {
                    assert_eq!(
                        cols.inclusive[node], w,
                        "{name} {mname} ctx {ctx} inclusive"
                    );
                }
                if let Some(w) = want(ctx, *func) {
                    assert_eq!(
                        cols.exclusive[node], w,
                        "{name} {mname} ctx {ctx} exclusive"
                    );
                }
            }
            // The flame graph's root and top frames carry those values.
            pv.flame_config(&ds, m, false, true).unwrap();
            let vp = Viewport {
                x0: 0.0,
                x1: 1.0,
                depth0: 0,
                depth1: 3,
                width_px: 1200.0,
                min_width_px: 0.0,
            };
            let w = pv.flame_layout(&ds, 0, &vp).unwrap();
            for (i, &node) in w.frames.rects.node.iter().enumerate() {
                let ctx = ds.cct.ctx_id[node as usize];
                if let Some(v) = want(ctx, *exec) {
                    assert_eq!(w.values.inclusive[i], v, "{name} {mname} flame ctx {ctx}");
                }
            }
            // Bottom-up and flat: top-level exclusive values add up to the root's inclusive
            // value (the exclusive values of all function instances cover every cost once).
            let root = cols.inclusive[0];
            if exec.is_some() && func.is_some() {
                for kind in [TableKind::BottomUp, TableKind::Flat] {
                    pv.table_sort(&ds, kind, m, false, true).unwrap();
                    let n = pv.table_len(&ds, kind).unwrap() as usize;
                    let win = pv.table_window(&ds, kind, 0, n).unwrap();
                    let nm = ds.view_metrics(); // rows hold the formula metrics too
                    assert_eq!(win.values[m * 2], root, "{name} {kind:?} root row");
                    let top: f64 = (0..n)
                        .filter(|&r| win.rows.depth[r] == 1)
                        .map(|r| win.values[(r * nm + m) * 2 + 1])
                        .sum();
                    assert!(
                        close(top, root),
                        "{name} {mname} {kind:?}: top-level exclusive {top} vs root {root}"
                    );
                }
            }
        }
        // Search finds main (every test program has one) and its total is at most the root's.
        let s = pv.search(&ds, "^main$", true, false);
        if ds.functions.iter().any(|f| f.name == "main") {
            assert!(s.frames >= 1, "{name}: main not found");
            assert!(s.total <= s.root_total * (1.0 + 1e-12), "{name}");
        }
        checked += 1;
    }
    eprintln!("checked {checked} databases");
    assert!(checked >= 10, "only {checked} databases with golden files");
}
