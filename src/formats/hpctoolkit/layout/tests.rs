//! Unit tests of the layout (era) detection from the structures' strides: final and draft layouts,
//! lone or damaged files still named, section pointers that must lie in the file.

use super::*;

/// A meta.db whose metrics section (pointer at 0x38) states `sz_metric`, and a profile.db
/// whose profile infos section (pointer at 0x18) states `sz_profile`: all layout_of reads.
fn pair(sz_metric: u8, sz_profile: u8) -> (Source, Source) {
    let mut meta = vec![0u8; 0xa0];
    meta[0x38..0x40].copy_from_slice(&0x90u64.to_le_bytes()); // pMetrics section
    meta[0x90 + 0x0c] = sz_metric;
    let mut prof = vec![0u8; 0x40];
    prof[0x18..0x20].copy_from_slice(&0x30u64.to_le_bytes()); // pProfileInfos section
    prof[0x30 + 0x0c] = sz_profile;
    (
        Source::from_vec("meta.db", meta),
        Source::from_vec("profile.db", prof),
    )
}

#[test]
fn layout_from_strides() {
    let l = |m, p| {
        let (a, b) = pair(m, p);
        layout_of(&a, &b)
    };
    assert_eq!(l(32, 48).unwrap(), Layout::Final);
    assert_eq!(l(40, 56).unwrap(), Layout::Final); // newer minor versions: larger strides
    assert_eq!(l(32, 40).unwrap(), Layout::DraftMay);
    assert_eq!(l(24, 40).unwrap(), Layout::DraftApril);
    assert_eq!(l(24, 48).unwrap_err().kind, ErrorKind::Mismatch);
    assert_eq!(l(16, 48).unwrap_err().kind, ErrorKind::Invalid);
    assert_eq!(l(32, 32).unwrap_err().kind, ErrorKind::Invalid);
    assert_eq!(Layout::DraftMay.name(), "v4.0 draft (May 2022)");
}

#[test]
fn lone_or_damaged_files_still_name_an_era() {
    assert_eq!(from_strides(Some(24), None), Layout::DraftApril);
    assert_eq!(from_strides(Some(32), None), Layout::Final);
    assert_eq!(from_strides(None, Some(40)), Layout::DraftApril);
    assert_eq!(from_strides(None, Some(48)), Layout::Final);
    assert_eq!(from_strides(None, None), Layout::Final);
    // Strides layout_of refuses still get a name: the April meta.db decides.
    assert_eq!(from_strides(Some(24), Some(48)), Layout::DraftApril);
}

#[test]
fn section_pointer_must_lie_in_the_file() {
    let mut b = vec![0u8; 0x40];
    b[0x28..0x30].copy_from_slice(&0x38u64.to_le_bytes()); // slot 1 pointer
    b[0x20..0x28].copy_from_slice(&8u64.to_le_bytes()); // slot 1 size
    let src = Source::from_vec("x.db", b.clone());
    assert_eq!(section(&src, (1, "second")).unwrap(), (8, 0x38));
    b[0x28..0x30].copy_from_slice(&0x40u64.to_le_bytes());
    let e = section(&Source::from_vec("x.db", b), (1, "second")).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::Invalid, Some(0x28)));
    // A header too short for the slot: the pointer is named.
    let e = section(&Source::from_vec("x.db", vec![0u8; 0x24]), (1, "second")).unwrap_err();
    assert_eq!(
        (e.offset, e.what.as_str()),
        (Some(0x28), "second section pointer")
    );
}
