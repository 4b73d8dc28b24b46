//! The 02.00 epoch layout (seed 002): after the header come epochs, each an `EPOCH___` tag and
//! epoch header, a metric table, a load map and a dense CCT whose nodes carry one value per metric
//! (`hpcrun_fmt_epochHdr_fread`, `hpcrun_fmt_cct_node_fread` of src/lib/prof-lean).

use super::cursor::Cur;
use super::{header, tables, CctNode, Epoch, ProfileLayout, RunProfile};
use crate::bytes::Slice;
use crate::error::{Error, Result};

/// Epoch flag: logical unwinding (LUSH) adds an association word and a 16-byte logical IP to each
/// node.
const EPOCH_LUSH: u64 = 1;

/// Reads a 02.00 file (`s` is the whole file; its magic line was checked).
pub(super) fn parse(s: Slice, version: String) -> Result<RunProfile> {
    let (nvpairs, body) = header::name_values(s, 0, s.len())?;
    let mut c = Cur::new(s, body, s.len());
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
    let metrics = c.items(n, |c, i| {
        tables::metric_desc(c, aux).map_err(|e| e.context(format!("metric {i}")))
    })?;
    let loadmap = tables::loadmap(c)?;
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
