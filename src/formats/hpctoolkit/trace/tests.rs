//! Unit tests of trace.db reading on hand-written files: lines and finds by time, batched and guided
//! finds equal to single ones and binary search, and an empty trace.

use super::*;

fn db(times: &[u64]) -> Vec<u8> {
    let mut b = b"HPCTOOLKITtrce\x04\x00".to_vec();
    b.extend_from_slice(&0x38u64.to_le_bytes()); // szCtxTraces
    b.extend_from_slice(&0x20u64.to_le_bytes()); // pCtxTraces
    b.extend_from_slice(&0x40u64.to_le_bytes()); // 0x20 pTraces
    b.extend_from_slice(&1u32.to_le_bytes()); // nTraces
    b.extend_from_slice(&[0x18, 0, 0, 0]); // szTrace
    b.extend_from_slice(&times.first().copied().unwrap_or(EMPTY_MIN).to_le_bytes());
    b.extend_from_slice(&times.last().copied().unwrap_or(EMPTY_MAX).to_le_bytes());
    // 0x40: the line header
    b.extend_from_slice(&3u32.to_le_bytes()); // profIndex
    b.extend_from_slice(&[0u8; 4]);
    b.extend_from_slice(&0x58u64.to_le_bytes()); // pStart
    b.extend_from_slice(&(0x58 + 12 * times.len() as u64).to_le_bytes()); // pEnd
    for (i, t) in times.iter().enumerate() {
        b.extend_from_slice(&t.to_le_bytes()); // timestamp (odd samples unaligned)
        b.extend_from_slice(&(i as u32 + 10).to_le_bytes()); // ctxId
    }
    b.extend_from_slice(b"trace.db");
    b
}

#[test]
fn reads_lines_and_finds_by_time() {
    let src = Source::from_vec("trace.db", db(&[100, 200, 300, 400]));
    let t = read(&src).unwrap();
    assert_eq!(t.range(), Some((100, 400)));
    assert_eq!(t.lines.len(), 1);
    let l = t.lines[0];
    assert_eq!((l.prof_index, l.samples()), (3, 4));
    assert_eq!(samples(&src, &l, 1, 2).unwrap(), vec![(200, 11), (300, 12)]);
    assert_eq!(samples(&src, &l, 3, 99).unwrap(), vec![(400, 13)]);
    assert_eq!(find(&src, &l, 50).unwrap(), None);
    assert_eq!(find(&src, &l, 100).unwrap(), Some(0));
    assert_eq!(find(&src, &l, 299).unwrap(), Some(1));
    assert_eq!(find(&src, &l, 300).unwrap(), Some(2));
    assert_eq!(find(&src, &l, 10_000).unwrap(), Some(3));
}

#[test]
fn batched_finds_and_samples_equal_single_ones() {
    let times: Vec<u64> = (0..37).map(|i| 100 + 10 * (i / 2)).collect();
    let src = Source::from_vec("trace.db", db(&times));
    let t = read(&src).unwrap();
    let l = &t.lines[0];
    let qs: Vec<(&TraceLine, u64)> = (0..300).map(|t| (l, t)).collect();
    let many = find_many(&src, &qs).unwrap();
    for (k, &(_, time)) in qs.iter().enumerate() {
        assert_eq!(many[k], find(&src, l, time).unwrap(), "time {time}");
    }
    // Equal timestamps: the last of them is in force.
    assert_eq!(many[110], Some(3));
    let at = samples_at(&src, &[(l, 5), (l, 36), (l, 37), (l, 0)]).unwrap();
    assert_eq!(
        at,
        vec![Some((120, 15)), Some((280, 46)), None, Some((100, 10))]
    );
}

/// Counts the distinct 64 KiB blocks a search touches.
struct Blocks(Vec<u8>, std::sync::Mutex<std::collections::BTreeSet<u64>>);
impl crate::bytes::ReadAt for Blocks {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_exact_at(&self, off: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        self.1.lock().unwrap().insert(off >> 16);
        buf.copy_from_slice(&self.0[off as usize..off as usize + buf.len()]);
        Ok(())
    }
}

#[test]
fn guided_finds_equal_binary_search_and_touch_few_blocks() {
    // Sorted lines: steady, jittered, bursty with long gaps, and runs of equal times.
    let mut rng = 0x2545f4914f6cdd1du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let steady: Vec<u64> = (0..20_000).map(|i| 1_000 + 5_000 * i).collect();
    let jitter: Vec<u64> = (0..20_000u64)
        .map(|i| 1_000 + 5_000 * i + next() % 4_000)
        .collect();
    let mut t = 0u64;
    let bursty: Vec<u64> = (0..20_000)
        .map(|i| {
            t += if i % 1000 == 0 {
                50_000_000
            } else {
                next() % 3
            };
            t
        })
        .collect();
    let short: Vec<u64> = vec![7, 7, 9];
    for times in [&steady, &jitter, &bursty, &short] {
        let src = Source::from_vec("trace.db", db(times));
        let l = read(&src).unwrap().lines[0];
        let ends = (times[0], *times.last().unwrap());
        let (lo, hi) = ends;
        let mut qs: Vec<u64> = (0..400)
            .map(|_| lo.saturating_sub(10) + next() % (hi - lo + 20))
            .collect();
        qs.extend(times.iter().take(50).copied());
        qs.extend([0, lo, hi, hi + 1, u64::MAX]);
        for q in qs {
            assert_eq!(
                find_guided(&src, &l, q, ends).unwrap(),
                find(&src, &l, q).unwrap(),
                "time {q}"
            );
        }
    }
    // A steady line of 350,000 samples (4.2 MB): one or two blocks per search instead of
    // one per bisection step.
    let times: Vec<u64> = (0..350_000).map(|i| 1_000 + 5_000 * i + i % 7).collect();
    let counted = std::sync::Arc::new(Blocks(db(&times), Default::default()));
    let src = Source::new("trace.db", counted.clone());
    let l = read(&src).unwrap().lines[0];
    let ends = (times[0], times[times.len() - 1]);
    let (mut guided, mut plain) = (0usize, 0usize);
    for k in 1..50u64 {
        let q = times[(k * 6_997) as usize] + 17;
        counted.1.lock().unwrap().clear();
        let a = find_guided(&src, &l, q, ends).unwrap();
        guided += counted.1.lock().unwrap().len();
        counted.1.lock().unwrap().clear();
        assert_eq!(a, find(&src, &l, q).unwrap());
        plain += counted.1.lock().unwrap().len();
    }
    assert!(guided <= 2 * 49, "guided searches touched {guided} blocks");
    assert!(plain >= 5 * 49, "binary searches touched {plain} blocks");
    // Unsorted (hostile) lines terminate.
    let src = Source::from_vec("trace.db", db(&[50, 10, 90, 20, 95, 5, 70]));
    let l = read(&src).unwrap().lines[0];
    for q in 0..100 {
        let _ = find_guided(&src, &l, q, (50, 70)).unwrap();
        let _ = find_guided(&src, &l, q, (70, 50)).unwrap();
    }
}

#[test]
fn empty_trace_has_no_range() {
    let src = Source::from_vec("trace.db", db(&[]));
    let t = read(&src).unwrap();
    assert_eq!(t.range(), None);
    assert_eq!(find(&src, &t.lines[0], 5).unwrap(), None);
}
