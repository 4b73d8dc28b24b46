//! One thread's metric database (`*.metric-db`, written by hpcprof-mpi, also stored whole inside
//! experiment.mdb): a 32-byte header (`HPCPROF-metricdb__`, a 5-byte version, `b` for big-endian,
//! u32 node count, u32 metric count), then for each node id 1..=count one big-endian f64 per
//! metric. Follows hatchet's `read_metricdb_file` and hpcviewer's `ThreadLevelDataFile`.

use crate::bytes::Source;
use crate::error::{Error, Result};

pub const MAGIC: &[u8; 18] = b"HPCPROF-metricdb__";
/// Bytes before the first row.
pub const HEADER_LEN: u64 = 32;
/// Rows read per chunk when a whole thread is read: bounds the memory of one read.
const CHUNK_BYTES: u64 = 1 << 20;

/// A thread's metric database, located inside a source (a file of its own, or a part of a merged
/// experiment.mdb).
#[derive(Clone, Debug)]
pub struct MetricDbFile {
    pub source: Source,
    /// Offset of the header in `source`.
    pub base: u64,
    pub version: String,
    pub num_nodes: u32,
    pub num_metrics: u32,
}

impl MetricDbFile {
    /// Reads the header at `base`; `len` is the room the file has (its size, or its part of a
    /// merged file). A claimed size beyond that room is an error, so nothing is sized by it.
    pub fn open(source: &Source, base: u64, len: u64) -> Result<MetricDbFile> {
        let name = source.name();
        let head: [u8; 32] = source.array(base, "metric-db header")?;
        if &head[..18] != MAGIC {
            return Err(Error::bad_magic(
                name,
                base,
                format!(
                    "metric-db magic {:?} (expected {:?})",
                    String::from_utf8_lossy(&head[..18]),
                    String::from_utf8_lossy(MAGIC)
                ),
            ));
        }
        let version = String::from_utf8_lossy(&head[18..23]).into_owned();
        if head[23] != b'b' {
            return Err(Error::unsupported(
                name,
                Some(base + 23),
                format!(
                    "metric-db byte order {:?} (only big-endian, 'b', is written)",
                    head[23] as char
                ),
            ));
        }
        let num_nodes = u32::from_be_bytes([head[24], head[25], head[26], head[27]]);
        let num_metrics = u32::from_be_bytes([head[28], head[29], head[30], head[31]]);
        if num_metrics > u16::MAX as u32 + 1 {
            return Err(Error::too_large(
                name,
                base + 28,
                format!("metric-db claims {num_metrics} metrics (at most 65536 are addressable)"),
            ));
        }
        let body = (num_nodes as u64)
            .checked_mul(num_metrics as u64)
            .and_then(|v| v.checked_mul(8))
            .and_then(|v| v.checked_add(HEADER_LEN));
        match body {
            Some(b) if b <= len => {}
            _ => {
                return Err(Error::truncated(
                    name,
                    base + 24,
                    format!(
                        "metric-db claims {num_nodes} nodes x {num_metrics} metrics, more than its {len} bytes hold"
                    ),
                ))
            }
        }
        Ok(MetricDbFile {
            source: source.clone(),
            base,
            version,
            num_nodes,
            num_metrics,
        })
    }

    fn row_len(&self) -> u64 {
        self.num_metrics as u64 * 8
    }

    /// The values of node id `id` (1-based), as (metric column, value) for the non-zero ones.
    pub fn row(&self, id: u32) -> Result<Vec<(u16, f64)>> {
        if id == 0 || id > self.num_nodes {
            return Ok(Vec::new());
        }
        let off = self.base + HEADER_LEN + (id as u64 - 1) * self.row_len();
        let bytes = self.source.bytes(off, self.row_len(), "metric-db row")?;
        Ok(decode_row(&bytes))
    }

    /// Calls `f(id, column, value)` for every non-zero value, rows in id order, reading at most
    /// about a megabyte at a time.
    pub fn for_each(&self, mut f: impl FnMut(u32, u16, f64)) -> Result<()> {
        let row = self.row_len();
        if row == 0 {
            return Ok(());
        }
        let rows_per_chunk = (CHUNK_BYTES / row).max(1);
        let mut first = 0u64;
        while first < self.num_nodes as u64 {
            let n = rows_per_chunk.min(self.num_nodes as u64 - first);
            let off = self.base + HEADER_LEN + first * row;
            let bytes = self.source.bytes(off, n * row, "metric-db rows")?;
            for (r, chunk) in bytes.chunks_exact(row as usize).enumerate() {
                let id = (first + r as u64 + 1) as u32;
                for (col, v) in decode_row(chunk) {
                    f(id, col, v);
                }
            }
            first += n;
        }
        Ok(())
    }
}

/// The non-zero big-endian f64s of one row, with their column.
fn decode_row(bytes: &[u8]) -> Vec<(u16, f64)> {
    bytes
        .chunks_exact(8)
        .enumerate()
        .filter_map(|(i, b)| {
            let v = f64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            (v != 0.0).then_some((i as u16, v))
        })
        .collect()
}

/// Rank and thread from an hpcrun-style file name (`prog-RANK-THREAD-HOST-PID-GEN.ext`, as
/// hpcviewer's MergeDataFiles reads them; some hpcprof versions put one more field first).
pub fn rank_thread(path: &str) -> Option<(u32, u32)> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = &name[..name.rfind('.')?];
    let tokens: Vec<&str> = stem.split('-').collect();
    let n = tokens.len();
    for shift in [0, 1] {
        let (Some(r), Some(t)) = (
            n.checked_sub(5 - shift).and_then(|i| tokens.get(i)),
            n.checked_sub(4 - shift).and_then(|i| tokens.get(i)),
        ) else {
            return None;
        };
        if let (Ok(r), Ok(t)) = (r.parse(), t.parse()) {
            return Some((r, t));
        }
    }
    None
}
