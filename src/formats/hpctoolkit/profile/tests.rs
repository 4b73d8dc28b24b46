//! Unit tests of profile.db reading on hand-written files: overlapping context runs, pointers near
//! u64::MAX, value blocks and their binary search, windowed run visits, huge claimed counts.

use super::*;
use crate::bytes::Remote;

#[test]
fn overlapping_context_runs_are_cut() {
    // Four values, then context indices with starts 0, 4, 0, 4: before, the third entry's
    // run repeated 0..4 (entries x values in all, sized the output of read_sparse).
    let mut b = vec![0u8; 40];
    for (c, start) in [(1u32, 0u64), (2, 4), (3, 0), (4, 4)] {
        b.extend_from_slice(&c.to_le_bytes());
        b.extend_from_slice(&start.to_le_bytes());
    }
    let src = Source::from_vec("profile.db", b);
    let block = ValueBlock {
        n_values: 4,
        p_values: 0,
        n_index: 4,
        p_index: 40,
    };
    let runs = read_index(&src, &block).unwrap();
    assert_eq!(runs, vec![(1, 0, 4), (2, 0, 0), (3, 4, 4), (4, 4, 4)]);
}

#[test]
fn profile_info_pointer_near_u64_max_is_an_error() {
    // Found by replaying u64::MAX in every field with overflow checks on.
    let mut b = vec![0u8; 0x30];
    b[0x18..0x20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(profile_stride(&Source::from_vec("profile.db", b)).is_err());
}

/// A block at 0x00: values (metric 1 = 2.5, metric 4 = 1.0 for ctx 7; metric 0 = 3.0 for
/// ctx 9), then the context indices.
fn block_bytes() -> (Vec<u8>, ValueBlock) {
    let mut b = Vec::new();
    for (m, v) in [(1u16, 2.5f64), (4, 1.0), (0, 3.0)] {
        b.extend_from_slice(&m.to_le_bytes()); // metricId
        b.extend_from_slice(&v.to_le_bytes()); // value (unaligned)
    }
    b.extend_from_slice(&[0, 0]); // padding to 4
    let p_index = b.len() as u64;
    for (c, s) in [(7u32, 0u64), (9, 2)] {
        b.extend_from_slice(&c.to_le_bytes()); // ctxId
        b.extend_from_slice(&s.to_le_bytes()); // startIndex
    }
    (
        b,
        ValueBlock {
            n_values: 3,
            p_values: 0,
            n_index: 2,
            p_index,
        },
    )
}

#[test]
fn reads_block_and_binary_searches() {
    let (bytes, b) = block_bytes();
    let src = Source::from_vec("profile.db", bytes);
    let v = read_values(&src, &b).unwrap();
    assert_eq!(
        v.triples().collect::<Vec<_>>(),
        vec![(7, 1, 2.5), (7, 4, 1.0), (9, 0, 3.0)]
    );
    assert_eq!(value_at(&src, &b, 7, 4).unwrap(), Some(1.0));
    assert_eq!(value_at(&src, &b, 7, 1).unwrap(), Some(2.5));
    assert_eq!(value_at(&src, &b, 9, 0).unwrap(), Some(3.0));
    assert_eq!(value_at(&src, &b, 7, 2).unwrap(), None);
    assert_eq!(value_at(&src, &b, 8, 0).unwrap(), None);
    assert_eq!(value_at(&src, &b, 10, 0).unwrap(), None);
}

#[test]
fn visit_runs_reads_any_run_order_through_the_window() {
    // 20,000 pairs (200 KB, more than one window): pair i = (metric i % 65536, value i).
    let n = 20_000u64;
    let mut bytes = vec![0u8; 4];
    for i in 0..n {
        bytes.extend_from_slice(&(i as u16).to_le_bytes());
        bytes.extend_from_slice(&(i as f64).to_le_bytes());
    }
    let b = ValueBlock {
        n_values: n,
        p_values: 4,
        n_index: 0,
        p_index: 0,
    };
    // Ascending, crossing window ends, backwards, overlapping, longer than a window, empty,
    // past the end (clipped).
    let runs = [
        (0u64, 3u64),
        (6550, 6560),
        (6560, 13200),
        (5, 9),
        (100, 19_000),
        (7, 7),
        (19_990, 20_005),
    ];
    for src in [
        Source::from_vec("profile.db", bytes.clone()),
        // Not in memory, so `visit_runs` reads through its window.
        Source::new("profile.db", std::sync::Arc::new(Remote(bytes.clone()))),
    ] {
        let mut seen = Vec::new();
        visit_runs(
            &src,
            &b,
            runs.iter().enumerate().map(|(k, r)| (k, r.0, r.1)),
            |k, got| {
                let vals: Vec<f64> = got
                    .chunks_exact(10)
                    .map(|p| f64::from_le_bytes(p[2..10].try_into().unwrap()))
                    .collect();
                seen.push((k, vals.len(), vals.first().copied(), vals.last().copied()));
            },
        )
        .unwrap();
        assert_eq!(
            seen,
            vec![
                (0, 3, Some(0.0), Some(2.0)),
                (1, 10, Some(6550.0), Some(6559.0)),
                (2, 6640, Some(6560.0), Some(13199.0)),
                (3, 4, Some(5.0), Some(8.0)),
                (4, 18_900, Some(100.0), Some(18_999.0)),
                (5, 0, None, None),
                (6, 10, Some(19_990.0), Some(19_999.0)),
            ]
        );
    }
}

#[test]
fn huge_counts_error_without_allocating() {
    let (bytes, mut b) = block_bytes();
    let src = Source::from_vec("profile.db", bytes);
    b.n_values = 1 << 60;
    assert!(read_values(&src, &b).is_err());
    assert!(value_at(&src, &b, 7, 1).is_err());
}
