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
