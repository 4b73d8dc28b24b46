//! trace.db: the context trace headers (one line per traced profile, the time range) and the
//! 12-byte samples of each line, read on demand with binary search by time. Follows HPCToolkit
//! `doc/FORMATS.md` "trace.db version 4.0"; drafts point to the same section at 0x30.

use super::layout::{self, section, ArrayHeader, Slot};
use crate::bytes::{le32, le64, Source};
use crate::error::{Error, Result};

const SZ_TRACE: u64 = 0x18;
pub const SZ_ELEM: u64 = 12;

/// One trace sample record: (timestamp, ctxId).
pub fn sample(e: &[u8; SZ_ELEM as usize]) -> (u64, u32) {
    (le64(e, 0), le32(e, 8))
}
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

/// trace.db's header slot (FORMATS.md "trace.db version 4.0": szCtxTraces/pCtxTraces).
pub const CONTEXT_TRACES: Slot = (0, "context trace headers");

/// The header of the context trace headers section.
#[derive(Clone, Copy, Debug)]
pub struct TracesHeader {
    /// The trace headers, one per trace line stored.
    pub lines: ArrayHeader,
    /// Raw timestamps as stored; the empty-trace sentinels when the section is too short to
    /// hold them.
    pub min_timestamp: u64,
    pub max_timestamp: u64,
}

pub fn read_traces_header(src: &Source) -> Result<TracesHeader> {
    let (sz, sec) = section(src, CONTEXT_TRACES)?;
    let lines = layout::array_at(src, sec, ["pTraces", "nTraces", "szTrace"])?;
    let (min_timestamp, max_timestamp) = if sz >= 0x20 || sz == 0 {
        (
            src.u64_le_at(sec + 0x10, "minTimestamp")?,
            src.u64_le_at(sec + 0x18, "maxTimestamp")?,
        )
    } else {
        (EMPTY_MIN, EMPTY_MAX)
    };
    Ok(TracesHeader {
        lines,
        min_timestamp,
        max_timestamp,
    })
}

pub fn read(src: &Source) -> Result<TraceDb> {
    src.check(0, 0x20, "trace.db header")?;
    let minor_version = layout::version(src)?.1;
    let TracesHeader {
        lines: headers,
        min_timestamp,
        max_timestamp,
    } = read_traces_header(src)?;
    let t = headers.table(src, SZ_TRACE, "trace header")?;
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
        if line.p_end < line.p_start || !(line.p_end - line.p_start).is_multiple_of(SZ_ELEM) {
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
    Ok(bytes.as_chunks().0.iter().map(sample).collect())
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
    let mut recs = bytes.as_chunks().0.iter();
    Ok(queries
        .iter()
        .map(|(l, i)| {
            if *i >= l.samples() {
                return None;
            }
            recs.next().map(sample)
        })
        .collect())
}

#[cfg(test)]
mod tests;
