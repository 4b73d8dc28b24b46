//! Cross-checks between the analysis views (top-down, bottom-up, flat, flame) on synthetic trees,
//! timings at 1M contexts, and [`Loaded`]: the dataset and columns the table tests of each view
//! build their [`Ctx`] from.

use crate::analysis::folded::{from_folded, FoldedScopes};
use crate::analysis::frames::Names;
use crate::analysis::table::Ctx;
use crate::analysis::values::{metric_columns, Columns, Selection};
use crate::model::Dataset;

/// A dataset with what a table's [`Ctx`] borrows: its names and its first metric's summary
/// columns.
pub(crate) struct Loaded {
    pub ds: Dataset,
    pub names: Names,
    pub cols: Vec<Columns>,
}

impl Loaded {
    pub fn new(ds: Dataset) -> Loaded {
        let names = Names::new(&ds);
        let cols = vec![metric_columns(&ds, 0, &Selection::Summary).unwrap()];
        Loaded { ds, names, cols }
    }
    /// The dataset of folded stacks `text` (frames as point scopes).
    pub fn folded(text: &str) -> Loaded {
        Loaded::new(from_folded(text, FoldedScopes::Point).unwrap())
    }
    pub fn ctx(&self) -> Ctx<'_> {
        Ctx {
            ds: &self.ds,
            names: &self.names,
            cols: &self.cols,
        }
    }
}

mod views {
    use super::Loaded;
    use crate::analysis::bottomup::BottomUp;
    use crate::analysis::flame::{child_order, layout, FlameTree, Viewport};
    use crate::analysis::flat::Flat;
    use crate::analysis::table::{Col, TableTree};

    /// Cross-checks on a synthetic tree: every view's totals equal the root's, and the flame
    /// graph's top-level rectangles tile the root.
    #[test]
    fn synthetic_views_agree() {
        let l = Loaded::new(crate::analysis::folded::synthetic(20_000, 7));
        let (ds, cols) = (&l.ds, &l.cols);
        ds.cct.check().unwrap();
        let ctx = l.ctx();
        let total = cols[0].inclusive[0];
        assert!(total > 0.0);
        let excl = Col::excl(0);
        let mut bu = BottomUp::new(ds, &l.names);
        let top = bu.children(&ctx, 0);
        let s: f64 = top.iter().map(|&c| bu.value(&ctx, c, excl)).sum();
        assert_eq!(s, total);
        let mut flat = Flat::new(ds, &l.names);
        let top = flat.children(&ctx, 0);
        let s: f64 = top.iter().map(|&c| flat.value(&ctx, c, excl)).sum();
        assert_eq!(s, total);
        let tree = FlameTree::from_cct(ds);
        let order = child_order(&tree.tree, &cols[0].inclusive, true);
        let vp = Viewport {
            x0: 0.0,
            x1: 1.0,
            depth0: 1,
            depth1: 1,
            width_px: 1000.0,
            min_width_px: 0.0,
        };
        let r = layout(&tree.tree, &order, &cols[0].inclusive, 0, &vp);
        let w: f64 = r.width.iter().sum();
        assert!((w - 1.0).abs() < 1e-9, "{w}");
    }
}

mod overloads {
    use crate::analysis::bottomup::BottomUp;
    use crate::analysis::folded::{from_folded, node_of_path, FoldedScopes};
    use crate::analysis::frames::Names;
    use crate::analysis::table::{Col, Ctx, TableTree};
    use crate::analysis::values::{metric_columns, Selection};

    /// Two functions that print alike (a C++ demangler that drops parameters names overloads
    /// alike): one bottom-up row of both with the views' names, two with the exports' names.
    #[test]
    fn functions_named_alike_are_one_row() {
        let mut ds = from_folded("main;ctor 1\nmain;other 2\n", FoldedScopes::Point).unwrap();
        let other = node_of_path(&ds, "main;other").unwrap();
        let f = ds.cct.frame[other as usize].code.function.unwrap() as usize;
        ds.functions[f].name = "ctor".into();
        let cols = vec![metric_columns(&ds, 0, &Selection::Summary).unwrap()];
        let excl = Col::excl(0);
        for (names, rows) in [
            (
                Names::same_named_merged(&ds),
                vec![("ctor", 3.0), ("main", 0.0)],
            ),
            (
                Names::new(&ds),
                vec![("ctor", 1.0), ("ctor", 2.0), ("main", 0.0)],
            ),
        ] {
            let ctx = Ctx {
                ds: &ds,
                names: &names,
                cols: &cols,
            };
            let mut bu = BottomUp::new(&ds, &names);
            let mut got: Vec<(String, f64)> = bu
                .children(&ctx, 0)
                .into_iter()
                .map(|c| (bu.label(&ctx, c), bu.value(&ctx, c, excl)))
                .collect();
            got.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let want: Vec<(String, f64)> = rows.iter().map(|&(n, v)| (n.to_string(), v)).collect();
            assert_eq!(got, want);
        }
    }
}

mod timing {
    /// Timings on a 1,000,000-context tree (run with `cargo test --release -- --ignored timing`).
    #[test]
    #[ignore]
    fn timing_1m() {
        use crate::analysis::flame::{child_order, layout, FlameTree, Viewport};
        use crate::analysis::table::{Col, TableView};
        use std::time::Instant;
        let t = Instant::now();
        let ds = crate::analysis::folded::synthetic(1_000_000, 1);
        eprintln!("synthetic: {:?}", t.elapsed());
        let t = Instant::now();
        let l = super::Loaded::new(ds);
        let (ds, names, cols) = (&l.ds, &l.names, &l.cols);
        eprintln!("names+columns: {:?}", t.elapsed());
        let tree = FlameTree::from_cct(ds);
        let t = Instant::now();
        let order = child_order(&tree.tree, &cols[0].inclusive, true);
        eprintln!("child order (heavy): {:?}", t.elapsed());
        let vp = Viewport {
            x0: 0.0,
            x1: 1.0,
            depth0: 0,
            depth1: u32::MAX,
            width_px: 1600.0,
            min_width_px: 0.5,
        };
        let t = Instant::now();
        let r = layout(&tree.tree, &order, &cols[0].inclusive, 0, &vp);
        eprintln!("layout: {:?} ({} rects)", t.elapsed(), r.len());
        let ctx = l.ctx();
        let mut td = crate::analysis::topdown::TopDown;
        let incl = Col::incl(0);
        let mut view = TableView::new(&mut td, &ctx, incl);
        let t = Instant::now();
        view.expand_all(&mut td, &ctx, 1_000_000);
        eprintln!("expand to {} rows: {:?}", view.len(), t.elapsed());
        let t = Instant::now();
        view.sort_by(&mut td, &ctx, Col::excl(0), true);
        eprintln!("sort {} rows: {:?}", view.len(), t.elapsed());
        let t = Instant::now();
        let mut bu = crate::analysis::bottomup::BottomUp::new(ds, names);
        let _v = TableView::new(&mut bu, &ctx, incl);
        eprintln!("bottom-up: {:?}", t.elapsed());
        let t = Instant::now();
        let mut fl = crate::analysis::flat::Flat::new(ds, names);
        let _v = TableView::new(&mut fl, &ctx, incl);
        eprintln!("flat: {:?}", t.elapsed());
    }
}

mod deep {
    use super::Loaded;
    use crate::analysis::bottomup::BottomUp;
    use crate::analysis::flat::Flat;
    use crate::analysis::table::{Col, TableTree, TableView};
    use crate::analysis::topdown::TopDown;

    /// A 100,000-deep recursion: every table answers without recursing, and recursion is
    /// counted once (the top-level row of `f` has the root's total, not 100,000 times it).
    #[test]
    fn tables_on_a_100k_deep_recursion() {
        let path = format!("main{} 5\nmain;g 1\n", ";f".repeat(100_000));
        let l = Loaded::folded(&path);
        let ctx = l.ctx();
        let (incl, excl) = (Col::incl(0), Col::excl(0));
        let mut bu = BottomUp::new(&l.ds, &l.names);
        let top = bu.children(&ctx, 0);
        let f = *top.iter().find(|&&r| bu.label(&ctx, r) == "f").unwrap();
        assert_eq!(
            (bu.value(&ctx, f, incl), bu.value(&ctx, f, excl)),
            (5.0, 5.0)
        );
        // Callers of f: main (the outermost call) and f itself (99,999 nested instances).
        let callers = bu.children(&ctx, f);
        let vals: Vec<(String, f64)> = callers
            .iter()
            .map(|&c| (bu.label(&ctx, c), bu.value(&ctx, c, incl)))
            .collect();
        assert_eq!(vals, [("main".to_string(), 5.0), ("f".to_string(), 5.0)]);
        let mut flat = Flat::new(&l.ds, &l.names);
        let top = flat.children(&ctx, 0);
        let s: f64 = top.iter().map(|&m| flat.value(&ctx, m, excl)).sum();
        assert_eq!(s, 6.0);
        let mut td = TopDown;
        let mut view = TableView::new(&mut td, &ctx, incl);
        let end = view.hot_path(&mut td, &ctx, 0, 0.5);
        assert_eq!(view.depth[end], 100_001);
        view.sort_by(&mut td, &ctx, excl, true);
        assert_eq!(view.len(), 100_003);
        // Expand-all on a deep callers tree stops after a bounded number of levels.
        let path = format!("main{} 5\n", ";f".repeat(5_000));
        let l = Loaded::folded(&path);
        let ctx = l.ctx();
        let mut bu = BottomUp::new(&l.ds, &l.names);
        let mut bv = TableView::new(&mut bu, &ctx, incl);
        bv.expand_all(&mut bu, &ctx, 1_000_000);
        assert!(bv.len() > 500 && bv.len() < 1_100, "{}", bv.len());
    }
}
