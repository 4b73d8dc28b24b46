//! The 04.00 sparse layout: a footer at the end of the file locates the header, load map, CCT,
//! metric table, id-tuple dictionary (112-byte footer only) and the sparse values (the footer
//! and sparse sections of HPCToolkit's hpcrun-fmt.h and hpcrun-sparse.c).

use super::cursor::Cur;
use super::{header, tables, CctNode, Epoch, IdElem, MetricDesc, ProfileLayout, RunProfile};
use crate::bytes::Slice;
use crate::error::{Error, ErrorKind, Result, Warning};
use std::collections::HashMap;

/// `HPCRUNsm`: the last 8 bytes of a 04.00 file.
pub(super) const FOOTER_MAGIC: u64 = 0x4850_4352_554E_736D;
/// End marker stored as the cct id of the sentinel block of the sparse values ("end!").
pub(super) const LAST_NODE_END: u32 = 0x656E_6421;
/// Bytes of one id-tuple element: kind u16, physical u64, logical u64.
const ID_ELEM_SIZE: usize = 18;
/// Bytes of one id-tuple element in early 04.00 files: kind u16, index u64.
const OLD_ID_ELEM_SIZE: usize = 10;
/// Bytes of one (value u64, metric id u16) pair.
const VAL_MID_SIZE: usize = 10;
/// Bytes of one (cct id u32, first pair index u64) block entry.
const BLOCK_SIZE: usize = 12;

/// Byte ranges `[start, end)` of the sections the footer locates.
struct Sections {
    hdr: (usize, usize),
    loadmap: (usize, usize),
    cct: (usize, usize),
    metrics: (usize, usize),
    /// The id-tuple dictionary (112-byte footer only).
    dictionary: Option<(usize, usize)>,
    sparse: (usize, usize),
}

/// Reads a 04.00 file (`s` is the whole file; its magic line was checked).
pub(super) fn parse(s: Slice, version: String) -> Result<RunProfile> {
    let (layout, sec) = footer(s)?;
    let mut warnings = Vec::new();
    let (nvpairs, _) = header::name_values(s, sec.hdr.0, sec.hdr.1)?;
    let loadmap = tables::loadmap(&mut Cur::new(s, sec.loadmap.0, sec.loadmap.1))?;
    let metrics = metric_table(s, sec.metrics)?;
    let nodes = cct_nodes(s, sec.cct)?;
    let id_names = match sec.dictionary {
        Some(dx) => id_dictionary(s, dx)?,
        None => Vec::new(),
    };
    let mut c = Cur::new(s, sec.sparse.0, sec.sparse.1);
    let id_tuple = id_tuple(&mut c, layout)?;
    let values = sparse_values(&mut c, &nodes, &metrics, sec.cct.0, &mut warnings)?;
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

/// The footer: its size (96 or 112 bytes) tells the layout, its fields the sections.
fn footer(s: Slice) -> Result<(ProfileLayout, Sections)> {
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
    // hdr, loadmap, cct, metric table, [id-tuple dictionary], sparse metrics.
    let at = |i: usize, what: &str| section(s, &footer, i, footer_start, what);
    let hdr = at(0, "header")?;
    let loadmap = at(2, "load map")?;
    let cct = at(4, "calling context tree")?;
    let metrics = at(6, "metric table")?;
    let (dictionary, sparse) = if layout == ProfileLayout::V4Footer112 {
        (
            Some(at(8, "id-tuple dictionary")?),
            at(10, "sparse metrics")?,
        )
    } else {
        (None, at(8, "sparse metrics")?)
    };
    let sections = Sections {
        hdr,
        loadmap,
        cct,
        metrics,
        dictionary,
        sparse,
    };
    Ok((layout, sections))
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

/// The metric table: a u32 count, then one descriptor each (with the 20-byte frequency and
/// multiplexing tail of 04.00).
fn metric_table(s: Slice, mt: (usize, usize)) -> Result<Vec<MetricDesc>> {
    let mut c = Cur::new(s, mt.0, mt.1);
    let n = c.count(4 * 4 + 16 + 8 + 20, "metric count")?;
    c.items(n, |c, i| {
        tables::metric_desc(c, 20).map_err(|e| e.context(format!("metric {i}")))
    })
}

/// The CCT: a u64 count, then nodes of 19 bytes (id, parent, load module, address, flags) or 18
/// before the flags byte existed; the section's size tells which.
fn cct_nodes(s: Slice, cct: (usize, usize)) -> Result<Vec<CctNode>> {
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
                s.file,
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
    Ok(nodes)
}

/// The id-tuple dictionary: a u16 count of (kind u16, name) entries.
fn id_dictionary(s: Slice, dx: (usize, usize)) -> Result<Vec<(u16, String)>> {
    let mut c = Cur::new(s, dx.0, dx.1);
    let at = c.abs();
    let n = c.u16("id-tuple dictionary size")? as usize;
    c.check_count(n, 6, at, "id-tuple dictionary size")?;
    c.items(n, |c, _| {
        Ok((c.u16("id-tuple kind")?, c.str("id-tuple kind name")?))
    })
}

/// The id tuple at the start of the sparse-metrics section.
fn id_tuple(c: &mut Cur, layout: ProfileLayout) -> Result<Vec<IdElem>> {
    let s = c.s;
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
    Ok(id_tuple)
}

/// The sparse values after the id tuple: value counts, the (value, metric id) pairs, then one
/// (cct id, first pair) block per context with values and the `end!` sentinel. Returns (index into
/// `nodes`, metric index, decoded value); blocks and pairs naming unknown contexts or metrics are
/// skipped with a warning.
fn sparse_values(
    c: &mut Cur,
    nodes: &[CctNode],
    metrics: &[MetricDesc],
    cct_start: usize,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<(u32, u16, f64)>> {
    let (s, file) = (c.s, c.s.file);
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
            cct_start as u64,
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
    for (n, at, what) in [
        (
            unknown_ctx,
            blocks_at,
            "value blocks name contexts not in the tree (skipped)",
        ),
        (
            unknown_metric,
            vals_at,
            "values name metrics not in the table (skipped)",
        ),
    ] {
        warnings.extend(Error::count(n as u64, file, Some(s.base + at as u64), what));
    }
    Ok(values)
}
