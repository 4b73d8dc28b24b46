//! The binary section of a DCPI-style profile (seed 003): little-endian chunks (`offset`,
//! `number`, `number` u32 counts) up to an 8-byte footer (`total_offsets`, `total_samples`), and the
//! rules on their order, extent and totals.

use super::DcpiLayout;
use crate::bytes::{Slice, Source};
use crate::error::{Error, ErrorKind, Result, Warning};

/// A contiguous range of addresses and their sample counts.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DcpiChunk {
    /// First address of the range, relative to the text start.
    pub offset: u32,
    /// One count per address; the file's `number` is `counts.len()`.
    pub counts: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DcpiFooter {
    /// Addresses with at least one sample.
    pub total_offsets: u32,
    /// Sum of all counts.
    pub total_samples: u32,
}

/// The chunks, their file offsets, the footer and its offset.
pub(super) struct Body {
    pub chunks: Vec<DcpiChunk>,
    pub chunk_offsets: Vec<u64>,
    pub footer: DcpiFooter,
    pub footer_offset: u64,
}

/// Reads the chunks from `binary_start` to the footer (the file's last 8 bytes). A chunk that
/// claims more counts than fit before the footer, or a section shorter than the footer, is an error.
pub(super) fn read(src: &Source, file: &str, binary_start: u64) -> Result<Body> {
    let len = src.len();
    let footer_offset = match len.checked_sub(8) {
        Some(f) if f >= binary_start => f,
        _ => {
            return Err(Error::truncated(
                file,
                binary_start,
                "DCPI footer (the binary section is shorter than its 8-byte footer)",
            ))
        }
    };
    let body = src.bytes(binary_start, len - binary_start, "DCPI binary section")?;
    let s = Slice::new(&body, binary_start, file);
    let end = (footer_offset - binary_start) as usize;
    let mut chunks = Vec::new();
    let mut chunk_offsets = Vec::new();
    let mut p = 0usize;
    while p < end {
        if end - p < 8 {
            return Err(Error::truncated(
                file,
                binary_start + p as u64,
                format!(
                    "DCPI chunk header ({} bytes left before the footer)",
                    end - p
                ),
            ));
        }
        let offset = s.u32_le(p, "chunk offset")?;
        let number = s.u32_le(p + 4, "chunk number")?;
        let room = (end - p - 8) / 4;
        if number as u64 > room as u64 {
            return Err(Error::truncated(
                file,
                binary_start + p as u64,
                format!("DCPI chunk of {number} counts (room for {room} before the footer)"),
            ));
        }
        let raw = s.get(p + 8, number as usize * 4, "chunk counts")?;
        let counts = raw
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        chunk_offsets.push(binary_start + p as u64);
        chunks.push(DcpiChunk { offset, counts });
        p += 8 + number as usize * 4;
    }
    let footer = DcpiFooter {
        total_offsets: s.u32_le(end, "footer total_offsets")?,
        total_samples: s.u32_le(end + 4, "footer total_samples")?,
    };
    Ok(Body {
        chunks,
        chunk_offsets,
        footer,
        footer_offset,
    })
}

/// The chunk rules a reader survives breaking: empty chunks, offsets not ascending, overlaps,
/// ranges past `tsize` (the text size, when the header gives one).
pub(super) fn validate(
    chunks: &[DcpiChunk],
    tsize: Option<u64>,
    file: &str,
    layout: &DcpiLayout,
) -> Vec<Warning> {
    let mut w = Vec::new();
    let chunk_off = |i: usize| layout.chunk_offsets.get(i).copied().unwrap_or(0);
    for (i, c) in chunks.iter().enumerate() {
        if c.counts.is_empty() {
            w.push(Error::invalid(
                file,
                chunk_off(i),
                format!("chunk at offset {:#x} has no counts", c.offset),
            ));
        }
        if let Some(prev) = i.checked_sub(1).and_then(|p| chunks.get(p)) {
            let prev_end = prev.offset as u64 + prev.counts.len() as u64;
            if c.offset <= prev.offset {
                w.push(Error::invalid(
                    file,
                    chunk_off(i),
                    format!(
                        "chunk offset {:#x} is not greater than the previous chunk's {:#x}",
                        c.offset, prev.offset
                    ),
                ));
            } else if (c.offset as u64) < prev_end {
                w.push(Error::invalid(
                    file,
                    chunk_off(i),
                    format!(
                        "chunk {:#x}..{:#x} overlaps the previous chunk {:#x}..{prev_end:#x}",
                        c.offset,
                        c.offset as u64 + c.counts.len() as u64,
                        prev.offset
                    ),
                ));
            }
        }
        if let Some(t) = tsize {
            let end = c.offset as u64 + c.counts.len() as u64;
            if end > t {
                w.push(Error::invalid(
                    file,
                    chunk_off(i),
                    format!(
                        "chunk {:#x}..{end:#x} reaches past the text size {t:#x}",
                        c.offset
                    ),
                ));
            }
        }
    }
    w
}

/// Footer totals that disagree with the chunks' `(offsets, samples)`, each at its field.
pub(super) fn validate_footer(
    footer: &DcpiFooter,
    (offsets, samples): (u64, u64),
    file: &str,
    layout: &DcpiLayout,
) -> Vec<Warning> {
    let mut w = Vec::new();
    if offsets != footer.total_offsets as u64 {
        w.push(Error::at(
            ErrorKind::Mismatch,
            file,
            layout.footer_offset,
            format!(
                "footer total_offsets {} does not match the {offsets} addresses with samples in the chunks",
                footer.total_offsets
            ),
        ));
    }
    if samples != footer.total_samples as u64 {
        w.push(Error::at(
            ErrorKind::Mismatch,
            file,
            layout.footer_offset + 4,
            format!(
                "footer total_samples {} does not match the {samples} samples in the chunks",
                footer.total_samples
            ),
        ));
    }
    w
}
