//! Unit tests of cct.db reading on a hand-written two-context file: context value blocks, and
//! overlapping metric runs yielding each value once.

use super::*;

/// A cct.db with 2 contexts: ctx 0 empty; ctx 1 with metric 2 -> (prof 1: 4.0, prof 3: 5.0)
/// and metric 7 -> (prof 2: 6.5).
fn db() -> Vec<u8> {
    let mut b = b"HPCTOOLKITctxt\x04\x00".to_vec();
    b.extend_from_slice(&0x10u64.to_le_bytes()); // szCtxInfos
    b.extend_from_slice(&0x20u64.to_le_bytes()); // pCtxInfos
                                                 // 0x20: section header
    b.extend_from_slice(&0x30u64.to_le_bytes()); // pCtxs
    b.extend_from_slice(&2u32.to_le_bytes()); // nCtxs
    b.extend_from_slice(&[0x20, 0, 0, 0]); // szCtx, padding
                                           // 0x30: ctx 0 (empty block)
    b.extend_from_slice(&[0u8; 0x20]);
    // 0x50: ctx 1
    b.extend_from_slice(&3u64.to_le_bytes()); // nValues
    b.extend_from_slice(&0x70u64.to_le_bytes()); // pValues
    b.extend_from_slice(&2u16.to_le_bytes()); // nMetrics
    b.extend_from_slice(&[0u8; 6]);
    b.extend_from_slice(&0x94u64.to_le_bytes()); // pMetricIndices
                                                 // 0x70: values
    for (p, v) in [(1u32, 4.0f64), (3, 5.0), (2, 6.5)] {
        b.extend_from_slice(&p.to_le_bytes());
        b.extend_from_slice(&v.to_le_bytes());
    }
    // 0x94: metric indices
    for (m, s) in [(2u16, 0u64), (7, 2)] {
        b.extend_from_slice(&m.to_le_bytes());
        b.extend_from_slice(&s.to_le_bytes());
    }
    b.extend_from_slice(b"__ctx.db");
    b
}

#[test]
fn overlapping_metric_runs_yield_each_value_once() {
    // Three metric indices with starts 0, 3, 0: before, the third run re-read values 0..3
    // (entries x values in all, an allocation a hostile file could make any size).
    let mut b = db();
    b.truncate(0x94);
    b[0x60..0x62].copy_from_slice(&3u16.to_le_bytes()); // nMetrics
    for (m, s) in [(2u16, 0u64), (7, 3), (9, 0)] {
        b.extend_from_slice(&m.to_le_bytes());
        b.extend_from_slice(&s.to_le_bytes());
    }
    b.extend_from_slice(b"__ctx.db");
    let src = Source::from_vec("cct.db", b);
    let c = read(&src).unwrap();
    let v = c.values(&src, 1).unwrap();
    assert_eq!(v, vec![(2, 1, 4.0), (2, 3, 5.0), (2, 2, 6.5)]);
    let (_, runs) = c.metric_runs(&src, 1).unwrap().unwrap();
    assert_eq!(runs, vec![(2, 0, 3), (7, 0, 0), (9, 3, 3)]);
}

#[test]
fn reads_context_blocks() {
    let src = Source::from_vec("cct.db", db());
    let c = read(&src).unwrap();
    assert_eq!(c.n_ctxs(), 2);
    assert_eq!(c.values(&src, 0).unwrap(), vec![]);
    assert_eq!(
        c.values(&src, 1).unwrap(),
        vec![(2, 1, 4.0), (2, 3, 5.0), (7, 2, 6.5)]
    );
    assert_eq!(c.values(&src, 5).unwrap(), vec![]);
    assert_eq!(
        c.metric_values(&src, 1, 2).unwrap(),
        vec![(1, 4.0), (3, 5.0)]
    );
    assert_eq!(c.metric_values(&src, 1, 7).unwrap(), vec![(2, 6.5)]);
    assert_eq!(c.metric_values(&src, 1, 3).unwrap(), vec![]);
    let (b, runs) = c.metric_runs(&src, 1).unwrap().unwrap();
    assert_eq!(runs, vec![(2, 0, 2), (7, 2, 3)]);
    assert_eq!(
        CctDb::run_values(&src, &b, 0, 2).unwrap(),
        vec![(1, 4.0), (3, 5.0)]
    );
    assert_eq!(CctDb::run_values(&src, &b, 2, 9).unwrap(), vec![(2, 6.5)]);
    assert_eq!(c.metric_runs(&src, 0).unwrap().unwrap().1, vec![]);
    assert!(c.metric_runs(&src, 2).unwrap().is_none());
}
