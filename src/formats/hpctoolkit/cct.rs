//! cct.db: the context info table (one context-major sparse value block per ctxId) and its
//! blocks, read on demand. Follows HPCToolkit `doc/FORMATS.md` "cct.db version 4.0" (same layout
//! in the 2022 drafts).

use super::profile::{lower_bound, read_block_header, ValueBlock};
use crate::bytes::{Source, Table};
use crate::error::Result;

const SZ_CTX: u64 = 0x20;
const SZ_VALUE: u64 = 12;
const SZ_METRIC_INDEX: u64 = 10;

#[derive(Clone, Debug)]
pub struct CctDb {
    pub minor_version: u8,
    /// Context infos: record `i` holds the values of ctxId `i` (0 = the global context).
    pub ctxs: Table,
}

pub fn read(src: &Source) -> Result<CctDb> {
    src.check(0, 0x20, "cct.db header")?;
    let minor_version = src.u8_at(0x0f, "minor version")?;
    let sec = src.u64_le_at(0x18, "pCtxInfos")?;
    let p = src.u64_le_at(sec, "pCtxs")?;
    let n = src.u32_le_at(sec + 0x08, "nCtxs")?;
    let sz = src.u8_at(sec + 0x0c, "szCtx")?;
    let ctxs = src.table(p, n as u64, sz as u64, SZ_CTX, "context info")?;
    Ok(CctDb {
        minor_version,
        ctxs,
    })
}

/// Values of one context as stored: (metricId, profIndex, value) in file order.
pub type ContextValues = Vec<(u16, u32, f64)>;

impl CctDb {
    pub fn n_ctxs(&self) -> u64 {
        self.ctxs.count
    }

    pub fn block(&self, src: &Source, ctx: u32) -> Result<Option<ValueBlock>> {
        if ctx as u64 >= self.ctxs.count {
            return Ok(None);
        }
        read_block_header(src, self.ctxs.offset(ctx as u64), true).map(Some)
    }

    /// Every value of context `ctx`; empty for a ctxId beyond the table. A metric's run ends
    /// where the next one starts (clipped, never an error).
    pub fn values(&self, src: &Source, ctx: u32) -> Result<ContextValues> {
        let Some(b) = self.block(src, ctx)? else {
            return Ok(Vec::new());
        };
        let vals = values_table(src, &b)?;
        let idx = index_table(src, &b)?;
        let vbytes = src.bytes(vals.ptr, vals.byte_len(), "context values")?;
        let ibytes = src.bytes(idx.ptr, idx.byte_len(), "context metric indices")?;
        let entries: Vec<(u16, u64)> = ibytes
            .chunks_exact(SZ_METRIC_INDEX as usize)
            .map(|e| {
                let mut s = [0u8; 8];
                s.copy_from_slice(&e[2..10]);
                (u16::from_le_bytes([e[0], e[1]]), u64::from_le_bytes(s))
            })
            .collect();
        let mut out = Vec::with_capacity(b.n_values as usize);
        // Runs never overlap (see profile::read_index): at most n_values values come out.
        let mut done = 0u64;
        for (i, &(metric, start)) in entries.iter().enumerate() {
            let end = entries
                .get(i + 1)
                .map(|e| e.1)
                .unwrap_or(b.n_values)
                .min(b.n_values);
            let first = start.max(done).min(end);
            done = done.max(end);
            for k in first..end {
                let v = &vbytes[(k * SZ_VALUE) as usize..((k + 1) * SZ_VALUE) as usize];
                let mut f = [0u8; 8];
                f.copy_from_slice(&v[4..12]);
                out.push((
                    metric,
                    u32::from_le_bytes([v[0], v[1], v[2], v[3]]),
                    f64::from_le_bytes(f),
                ));
            }
        }
        Ok(out)
    }

    /// The metric index of context `ctx` without its values: the block header and, per metric,
    /// (metricId, first value, one past the last), clipped like [`CctDb::values`]. A run's length
    /// is the number of profiles with a value of that metric there. `None` beyond the table.
    pub fn metric_runs(
        &self,
        src: &Source,
        ctx: u32,
    ) -> Result<Option<(ValueBlock, Vec<(u16, u64, u64)>)>> {
        let Some(b) = self.block(src, ctx)? else {
            return Ok(None);
        };
        values_table(src, &b)?;
        let idx = index_table(src, &b)?;
        let ibytes = src.bytes(idx.ptr, idx.byte_len(), "context metric indices")?;
        let entry = |e: &[u8]| {
            let mut s = [0u8; 8];
            s.copy_from_slice(&e[2..10]);
            (u16::from_le_bytes([e[0], e[1]]), u64::from_le_bytes(s))
        };
        let mut runs = Vec::with_capacity(idx.count as usize);
        let mut it = ibytes
            .chunks_exact(SZ_METRIC_INDEX as usize)
            .map(entry)
            .peekable();
        // Runs never overlap (see profile::read_index).
        let mut done = 0u64;
        while let Some((metric, start)) = it.next() {
            let end = it.peek().map(|e| e.1).unwrap_or(b.n_values).min(b.n_values);
            runs.push((metric, start.max(done).min(end), end));
            done = done.max(end);
        }
        Ok(Some((b, runs)))
    }

    /// Values `a..end` of a context's block (a run from [`CctDb::metric_runs`]): (profIndex,
    /// value), in one read.
    pub fn run_values(src: &Source, b: &ValueBlock, a: u64, end: u64) -> Result<Vec<(u32, f64)>> {
        let vals = values_table(src, b)?;
        let (a, end) = (a.min(vals.count), end.min(vals.count));
        let bytes = src.bytes(
            vals.offset(a),
            end.saturating_sub(a) * SZ_VALUE,
            "context values",
        )?;
        Ok(bytes
            .chunks_exact(SZ_VALUE as usize)
            .map(|v| {
                let mut f = [0u8; 8];
                f.copy_from_slice(&v[4..12]);
                (
                    u32::from_le_bytes([v[0], v[1], v[2], v[3]]),
                    f64::from_le_bytes(f),
                )
            })
            .collect())
    }

    /// Values of one metric at one context: (profIndex, value), found by binary search over the
    /// sorted metric indices through the source.
    pub fn metric_values(&self, src: &Source, ctx: u32, metric: u16) -> Result<Vec<(u32, f64)>> {
        let Some(b) = self.block(src, ctx)? else {
            return Ok(Vec::new());
        };
        let idx = index_table(src, &b)?;
        let met_at = |i: u64| src.u16_le_at(idx.offset(i), "metricId");
        let Some(i) = lower_bound(idx.count, |i| Ok(met_at(i)? < metric))? else {
            return Ok(Vec::new());
        };
        if met_at(i)? != metric {
            return Ok(Vec::new());
        }
        let start = src
            .u64_le_at(idx.offset(i) + 2, "startIndex")?
            .min(b.n_values);
        let end = if i + 1 < idx.count {
            src.u64_le_at(idx.offset(i + 1) + 2, "startIndex")?
                .min(b.n_values)
        } else {
            b.n_values
        };
        Self::run_values(src, &b, start, end)
    }
}

/// A block's (profIndex, value) pairs, checked against the file.
fn values_table(src: &Source, b: &ValueBlock) -> Result<Table> {
    src.table(b.p_values, b.n_values, SZ_VALUE, SZ_VALUE, "context value")
}

/// A block's (metricId, startIndex) index, checked against the file.
fn index_table(src: &Source, b: &ValueBlock) -> Result<Table> {
    src.table(
        b.p_index,
        b.n_index as u64,
        SZ_METRIC_INDEX,
        SZ_METRIC_INDEX,
        "context metric index",
    )
}

#[cfg(test)]
mod tests {
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
}
