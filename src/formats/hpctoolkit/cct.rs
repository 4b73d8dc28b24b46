//! cct.db: the context info table (one context-major sparse value block per ctxId) and its
//! blocks, read on demand. Follows HPCToolkit `doc/FORMATS.md` "cct.db version 4.0" (same layout
//! in the 2022 drafts).

use super::layout::{self, section, Slot};
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

/// cct.db's header slot (FORMATS.md "cct.db version 4.0": szCtxInfos/pCtxInfos).
pub const CONTEXT_INFOS: Slot = (0, "context infos");

/// The header of the context infos section.
#[derive(Clone, Copy, Debug)]
pub struct CtxInfosHeader {
    pub p_ctxs: u64,
    /// Context infos stored: one per ctxId, the global context (0) included.
    pub n_ctxs: u32,
    pub sz_ctx: u8,
}

pub fn read_ctx_infos_header(src: &Source) -> Result<CtxInfosHeader> {
    let (_, sec) = section(src, CONTEXT_INFOS)?;
    Ok(CtxInfosHeader {
        p_ctxs: src.u64_le_at(sec, "pCtxs")?,
        n_ctxs: src.u32_le_at(sec + 0x08, "nCtxs")?,
        sz_ctx: src.u8_at(sec + 0x0c, "szCtx")?,
    })
}

pub fn read(src: &Source) -> Result<CctDb> {
    src.check(0, 0x20, "cct.db header")?;
    let minor_version = layout::version(src)?.1;
    let h = read_ctx_infos_header(src)?;
    let ctxs = src.table(
        h.p_ctxs,
        h.n_ctxs as u64,
        h.sz_ctx as u64,
        SZ_CTX,
        "context info",
    )?;
    Ok(CctDb {
        minor_version,
        ctxs,
    })
}

/// Per metric of a context: (metricId, first value, one past the last).
pub type MetricRuns = Vec<(u16, u64, u64)>;

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
    pub fn metric_runs(&self, src: &Source, ctx: u32) -> Result<Option<(ValueBlock, MetricRuns)>> {
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

/// Where a context's metric index lies: (offset, length).
pub fn index_range(b: &ValueBlock) -> (u64, u64) {
    (
        b.p_index,
        (b.n_index as u64).saturating_mul(SZ_METRIC_INDEX),
    )
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
mod tests;
