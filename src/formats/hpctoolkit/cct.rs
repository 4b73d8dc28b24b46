//! cct.db: the context info table (one context-major sparse value block per ctxId) and its
//! blocks, read on demand. Follows HPCToolkit `doc/FORMATS.md` "cct.db version 4.0" (same layout
//! in the 2022 drafts).

use super::layout::{self, ArrayHeader, Slot};
use super::profile::{index_runs, lower_bound, read_block_header, ValueBlock};
use crate::bytes::{le16, le32, le64, Source, Table};
use crate::error::Result;

const SZ_CTX: u64 = 0x20;
const SZ_VALUE: u64 = 12;
const SZ_METRIC_INDEX: u64 = 10;

/// One (profIndex, value) pair of a context-major block.
fn value_pair(v: &[u8; SZ_VALUE as usize]) -> (u32, f64) {
    (le32(v, 0), f64::from_bits(le64(v, 4)))
}

/// One (metricId, index of its first value) entry of a context's metric index.
fn metric_entry(e: &[u8; SZ_METRIC_INDEX as usize]) -> (u16, u64) {
    (le16(e, 0), le64(e, 2))
}

#[derive(Clone, Debug)]
pub struct CctDb {
    pub minor_version: u8,
    /// Context infos: record `i` holds the values of ctxId `i` (0 = the global context).
    pub ctxs: Table,
}

/// cct.db's header slot (FORMATS.md "cct.db version 4.0": szCtxInfos/pCtxInfos).
pub const CONTEXT_INFOS: Slot = (0, "context infos");

/// The context infos' header: one info per ctxId stored, the global context (0) included.
pub fn read_ctx_infos_header(src: &Source) -> Result<ArrayHeader> {
    layout::array_header(src, CONTEXT_INFOS, ["pCtxs", "nCtxs", "szCtx"])
}

pub fn read(src: &Source) -> Result<CctDb> {
    src.check(0, 0x20, "cct.db header")?;
    let minor_version = layout::version(src)?.1;
    let h = read_ctx_infos_header(src)?;
    let ctxs = h.table(src, SZ_CTX, "context info")?;
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
        let entries = ibytes.as_chunks().0.iter().map(metric_entry);
        let mut out = Vec::with_capacity(b.n_values as usize);
        // Runs never overlap (index_runs): at most n_values values come out.
        let values = vbytes.as_chunks().0;
        for (metric, first, end) in index_runs(entries, b.n_values) {
            for v in &values[first as usize..end as usize] {
                let (prof, x) = value_pair(v);
                out.push((metric, prof, x));
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
        let entries = ibytes.as_chunks().0.iter().map(metric_entry);
        Ok(Some((b, index_runs(entries, b.n_values))))
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
        Ok(bytes.as_chunks().0.iter().map(value_pair).collect())
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
