//! profile.db: profile infos (profile-major sparse value block headers, identifier tuples, the
//! summary flag) and the value blocks themselves, read on demand. Follows HPCToolkit
//! `doc/FORMATS.md` "profile.db version 4.0"; the 2022 drafts lack the `flags` field.

use super::layout::{self, section, ArrayHeader, Slot};
use crate::bytes::{le16, le32, le64, Slice, Source, Table};
use crate::error::Result;

/// Known prefix of a profile info record: value block (0x20) + pIdTuple, and + flags (final).
const SZ_PROFILE_DRAFT: u64 = 0x28;
const SZ_PROFILE_FINAL: u64 = 0x2c;
const SZ_VALUE: u64 = 10;
const SZ_CTX_INDEX: u64 = 12;

/// One (metricId, value) pair of a profile-major block.
pub fn value_pair(p: &[u8; SZ_VALUE as usize]) -> (u16, f64) {
    (le16(p, 0), f64::from_bits(le64(p, 2)))
}
const SZ_IDENTIFIER: u64 = 16;

/// Header of a sparse value block (profile-major in profile.db, context-major in cct.db).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValueBlock {
    pub n_values: u64,
    pub p_values: u64,
    /// nCtxs (profile.db) or nMetrics (cct.db).
    pub n_index: u32,
    pub p_index: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawIdentifier {
    pub kind: u8,
    pub flags: u16,
    pub logical_id: u32,
    pub physical_id: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRecord {
    pub block: ValueBlock,
    /// Where the identifier tuple lies in [`ProfileDb::identifiers`]; `None` when `pIdTuple`
    /// is 0 (the canonical summary profile). See [`ProfileDb::id_tuple`].
    pub id_tuple: Option<std::ops::Range<usize>>,
    /// `None` in draft layouts, which have no flags.
    pub flags: Option<u32>,
}

impl ProfileRecord {
    pub fn is_summary(&self, index: usize) -> bool {
        match self.flags {
            Some(f) => f & 1 != 0,
            // Drafts: "the first is classified as the summary profile".
            None => index == 0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ProfileDb {
    pub minor_version: u8,
    /// `szProfile` as stated (40 in the drafts, 48 in real final files).
    pub sz_profile: u8,
    pub profiles: Vec<ProfileRecord>,
    /// Every profile's identifier tuple, one after the other (one allocation for all).
    pub identifiers: Vec<RawIdentifier>,
}

impl ProfileDb {
    /// The identifier tuple of profile `prof`: `None` when it has none (`pIdTuple` 0).
    pub fn id_tuple(&self, prof: usize) -> Option<&[RawIdentifier]> {
        let r = self.profiles.get(prof)?.id_tuple.clone()?;
        self.identifiers.get(r)
    }
}

/// profile.db's header slots (FORMATS.md "profile.db version 4.0": szProfileInfos/pProfileInfos,
/// szIdTuples/pIdTuples).
pub const PROFILE_INFOS: Slot = (0, "profile infos");
pub const ID_TUPLES: Slot = (1, "identifier tuples");

/// The header of the profile infos section.
/// The profile infos' header: the profiles stored (the summary profile included) and their
/// stride, 40 in the drafts, 48 in real final files.
pub fn read_infos_header(src: &Source) -> Result<ArrayHeader> {
    layout::array_header(src, PROFILE_INFOS, ["pProfiles", "nProfiles", "szProfile"])
}

/// `szProfile`, the stride that tells a final file (with flags) from a draft one.
pub fn profile_stride(src: &Source) -> Result<u8> {
    Ok(read_infos_header(src)?.stride)
}

/// Where a profile-major block's context index and values lie: (offset, length) of each.
pub fn block_ranges(b: &ValueBlock) -> [(u64, u64); 2] {
    [
        (b.p_index, (b.n_index as u64).saturating_mul(SZ_CTX_INDEX)),
        (b.p_values, b.n_values.saturating_mul(SZ_VALUE)),
    ]
}

pub fn read_block_header(src: &Source, o: u64, n_index_u16: bool) -> Result<ValueBlock> {
    let bytes = src.bytes(o, 0x20, "sparse value block header")?;
    let s = Slice::new(&bytes, o, src.name());
    Ok(ValueBlock {
        n_values: s.u64_le(0, "nValues")?,
        p_values: s.u64_le(8, "pValues")?,
        n_index: if n_index_u16 {
            s.u16_le(0x10, "nMetrics")? as u32
        } else {
            s.u32_le(0x10, "nCtxs")?
        },
        p_index: s.u64_le(0x18, "index array pointer")?,
    })
}

pub fn read(src: &Source) -> Result<ProfileDb> {
    src.check(0, 0x30, "profile.db header")?;
    let minor_version = layout::version(src)?.1;
    let infos = read_infos_header(src)?;
    let sz_profile = infos.stride;
    let has_flags = sz_profile as u64 >= 0x30;
    let min = if has_flags {
        SZ_PROFILE_FINAL
    } else {
        SZ_PROFILE_DRAFT
    };
    let table = infos.table(src, min, "profile info")?;
    let bytes = src.bytes(table.ptr, table.byte_len(), "profile infos")?;
    // The IdTuples section in one read (one small read per tuple otherwise); an implausible
    // section header (the header itself was checked above) just means every tuple is read from
    // the file.
    let (sz_tuples, p_tuples) = section(src, ID_TUPLES).unwrap_or((0, 0));
    let tuple_bytes = if src.check(p_tuples, sz_tuples, "").is_ok() && sz_tuples <= 1 << 30 {
        src.bytes(p_tuples, sz_tuples, "identifier tuples")?
    } else {
        std::borrow::Cow::Borrowed(&[][..])
    };
    let tuples = Slice::new(&tuple_bytes, p_tuples, src.name());
    let s = Slice::new(&bytes, table.ptr, src.name());
    let mut profiles = Vec::with_capacity(table.count as usize);
    let mut identifiers = Vec::with_capacity(tuple_bytes.len() / SZ_IDENTIFIER as usize);
    for i in 0..table.count as usize {
        // The known prefix of the record (the table's stride is at least this long).
        let r: [u8; SZ_PROFILE_FINAL as usize] = if has_flags {
            s.array(i * table.stride as usize, "profile info")?
        } else {
            let mut r = [0u8; SZ_PROFILE_FINAL as usize];
            let d: [u8; SZ_PROFILE_DRAFT as usize] =
                s.array(i * table.stride as usize, "profile info")?;
            r[..SZ_PROFILE_DRAFT as usize].copy_from_slice(&d);
            r
        };
        let block = ValueBlock {
            n_values: le64(&r, 0),
            p_values: le64(&r, 8),
            n_index: le32(&r, 0x10),
            p_index: le64(&r, 0x18),
        };
        let p_tuple = le64(&r, 0x20);
        let flags = has_flags.then(|| le32(&r, 0x28));
        let id_tuple = if p_tuple == 0 {
            None
        } else {
            Some(read_id_tuple(src, &tuples, p_tuple, &mut identifiers)?)
        };
        profiles.push(ProfileRecord {
            block,
            id_tuple,
            flags,
        });
    }
    // Reserved from the section size, which also counts the tuples' headers.
    identifiers.shrink_to_fit();
    Ok(ProfileDb {
        minor_version,
        sz_profile,
        profiles,
        identifiers,
    })
}

/// Reads the identifier tuple at `p` onto `out`, returning where it lies there: from `section`
/// (the IdTuples section, read once) when it holds the whole tuple, else from the file.
fn read_id_tuple(
    src: &Source,
    section: &Slice,
    p: u64,
    out: &mut Vec<RawIdentifier>,
) -> Result<std::ops::Range<usize>> {
    let in_section = |off: u64, len: u64| -> Option<&[u8]> {
        let rel = usize::try_from(off.checked_sub(section.base)?).ok()?;
        let end = rel.checked_add(usize::try_from(len).ok()?)?;
        section.data.get(rel..end)
    };
    let n = match in_section(p, 2) {
        Some(b) => u16::from_le_bytes([b[0], b[1]]),
        None => src.u16_le_at(p, "nIds")?,
    };
    let len = n as u64 * SZ_IDENTIFIER;
    let owned;
    let bytes: &[u8] = match in_section(p + 8, len) {
        Some(b) => b,
        None => {
            let t = src.table(p + 8, n as u64, SZ_IDENTIFIER, SZ_IDENTIFIER, "identifier")?;
            owned = src.bytes(t.ptr, t.byte_len(), "identifier tuple")?;
            &owned
        }
    };
    let start = out.len();
    out.extend(bytes.chunks_exact(SZ_IDENTIFIER as usize).map(|e| {
        let mut r = [0u8; SZ_IDENTIFIER as usize];
        r.copy_from_slice(e);
        RawIdentifier {
            kind: r[0],
            flags: le16(&r, 2),
            logical_id: le32(&r, 4),
            physical_id: le64(&r, 8),
        }
    }));
    Ok(start..out.len())
}

/// The values of one profile-major block, as stored: `ctx` holds (ctxId, first value index,
/// one past the last) per non-empty context in file order; `metric`/`value` the pairs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileValues {
    pub ctx: Vec<(u32, u64, u64)>,
    pub metric: Vec<u16>,
    pub value: Vec<f64>,
}

impl ProfileValues {
    /// (ctxId, metricId, value) in file order.
    pub fn triples(&self) -> impl Iterator<Item = (u32, u16, f64)> + '_ {
        self.ctx.iter().flat_map(move |&(c, a, b)| {
            (a as usize..b as usize).map(move |i| (c, self.metric[i], self.value[i]))
        })
    }
}

/// The context index of a profile-major block: (ctxId, first value index) entries.
fn ctx_index(src: &Source, b: &ValueBlock) -> Result<Table> {
    src.table(
        b.p_index,
        b.n_index as u64,
        SZ_CTX_INDEX,
        SZ_CTX_INDEX,
        "profile context index",
    )
}

/// Reads the context index of a profile-major block: per non-empty context (ctxId, first value
/// index, one past the last) in file order. A context's run ends where the next one starts (the
/// last at `nValues`); runs that would go backwards or past the end are clipped to empty, never
/// an error.
pub fn read_index(src: &Source, b: &ValueBlock) -> Result<Vec<(u32, u64, u64)>> {
    src.table(b.p_values, b.n_values, SZ_VALUE, SZ_VALUE, "profile value")?;
    let idx = ctx_index(src, b)?;
    let ibytes = src.bytes(idx.ptr, idx.byte_len(), "profile context indices")?;
    let entry = |e: &[u8; SZ_CTX_INDEX as usize]| (le32(e, 0), le64(e, 4));
    Ok(index_runs(
        ibytes.as_chunks().0.iter().map(entry),
        b.n_values,
    ))
}

/// The runs `(key, start, end)` of a block's index of (key, first value) entries: each run ends
/// where the next starts, the last at `n_values`. Runs never overlap: a start below the previous
/// run's end is moved up to it. Without this a hostile index (starts 0, n, 0, n, ...) makes every
/// entry claim the whole block, and the readers that size their output by the runs' total would
/// allocate entries x values.
pub fn index_runs<K>(
    entries: impl ExactSizeIterator<Item = (K, u64)>,
    n_values: u64,
) -> Vec<(K, u64, u64)> {
    let mut runs = Vec::with_capacity(entries.len());
    let mut it = entries.peekable();
    let mut done = 0u64;
    while let Some((key, start)) = it.next() {
        let end = it.peek().map(|e| e.1).unwrap_or(n_values).min(n_values);
        runs.push((key, start.max(done).min(end), end));
        done = done.max(end);
    }
    runs
}

/// Bytes of the values array read at a time by [`visit_runs`].
const WINDOW: u64 = 64 << 10;

/// Calls `f(tag, bytes)` with the stored 10-byte pairs of each run `(tag, a, end)` (value
/// indices of block `b`, as [`read_index`] gives them). Runs in ascending order read each byte
/// once, through one reused window of 64 KiB: a block of any size costs no block-sized buffer,
/// and the values are copied once, straight into their destination.
pub fn visit_runs<T>(
    src: &Source,
    b: &ValueBlock,
    runs: impl Iterator<Item = (T, u64, u64)>,
    mut f: impl FnMut(T, &[u8]),
) -> Result<()> {
    let vals = src.table(b.p_values, b.n_values, SZ_VALUE, SZ_VALUE, "profile value")?;
    let at = |i: u64| (i * SZ_VALUE) as usize;
    if let Some(all) = src.as_slice() {
        let all = all
            .get(vals.ptr as usize..(vals.ptr + vals.byte_len()) as usize)
            .unwrap_or(&[]);
        for (tag, a, e) in runs {
            let e = e.min(vals.count);
            f(tag, all.get(at(a.min(e))..at(e)).unwrap_or(&[]));
        }
        return Ok(());
    }
    let mut buf: Vec<u8> = Vec::new();
    // Value indices lo..hi are in `buf`.
    let (mut lo, mut hi) = (0u64, 0u64);
    for (tag, a, e) in runs {
        let e = e.min(vals.count);
        if a >= e {
            f(tag, &[]);
            continue;
        }
        if a < lo || e > hi {
            let n = (e - a).max(WINDOW / SZ_VALUE).min(vals.count - a);
            buf.resize(at(n), 0);
            src.read_into(vals.offset(a), &mut buf, "profile values")?;
            (lo, hi) = (a, a + n);
        }
        f(tag, buf.get(at(a - lo)..at(e - lo)).unwrap_or(&[]));
    }
    Ok(())
}

/// Reads and decodes a whole profile-major block, values in file order (see [`read_index`]).
pub fn read_values(src: &Source, b: &ValueBlock) -> Result<ProfileValues> {
    let ctx = read_index(src, b)?;
    let vals = src.table(b.p_values, b.n_values, SZ_VALUE, SZ_VALUE, "profile value")?;
    let bytes = src.bytes(vals.ptr, vals.byte_len(), "profile values")?;
    let (metric, value) = bytes.as_chunks().0.iter().map(value_pair).unzip();
    Ok(ProfileValues { metric, value, ctx })
}

/// Value of `metric` at context `ctx` in one block, by binary search through the source over the
/// sorted context indices, then over the sorted metric ids of that context: O(log n) small reads.
pub fn value_at(src: &Source, b: &ValueBlock, ctx: u32, metric: u16) -> Result<Option<f64>> {
    let Some((start, end)) = ctx_run(src, b, ctx)? else {
        return Ok(None);
    };
    let vals = src.table(b.p_values, b.n_values, SZ_VALUE, SZ_VALUE, "profile value")?;
    let met_at = |j: u64| src.u16_le_at(vals.offset(start + j), "metricId");
    let Some(j) = lower_bound(end - start, |j| Ok(met_at(j)? < metric))? else {
        return Ok(None);
    };
    if met_at(j)? != metric {
        return Ok(None);
    }
    Ok(Some(src.f64_le_at(vals.offset(start + j) + 2, "value")?))
}

/// Every (metricId, value) a profile stores for `ctx`, by binary search through its context
/// index and one read of the run.
pub fn context_values(src: &Source, b: &ValueBlock, ctx: u32) -> Result<Vec<(u16, f64)>> {
    let Some((start, end)) = ctx_run(src, b, ctx)? else {
        return Ok(Vec::new());
    };
    let vals = src.table(b.p_values, b.n_values, SZ_VALUE, SZ_VALUE, "profile value")?;
    let bytes = src.bytes(
        vals.offset(start),
        (end - start) * SZ_VALUE,
        "profile values",
    )?;
    Ok(bytes.as_chunks().0.iter().map(value_pair).collect())
}

/// The run of value indexes `start..end` (non-empty) of `ctx` in a profile's block.
fn ctx_run(src: &Source, b: &ValueBlock, ctx: u32) -> Result<Option<(u64, u64)>> {
    let idx = ctx_index(src, b)?;
    let ctx_at = |i: u64| src.u32_le_at(idx.offset(i), "ctxId");
    let Some(i) = lower_bound(idx.count, |i| Ok(ctx_at(i)? < ctx))? else {
        return Ok(None);
    };
    if ctx_at(i)? != ctx {
        return Ok(None);
    }
    let start = src.u64_le_at(idx.offset(i) + 4, "startIndex")?;
    let end = if i + 1 < idx.count {
        src.u64_le_at(idx.offset(i + 1) + 4, "startIndex")?
    } else {
        b.n_values
    };
    let (start, end) = (start.min(b.n_values), end.min(b.n_values));
    Ok((start < end).then_some((start, end)))
}

/// First index in `0..n` for which `less(i)` is false, `None` when there is none.
pub fn lower_bound(n: u64, mut less: impl FnMut(u64) -> Result<bool>) -> Result<Option<u64>> {
    let (mut lo, mut hi) = (0u64, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if less(mid)? {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok((lo < n).then_some(lo))
}

/// Checks that a block's arrays lie inside the file without reading them.
pub fn check_block(
    src: &Source,
    b: &ValueBlock,
    index_size: u64,
    value_size: u64,
    what: &str,
) -> Result<()> {
    src.table(b.p_values, b.n_values, value_size, value_size, what)?;
    src.table(b.p_index, b.n_index as u64, index_size, index_size, what)?;
    Ok(())
}

#[cfg(test)]
mod tests;
