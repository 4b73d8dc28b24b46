//! prof2 `profile.db` (`HPCPROF-profdb__`; seed 000, "profile.db version 4.0"): header, 52-byte
//! Profile Info records, hierarchical identifier tuples, and each profile's sparse value block
//! ((value, metric id) pairs then (context id, first pair) pairs ended by `0x656E6421`), read lazily.

use super::{Footer, Version};
use crate::bytes::{Endian, Slice, Source, Table};
use crate::error::{Error, ErrorKind, Result, Warning};

pub const MAGIC: &[u8; 16] = b"HPCPROF-profdb__";
pub const FOOTER: Footer = Footer(*b"PROFDBft");
/// Size of the fixed header fields (the real writer pads the header to 0x80).
pub const HEADER_SIZE: u64 = 56;
pub const PROF_INFO_SIZE: u64 = 52;
pub const ID_ELEM_SIZE: u64 = 18;
pub const VALUE_SIZE: u64 = 10;
pub const CTX_PAIR_SIZE: u64 = 12;
pub const END_MARKER: u32 = 0x656E_6421;

/// One element of a hierarchical identifier tuple, as stored: `kind` keeps the writer's flag bits
/// (hpcrun stores how to interpret the ids in bits 14-15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct IdElem {
    pub kind: u16,
    pub physical: u64,
    pub logical: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ProfInfo {
    pub idt_ptr: u64,
    pub metadata_ptr: u64,
    pub spare_one: u64,
    pub spare_two: u64,
    pub num_vals: u64,
    pub num_nzctxs: u32,
    pub prof_off: u64,
    pub id_tuple: Vec<IdElem>,
}

impl ProfInfo {
    /// Bytes of the sparse value block.
    fn block_len(&self) -> Option<u64> {
        self.num_vals
            .checked_mul(VALUE_SIZE)?
            .checked_add((self.num_nzctxs as u64 + 1).checked_mul(CTX_PAIR_SIZE)?)
    }
}

/// The header and profile infos of a profile.db; value blocks are read on demand.
#[derive(Clone, Debug)]
pub struct ProfileDb {
    pub src: Source,
    pub endian: Endian,
    pub version: Version,
    pub num_sec: u16,
    pub pi_size: u64,
    pub pi_ptr: u64,
    pub idt_size: u64,
    pub idt_ptr: u64,
    pub profiles: Vec<ProfInfo>,
}

impl ProfileDb {
    /// Reads the header, every Profile Info and identifier tuple, and checks that each value block
    /// lies in the file and ends with its marker (warnings otherwise: the other profiles still read).
    pub fn read(src: &Source, warnings: &mut Vec<Warning>) -> Result<ProfileDb> {
        let name = src.name();
        let version = Version::after_magic(src, MAGIC, "profile.db", warnings)?;
        let e = FOOTER.byte_order(src, 32, "profile.db", warnings)?;
        let num_prof = src.u32_at(18, e, "number of profiles")?;
        let num_sec = src.u16_at(22, e, "number of sections")?;
        let pi_size = src.u64_at(24, e, "profile info section size")?;
        let pi_ptr = src.u64_at(32, e, "profile info section offset")?;
        let idt_size = src.u64_at(40, e, "identifier tuple section size")?;
        let idt_ptr = src.u64_at(48, e, "identifier tuple section offset")?;
        let table = src.table(
            pi_ptr,
            num_prof as u64,
            PROF_INFO_SIZE,
            PROF_INFO_SIZE,
            "profile info",
        )?;
        if pi_size < table.byte_len() {
            warnings.push(Error::invalid(
                name,
                24,
                format!(
                    "profile info section size {pi_size} is smaller than {num_prof} x {PROF_INFO_SIZE} bytes"
                ),
            ));
        }
        let bytes = src.bytes(pi_ptr, table.byte_len(), "profile info section")?;
        let s = Slice::new(&bytes, pi_ptr, name);
        let u64e = |p: usize, w: &str| match e {
            Endian::Big => s.u64_be(p, w),
            Endian::Little => s.u64_le(p, w),
        };
        let mut profiles = Vec::with_capacity(num_prof as usize);
        for i in 0..num_prof as usize {
            let p = i * PROF_INFO_SIZE as usize;
            let num_nzctxs = match e {
                Endian::Big => s.u32_be(p + 40, "number of non-zero contexts")?,
                Endian::Little => s.u32_le(p + 40, "number of non-zero contexts")?,
            };
            let mut info = ProfInfo {
                idt_ptr: u64e(p, "identifier tuple pointer")?,
                metadata_ptr: u64e(p + 8, "metadata pointer")?,
                spare_one: u64e(p + 16, "spare one pointer")?,
                spare_two: u64e(p + 24, "spare two pointer")?,
                num_vals: u64e(p + 32, "number of non-zero values")?,
                num_nzctxs,
                prof_off: u64e(p + 44, "profile sparse value block offset")?,
                id_tuple: Vec::new(),
            };
            if info.idt_ptr != 0 {
                info.id_tuple = read_id_tuple(src, e, info.idt_ptr)
                    .map_err(|err| err.context(format!("profile {i}")))?;
            }
            check_block(src, e, i, &info, warnings);
            profiles.push(info);
        }
        Ok(ProfileDb {
            src: src.clone(),
            endian: e,
            version,
            num_sec,
            pi_size,
            pi_ptr,
            idt_size,
            idt_ptr,
            profiles,
        })
    }

    fn info(&self, prof: usize) -> Result<&ProfInfo> {
        self.profiles.get(prof).ok_or_else(|| {
            Error::invalid(
                self.src.name(),
                self.pi_ptr,
                format!("profile index {prof} out of range"),
            )
        })
    }

    /// The context index of a profile: (context id, index of its first value) pairs after its
    /// values, end pair included.
    fn ctx_index(&self, info: &ProfInfo) -> Result<Table> {
        let start = info
            .num_vals
            .checked_mul(VALUE_SIZE)
            .and_then(|v| v.checked_add(info.prof_off))
            .ok_or_else(|| {
                Error::too_large(self.src.name(), info.prof_off, "profile value block")
            })?;
        self.src.table(
            start,
            info.num_nzctxs as u64 + 1,
            CTX_PAIR_SIZE,
            CTX_PAIR_SIZE,
            "profile context index",
        )
    }

    /// The (context id, index of its first value) pairs of a profile, end pair included.
    fn ctx_pairs(&self, info: &ProfInfo) -> Result<Vec<(u32, u64)>> {
        let name = self.src.name();
        let t = self.ctx_index(info)?;
        let bytes = self
            .src
            .bytes(t.ptr, t.byte_len(), "profile context index")?;
        let s = Slice::new(&bytes, t.ptr, name);
        let mut out = Vec::with_capacity(t.count as usize);
        for i in 0..t.count as usize {
            let p = i * CTX_PAIR_SIZE as usize;
            let (ctx, idx) = match self.endian {
                Endian::Big => (
                    s.u32_be(p, "context id")?,
                    s.u64_be(p + 4, "context index")?,
                ),
                Endian::Little => (
                    s.u32_le(p, "context id")?,
                    s.u64_le(p + 4, "context index")?,
                ),
            };
            out.push((ctx, idx));
        }
        Ok(out)
    }

    /// Every (context id, metric id, value) of profile `prof`, in file order.
    pub fn values(&self, prof: usize) -> Result<Vec<(u32, u16, f64)>> {
        let info = self.info(prof)?;
        let name = self.src.name();
        let pairs = self.ctx_pairs(info)?;
        let t = self.src.table(
            info.prof_off,
            info.num_vals,
            VALUE_SIZE,
            VALUE_SIZE,
            "profile values",
        )?;
        let bytes = self.src.bytes(t.ptr, t.byte_len(), "profile values")?;
        let s = Slice::new(&bytes, t.ptr, name);
        let mut out = Vec::with_capacity(t.count as usize);
        for w in pairs.windows(2) {
            let ((ctx, a), (_, b)) = (w[0], w[1]);
            if a > b || b > info.num_vals {
                return Err(Error::invalid(
                    name,
                    info.prof_off + info.num_vals * VALUE_SIZE,
                    format!("profile {prof}: context {ctx} value range {a}..{b} out of order or past {} values", info.num_vals),
                ));
            }
            for i in a..b {
                let p = (i * VALUE_SIZE) as usize;
                let (v, m) = match self.endian {
                    Endian::Big => (s.f64_be(p, "value")?, s.u16_be(p + 8, "metric id")?),
                    Endian::Little => (s.f64_le(p, "value")?, s.u16_le(p + 8, "metric id")?),
                };
                out.push((ctx, m, v));
            }
        }
        Ok(out)
    }

    /// The (metric id, value) pairs of one context in profile `prof`, by binary search over the
    /// profile's context index (sorted by context id, as the seed describes).
    pub fn context_values(&self, prof: usize, ctx: u32) -> Result<Vec<(u16, f64)>> {
        let info = self.info(prof)?;
        let name = self.src.name();
        let t = self.ctx_index(info)?;
        let e = self.endian;
        let (mut lo, mut hi) = (0u64, info.num_nzctxs as u64);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let c = self.src.u32_at(t.offset(mid), e, "context id")?;
            if c == ctx {
                let a = self.src.u64_at(t.offset(mid) + 4, e, "context index")?;
                let b = self.src.u64_at(t.offset(mid + 1) + 4, e, "context index")?;
                if a > b || b > info.num_vals {
                    return Err(Error::invalid(
                        name,
                        t.offset(mid),
                        format!("context {ctx} value range {a}..{b} out of order"),
                    ));
                }
                let mut out = Vec::with_capacity((b - a) as usize);
                for i in a..b {
                    let p = info.prof_off + i * VALUE_SIZE;
                    out.push((
                        self.src.u16_at(p + 8, e, "metric id")?,
                        self.src.f64_at(p, e, "value")?,
                    ));
                }
                return Ok(out);
            }
            if c < ctx {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(Vec::new())
    }
}

fn read_id_tuple(src: &Source, e: Endian, ptr: u64) -> Result<Vec<IdElem>> {
    let len = src.u16_at(ptr, e, "identifier tuple length")?;
    let t = src.table(
        ptr + 2,
        len as u64,
        ID_ELEM_SIZE,
        ID_ELEM_SIZE,
        "identifier",
    )?;
    let mut out = Vec::with_capacity(len as usize);
    for i in 0..t.count {
        let p = t.offset(i);
        out.push(IdElem {
            kind: src.u16_at(p, e, "identifier kind")?,
            physical: src.u64_at(p + 2, e, "identifier physical value")?,
            logical: src.u64_at(p + 10, e, "identifier logical value")?,
        });
    }
    Ok(out)
}

/// Warns when a profile's value block leaves the file or lacks its end marker.
fn check_block(src: &Source, e: Endian, i: usize, info: &ProfInfo, warnings: &mut Vec<Warning>) {
    let name = src.name();
    let fits = info
        .block_len()
        .and_then(|l| info.prof_off.checked_add(l))
        .is_some_and(|end| end <= src.len());
    if !fits {
        warnings.push(Error::at(
            ErrorKind::Truncated,
            name,
            info.prof_off,
            format!(
                "profile {i}: value block of {} values and {} contexts does not fit in the file",
                info.num_vals, info.num_nzctxs
            ),
        ));
        return;
    }
    let end = info.prof_off + info.num_vals * VALUE_SIZE + info.num_nzctxs as u64 * CTX_PAIR_SIZE;
    let marker = src.u32_at(end, e, "end marker").unwrap_or(0);
    let last = src.u64_at(end + 4, e, "end index").unwrap_or(u64::MAX);
    if marker != END_MARKER || last != info.num_vals {
        warnings.push(Error::invalid(
            name,
            end,
            format!(
                "profile {i}: end pair ({marker:#x}, {last}) is not (0x656e6421, {})",
                info.num_vals
            ),
        ));
    }
}
