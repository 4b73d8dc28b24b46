//! prof2 `cct.db` (`HPCPROF-cctdb___`; seed 000, "cct.db version 4.0"): header, 22-byte Context
//! Info records indexed by context id, and each context's sparse value block ((value, profile index)
//! pairs, 12 bytes, then (metric id, first pair) pairs ended by `0x6564`), read lazily.
//! The seed's "ctx_off + idx * 10" contradicts its own 12-byte pairs; 12 is used.

use super::{Footer, Version};
use crate::bytes::{Endian, Source};
use crate::error::{Error, Result, Warning};

pub const MAGIC: &[u8; 16] = b"HPCPROF-cctdb___";
pub const FOOTER: Footer = Footer(*b"CCTDBftr");
pub const HEADER_SIZE: u64 = 40;
pub const CTX_INFO_SIZE: u64 = 22;
pub const VALUE_SIZE: u64 = 12;
pub const MID_PAIR_SIZE: u64 = 10;
pub const END_MARKER: u16 = 0x6564;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CtxInfo {
    pub ctx_id: u32,
    pub num_vals: u64,
    pub num_nzmids: u16,
    pub ctx_off: u64,
}

/// The header of a cct.db; context infos and values are read on demand.
#[derive(Clone, Debug)]
pub struct CctDb {
    pub src: Source,
    pub endian: Endian,
    pub version: Version,
    pub num_ctx: u32,
    pub num_sec: u16,
    pub ci_size: u64,
    pub ci_ptr: u64,
}

impl CctDb {
    pub fn read(src: &Source, warnings: &mut Vec<Warning>) -> Result<CctDb> {
        let version = Version::after_magic(src, MAGIC, "cct.db", warnings)?;
        let e = FOOTER.byte_order(src, 32, "cct.db", warnings)?;
        let db = CctDb {
            src: src.clone(),
            endian: e,
            version,
            num_ctx: src.u32_at(18, e, "number of contexts")?,
            num_sec: src.u16_at(22, e, "number of sections")?,
            ci_size: src.u64_at(24, e, "context info section size")?,
            ci_ptr: src.u64_at(32, e, "context info section offset")?,
        };
        src.table(
            db.ci_ptr,
            db.num_ctx as u64,
            CTX_INFO_SIZE,
            CTX_INFO_SIZE,
            "context info",
        )?;
        Ok(db)
    }

    /// Context Info record `i` (the seed places context id `c` at index `c`).
    pub fn info(&self, i: u32) -> Result<CtxInfo> {
        if i >= self.num_ctx {
            return Err(Error::invalid(
                self.src.name(),
                self.ci_ptr,
                format!("context {i} beyond the {} context infos", self.num_ctx),
            ));
        }
        let p = self.ci_ptr + i as u64 * CTX_INFO_SIZE;
        let e = self.endian;
        Ok(CtxInfo {
            ctx_id: self.src.u32_at(p, e, "context id")?,
            num_vals: self.src.u64_at(p + 4, e, "number of non-zero values")?,
            num_nzmids: self.src.u16_at(p + 12, e, "number of non-zero metrics")?,
            ctx_off: self
                .src
                .u64_at(p + 14, e, "context sparse value block offset")?,
        })
    }

    /// All context infos, in file order.
    pub fn infos(&self) -> Result<Vec<CtxInfo>> {
        (0..self.num_ctx).map(|i| self.info(i)).collect()
    }

    /// Every (metric id, profile index, value) of context `ctx`.
    pub fn values(&self, ctx: u32) -> Result<Vec<(u16, u32, f64)>> {
        let name = self.src.name();
        let info = self.info(ctx)?;
        if info.ctx_id != ctx {
            return Err(Error::invalid(
                name,
                self.ci_ptr + ctx as u64 * CTX_INFO_SIZE,
                format!("context info {ctx} holds context id {}", info.ctx_id),
            ));
        }
        if info.num_vals == 0 {
            return Ok(Vec::new());
        }
        let e = self.endian;
        let vals = self.src.table(
            info.ctx_off,
            info.num_vals,
            VALUE_SIZE,
            VALUE_SIZE,
            "context values",
        )?;
        let mids = self.src.table(
            info.ctx_off + vals.byte_len(),
            info.num_nzmids as u64 + 1,
            MID_PAIR_SIZE,
            MID_PAIR_SIZE,
            "context metric index",
        )?;
        let mut out = Vec::with_capacity(info.num_vals as usize);
        for m in 0..info.num_nzmids as u64 {
            let mid = self.src.u16_at(mids.offset(m), e, "metric id")?;
            let a = self.src.u64_at(mids.offset(m) + 2, e, "metric index")?;
            let b = self.src.u64_at(mids.offset(m + 1) + 2, e, "metric index")?;
            if a > b || b > info.num_vals {
                return Err(Error::invalid(
                    name,
                    mids.offset(m),
                    format!("context {ctx}: metric {mid} value range {a}..{b} out of order"),
                ));
            }
            for i in a..b {
                out.push((
                    mid,
                    self.src.u32_at(vals.offset(i) + 8, e, "profile index")?,
                    self.src.f64_at(vals.offset(i), e, "value")?,
                ));
            }
        }
        Ok(out)
    }

    /// Whether the stored values can be trusted: the seed stores only non-zero values, but the
    /// pre-release hpcprof2 wrote the blocks' shape and left them zero-filled. Looks at up to
    /// `budget` contexts that claim values; `true` when any value is non-zero or none claims any.
    pub fn has_nonzero_values(&self, budget: u32) -> Result<bool> {
        let e = self.endian;
        let mut looked = 0;
        for i in 0..self.num_ctx {
            if looked >= budget {
                break;
            }
            let info = self.info(i)?;
            if info.num_vals == 0 {
                continue;
            }
            looked += 1;
            let vals = self.src.table(
                info.ctx_off,
                info.num_vals.min(64),
                VALUE_SIZE,
                VALUE_SIZE,
                "context values",
            )?;
            for j in 0..vals.count {
                if self.src.f64_at(vals.offset(j), e, "value")? != 0.0 {
                    return Ok(true);
                }
            }
        }
        Ok(looked == 0)
    }
}
