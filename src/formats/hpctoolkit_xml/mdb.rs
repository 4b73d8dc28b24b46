//! hpcviewer's merged files, `experiment[-N].mdb` (the threads' metric-db files) and
//! `experiment.mt` (their .hpctrace files), as its MergeDataFiles writes and FileDB2 reads them.

// Layout: big-endian i32 application type (bit 0 multi-process, bit 1 multi-thread), i32 file count,
// per file (i32 process, i32 thread, i64 offset), the files copied whole, and the i64 end marker
// 0xFFFFFFFFDEADF00D.

use super::metric_db::MetricDbFile;
use crate::bytes::{ReadAt, Source};
use crate::error::{Error, Result, Warning};
use std::sync::Arc;

/// The marker hpcviewer appends once a merge is complete.
pub const END_MARKER: u64 = 0xFFFF_FFFF_DEAD_F00D;

/// One file inside a merged file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergedEntry {
    pub process: u32,
    pub thread: u32,
    pub offset: u64,
    /// Bytes up to the next file (or the end marker).
    pub len: u64,
}

/// A merged file's header.
#[derive(Clone, Debug)]
pub struct Merged {
    pub source: Source,
    pub app_type: u32,
    pub entries: Vec<MergedEntry>,
}

impl Merged {
    pub fn open(source: &Source, warnings: &mut Vec<Warning>) -> Result<Merged> {
        let name = source.name();
        let app_type = source.u32_be_at(0, "merged file application type")?;
        let count = source.u32_be_at(4, "merged file count")?;
        // 16 bytes of index per file: a count the file cannot hold is refused before allocating.
        let index_end = (count as u64)
            .checked_mul(16)
            .and_then(|v| v.checked_add(8))
            .filter(|&e| e <= source.len())
            .ok_or_else(|| {
                Error::truncated(
                    name,
                    4,
                    format!("merged file claims {count} files, more than its index can hold"),
                )
            })?;
        let index = source.bytes(8, index_end - 8, "merged file index")?;
        let data_end = match source.len().checked_sub(8) {
            Some(at) if at >= index_end && source.u64_be_at(at, "end marker")? == END_MARKER => at,
            _ => {
                warnings.push(Error::truncated(
                    name,
                    source.len(),
                    "merged file without hpcviewer's end marker (an unfinished merge?): read to its end",
                ));
                source.len()
            }
        };
        let mut entries = Vec::with_capacity(count as usize);
        for (i, e) in index.chunks_exact(16).enumerate() {
            let be32 = |o: usize| u32::from_be_bytes([e[o], e[o + 1], e[o + 2], e[o + 3]]);
            let offset = u64::from_be_bytes([e[8], e[9], e[10], e[11], e[12], e[13], e[14], e[15]]);
            if offset < index_end || offset > data_end {
                return Err(Error::invalid(
                    name,
                    8 + 16 * i as u64 + 8,
                    format!("merged file {i}: offset {offset:#x} outside the data ({index_end:#x}..{data_end:#x})"),
                ));
            }
            entries.push(MergedEntry {
                process: be32(0),
                thread: be32(4),
                offset,
                len: 0,
            });
        }
        // Each file runs to the next one's start, wherever it lies in the index.
        let mut starts: Vec<u64> = entries.iter().map(|e| e.offset).collect();
        crate::sort::sort_by(&mut starts, |a, b| a.cmp(b));
        for e in &mut entries {
            let next = starts.partition_point(|&s| s <= e.offset);
            let end = starts.get(next).copied().unwrap_or(data_end);
            e.len = end - e.offset;
        }
        Ok(Merged {
            source: source.clone(),
            app_type,
            entries,
        })
    }

    /// The metric database of entry `i`.
    pub fn metric_db(&self, i: usize) -> Result<MetricDbFile> {
        let e = self.entry(i)?;
        MetricDbFile::open(&self.source, e.offset, e.len)
    }

    /// Entry `i` as a source of its own (for the hpctrace reader), named `file[i]`. Sources are
    /// not Send (a Blob source in a wasm worker is not), so neither is the window over one.
    #[allow(clippy::arc_with_non_send_sync)]
    pub fn part(&self, i: usize) -> Result<Source> {
        let e = self.entry(i)?;
        Ok(Source::new(
            format!("{}[{i}]", self.source.name()),
            Arc::new(Window {
                source: self.source.clone(),
                offset: e.offset,
                len: e.len,
            }),
        ))
    }

    fn entry(&self, i: usize) -> Result<MergedEntry> {
        self.entries.get(i).copied().ok_or_else(|| {
            Error::invalid(
                self.source.name(),
                4,
                format!("merged file {i} out of range"),
            )
        })
    }
}

/// A byte range of another source, read as a file of its own.
struct Window {
    source: Source,
    offset: u64,
    len: u64,
}

impl ReadAt for Window {
    fn size(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        self.source
            .read_into(self.offset + offset, buf, "merged part")
            .map_err(|e| e.to_string())
    }
    fn as_slice(&self) -> Option<&[u8]> {
        let all = self.source.as_slice()?;
        all.get(self.offset as usize..(self.offset + self.len) as usize)
    }
}
