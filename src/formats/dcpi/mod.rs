//! DCPI-style sample profiles (seed 003): an ASCII header of `key value` lines ended by a
//! `samples` line (header.rs), little-endian chunks and an 8-byte footer (chunks.rs), read and
//! validated here and filled into the model as a flat view (to_model.rs). The writer and the
//! example profile are in `crate::synth::dcpi`.

// Readings of the seed that it leaves open, chosen here:
// - `period` is listed both as required and as optional; it is treated as required (exactly one).
// - The seed says chunk offsets are relative to `text_start(image)`, "recorded in the tstart field",
//   but `tstart` is not in the grammar: a `tstart <hex>` line (an unknown line by the grammar, kept
//   as such) gives the text start; without it addresses are image offsets.
// - "The length of the address range is <number>": count `i` of a chunk belongs to address
//   `text_start + offset + i`.
// - Rule breaks that leave the data readable (missing or repeated required lines, malformed values,
//   chunk order or overlap, footer totals that disagree with the chunks) are warnings with the byte
//   offset of the offending line, chunk or footer field; a header without its `samples` line, a
//   binary section that ends inside a chunk or before the footer are errors.

mod chunks;
mod header;
pub mod probe;
#[cfg(test)]
mod tests;
mod to_model;

pub use chunks::{DcpiChunk, DcpiFooter};
pub use header::{
    is_samples_line, HeaderLine, LineClass, MAX_HEADER, OPTIONAL_KEYS, REQUIRED_KEYS,
};
pub use to_model::{histogram, to_dataset, MAX_BINS};

use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::formats::{DatasetGroup, FileKind, FormatEntry};
use crate::model::Dataset;

/// A whole profile: header lines in file order, chunks, footer as stored.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DcpiProfile {
    pub header: Vec<HeaderLine>,
    pub chunks: Vec<DcpiChunk>,
    pub footer: DcpiFooter,
}

/// Byte offsets of a profile's parts in its file, for messages that point into it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DcpiLayout {
    pub line_offsets: Vec<u64>,
    /// Offset of the first binary byte (after the `samples` line).
    pub binary_start: u64,
    pub chunk_offsets: Vec<u64>,
    pub footer_offset: u64,
}

/// A profile read from a file, with where its parts are and what is wrong with it.
#[derive(Clone, Debug)]
pub struct ParsedDcpi {
    pub profile: DcpiProfile,
    pub layout: DcpiLayout,
    pub warnings: Vec<Warning>,
}

impl DcpiProfile {
    /// The value of the first line with `key`, without trailing blanks.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.header
            .iter()
            .find(|l| l.key == key && l.class != LineClass::Malformed)
            .map(|l| l.value.trim_end_matches([' ', '\t']))
    }

    /// `text_start(image)` from a `tstart` line (hex, `0x` optional); 0 without one.
    pub fn text_start(&self) -> u64 {
        self.get("tstart")
            .and_then(|v| {
                let v = v.strip_prefix("0x").or(v.strip_prefix("0X")).unwrap_or(v);
                u64::from_str_radix(v, 16).ok()
            })
            .unwrap_or(0)
    }

    /// (addresses with samples, sum of counts) computed from the chunks.
    pub fn totals(&self) -> (u64, u64) {
        let mut offsets = 0u64;
        let mut samples = 0u64;
        for c in &self.chunks {
            for &n in &c.counts {
                offsets += (n != 0) as u64;
                samples += n as u64;
            }
        }
        (offsets, samples)
    }

    /// Sets the footer from the chunks (totals above 2^32 - 1 saturate).
    pub fn set_footer_from_chunks(&mut self) {
        let (o, s) = self.totals();
        self.footer = DcpiFooter {
            total_offsets: u32::try_from(o).unwrap_or(u32::MAX),
            total_samples: u32::try_from(s).unwrap_or(u32::MAX),
        };
    }

    /// Every address with at least one sample, ascending within each chunk: (address, count).
    pub fn address_counts(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        let start = self.text_start();
        self.chunks.iter().flat_map(move |c| {
            let base = start.saturating_add(c.offset as u64);
            c.counts
                .iter()
                .enumerate()
                .filter(|(_, &n)| n != 0)
                .map(move |(i, &n)| (base.saturating_add(i as u64), n))
        })
    }

    /// Checks the seed's rules that a reader can survive breaking (header lines, chunk order and
    /// extent, footer totals); `file` and `layout` place the warnings.
    pub fn validate(&self, file: &str, layout: &DcpiLayout) -> Vec<Warning> {
        let tsize = self.get("tsize").and_then(|v| v.parse::<u64>().ok());
        let mut w = header::validate(&self.header, file, layout);
        w.extend(chunks::validate(&self.chunks, tsize, file, layout));
        w.extend(chunks::validate_footer(
            &self.footer,
            self.totals(),
            file,
            layout,
        ));
        w
    }
}

/// Reads a profile: header (up to [`MAX_HEADER`] bytes), chunks and footer, then validates it.
pub fn parse(src: &Source) -> Result<ParsedDcpi> {
    let file = src.name().to_string();
    let head = header::read(src, &file)?;
    let body = chunks::read(src, &file, head.binary_start)?;
    let profile = DcpiProfile {
        header: head.lines,
        chunks: body.chunks,
        footer: body.footer,
    };
    let layout = DcpiLayout {
        line_offsets: head.line_offsets,
        binary_start: head.binary_start,
        chunk_offsets: body.chunk_offsets,
        footer_offset: body.footer_offset,
    };
    let warnings = profile.validate(&file, &layout);
    Ok(ParsedDcpi {
        profile,
        layout,
        warnings,
    })
}

/// Opens a lone DCPI profile.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    let f = group
        .file(PROFILE)
        .or_else(|| group.files.first().map(|(_, f)| f))
        .ok_or_else(|| Error::unrecognized(&group.root, "no DCPI profile in the group"))?;
    let parsed = parse(&f.source)?;
    to_dataset(parsed, &f.path, f.source.len())
}

/// The format id of DCPI-style profiles.
pub const ID: &str = "dcpi";
pub const PROFILE: FileKind = FileKind::new(ID, "profile");

/// DCPI-style profiles in the registry ([`crate::formats::FORMATS`]): each file is a dataset.
pub static DCPI: FormatEntry = FormatEntry {
    id: ID,
    display_name: "DCPI profile",
    detect: |_path, _name, head| looks_like_dcpi(head).then_some(PROFILE),
    claimed_by: &[PROFILE],
    one_dataset_per_file: true,
    probe: probe::probe,
    open,
};

/// A DCPI-style header starts with one of its keywords and is ASCII up to its `samples` line.
fn looks_like_dcpi(head: &[u8]) -> bool {
    let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let word = first
        .split(|&b| b == b' ' || b == b'\t')
        .next()
        .unwrap_or(&[]);
    // The grammar's words, and `version`: the seed says the header carries a version number.
    let mut known = REQUIRED_KEYS
        .iter()
        .chain(&OPTIONAL_KEYS)
        .chain(&["version"]);
    if !known.any(|k| k.as_bytes() == word) {
        return false;
    }
    // Lines up to "samples" must be printable text.
    let mut ascii_lines = 0;
    for line in head.split(|&b| b == b'\n') {
        if line.starts_with(b"samples") {
            return ascii_lines >= 1;
        }
        if !line
            .iter()
            .all(|&b| b == b'\t' || (0x20..0x7f).contains(&b))
        {
            return false;
        }
        ascii_lines += 1;
    }
    // The header may be longer than the head we were given: ASCII so far is enough.
    ascii_lines >= 3
}
