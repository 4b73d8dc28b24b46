//! One hpcrun trace (`.hpctrace`, `HPCRUN-trace______` + version + `b`): a header (24 bytes in
//! 01.00; 32 in 01.01, adding a flags word) followed by big-endian records of time (ns, u64) and
//! call-path id (u32), plus a metric id (u32) when the data-centric flag is set. Follows
//! HPCToolkit's `hpctrace_fmt_hdr_fread` / `hpctrace_fmt_datum_fread` (hpcrun-fmt.c).

use super::magic::{MagicLine, MAGIC_LINE_LEN};
use crate::bytes::{Slice, Source};
use crate::error::{Error, Result};

pub const MAGIC: &[u8; 18] = b"HPCRUN-trace______";
const FLAG_DATA_CENTRIC: u64 = 1 << 0;
/// Samples name the call context rather than the sampled instruction (hpcrun-fmt.h
/// `HPCTRACE_HDR_FLAGS_CALL_TRACE_BIT_POS`).
const FLAG_CALL_TRACE: u64 = 1 << 2;

/// The magic line at the start of a trace (any version, any byte-order letter).
pub fn magic_line(source: &Source) -> Result<MagicLine> {
    let head = source.bytes(0, source.len().min(MAGIC_LINE_LEN as u64), "trace magic")?;
    MagicLine::read(Slice::new(&head, 0, source.name()), MAGIC, "trace")
}

/// A trace file located: its records are read on demand.
#[derive(Clone, Debug)]
pub struct RunTrace {
    pub source: Source,
    pub version: String,
    pub flags: u64,
    /// Offset of the first record.
    pub data_start: u64,
    /// Bytes per record: 12, or 16 with the data-centric flag.
    pub stride: u64,
    pub count: u64,
}

/// One record: from `time_ns` on the thread was at call path `ctx_id` (a CCT node id of the
/// matching profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunTraceRecord {
    pub time_ns: u64,
    pub ctx_id: u32,
}

impl RunTrace {
    /// Reads and checks the header. A tail shorter than a record is ignored (hpcrun stopped while
    /// writing); the caller is told through `trailing_bytes`.
    pub fn open(source: &Source) -> Result<RunTrace> {
        let name = source.name();
        let line = magic_line(source)?;
        line.require_big_endian(name, "trace")?;
        let version = line.version;
        let (flags, data_start) = match version.as_str() {
            "01.00" => (0, 24),
            "01.01" => (source.u64_be_at(24, "trace flags")?, 32),
            v => {
                return Err(Error::unsupported(
                    name,
                    Some(18),
                    format!("hpcrun trace version {v:?} (known: 01.00, 01.01)"),
                ))
            }
        };
        let stride = if flags & FLAG_DATA_CENTRIC != 0 {
            16
        } else {
            12
        };
        let count = source.len().saturating_sub(data_start) / stride;
        Ok(RunTrace {
            source: source.clone(),
            version,
            flags,
            data_start,
            stride,
            count,
        })
    }

    pub fn is_call_trace(&self) -> bool {
        self.flags & FLAG_CALL_TRACE != 0
    }

    /// Bytes after the last whole record.
    pub fn trailing_bytes(&self) -> u64 {
        self.source.len().saturating_sub(self.data_start) % self.stride
    }

    /// Records `start..start+count` (clamped to the file).
    pub fn records(&self, start: u64, count: u64) -> Result<Vec<RunTraceRecord>> {
        let start = start.min(self.count);
        let n = count.min(self.count - start);
        let bytes = self.source.bytes(
            self.data_start + start * self.stride,
            n * self.stride,
            "trace records",
        )?;
        Ok(bytes
            .chunks_exact(self.stride as usize)
            .map(|r| {
                let mut t = [0u8; 8];
                t.copy_from_slice(&r[0..8]);
                let mut c = [0u8; 4];
                c.copy_from_slice(&r[8..12]);
                RunTraceRecord {
                    time_ns: u64::from_be_bytes(t),
                    ctx_id: u32::from_be_bytes(c),
                }
            })
            .collect())
    }

    /// Time of record `i`.
    pub fn time_at(&self, i: u64) -> Result<u64> {
        self.source
            .u64_be_at(self.data_start + i * self.stride, "trace record time")
    }

    /// Index of the last record with time <= `time` (records are in time order), `None` when
    /// `time` is before the first.
    pub fn find(&self, time: u64) -> Result<Option<u64>> {
        let (mut lo, mut hi) = (0u64, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.time_at(mid)? <= time {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo.checked_sub(1))
    }
}

#[cfg(test)]
mod tests;
