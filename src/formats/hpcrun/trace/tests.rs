//! Unit tests of the trace reader on a hand-made 01.01 trace: records, time search, a torn last
//! record, and bad headers.

use super::*;

fn fixture() -> Vec<u8> {
    let mut b = b"HPCRUN-trace______01.01b".to_vec();
    b.extend_from_slice(&0u64.to_be_bytes()); // flags
    for (t, c) in [(100u64, 7u32), (150, 9), (300, 7)] {
        b.extend_from_slice(&t.to_be_bytes());
        b.extend_from_slice(&c.to_be_bytes());
    }
    b.push(0xff); // a torn last record
    b
}

#[test]
fn reads_records_and_searches() {
    let t = RunTrace::open(&Source::from_vec("t.hpctrace", fixture())).unwrap();
    assert_eq!((t.count, t.stride, t.trailing_bytes()), (3, 12, 1));
    let r = t.records(1, 10).unwrap();
    assert_eq!(
        r,
        vec![
            RunTraceRecord {
                time_ns: 150,
                ctx_id: 9
            },
            RunTraceRecord {
                time_ns: 300,
                ctx_id: 7
            }
        ]
    );
    assert_eq!(t.find(99).unwrap(), None);
    assert_eq!(t.find(150).unwrap(), Some(1));
    assert_eq!(t.find(1000).unwrap(), Some(2));
}

#[test]
fn rejects_bad_headers() {
    assert!(RunTrace::open(&Source::from_vec("t", b"HPCRUN-trace______01.01".to_vec())).is_err());
    assert!(RunTrace::open(&Source::from_vec("t", b"HPCRUN-trace______09.00b".to_vec())).is_err());
    let mut b = fixture();
    b.truncate(28);
    assert!(RunTrace::open(&Source::from_vec("t", b)).is_err());
}
