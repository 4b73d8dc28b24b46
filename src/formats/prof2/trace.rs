//! prof2 `trace.db` (`HPCPROF-tracedb_`; seed 000, "trace.db version 4.0"): header with the
//! global time range, 22-byte Trace Headers (profile index, trace type, line start/end), and trace
//! lines of 12-byte samples (timestamp ns, context id) read on demand. The file has no footer, so
//! its byte order comes from the database's other files (or a plausibility check).

use super::Version;
use crate::bytes::{Endian, Source};
use crate::error::{Error, Result, Warning};

pub const MAGIC: &[u8; 16] = b"HPCPROF-tracedb_";
pub const HEADER_SIZE: u64 = 56;
pub const TRACE_HEADER_SIZE: u64 = 22;
pub const SAMPLE_SIZE: u64 = 12;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TraceHeader {
    pub prof_info_idx: u32,
    /// 0: calling-context samples; >= 1: metric trace of that metric id.
    pub trace_type: u16,
    pub line_ptr: u64,
    pub line_end: u64,
}

impl TraceHeader {
    /// Whole samples between `line_ptr` and `line_end` (0 for an inverted range).
    pub fn samples(&self) -> u64 {
        self.line_end.saturating_sub(self.line_ptr) / SAMPLE_SIZE
    }
}

#[derive(Clone, Debug)]
pub struct TraceDb {
    pub src: Source,
    pub endian: Endian,
    pub version: Version,
    pub num_sec: u16,
    pub hdr_size: u64,
    pub hdr_ptr: u64,
    pub min_time: u64,
    pub max_time: u64,
    pub headers: Vec<TraceHeader>,
}

impl TraceDb {
    /// Reads the header and every trace header. Lines whose samples are not all in the file are
    /// warned about and cut to what is there; an empty line may point anywhere (the real writer
    /// points empty lines past the end of the file).
    pub fn read(src: &Source, endian: Endian, warnings: &mut Vec<Warning>) -> Result<TraceDb> {
        let name = src.name();
        let version = Version::after_magic(src, MAGIC, "trace.db", warnings)?;
        let e = endian;
        let num_traces = src.u32_at(18, e, "number of trace lines")?;
        let hdr_ptr = src.u64_at(32, e, "trace header section offset")?;
        let t = src.table(
            hdr_ptr,
            num_traces as u64,
            TRACE_HEADER_SIZE,
            TRACE_HEADER_SIZE,
            "trace header",
        )?;
        let mut headers = Vec::with_capacity(num_traces as usize);
        for i in 0..t.count {
            let p = t.offset(i);
            let mut h = TraceHeader {
                prof_info_idx: src.u32_at(p, e, "trace profile index")?,
                trace_type: src.u16_at(p + 4, e, "trace type")?,
                line_ptr: src.u64_at(p + 6, e, "trace line start")?,
                line_end: src.u64_at(p + 14, e, "trace line end")?,
            };
            if h.line_end < h.line_ptr {
                warnings.push(Error::invalid(
                    name,
                    p + 6,
                    format!(
                        "trace line {i}: end {:#x} before start {:#x}",
                        h.line_end, h.line_ptr
                    ),
                ));
                h.line_end = h.line_ptr;
            } else if !(h.line_end - h.line_ptr).is_multiple_of(SAMPLE_SIZE) {
                warnings.push(Error::invalid(
                    name,
                    p + 6,
                    format!(
                        "trace line {i}: {} bytes is not a whole number of 12-byte samples",
                        h.line_end - h.line_ptr
                    ),
                ));
            }
            if h.samples() > 0 && h.line_ptr.saturating_add(h.samples() * SAMPLE_SIZE) > src.len() {
                let fit = src.len().saturating_sub(h.line_ptr) / SAMPLE_SIZE;
                warnings.push(Error::truncated(
                    name,
                    p + 6,
                    format!(
                        "trace line {i}: {} samples claimed, {fit} in the file",
                        h.samples()
                    ),
                ));
                h.line_end = h.line_ptr + fit * SAMPLE_SIZE;
            }
            headers.push(h);
        }
        Ok(TraceDb {
            src: src.clone(),
            endian: e,
            version,
            num_sec: src.u16_at(22, e, "number of sections")?,
            hdr_size: src.u64_at(24, e, "trace header section size")?,
            hdr_ptr,
            min_time: src.u64_at(40, e, "minimum timestamp")?,
            max_time: src.u64_at(48, e, "maximum timestamp")?,
            headers,
        })
    }

    fn header(&self, line: usize) -> Result<&TraceHeader> {
        self.headers.get(line).ok_or_else(|| {
            Error::invalid(
                self.src.name(),
                self.hdr_ptr,
                format!("trace line {line} out of range"),
            )
        })
    }

    /// Samples `start..start+count` of `line` (clipped to the line): (time ns, context id).
    pub fn samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<(u64, u32)>> {
        let h = self.header(line)?;
        let n = h.samples();
        let start = start.min(n);
        let count = count.min(n - start);
        if count == 0 {
            return Ok(Vec::new());
        }
        let off = h.line_ptr + start * SAMPLE_SIZE;
        let bytes = self.src.bytes(off, count * SAMPLE_SIZE, "trace samples")?;
        let e = self.endian;
        Ok(bytes
            .chunks_exact(SAMPLE_SIZE as usize)
            .map(|b| {
                let t: [u8; 8] = [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
                let c: [u8; 4] = [b[8], b[9], b[10], b[11]];
                match e {
                    Endian::Big => (u64::from_be_bytes(t), u32::from_be_bytes(c)),
                    Endian::Little => (u64::from_le_bytes(t), u32::from_le_bytes(c)),
                }
            })
            .collect())
    }

    /// Index of the last sample of `line` with time <= `time`, by binary search in the file.
    pub fn find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        let h = *self.header(line)?;
        let (mut lo, mut hi) = (0u64, h.samples());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let t = self.src.u64_at(
                h.line_ptr + mid * SAMPLE_SIZE,
                self.endian,
                "trace sample time",
            )?;
            if t <= time {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo.checked_sub(1))
    }
}
