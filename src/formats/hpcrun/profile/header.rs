//! The start of a profile in both layouts: the magic line (`HPCRUN-profile____` + version + `b`)
//! and the header's name-value pairs (`hpcrun_fmt_hdr_fread` in hpcrun-fmt.c). The summary probe
//! reads a profile's head through these same functions.

use super::cursor::Cur;
use super::MAGIC;
use crate::bytes::Slice;
use crate::error::Result;
use crate::formats::hpcrun::magic::MagicLine;

pub use crate::formats::hpcrun::magic::MAGIC_LINE_LEN;

/// The magic line at the start of `s` (any version, any byte-order letter).
pub fn magic_line(s: Slice) -> Result<MagicLine> {
    MagicLine::read(s, MAGIC, "profile")
}

/// The header's name-value pairs: a u32 count, then each name and value as `hpcfmt_str`. They
/// start right after the magic line and may not pass `end` (04.00 files state where the header
/// section ends; 02.00 files do not). Returns the pairs and the offset just after them.
pub fn name_values(s: Slice, start: usize, end: usize) -> Result<(Vec<(String, String)>, usize)> {
    let mut c = Cur::new(s, start.max(MAGIC_LINE_LEN), end);
    let pairs = c.nvpairs("header name-value pair count")?;
    Ok((pairs, c.pos))
}
