//! The metric table and the load map, in the shape both profile layouts store them
//! (`hpcrun_fmt_metricDesc_fread`, `hpcrun_fmt_loadmap_fread` in hpcrun-fmt.c).

use super::cursor::Cur;
use super::{LoadModule, MetricDesc};
use crate::error::Result;

pub(super) fn metric_desc(c: &mut Cur, aux_bytes: usize) -> Result<MetricDesc> {
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

pub(super) fn loadmap(c: &mut Cur) -> Result<Vec<LoadModule>> {
    let n = c.count(14, "load module count")?;
    c.items(n, |c, _| {
        Ok(LoadModule {
            id: c.u16("load module id")?,
            name: c.str("load module name")?,
            flags: c.u64("load module flags")?,
        })
    })
}
