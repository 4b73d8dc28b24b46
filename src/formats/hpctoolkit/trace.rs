//! trace.db: the context trace headers (one line per traced profile, the time range) and the
//! 12-byte samples of each line, read on demand with binary search by time. Follows HPCToolkit
//! `doc/FORMATS.md` "trace.db version 4.0"; drafts point to the same section at 0x30.

use crate::bytes::Source;
use crate::error::{Error, Result};

const SZ_TRACE: u64 = 0x18;
pub const SZ_ELEM: u64 = 12;
/// Time range HPCToolkit writes when no line has a sample.
pub const EMPTY_MIN: u64 = 0x7FFF_FFFF_FFFF_FFFF;
pub const EMPTY_MAX: u64 = 0x8000_0000_0000_0000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceLine {
    pub prof_index: u32,
    pub p_start: u64,
    pub p_end: u64,
}

impl TraceLine {
    pub fn samples(&self) -> u64 {
        self.p_end.saturating_sub(self.p_start) / SZ_ELEM
    }
}

#[derive(Clone, Debug)]
pub struct TraceDb {
    pub minor_version: u8,
    /// Raw timestamps as stored (sentinels included).
    pub min_timestamp: u64,
    pub max_timestamp: u64,
    pub lines: Vec<TraceLine>,
}

pub fn read(src: &Source) -> Result<TraceDb> {
    src.check(0, 0x20, "trace.db header")?;
    let minor_version = src.u8_at(0x0f, "minor version")?;
    let sz = src.u64_le_at(0x10, "szCtxTraces")?;
    let sec = src.u64_le_at(0x18, "pCtxTraces")?;
    let p = src.u64_le_at(sec, "pTraces")?;
    let n = src.u32_le_at(sec + 0x08, "nTraces")?;
    let stride = src.u8_at(sec + 0x0c, "szTrace")?;
    let (min_timestamp, max_timestamp) = if sz >= 0x20 || sz == 0 {
        (
            src.u64_le_at(sec + 0x10, "minTimestamp")?,
            src.u64_le_at(sec + 0x18, "maxTimestamp")?,
        )
    } else {
        (EMPTY_MIN, EMPTY_MAX)
    };
    let t = src.table(p, n as u64, stride as u64, SZ_TRACE, "trace header")?;
    let bytes = src.bytes(t.ptr, t.byte_len(), "trace headers")?;
    let mut lines = Vec::with_capacity(t.count as usize);
    for rec in bytes.chunks_exact(t.stride as usize) {
        let u64_at = |o: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&rec[o..o + 8]);
            u64::from_le_bytes(b)
        };
        let line = TraceLine {
            prof_index: u32::from_le_bytes([rec[0], rec[1], rec[2], rec[3]]),
            p_start: u64_at(8),
            p_end: u64_at(16),
        };
        let at = t.ptr + (lines.len() as u64) * t.stride;
        if line.p_end < line.p_start || (line.p_end - line.p_start) % SZ_ELEM != 0 {
            return Err(Error::invalid(
                src.name(),
                at,
                format!(
                    "trace line from {:#x} to {:#x} is not a whole number of 12-byte samples",
                    line.p_start, line.p_end
                ),
            ));
        }
        src.check(
            line.p_start,
            line.p_end - line.p_start,
            "trace line samples",
        )?;
        lines.push(line);
    }
    Ok(TraceDb {
        minor_version,
        min_timestamp,
        max_timestamp,
        lines,
    })
}

impl TraceDb {
    /// The time range, `None` for HPCToolkit's empty-trace sentinels.
    pub fn range(&self) -> Option<(u64, u64)> {
        if self.min_timestamp == EMPTY_MIN && self.max_timestamp == EMPTY_MAX {
            None
        } else {
            Some((self.min_timestamp, self.max_timestamp))
        }
    }
}

/// Samples `start..start+count` of a line (clipped to the line): (timestamp, ctxId).
pub fn samples(src: &Source, line: &TraceLine, start: u64, count: u64) -> Result<Vec<(u64, u32)>> {
    let n = line.samples();
    let start = start.min(n);
    let count = count.min(n - start);
    let bytes = src.bytes(
        line.p_start + start * SZ_ELEM,
        count * SZ_ELEM,
        "trace samples",
    )?;
    Ok(bytes
        .chunks_exact(SZ_ELEM as usize)
        .map(|e| {
            let mut t = [0u8; 8];
            t.copy_from_slice(&e[0..8]);
            (
                u64::from_le_bytes(t),
                u32::from_le_bytes([e[8], e[9], e[10], e[11]]),
            )
        })
        .collect())
}

/// Index of the last sample with timestamp <= `time` (binary search through the source, one
/// 8-byte read per step), `None` when the line starts after `time` or is empty.
pub fn find(src: &Source, line: &TraceLine, time: u64) -> Result<Option<u64>> {
    let (mut lo, mut hi) = (0u64, line.samples());
    // Invariant: samples before `lo` are <= time, samples from `hi` on are > time.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let t = src.u64_le_at(line.p_start + mid * SZ_ELEM, "trace sample timestamp")?;
        if t <= time {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo.checked_sub(1))
}

/// [`find`] guided by the line's first and last timestamps `ends` (for a sorted line the same
/// answer): the first probe is interpolated, then the search gallops out from it and bisects
/// the bracket it found. Trace samples are taken at a near-steady rate, so the answer is
/// usually within a few samples of the guess: one block of a cached source instead of one per
/// bisection step (~7 for a 4 MB line). A bad guess costs at most about twice the probes of
/// a plain binary search; unsorted (hostile) lines still terminate.
pub fn find_guided(
    src: &Source,
    line: &TraceLine,
    time: u64,
    ends: (u64, u64),
) -> Result<Option<u64>> {
    let n = line.samples();
    let (t_first, t_last) = ends;
    if n == 0 || time < t_first {
        return Ok(None);
    }
    if time >= t_last {
        return Ok(Some(n - 1));
    }
    let at = |i: u64| src.u64_le_at(line.p_start + i * SZ_ELEM, "trace sample timestamp");
    // Invariant as in `find`: samples before `lo` are <= time, samples from `hi` on are > time
    // (sample 0 and sample n - 1 are known).
    let (mut lo, mut hi) = (1u64, n - 1);
    if lo >= hi {
        return Ok(Some(lo - 1));
    }
    // The guess, on the line from (0, t_first) to (n - 1, t_last): t_first <= time < t_last.
    let f = (time - t_first) as f64 / (t_last - t_first) as f64;
    let guess = ((f * (n - 1) as f64) as u64).clamp(lo, hi - 1);
    if at(guess)? <= time {
        lo = guess + 1;
        let mut step = 1u64;
        while lo < hi {
            let q = (guess + step).min(hi - 1);
            if at(q)? <= time {
                lo = q + 1;
            } else {
                hi = q;
                break;
            }
            step = step.saturating_mul(2);
        }
    } else {
        hi = guess;
        let mut step = 1u64;
        while lo < hi {
            let q = guess.saturating_sub(step).max(lo);
            if at(q)? > time {
                hi = q;
            } else {
                lo = q + 1;
                break;
            }
            step = step.saturating_mul(2);
        }
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at(mid)? <= time {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(Some(lo - 1))
}

/// Bytes one batched read may return at most (an allocation bound for the batch helpers).
const MAX_BATCH_BYTES: u64 = 64 << 20;

/// [`find`] for many (line, time) queries, in lock step: each round reads the middle timestamp
/// of every unfinished search with one batched read of the source (one HTTP request for all the
/// rows of a view), so the number of round trips is that of one search, not of all of them.
pub fn find_many(src: &Source, queries: &[(&TraceLine, u64)]) -> Result<Vec<Option<u64>>> {
    let mut bounds: Vec<(u64, u64)> = queries.iter().map(|(l, _)| (0, l.samples())).collect();
    loop {
        let active: Vec<usize> = (0..queries.len())
            .filter(|&i| bounds[i].0 < bounds[i].1)
            .collect();
        if active.is_empty() {
            break;
        }
        let ranges: Vec<(u64, u64)> = active
            .iter()
            .map(|&i| {
                let (lo, hi) = bounds[i];
                (queries[i].0.p_start + (lo + (hi - lo) / 2) * SZ_ELEM, 8)
            })
            .collect();
        let bytes = src.read_many(&ranges, MAX_BATCH_BYTES, "trace sample timestamps")?;
        for (k, &i) in active.iter().enumerate() {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[8 * k..8 * k + 8]);
            let (lo, hi) = bounds[i];
            let mid = lo + (hi - lo) / 2;
            bounds[i] = if u64::from_le_bytes(b) <= queries[i].1 {
                (mid + 1, hi)
            } else {
                (lo, mid)
            };
        }
    }
    Ok(bounds.iter().map(|&(lo, _)| lo.checked_sub(1)).collect())
}

/// Sample `index` (timestamp, ctxId) of each (line, index) query with one batched read; `None`
/// for an index past the line's end.
pub fn samples_at(src: &Source, queries: &[(&TraceLine, u64)]) -> Result<Vec<Option<(u64, u32)>>> {
    let ranges: Vec<(u64, u64)> = queries
        .iter()
        .filter(|(l, i)| *i < l.samples())
        .map(|(l, i)| (l.p_start + i * SZ_ELEM, SZ_ELEM))
        .collect();
    let bytes = src.read_many(&ranges, MAX_BATCH_BYTES, "trace samples")?;
    let mut recs = bytes.chunks_exact(SZ_ELEM as usize);
    Ok(queries
        .iter()
        .map(|(l, i)| {
            if *i >= l.samples() {
                return None;
            }
            let e = recs.next()?;
            let mut t = [0u8; 8];
            t.copy_from_slice(&e[0..8]);
            Some((
                u64::from_le_bytes(t),
                u32::from_le_bytes([e[8], e[9], e[10], e[11]]),
            ))
        })
        .collect())
}

#[cfg(test)]
mod tests {
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
}
