//! Comparisons of small trees written as folded text, with exact expected numbers: path matching,
//! function totals, normalisations, the differential flame graph, distributions, delta tables.

use super::functions::{diff_functions, function_totals};
use super::matching::node_of_names;
use super::metrics::{default_pair, loose_name, matched_metrics, MetricPair, Normalize};
use super::view::{Comparison, DiffWindow, ADDED, LEXICAL, REMOVED};
use crate::analysis::flame::Viewport;
use crate::analysis::folded::{from_folded, from_folded_profiles, FoldedScopes};
use crate::analysis::profile::{ProfileView, TableKind};
use crate::model::{Dataset, NONE};

fn ds(text: &str) -> Dataset {
    from_folded(text, FoldedScopes::Point).unwrap()
}

fn compare(b: &Dataset, n: &Dataset, merged: bool, norm: Normalize) -> Comparison {
    let mut c = Comparison::new(b, n, merged).unwrap();
    c.set_metric(b, n, None, norm).unwrap();
    c
}

/// (path, base inclusive, new inclusive, flags) of every union node, in preorder.
fn rows(c: &Comparison, b: &Dataset, n: &Dataset) -> Vec<(String, f64, f64, u8)> {
    let (bf, nf) = c.factors();
    (1..c.union.len() as u32)
        .map(|u| {
            let path: Vec<&str> = c.union.path(u)[1..]
                .iter()
                .map(|&p| c.names.get(c.union.labels.name[p as usize]).unwrap())
                .collect();
            let cols = c.columns();
            (
                path.join(";"),
                cols.base.inclusive[u as usize] * bf,
                cols.new.inclusive[u as usize] * nf,
                c.flags(b, n, u) & (ADDED | REMOVED),
            )
        })
        .collect()
}

const BASE: &str = "main[app:m.c];init[app:m.c] 20\nmain[app:m.c];solve[app:s.c];MPI_Wait[libmpi.so] 30\nmain[app:m.c];solve[app:s.c] 10\n";
const NEW: &str = "main[app:m.c];init[app:m.c] 20\nmain[app:m.c];solve[app:s.c];MPI_Wait[libmpi.so] 12\nmain[app:m.c];solve[app:s.c];compute[app:s.c] 25\nmain[app:m.c];solve[app:s.c] 10\n";

#[test]
fn self_diff_is_zero_everywhere() {
    for merged in [false, true] {
        let a = ds(BASE);
        let c = compare(&a, &a, merged, Normalize::None);
        assert_eq!(c.union.len(), a.cct.tree.len());
        let cols = c.columns();
        assert_eq!(cols.base.inclusive, cols.new.inclusive);
        assert_eq!(cols.base.exclusive, cols.new.exclusive);
        for u in 0..c.union.len() as u32 {
            assert_eq!(c.flags(&a, &a, u) & (ADDED | REMOVED), 0);
        }
        let (rows_a, _) = function_totals(&a, 0).unwrap();
        for d in diff_functions(&rows_a, &rows_a, c.factors()) {
            assert_eq!((d.base_self, d.base_total), (d.new_self, d.new_total));
        }
    }
}

#[test]
fn paths_match_and_unmatched_ones_are_added_or_removed() {
    let (b, n) = (ds(BASE), ds(NEW));
    let c = compare(&b, &n, false, Normalize::None);
    assert_eq!(
        rows(&c, &b, &n),
        [
            ("main".to_string(), 60.0, 67.0, 0),
            ("main;init".into(), 20.0, 20.0, 0),
            ("main;solve".into(), 40.0, 47.0, 0),
            ("main;solve;MPI_Wait".into(), 30.0, 12.0, 0),
            ("main;solve;compute".into(), 0.0, 25.0, ADDED),
        ]
    );
    let c = compare(&n, &b, false, Normalize::None);
    let r = rows(&c, &n, &b);
    assert_eq!(r[3], ("main;solve;MPI_Wait".into(), 12.0, 30.0, 0));
    // Unmatched paths keep the order of the run that has them: compute follows MPI_Wait.
    assert_eq!(r[4], ("main;solve;compute".into(), 25.0, 0.0, REMOVED));
    let meta = c.meta(&n, &b);
    assert_eq!(
        (meta.counts.matched, meta.counts.removed, meta.counts.added),
        (5, 1, 0)
    );
}

#[test]
fn the_module_file_and_line_are_part_of_the_path() {
    // Same names, another module: not the same frame.
    let b = ds("main[app];f[liba.so] 5\n");
    let n = ds("main[app];f[libb.so] 5\n");
    let c = compare(&b, &n, false, Normalize::None);
    let flags: Vec<u8> = (2..4).map(|u| c.flags(&b, &n, u)).collect();
    assert_eq!(flags, [REMOVED, ADDED]);
    // Directories do not matter, basenames do.
    let b = ds("main[/opt/a/app:/src/m.c];line@/src/m.c:7 5\n");
    let n = ds("main[/home/b/app:/build/m.c];line@/build/m.c:7 6\n");
    let c = compare(&b, &n, false, Normalize::None);
    assert_eq!(c.union.len(), 3);
    let n8 = ds("main[/home/b/app:/build/m.c];line@/build/m.c:8 6\n");
    let c = compare(&b, &n8, false, Normalize::None);
    assert_eq!(c.union.len(), 4);
}

#[test]
fn merged_trees_match_runs_with_and_without_loops() {
    let b = ds("main;loop@m.c:5;line@m.c:6;solve 10\nmain;loop@m.c:5;line@m.c:6 4\nmain 1\n");
    let n = ds("main;solve 12\nmain 3\n");
    let c = compare(&b, &n, false, Normalize::None);
    let r = rows(&c, &b, &n);
    assert_eq!(r.len(), 5);
    assert_eq!(r[1].3, REMOVED);
    assert_eq!(r[4], ("main;solve".into(), 0.0, 12.0, ADDED));
    let c = compare(&b, &n, true, Normalize::None);
    assert_eq!(
        rows(&c, &b, &n),
        [
            ("main".to_string(), 15.0, 15.0, 0),
            ("main;solve".into(), 10.0, 12.0, 0),
        ]
    );
    // main's own value takes in its folded loop and line.
    assert_eq!(
        (c.columns().base.exclusive[1], c.columns().new.exclusive[1]),
        (5.0, 3.0)
    );
}

#[test]
fn siblings_with_one_key_merge() {
    // Two calls of f from main at different call sites (lines) are one key without a line.
    let b = ds("main;f 3\n");
    let mut n = ds("main;f;g 2\nmain;f 4\n");
    // Duplicate f under main in the new run: append a second f frame as a sibling.
    let f = n.cct.frame[2];
    let mut bld = crate::model::CctBuilder::new(0);
    let m = bld.add(0, 1, n.cct.frame[1]);
    let f1 = bld.add(m, 2, f);
    bld.add(f1, 3, n.cct.frame[3]);
    bld.add(m, 4, f);
    n.cct = bld.finish("t").unwrap();
    n.data = Box::new(crate::analysis::folded::MemData {
        profiles: vec![crate::model::SparseValues::from_triples(vec![
            (0, 0, 9.0),
            (2, 0, 2.0),
            (3, 0, 2.0),
            (4, 0, 5.0),
        ])],
    });
    n.summary_profile = Some(0);
    n.profiles.truncate(1);
    let c = compare(&b, &n, false, Normalize::None);
    let r = rows(&c, &b, &n);
    assert_eq!(r[1], ("main;f".into(), 3.0, 9.0, 0));
    assert_eq!(r[2], ("main;f;g".into(), 0.0, 2.0, ADDED));
    assert_eq!(c.union.members(2, false).len(), 2);
}

#[test]
fn function_totals_count_recursion_once() {
    let a =
        ds("main[app];f[app];f[app];g[lib.so] 10\nmain[app];f[app] 5\nmain[app];loop@m.c:3 2\n");
    let (rows, root) = function_totals(&a, 0).unwrap();
    assert_eq!(root, 17.0);
    let get = |name: &str| rows.iter().find(|r| r.name == name).unwrap();
    assert_eq!((get("f").self_value, get("f").total), (5.0, 15.0));
    assert_eq!((get("g").self_value, get("g").total), (10.0, 10.0));
    assert_eq!(get("g").module.as_deref(), Some("lib.so"));
    // The loop's value is main's own.
    assert_eq!((get("main").self_value, get("main").total), (2.0, 17.0));
    let sum: f64 = rows.iter().map(|r| r.self_value).sum();
    assert_eq!(sum, root);
}

#[test]
fn function_deltas_add_up_to_the_totals_difference() {
    let (b, n) = (ds(BASE), ds(NEW));
    let (rb, tb) = function_totals(&b, 0).unwrap();
    let (rn, tn) = function_totals(&n, 0).unwrap();
    let d = diff_functions(&rb, &rn, (1.0, 1.0));
    let delta: f64 = d.iter().map(|r| r.new_self - r.base_self).sum();
    assert_eq!(delta, tn - tb);
    // Largest self change first: compute (+25), MPI_Wait (-18); then by the larger total.
    let order: Vec<&str> = d.iter().map(|r| r.function.as_str()).collect();
    assert_eq!(order, ["compute", "MPI_Wait", "main", "solve", "init"]);
    assert_eq!(d[1].module.as_deref(), Some("libmpi.so"));
    assert_eq!((d[1].base_self, d[1].new_self), (30.0, 12.0));
}

#[test]
fn normalisations() {
    let (b, n) = (ds(BASE), ds(NEW));
    let c = compare(&b, &n, false, Normalize::Percent);
    let r = rows(&c, &b, &n);
    assert_eq!((r[0].1, r[0].2), (100.0, 100.0));
    assert_eq!(r[1].1, 100.0 * 20.0 / 60.0);
    let c = compare(&b, &n, false, Normalize::Scaled);
    let r = rows(&c, &b, &n);
    assert_eq!((r[0].1, r[0].2), (67.0, 67.0));
    assert_eq!(r[1].1, 20.0 * (67.0 / 60.0));
    let t = c.totals_info(&b, &n);
    assert_eq!((t.base_total, t.new_total), (60.0, 67.0));
    assert_eq!(Normalize::parse("percent"), Some(Normalize::Percent));
    assert_eq!(Normalize::parse("bogus"), None);
}

/// Names of the frames of a window, in its order.
fn frame_names<'a>(c: &'a Comparison, w: &DiffWindow) -> Vec<&'a str> {
    w.frames
        .labels
        .name
        .iter()
        .map(|&x| c.names.get(x).unwrap())
        .collect()
}

#[test]
fn flame_layout_width_from_either_run() {
    let (b, n) = (ds(BASE), ds(NEW));
    let mut c = compare(&b, &n, false, Normalize::None);
    c.flame_config(&n, true, true).unwrap();
    let w = c.flame_layout(&b, &n, 0, &Viewport::full(1000.0)).unwrap();
    let names = frame_names(&c, &w);
    assert_eq!(
        names,
        ["<root>", "main", "solve", "compute", "MPI_Wait", "init"]
    );
    assert_eq!(w.frames.rects.width[3], 25.0 / 67.0);
    assert_eq!(
        (w.values.base.inclusive[3], w.values.new.inclusive[3]),
        (0.0, 25.0)
    );
    assert_eq!(w.flags[3], ADDED);
    // Width from the base run: compute has none and is not drawn.
    c.flame_config(&n, false, true).unwrap();
    let w = c.flame_layout(&b, &n, 0, &Viewport::full(1000.0)).unwrap();
    let names = frame_names(&c, &w);
    assert_eq!(names, ["<root>", "main", "solve", "MPI_Wait", "init"]);
    assert_eq!(w.frames.rects.width[3], 0.5);
    let solve = node_of_names(&c.union, &c.names, "main;solve").unwrap();
    let w = c
        .flame_layout(&b, &n, solve, &Viewport::full(1000.0))
        .unwrap();
    assert_eq!(w.frames.rects.width[..3], [1.0, 1.0, 1.0]);
    let info = c.node_info(&b, &n, solve).unwrap();
    assert_eq!(info.path, ["<root>", "main", "solve"]);
    assert_eq!((info.base_inclusive, info.new_inclusive), (40.0, 47.0));
    assert_eq!((info.base_exclusive, info.new_exclusive), (10.0, 10.0));
    assert_eq!(info.place.file.as_deref(), Some("s.c"));
    assert_eq!(info.place.module.as_deref(), Some("app"));
}

#[test]
fn lexical_levels_are_flagged() {
    let b = ds("main;loop@m.c:5;line@m.c:6 4\n");
    let mut c = compare(&b, &b, false, Normalize::None);
    c.flame_config(&b, true, true).unwrap();
    let w = c.flame_layout(&b, &b, 0, &Viewport::full(1000.0)).unwrap();
    assert_eq!(w.flags, [0, 0, LEXICAL, LEXICAL]);
}

#[test]
fn distribution_of_both_runs() {
    let b = from_folded_profiles("a;b 3\na;c 1\n", 3).unwrap();
    let n = from_folded_profiles("a;b 5\n", 2).unwrap();
    let c = compare(&b, &n, false, Normalize::None);
    let node = node_of_names(&c.union, &c.names, "a;b").unwrap();
    let [(pb, vb), (pn, vn)] = c.distribution(&b, &n, node, false).unwrap();
    assert_eq!((pb, vb), (vec![0, 1, 2], vec![3.0, 6.0, 9.0]));
    assert_eq!((pn, vn), (vec![0, 1], vec![5.0, 10.0]));
    let only_base = node_of_names(&c.union, &c.names, "a;c").unwrap();
    let [_, (pn, vn)] = c.distribution(&b, &n, only_base, false).unwrap();
    assert_eq!((pn, vn), (vec![0, 1], vec![0.0, 0.0]));
}

#[test]
fn delta_tables_from_the_union_dataset() {
    let (b, n) = (ds(BASE), ds(NEW));
    let c = compare(&b, &n, false, Normalize::None);
    let u = c.union_dataset(&b, &n).unwrap();
    u.cct.check().unwrap();
    assert_eq!(
        u.cct.ctx_id,
        (0..u.cct.tree.len() as u32).collect::<Vec<_>>()
    );
    let mut pv = ProfileView::new(&u);
    pv.table_expand_all(&u, TableKind::TopDown, 100).unwrap();
    let w = pv.table_window(&u, TableKind::TopDown, 0, 10).unwrap();
    // Sorted by the base run's inclusive value.
    assert_eq!(
        w.labels,
        ["<root>", "main", "solve", "MPI_Wait", "compute", "init"]
    );
    // Per row: base incl, base excl, new incl, new excl, delta incl, delta excl.
    assert_eq!(
        w.values[3 * 6..4 * 6],
        [30.0, 30.0, 12.0, 12.0, -18.0, -18.0]
    );
    assert_eq!(w.values[4 * 6..5 * 6], [0.0, 0.0, 25.0, 25.0, 25.0, 25.0]);
    pv.table_sort(&u, TableKind::Flat, 2, true, false).unwrap();
    pv.table_expand_all(&u, TableKind::Flat, 100).unwrap();
    let w = pv.table_window(&u, TableKind::Flat, 0, 20).unwrap();
    let at = w.labels.iter().position(|l| l == "MPI_Wait").unwrap();
    assert_eq!(w.values[at * 6 + 5], -18.0);
    // Sorted by delta, largest first: compute (+25) before MPI_Wait (-18) under solve.
    pv.table_sort(&u, TableKind::TopDown, 2, false, true)
        .unwrap();
    let w = pv.table_window(&u, TableKind::TopDown, 0, 10).unwrap();
    assert_eq!(
        w.labels,
        ["<root>", "main", "solve", "compute", "MPI_Wait", "init"]
    );
    let bu = pv.table_window(&u, TableKind::BottomUp, 0, 20).unwrap();
    assert_eq!(bu.labels[0], "<all functions>");
}

#[test]
fn metrics_match_by_name() {
    assert_eq!(loose_name("CPUTIME (sec)"), "cputime");
    let a = ds("a 1\n");
    let mut b = ds("a 1\n");
    b.metrics[0].name = "TIME (s)".into();
    assert_eq!(matched_metrics(&a, &b), [MetricPair { base: 0, new: 0 }]);
    b.metrics[0].name = "cycles".into();
    assert!(matched_metrics(&a, &b).is_empty());
    assert_eq!(default_pair(&a, &[]), None);
    let mut c = Comparison::new(&a, &b, false).unwrap();
    let e = c.set_metric(&a, &b, None, Normalize::None).unwrap_err();
    assert!(e.to_string().contains("no metric in common"), "{e}");
    // Chosen explicitly, differently named metrics compare.
    let t = c
        .set_metric(
            &a,
            &b,
            Some(MetricPair { base: 0, new: 0 }),
            Normalize::None,
        )
        .unwrap();
    assert_eq!(
        (t.base_metric.as_str(), t.new_metric.as_str()),
        ("time", "cycles")
    );
}

#[test]
fn runs_without_metrics_are_refused() {
    let a = ds("a 1\n");
    let mut b = ds("a 1\n");
    b.metrics.clear();
    let e = Comparison::new(&a, &b, false).err().unwrap();
    assert!(e.to_string().contains("trace-only"), "{e}");
}

#[test]
fn deep_paths_are_iterative() {
    let mut path = String::from("main");
    for _ in 0..100_000 {
        path.push_str(";f");
    }
    let b = ds(&format!("{path} 5\n"));
    let n = ds(&format!("{path};g 7\n"));
    let c = compare(&b, &n, true, Normalize::None);
    assert_eq!(c.union.len(), b.cct.tree.len() + 1);
    assert_eq!(c.columns().new.inclusive[1], 7.0);
    assert_ne!(*c.union.new.rep.last().unwrap(), NONE);
    let (rows, _) = function_totals(&n, 0).unwrap();
    let f = rows.iter().find(|r| r.name == "f").unwrap();
    assert_eq!((f.self_value, f.total), (0.0, 7.0));
}
