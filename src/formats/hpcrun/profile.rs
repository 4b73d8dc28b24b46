//! One hpcrun measurement profile (`.hpcrun`, `HPCRUN-profile____` + version + `b`): the 04.00
//! sparse layout (header, load map, CCT, metric table, id-tuple dictionary, sparse values, footer
//! located from the end of the file) and the 02.00 epoch layout (header, then epochs of epoch
//! header, metric table, load map and dense CCT). Follows HPCToolkit's `hpcrun-fmt.{h,c}`
//! (src/common/lean, 2024, and src/lib/prof-lean for the 96-byte-footer 04.00 and 02.00 eras);
//! seed 002 gives the 02.00 grammar. All payloads are big-endian.

use crate::bytes::{Slice, Source};
use crate::error::{Error, ErrorKind, Result, Warning};
use std::collections::HashMap;

pub const MAGIC: &[u8; 18] = b"HPCRUN-profile____";
/// `HPCRUNsm`: the last 8 bytes of a 04.00 file.
const FOOTER_MAGIC: u64 = 0x4850_4352_554E_736D;
/// End marker stored as the cct id of the sentinel block of the sparse values ("end!").
const LAST_NODE_END: u32 = 0x656E_6421;
/// Bytes of one id-tuple element: kind u16, physical u64, logical u64.
const ID_ELEM_SIZE: usize = 18;
/// Bytes of one id-tuple element in early 04.00 files: kind u16, index u64.
const OLD_ID_ELEM_SIZE: usize = 10;
/// Bytes of one (value u64, metric id u16) pair.
const VAL_MID_SIZE: usize = 10;
/// Bytes of one (cct id u32, first pair index u64) block entry.
const BLOCK_SIZE: usize = 12;

/// Layout generation of a profile file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileLayout {
    /// 02.00: epochs with dense per-node metric values.
    V2,
    /// 04.00 with the 96-byte footer (2020-2022): no id-tuple dictionary, 18-byte CCT nodes.
    V4Footer96,
    /// 04.00 with the 112-byte footer (2022 on): id-tuple dictionary, 19-byte CCT nodes with flags.
    V4Footer112,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MetricDesc {
    pub name: String,
    pub description: String,
    /// 1 raw, 2 final, 3 derived.
    pub ty: u8,
    /// 1 inclusive, 2 exclusive, 0 unset.
    pub val_ty: u8,
    /// 1 integer, 2 real, 0 unset (read as real, as hpcrun does).
    pub val_fmt: u8,
    /// Value belongs to the call-site relation rather than the full context (hpcprof `isRelation`).
    pub move2proc: bool,
    pub partner: u16,
    /// 0 hide, 1 show, 2 inclusive only, 3 exclusive only, 4 invisible.
    pub show: u8,
    pub show_percent: bool,
    /// Sampling period: hpcprof multiplies every stored value by it.
    pub period: u64,
    /// Non-empty for derived metrics computed from others (`#43/#61`); they carry no values.
    pub formula: String,
    pub format: String,
    pub is_frequency: bool,
}

impl MetricDesc {
    /// Decodes a stored 64-bit value as hpcrun wrote it (integer or IEEE double).
    pub fn decode(&self, bits: u64) -> f64 {
        if self.val_fmt == 1 {
            bits as f64
        } else {
            f64::from_bits(bits)
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoadModule {
    pub id: u16,
    pub name: String,
    pub flags: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CctNode {
    pub id: u32,
    /// 0 for a root.
    pub parent: u32,
    pub lm_id: u16,
    pub ip: u64,
    /// False for nodes not produced by a stack unwind (GPU samples); always true before 2022.
    pub unwound: bool,
}

/// One element of the profile's identifier tuple (`IDTUPLE_*` kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdElem {
    /// Kind without the interpretation bits: 0 SUMMARY, 1 NODE, 2 RANK, 3 THREAD, 4 GPUDEVICE,
    /// 5 GPUCONTEXT, 6 GPUSTREAM, 7 CORE.
    pub kind: u16,
    /// Top two bits of the stored kind: 0 both ids valid, 1 logical local, 2 logical global,
    /// 3 logical only.
    pub interpret: u8,
    pub physical: u64,
    pub logical: u64,
}

/// One measurement epoch: its own metric table, load map, tree and values. 04.00 files have one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Epoch {
    pub flags: u64,
    pub metrics: Vec<MetricDesc>,
    pub loadmap: Vec<LoadModule>,
    pub nodes: Vec<CctNode>,
    /// Raw point values: (index into `nodes`, metric index, decoded value before the period).
    pub values: Vec<(u32, u16, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RunProfile {
    pub layout: ProfileLayout,
    /// "04.00", "02.00".
    pub version: String,
    pub nvpairs: Vec<(String, String)>,
    pub epochs: Vec<Epoch>,
    /// Identifier tuple (04.00 only).
    pub id_tuple: Vec<IdElem>,
    /// Names of identifier kinds from the file's dictionary (112-byte-footer files only).
    pub id_names: Vec<(u16, String)>,
    pub warnings: Vec<Warning>,
}

impl RunProfile {
    pub fn nv(&self, name: &str) -> Option<&str> {
        self.nvpairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A forward reader over a byte slice whose errors carry absolute file offsets.
struct Cur<'a> {
    s: Slice<'a>,
    pos: usize,
    /// Reads may not pass this position (end of the current section).
    end: usize,
}

impl<'a> Cur<'a> {
    fn new(s: Slice<'a>, pos: usize, end: usize) -> Cur<'a> {
        Cur {
            s,
            pos,
            end: end.min(s.len()),
        }
    }
    fn abs(&self) -> u64 {
        self.s.base + self.pos as u64
    }
    fn remaining(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(Error::truncated(self.s.file, self.abs(), what));
        }
        let b = self.s.get(self.pos, n, what)?;
        self.pos += n;
        Ok(b)
    }
    fn arr<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }
    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.arr::<1>(what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_be_bytes(self.arr(what)?))
    }
    fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_be_bytes(self.arr(what)?))
    }
    fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_be_bytes(self.arr(what)?))
    }
    /// `hpcfmt_str`: u32 length, then that many bytes (no NUL).
    fn str(&mut self, what: &str) -> Result<String> {
        let at = self.abs();
        let n = self.u32(what)? as usize;
        if n > self.remaining() {
            return Err(Error::truncated(
                self.s.file,
                at,
                format!("{what} of {n} bytes"),
            ));
        }
        Ok(String::from_utf8_lossy(self.take(n, what)?).into_owned())
    }
    /// A u32 count of items each at least `min_size` bytes, checked against what is left.
    fn count(&mut self, min_size: usize, what: &str) -> Result<usize> {
        let at = self.abs();
        let n = self.u32(what)? as usize;
        self.check_count(n, min_size, at, what)?;
        Ok(n)
    }
    fn check_count(&self, n: usize, min_size: usize, at: u64, what: &str) -> Result<()> {
        match n.checked_mul(min_size) {
            Some(b) if b <= self.remaining() => Ok(()),
            _ => Err(Error::too_large(
                self.s.file,
                at,
                format!(
                    "{what} {n} (needs at least {min_size} bytes each, {} left)",
                    self.remaining()
                ),
            )),
        }
    }
    fn nvpairs(&mut self, what: &str) -> Result<Vec<(String, String)>> {
        let n = self.count(8, what)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.str("name of a name-value pair")?;
            let v = self.str("value of a name-value pair")?;
            out.push((k, v));
        }
        Ok(out)
    }
}

/// Reads a whole profile file.
pub fn read(src: &Source) -> Result<RunProfile> {
    let bytes = src.bytes(0, src.len(), "hpcrun profile")?;
    parse(&bytes, src.name())
}

/// Parses the bytes of a profile file named `file` (for messages).
pub fn parse(bytes: &[u8], file: &str) -> Result<RunProfile> {
    let s = Slice::new(bytes, 0, file);
    let mut c = Cur::new(s, 0, bytes.len());
    let magic = c.take(18, "profile magic")?;
    if magic != MAGIC {
        return Err(Error::bad_magic(file, 0, "not an hpcrun profile"));
    }
    let version = String::from_utf8_lossy(c.take(5, "profile version")?).into_owned();
    let endian = c.u8("profile endianness")?;
    if endian != b'b' {
        return Err(Error::unsupported(
            file,
            Some(23),
            format!("hpcrun profile byte order '{}'", endian as char),
        ));
    }
    match version.as_str() {
        "04.00" => parse_v4(s, version),
        "02.00" => parse_v2(s, version),
        v => Err(Error::unsupported(
            file,
            Some(18),
            format!("hpcrun profile version {v:?} (known: 02.00, 04.00)"),
        )),
    }
}

fn metric_desc(c: &mut Cur, aux_bytes: usize) -> Result<MetricDesc> {
    let name = c.str("metric name")?;
    let description = c.str("metric description")?;
    let flags: [u8; 16] = c.arr("metric flags")?;
    let unused1 = u64::from_be_bytes(flags[8..16].try_into().unwrap_or([0; 8]));
    let (ty, val_ty, val_fmt, move2proc, partner, show, show_percent);
    if (flags[0] == 1 || flags[0] == 2) && unused1 == 0 {
        // The portable byte layout: ty, valTy, valFmt, move2proc, partner(2), show, showPercent.
        ty = flags[0];
        val_ty = flags[1];
        val_fmt = flags[2];
        move2proc = flags[3] != 0;
        partner = u16::from_be_bytes([flags[4], flags[5]]);
        show = flags[6];
        show_percent = flags[7] != 0;
    } else {
        // hpcrun's older non-portable bit fields (GCC, LSB first) in the first big-endian word.
        let b = u64::from_be_bytes(flags[0..8].try_into().unwrap_or([0; 8]));
        ty = (b & 0xf) as u8;
        val_ty = ((b >> 4) & 0xf) as u8;
        val_fmt = ((b >> 8) & 0xf) as u8;
        partner = ((b >> 12) & 0xffff) as u16;
        show = ((b >> 28) & 1) as u8;
        show_percent = (b >> 29) & 1 != 0;
        move2proc = false;
    }
    let period = c.u64("metric period")?;
    let formula = c.str("metric formula")?;
    let format = c.str("metric format")?;
    let mut is_frequency = false;
    match aux_bytes {
        20 => {
            is_frequency = c.u16("metric frequency flag")? != 0;
            c.take(18, "metric multiplexing information")?;
        }
        18 => {
            c.take(18, "metric multiplexing information")?;
        }
        _ => {}
    }
    Ok(MetricDesc {
        name,
        description,
        ty,
        val_ty,
        val_fmt,
        move2proc,
        partner,
        show,
        show_percent,
        period,
        formula,
        format,
        is_frequency,
    })
}

fn loadmap(c: &mut Cur) -> Result<Vec<LoadModule>> {
    let n = c.count(14, "load module count")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id = c.u16("load module id")?;
        let name = c.str("load module name")?;
        let flags = c.u64("load module flags")?;
        out.push(LoadModule { id, name, flags });
    }
    Ok(out)
}

fn section(
    s: Slice,
    footer: &[u64],
    i: usize,
    footer_start: u64,
    what: &str,
) -> Result<(usize, usize)> {
    let (a, b) = (
        footer.get(i).copied().unwrap_or(0),
        footer.get(i + 1).copied().unwrap_or(0),
    );
    if a > b || b > footer_start {
        return Err(Error::invalid(
            s.file,
            s.base + footer_start,
            format!("{what} section [{a:#x}, {b:#x}) outside the file's data"),
        ));
    }
    // Both fit in usize: they are below footer_start, which lies inside the slice.
    Ok((a as usize, b as usize))
}

fn parse_v4(s: Slice, version: String) -> Result<RunProfile> {
    let file = s.file;
    let len = s.len() as u64;
    if len < 24 + 96 {
        return Err(Error::truncated(file, 0, "04.00 profile footer"));
    }
    let magic = s.u64_be(s.len() - 8, "footer magic")?;
    if magic != FOOTER_MAGIC {
        return Err(Error::bad_magic(
            file,
            len - 8,
            "04.00 profile footer magic (HPCRUNsm): the file is incomplete",
        ));
    }
    let footer_start = s.u64_be(s.len() - 16, "footer start")?;
    let (layout, n_fields) = if len >= 112 && footer_start == len - 112 {
        (ProfileLayout::V4Footer112, 14)
    } else if footer_start == len - 96 {
        (ProfileLayout::V4Footer96, 12)
    } else {
        return Err(Error::invalid(
            file,
            len - 16,
            format!("footer start {footer_start:#x} is neither 96 nor 112 bytes before the end"),
        ));
    };
    let mut footer = Vec::with_capacity(n_fields);
    for i in 0..n_fields {
        footer.push(s.u64_be(footer_start as usize + i * 8, "footer field")?);
    }
    let mut warnings = Vec::new();
    // hdr, loadmap, cct, metric table, [id-tuple dictionary], sparse metrics.
    let hdr = section(s, &footer, 0, footer_start, "header")?;
    let lm = section(s, &footer, 2, footer_start, "load map")?;
    let cct = section(s, &footer, 4, footer_start, "calling context tree")?;
    let mt = section(s, &footer, 6, footer_start, "metric table")?;
    let (dx, sm) = if layout == ProfileLayout::V4Footer112 {
        (
            Some(section(s, &footer, 8, footer_start, "id-tuple dictionary")?),
            section(s, &footer, 10, footer_start, "sparse metrics")?,
        )
    } else {
        (
            None,
            section(s, &footer, 8, footer_start, "sparse metrics")?,
        )
    };

    let mut c = Cur::new(s, hdr.0.max(24), hdr.1);
    let nvpairs = c.nvpairs("header name-value pair count")?;

    let mut c = Cur::new(s, lm.0, lm.1);
    let loadmap = loadmap(&mut c)?;

    let mut c = Cur::new(s, mt.0, mt.1);
    let n = c.count(4 * 4 + 16 + 8 + 20, "metric count")?;
    let mut metrics = Vec::with_capacity(n);
    for i in 0..n {
        metrics.push(metric_desc(&mut c, 20).map_err(|e| e.context(format!("metric {i}")))?);
    }

    let mut c = Cur::new(s, cct.0, cct.1);
    let at = c.abs();
    let n_nodes = c.u64("CCT node count")?;
    let body = c.remaining() as u64;
    let node_size = match n_nodes {
        0 => 19,
        n if n.checked_mul(19) == Some(body) => 19,
        n if n.checked_mul(18) == Some(body) => 18,
        _ => {
            return Err(Error::invalid(
                file,
                at,
                format!("CCT of {n_nodes} nodes in {body} bytes (expected 18 or 19 bytes each)"),
            ))
        }
    };
    let mut nodes = Vec::with_capacity(n_nodes as usize);
    for _ in 0..n_nodes {
        let id = c.u32("CCT node id")?;
        let parent = c.u32("CCT node parent")?;
        let lm_id = c.u16("CCT node load module")?;
        let ip = c.u64("CCT node address")?;
        let unwound = if node_size == 19 {
            c.u8("CCT node flags")? & 1 != 0
        } else {
            true
        };
        nodes.push(CctNode {
            id,
            parent,
            lm_id,
            ip,
            unwound,
        });
    }

    let mut id_names = Vec::new();
    if let Some(dx) = dx {
        let mut c = Cur::new(s, dx.0, dx.1);
        let at = c.abs();
        let n = c.u16("id-tuple dictionary size")? as usize;
        c.check_count(n, 6, at, "id-tuple dictionary size")?;
        for _ in 0..n {
            let kind = c.u16("id-tuple kind")?;
            let name = c.str("id-tuple kind name")?;
            id_names.push((kind, name));
        }
    }

    let mut c = Cur::new(s, sm.0, sm.1);
    let at = c.abs();
    let tl = c.u16("id-tuple length")? as usize;
    // Id-tuple elements were kind + one index (10 bytes) in early 04.00 files, kind + physical +
    // logical index (18 bytes) since 2021; the section's exact size tells which one this is.
    let elem_size = if layout == ProfileLayout::V4Footer96 {
        let fits = |e: usize| -> bool {
            let Some(after) = c.pos.checked_add(tl * e) else {
                return false;
            };
            let (Ok(nv), Ok(nb)) = (
                s.u64_be(after, "non-zero value count"),
                s.u32_be(after + 8, "non-zero context count"),
            ) else {
                return false;
            };
            nv.checked_mul(VAL_MID_SIZE as u64)
                .and_then(|v| v.checked_add((nb as u64 + 1) * BLOCK_SIZE as u64))
                .and_then(|v| v.checked_add((after + 12) as u64))
                == Some(c.end as u64)
        };
        if !fits(ID_ELEM_SIZE) && fits(OLD_ID_ELEM_SIZE) {
            OLD_ID_ELEM_SIZE
        } else {
            ID_ELEM_SIZE
        }
    } else {
        ID_ELEM_SIZE
    };
    c.check_count(tl, elem_size, at, "id-tuple length")?;
    let mut id_tuple = Vec::with_capacity(tl);
    for _ in 0..tl {
        let k = c.u16("id-tuple kind")?;
        if elem_size == OLD_ID_ELEM_SIZE {
            let index = c.u64("id-tuple index")?;
            // One index: the host id for NODE (physical), a logical number otherwise.
            id_tuple.push(IdElem {
                kind: k,
                interpret: if k == 1 { 1 } else { 3 },
                physical: index,
                logical: if k == 1 { 0 } else { index },
            });
            continue;
        }
        let physical = c.u64("id-tuple physical index")?;
        let logical = c.u64("id-tuple logical index")?;
        id_tuple.push(IdElem {
            kind: k & 0x3fff,
            interpret: (k >> 14) as u8,
            physical,
            logical,
        });
    }
    let at = c.abs();
    let n_vals = c.u64("non-zero value count")?;
    let n_blocks = c.u32("non-zero context count")? as u64;
    let need = n_vals.checked_mul(VAL_MID_SIZE as u64).and_then(|v| {
        n_blocks
            .checked_add(1)?
            .checked_mul(BLOCK_SIZE as u64)?
            .checked_add(v)
    });
    match need {
        Some(b) if b <= c.remaining() as u64 => {}
        _ => {
            return Err(Error::too_large(
                file,
                at,
                format!(
                    "{n_vals} values in {n_blocks} contexts ({} bytes left)",
                    c.remaining()
                ),
            ))
        }
    }
    let vals_at = c.pos;
    let blocks_at = vals_at + n_vals as usize * VAL_MID_SIZE;
    let index: HashMap<u32, u32> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id, i as u32))
        .collect();
    if index.len() != nodes.len() {
        return Err(Error::invalid(
            file,
            cct.0 as u64,
            "CCT node id appears twice",
        ));
    }
    let mut values = Vec::with_capacity(n_vals as usize);
    let mut unknown_ctx = 0usize;
    let mut unknown_metric = 0usize;
    for b in 0..n_blocks as usize {
        let p = blocks_at + b * BLOCK_SIZE;
        let cid = s.u32_be(p, "value block context id")?;
        let start = s.u64_be(p + 4, "value block start")?;
        let next = s.u64_be(p + 4 + BLOCK_SIZE, "value block end")?;
        if start > next || next > n_vals {
            return Err(Error::invalid(
                file,
                s.base + p as u64,
                format!("value block [{start}, {next}) outside the {n_vals} values"),
            ));
        }
        let Some(&node) = index.get(&cid) else {
            unknown_ctx += 1;
            continue;
        };
        for v in start..next {
            let q = vals_at + v as usize * VAL_MID_SIZE;
            let bits = s.u64_be(q, "metric value")?;
            let mid = s.u16_be(q + 8, "metric id")?;
            match metrics.get(mid as usize) {
                Some(m) => values.push((node, mid, m.decode(bits))),
                None => unknown_metric += 1,
            }
        }
    }
    let end_marker = s.u32_be(
        blocks_at + n_blocks as usize * BLOCK_SIZE,
        "value end marker",
    )?;
    if end_marker != LAST_NODE_END {
        warnings.push(Error::at(
            ErrorKind::Invalid,
            file,
            s.base + (blocks_at + n_blocks as usize * BLOCK_SIZE) as u64,
            "sparse values do not end with the 'end!' marker",
        ));
    }
    if unknown_ctx > 0 {
        warnings.push(Error::at(
            ErrorKind::Invalid,
            file,
            s.base + blocks_at as u64,
            format!("{unknown_ctx} value blocks name contexts not in the tree (skipped)"),
        ));
    }
    if unknown_metric > 0 {
        warnings.push(Error::at(
            ErrorKind::Invalid,
            file,
            s.base + vals_at as u64,
            format!("{unknown_metric} values name metrics not in the table (skipped)"),
        ));
    }
    Ok(RunProfile {
        layout,
        version,
        nvpairs,
        epochs: vec![Epoch {
            flags: 0,
            metrics,
            loadmap,
            nodes,
            values,
        }],
        id_tuple,
        id_names,
        warnings,
    })
}

/// Epoch flag: logical unwinding (LUSH) adds an association word and a 16-byte logical IP to each
/// node.
const EPOCH_LUSH: u64 = 1;

fn parse_v2(s: Slice, version: String) -> Result<RunProfile> {
    let mut c = Cur::new(s, 24, s.len());
    let nvpairs = c.nvpairs("header name-value pair count")?;
    let mut epochs = Vec::new();
    while c.remaining() > 0 {
        let at = c.abs();
        let tag = c.take(8, "epoch tag")?;
        if tag != b"EPOCH___" {
            return Err(Error::bad_magic(s.file, at, "epoch tag EPOCH___"));
        }
        let flags = c.u64("epoch flags")?;
        let _granularity = c.u64("measurement granularity")?;
        let _ra_offset = c.u32("return-address-to-call-site offset")?;
        let _epoch_nv = c.nvpairs("epoch name-value pair count")?;
        // Metric descriptors grew optional trailing fields over the 02.00 years (frequency flag,
        // multiplexing data); the version string did not change, so try each known shape and keep
        // the first under which the rest of the epoch parses.
        let mark = c.pos;
        let mut last_err = None;
        let mut done = None;
        for aux in [0usize, 20, 18] {
            c.pos = mark;
            match epoch_body(&mut c, flags, aux) {
                Ok(e) => {
                    done = Some(e);
                    break;
                }
                Err(e) => {
                    if last_err.is_none() {
                        last_err = Some(e);
                    }
                }
            }
        }
        match done {
            Some(e) => epochs.push(e),
            None => {
                return Err(last_err
                    .unwrap_or_else(|| Error::invalid(s.file, at, "epoch"))
                    .context(format!("epoch {}", epochs.len())))
            }
        }
    }
    Ok(RunProfile {
        layout: ProfileLayout::V2,
        version,
        nvpairs,
        epochs,
        id_tuple: Vec::new(),
        id_names: Vec::new(),
        warnings: Vec::new(),
    })
}

fn epoch_body(c: &mut Cur, flags: u64, aux: usize) -> Result<Epoch> {
    let n = c.count(4 * 4 + 16 + 8, "metric count")?;
    let mut metrics = Vec::with_capacity(n);
    for i in 0..n {
        metrics.push(metric_desc(c, aux).map_err(|e| e.context(format!("metric {i}")))?);
    }
    let loadmap = loadmap(c)?;
    let lush = flags & EPOCH_LUSH != 0;
    let node_size = 4 + 4 + 2 + 8 + if lush { 4 + 16 } else { 0 } + 8 * metrics.len();
    let at = c.abs();
    let n_nodes = c.u64("CCT node count")?;
    let n_nodes = usize::try_from(n_nodes).unwrap_or(usize::MAX);
    c.check_count(n_nodes, node_size, at, "CCT node count")?;
    let mut nodes = Vec::with_capacity(n_nodes);
    let mut values = Vec::new();
    for i in 0..n_nodes {
        // A negative id marks a leaf; the id itself is the absolute value.
        let id = (c.u32("CCT node id")? as i32).unsigned_abs();
        let parent = (c.u32("CCT node parent")? as i32).unsigned_abs();
        if lush {
            c.u32("CCT node LUSH association")?;
        }
        let lm_id = c.u16("CCT node load module")?;
        let ip = c.u64("CCT node address")?;
        if lush {
            c.take(16, "CCT node logical IP")?;
        }
        for (m, desc) in metrics.iter().enumerate() {
            let bits = c.u64("CCT node metric value")?;
            if bits != 0 {
                values.push((i as u32, m as u16, desc.decode(bits)));
            }
        }
        nodes.push(CctNode {
            id,
            parent,
            lm_id,
            ip,
            unwound: true,
        });
    }
    Ok(Epoch {
        flags,
        metrics,
        loadmap,
        nodes,
        values,
    })
}

/// Parts of a measurement file name `program-RANK-THREAD-HOSTID-PID-GEN.hpcrun`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileNameParts {
    pub program: String,
    pub rank: u32,
    pub thread: u32,
    pub host_id: u64,
    pub pid: u32,
    pub generation: u32,
}

/// Splits a measurement file name from the right (the program name may contain dashes).
pub fn parse_file_name(name: &str) -> Option<FileNameParts> {
    let base = name.rsplit('/').next()?;
    let stem = base
        .strip_suffix(".hpcrun")
        .or_else(|| base.strip_suffix(".hpctrace"))?;
    let mut parts = stem.rsplitn(6, '-');
    let generation = parts.next()?.parse().ok()?;
    let pid = parts.next()?.parse().ok()?;
    let host_id = u64::from_str_radix(parts.next()?, 16).ok()?;
    let thread = parts.next()?.parse().ok()?;
    let rank = parts.next()?.parse().ok()?;
    let program = parts.next()?.to_string();
    Some(FileNameParts {
        program,
        rank,
        thread,
        host_id,
        pid,
        generation,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes hpcrun primitives big-endian, for hand-made fixtures.
    #[derive(Default)]
    pub struct W(pub Vec<u8>);
    impl W {
        pub fn u8(&mut self, v: u8) -> &mut Self {
            self.0.push(v);
            self
        }
        pub fn u16(&mut self, v: u16) -> &mut Self {
            self.0.extend_from_slice(&v.to_be_bytes());
            self
        }
        pub fn u32(&mut self, v: u32) -> &mut Self {
            self.0.extend_from_slice(&v.to_be_bytes());
            self
        }
        pub fn u64(&mut self, v: u64) -> &mut Self {
            self.0.extend_from_slice(&v.to_be_bytes());
            self
        }
        pub fn str(&mut self, s: &str) -> &mut Self {
            self.u32(s.len() as u32);
            self.0.extend_from_slice(s.as_bytes());
            self
        }
    }

    /// A minimal 04.00 file (112-byte footer): two metrics (real CPUTIME, integer CYCLES with
    /// period 1000), loadmap {1: /bin/app}, tree primary root 1 -> 2 (app+0x10) -> 3 (app+0x20),
    /// values: node 3 CPUTIME 0.5 and CYCLES 7; node 2 CPUTIME 0.25.
    pub fn v4_fixture() -> Vec<u8> {
        v4_fixture_as(false)
    }

    /// The same content in the early 04.00 shape: 96-byte footer, no dictionary, 18-byte CCT
    /// nodes, 10-byte id-tuple elements.
    pub fn v4_fixture_as(early: bool) -> Vec<u8> {
        v4_build(
            early,
            &[
                (1, 0, 0, 0x5e50_7269_6d61_7279),
                (2, 1, 1, 0x10),
                (3, 2, 1, 0x20),
            ],
            &[
                (2, vec![(0.25f64.to_bits(), 0)]),
                (3, vec![(0.5f64.to_bits(), 0), (7, 1)]),
            ],
        )
    }

    /// A 04.00 file with the fixture's header, load map and metrics, and the given CCT nodes
    /// (id, parent, load module, address) and value blocks (cct id, [(value bits, metric id)]).
    pub fn v4_build(
        early: bool,
        nodes: &[(u32, u32, u16, u64)],
        blocks: &[(u32, Vec<(u64, u16)>)],
    ) -> Vec<u8> {
        v4_build_nv(early, &[], nodes, blocks)
    }

    /// `v4_build` with extra header name-value pairs.
    pub fn v4_build_nv(
        early: bool,
        nv: &[(&str, &str)],
        nodes: &[(u32, u32, u16, u64)],
        blocks: &[(u32, Vec<(u64, u16)>)],
    ) -> Vec<u8> {
        let mut w = W::default();
        w.0.extend_from_slice(b"HPCRUN-profile____04.00b");
        w.u32(1 + nv.len() as u32).str("program-name").str("app");
        for (k, v) in nv {
            w.str(k).str(v);
        }
        let hdr_end = w.0.len() as u64;
        let lm_start = w.0.len() as u64;
        w.u32(1).u16(1).str("/bin/app").u64(0);
        let lm_end = w.0.len() as u64;
        let cct_start = w.0.len() as u64;
        w.u64(nodes.len() as u64);
        for &(id, parent, lm, ip) in nodes {
            w.u32(id).u32(parent).u16(lm).u64(ip);
            if !early {
                w.u8(1);
            }
        }
        let cct_end = w.0.len() as u64;
        let mt_start = w.0.len() as u64;
        w.u32(2);
        w.str("CPUTIME (sec)").str("cpu time");
        w.0.extend_from_slice(&[1, 0, 2, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        w.u64(1).str("").str("").u16(0).u16(0).u64(0).u64(0);
        w.str("CYCLES").str("cycles");
        w.0.extend_from_slice(&[1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
        w.u64(1000).str("").str("").u16(0).u16(0).u64(0).u64(0);
        let mt_end = w.0.len() as u64;
        let dx_start = w.0.len() as u64;
        if !early {
            w.u16(2).u16(1).str("NODE").u16(3).str("THREAD");
        }
        let dx_end = w.0.len() as u64;
        let sm_start = w.0.len() as u64;
        w.u16(2);
        if early {
            w.u16(1).u64(0xabc);
            w.u16(3).u64(5);
        } else {
            w.u16(0x4001).u64(0xabc).u64(0);
            w.u16(0xc003).u64(5).u64(5);
        }
        let n_vals: usize = blocks.iter().map(|b| b.1.len()).sum();
        w.u64(n_vals as u64).u32(blocks.len() as u32);
        for (_, vals) in blocks {
            for &(bits, mid) in vals {
                w.u64(bits).u16(mid);
            }
        }
        let mut start = 0u64;
        for (cid, vals) in blocks {
            w.u32(*cid).u64(start);
            start += vals.len() as u64;
        }
        w.u32(LAST_NODE_END).u64(start);
        let sm_end = w.0.len() as u64;
        let footer_start = w.0.len() as u64;
        let mut footer = vec![
            0, hdr_end, lm_start, lm_end, cct_start, cct_end, mt_start, mt_end,
        ];
        if !early {
            footer.extend([dx_start, dx_end]);
        }
        footer.extend([sm_start, sm_end, footer_start, FOOTER_MAGIC]);
        for v in footer {
            w.u64(v);
        }
        w.0
    }

    #[test]
    fn reads_early_v4_shape() {
        let late = parse(&v4_fixture(), "t").unwrap();
        let p = parse(&v4_fixture_as(true), "t").unwrap();
        assert_eq!(p.layout, ProfileLayout::V4Footer96);
        assert_eq!(p.epochs, late.epochs);
        assert!(p.id_names.is_empty());
        assert_eq!(p.id_tuple.len(), 2);
        assert_eq!((p.id_tuple[0].kind, p.id_tuple[0].physical), (1, 0xabc));
        assert_eq!((p.id_tuple[1].kind, p.id_tuple[1].logical), (3, 5));
    }

    #[test]
    fn reads_hand_made_v4() {
        let p = parse(&v4_fixture(), "t.hpcrun").unwrap();
        assert_eq!(p.layout, ProfileLayout::V4Footer112);
        assert_eq!(p.nv("program-name"), Some("app"));
        let e = &p.epochs[0];
        assert_eq!(e.metrics.len(), 2);
        assert_eq!(e.metrics[0].name, "CPUTIME (sec)");
        assert_eq!((e.metrics[0].ty, e.metrics[0].val_fmt), (1, 2));
        assert_eq!((e.metrics[1].val_fmt, e.metrics[1].period), (1, 1000));
        assert_eq!(e.loadmap[0].name, "/bin/app");
        assert_eq!(e.nodes.len(), 3);
        assert_eq!(e.nodes[2].ip, 0x20);
        assert_eq!(e.values, vec![(1, 0, 0.25), (2, 0, 0.5), (2, 1, 7.0)]);
        assert_eq!(
            p.id_tuple,
            vec![
                IdElem {
                    kind: 1,
                    interpret: 1,
                    physical: 0xabc,
                    logical: 0
                },
                IdElem {
                    kind: 3,
                    interpret: 3,
                    physical: 5,
                    logical: 5
                }
            ]
        );
        assert_eq!(p.id_names[1], (3, "THREAD".to_string()));
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn huge_counts_fail_fast() {
        let mut b = v4_fixture();
        // Metric count at mt_start: claim 2^31 metrics.
        let f = b.len() - 112;
        let mt_start = u64::from_be_bytes(b[f + 48..f + 56].try_into().unwrap()) as usize;
        b[mt_start..mt_start + 4].copy_from_slice(&0x8000_0000u32.to_be_bytes());
        let e = parse(&b, "t").unwrap_err();
        assert_eq!(e.kind, ErrorKind::TooLarge);
    }

    #[test]
    fn file_names() {
        let p = parse_file_name("m/testmeas-loops-cuda-000000-500-590a0502-3293-0.hpcrun").unwrap();
        assert_eq!(p.program, "testmeas-loops-cuda");
        assert_eq!((p.rank, p.thread, p.pid, p.generation), (0, 500, 3293, 0));
        assert_eq!(p.host_id, 0x590a0502);
        assert!(parse_file_name("x.hpcrun").is_none());
    }

    #[test]
    fn rejects_other_magic_and_versions() {
        assert_eq!(
            parse(b"HPCRUN-trace______01.01b", "t").unwrap_err().kind,
            ErrorKind::BadMagic
        );
        assert_eq!(
            parse(b"HPCRUN-profile____03.00b\0\0\0\0", "t")
                .unwrap_err()
                .kind,
            ErrorKind::Unsupported
        );
    }
}
