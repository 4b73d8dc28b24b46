//! Session tests: requests naming unknown datasets, tables, selections or staged files fail with
//! the messages the page shows; removing a dataset forgets its view state; exports name their type.

use super::*;
use crate::analysis::profile::TableKind;
use crate::analysis::values::Selection;

#[test]
fn unknown_things_are_named_in_the_error() {
    let mut s: Session = Session::new();
    let err = |r: Result<()>| r.unwrap_err().to_string();
    assert_eq!(err(s.profile(7).map(|_| ())), "no opened dataset 7");
    assert_eq!(err(s.timeline(7).map(|_| ())), "no dataset 7");
    assert_eq!(
        s.export(7, "folded", "").unwrap_err().to_string(),
        "no opened dataset 7"
    );
    assert_eq!(
        s.export(7, "svg", "").unwrap_err().to_string(),
        "unknown format 'svg'"
    );
    let mut fill_called = false;
    let e = s.stage_bytes(0, 0, 4, |_| fill_called = true).unwrap_err();
    assert_eq!(e.to_string(), "no staged file 0");
    assert!(!fill_called);
    assert!(s.take_wanted_read().is_none());
    assert_eq!(s.address_histogram(7, 10).unwrap(), vec![]);
    assert!(s.summary(7).is_none());
}

#[test]
fn table_and_selection_names() {
    assert_eq!(profile::table_kind("flat").unwrap(), TableKind::Flat);
    assert_eq!(
        profile::table_kind("sideways").unwrap_err().to_string(),
        "unknown table 'sideways'"
    );
    assert_eq!(
        profile::selection("summary", &[]).unwrap(),
        Selection::Summary
    );
    assert_eq!(
        profile::selection("profile", &[3, 4]).unwrap(),
        Selection::Profile(3)
    );
    assert_eq!(
        profile::selection("subset", &[1, 2]).unwrap(),
        Selection::Subset(vec![1, 2])
    );
    assert_eq!(
        profile::selection("profile", &[]).unwrap_err().to_string(),
        "no profile given"
    );
    assert_eq!(
        profile::selection("most", &[]).unwrap_err().to_string(),
        "unknown selection 'most'"
    );
}

#[test]
fn example_views_exports_and_remove() {
    let mut s: Session = Session::new();
    let r = s.open_example();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let id = r.datasets[0].id;
    let (ds, pv) = s.profile(id).unwrap();
    assert_eq!(pv.meta(ds).metrics.len(), 3);
    assert!(s.timeline(id).is_ok());
    let e = s.export(id, "folded", "").unwrap();
    assert_eq!((e.extension, e.mime), (".folded", "text/plain"));
    assert!(!e.text.is_empty());
    assert_eq!(s.summaries().len(), 1);
    assert!(s.remove(id));
    assert!(s.profiles.is_empty() && s.timelines.is_empty());
    assert!(!s.remove(id));
    assert!(s.profile(id).is_err());
    assert!(s.timeline(id).is_err());
}

#[test]
fn comparisons_by_id_their_tables_and_their_end() {
    use crate::analysis::diff::MetricPair;
    use crate::analysis::flame::Viewport;
    let mut s: Session = Session::new();
    let a = s.open_synthetic(300, 1).id;
    let b = s.open_synthetic(300, 1).id;
    let err = |r: Result<()>| r.unwrap_err().to_string();
    assert_eq!(
        err(s.compare_open(a, 9, false).map(|_| ())),
        "no opened dataset 9"
    );
    assert_eq!(
        err(s
            .compare_metric(compare::FIRST_COMPARE_ID + 5, None, "")
            .map(|_| ())),
        format!("no comparison {}", compare::FIRST_COMPARE_ID + 5)
    );
    let c = s.compare_open(a, b, false).unwrap();
    assert!(compare::is_compare_id(c.id));
    // The same pair again is the same comparison.
    assert_eq!(s.compare_open(a, b, false).unwrap().id, c.id);
    // Tables need a metric first; then the comparison id names the union dataset.
    assert_eq!(
        err(s.profile(c.id).map(|_| ())),
        format!("comparison {}: no metric chosen", c.id)
    );
    assert_eq!(
        err(s.compare_metric(c.id, None, "half").map(|_| ())),
        "unknown normalisation 'half'"
    );
    let t = s
        .compare_metric(c.id, Some(MetricPair { base: 0, new: 0 }), "percent")
        .unwrap();
    assert_eq!(t.base_total, t.new_total);
    let (ds, pv) = s.profile(c.id).unwrap();
    let names: Vec<String> = pv
        .meta(ds)
        .metrics
        .iter()
        .map(|m| m.metric.name.clone())
        .collect();
    assert_eq!(names.len(), 3);
    assert!(names[2].starts_with("delta: "), "{names:?}");
    let (cmp, base, new) = s.comparison(c.id).unwrap();
    cmp.cmp.flame_config(new, true, true).unwrap();
    let vp = Viewport {
        x0: 0.0,
        x1: 1.0,
        depth0: 0,
        depth1: 10,
        width_px: 800.0,
        min_width_px: 1.0,
    };
    let w = cmp.cmp.flame_layout(base, new, 0, &vp).unwrap();
    assert_eq!(
        (w.values.base.inclusive[0], w.values.new.inclusive[0]),
        (100.0, 100.0)
    );
    assert_eq!(w.values.base.inclusive, w.values.new.inclusive);
    assert_eq!(
        s.compare_flame_path(c.id, w.frames.rects.node[1])
            .unwrap()
            .first(),
        Some(&0)
    );
    let csv = s.compare_export_csv(c.id).unwrap();
    assert_eq!((csv.extension, csv.mime), (".csv", "text/csv"));
    // Closing a dataset ends the comparisons it is part of.
    assert!(s.remove(b));
    assert!(s.compares.is_empty());
    assert!(s.profile(c.id).is_err());
}
