//! Workspace tests: lone unknown files, a truncated meta.db next to the example, summaries and
//! removal, offsets beyond 2^53 in hex.

use super::*;

fn file(path: &str, bytes: &[u8]) -> InputFile {
    InputFile::from_vec(path, bytes.to_vec())
}

#[test]
fn lone_unknown_file_is_an_error_with_its_name() {
    let mut ws = Workspace::new();
    let r = ws.open_files(vec![file("random.bin", &[0x9c, 0, 0xff, 0x12])]);
    assert!(r.datasets.is_empty());
    assert_eq!(r.errors.len(), 1);
    assert_eq!(r.errors[0].file, "random.bin");
    assert_eq!(r.errors[0].kind, "unrecognized");
}

#[test]
fn truncated_meta_db_reports_file_structure_offset_and_keeps_others() {
    let mut ws = Workspace::new();
    let first = ws.open_example();
    assert_eq!(first.datasets.len(), 1);
    // Magic and version only: the General Properties pointer at 0x18 is missing.
    let r = ws.open_files(vec![file("db/meta.db", b"HPCTOOLKITmeta\x04\x00\0\0")]);
    assert_eq!(r.datasets.len(), 1);
    let s = &r.datasets[0];
    assert_eq!(s.format, "hpctoolkit");
    assert_eq!(s.status, "failed");
    let e = s.error.as_ref().expect("error");
    assert_eq!(e.file, "db/meta.db");
    assert_eq!(e.kind, "truncated");
    assert_eq!(e.offset_hex.as_deref(), Some("0x18"));
    assert_eq!(r.errors.len(), 1);
    assert_eq!(ws.summaries().len(), 2, "the example is still there");
}

#[test]
fn example_summary_and_remove() {
    let mut ws = Workspace::new();
    let r = ws.open_example();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let s = &r.datasets[0];
    assert_eq!(s.format, "hpctoolkit");
    assert_eq!(s.layout, "v4.0 final");
    assert_eq!(s.title, "hpcscope example");
    assert_ne!(s.status, "failed");
    let count = |k: &str| s.counts.iter().find(|(c, _)| c == k).map(|(_, n)| *n);
    assert_eq!(count("metrics"), Some(3.0), "{s:?}");
    assert_eq!(count("profiles"), Some(8.0), "{s:?}");
    assert!(ws.remove(s.id));
    assert!(!ws.remove(s.id));
    assert!(ws.summaries().is_empty());
}

#[test]
fn huge_offsets_stay_exact_in_hex() {
    let e = Error::truncated("x", u64::MAX - 1, "field");
    let i = ErrorInfo::from(&e);
    assert_eq!(i.offset_hex.as_deref(), Some("0xfffffffffffffffe"));
}
