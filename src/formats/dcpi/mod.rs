//! DCPI-style sample profiles (seed 003): an ASCII header of `key value` lines ended by a
//! `samples` line, then little-endian chunks (`offset`, `number`, `number` counts) and an 8-byte
//! footer (`total_offsets`, `total_samples`). Reads, validates and writes them, and fills the model
//! as a flat view: root -> image -> one node per chunk (address range) -> one node per sampled address.
//!
//! Readings of the seed that it leaves open, chosen here:
//! - `period` is listed both as required and as optional; it is treated as required (exactly one).
//! - The seed says chunk offsets are relative to `text_start(image)`, "recorded in the tstart field",
//!   but `tstart` is not in the grammar: a `tstart <hex>` line (an unknown line by the grammar, kept
//!   as such) gives the text start; without it addresses are image offsets.
//! - "The length of the address range is <number>": count `i` of a chunk belongs to address
//!   `text_start + offset + i`.
//! - Rule breaks that leave the data readable (missing or repeated required lines, malformed values,
//!   chunk order or overlap, footer totals that disagree with the chunks) are warnings with the byte
//!   offset of the offending line, chunk or footer field; a header without its `samples` line, a
//!   binary section that ends inside a chunk or before the footer are errors.

pub mod probe;

use crate::bytes::{Slice, Source};
use crate::error::{Error, ErrorKind, Result, Warning};
use crate::formats::{DatasetGroup, FileKind, Format, InputFile, Probe};
use crate::model::{
    Cct, CctBuilder, Combine, Dataset, FileEntry, Frame, Function, LazyData, LexicalType, Metric,
    MetricScope, Module, NodeKind, ProfileInfo, Relation, ScopeKind, SparseValues, SummaryStat,
};
use std::sync::Arc;

/// Longest header searched for the `samples` line: a real header is a few hundred bytes.
pub const MAX_HEADER: u64 = 1 << 20;

/// Header lines that must occur exactly once.
pub const REQUIRED_KEYS: [&str; 7] = [
    "image", "epoch", "platform", "event", "period", "tsize", "cpuspeed",
];
/// Header lines the grammar names as optional (`period` is required, see the module comment).
pub const OPTIONAL_KEYS: [&str; 4] = ["cpuamask", "cpuimplv", "cpucount", "path"];

/// Where a header line falls in the seed's grammar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineClass {
    Required,
    Optional,
    /// `<word> <space>+ <rest_of_line>` with a word the grammar does not name: kept and rewritten.
    Unknown,
    /// Not `<word> <space>+ <rest_of_line>` (empty line, no value): kept verbatim, with a warning.
    Malformed,
}

/// One header line, kept verbatim so a rewrite preserves it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HeaderLine {
    /// The line as written, without its newline.
    pub raw: String,
    pub key: String,
    /// Everything after the separating blanks (may keep trailing blanks, as the grammar allows).
    pub value: String,
    pub class: LineClass,
}

impl HeaderLine {
    /// A line `key value` with one space between.
    pub fn new(key: &str, value: &str) -> HeaderLine {
        HeaderLine::parse(&format!("{key} {value}"))
    }

    /// Splits a line into its word and value and classifies it.
    pub fn parse(raw: &str) -> HeaderLine {
        let is_blank = |c: char| c == ' ' || c == '\t';
        let key_end = raw.find(is_blank).unwrap_or(raw.len());
        let key = &raw[..key_end];
        let value = raw[key_end..].trim_start_matches(is_blank);
        let class = if key.is_empty() || value.is_empty() {
            LineClass::Malformed
        } else if REQUIRED_KEYS.contains(&key) {
            LineClass::Required
        } else if OPTIONAL_KEYS.contains(&key) {
            LineClass::Optional
        } else {
            LineClass::Unknown
        };
        HeaderLine {
            raw: raw.to_string(),
            key: key.to_string(),
            value: value.to_string(),
            class,
        }
    }

    /// Why the value does not match the grammar for its key, if it does not.
    fn value_problem(&self) -> Option<&'static str> {
        let v = self.value.trim_end_matches([' ', '\t']);
        let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
        let hex = !v.is_empty() && v.bytes().all(|b| b.is_ascii_hexdigit());
        match self.key.as_str() {
            "image" | "cpuamask" if !hex => Some("hexadecimal digits"),
            "period" | "tsize" | "cpuspeed" | "cpuimplv" | "cpucount" if !digits => {
                Some("decimal digits")
            }
            "epoch" if !(digits && (v.len() == 10 || v.len() == 14)) => {
                Some("a time YYMMDDHHMM or YYYYMMDDHHMMSS")
            }
            _ => None,
        }
    }
}

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

    /// The header as written: each line and a `samples` line padded with blanks so the binary
    /// section starts at a multiple of four bytes, as the seed recommends.
    fn header_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for l in &self.header {
            // A newline inside a line would split it on reading.
            out.extend(l.raw.bytes().map(|b| if b == b'\n' { b' ' } else { b }));
            out.push(b'\n');
        }
        out.extend_from_slice(b"samples");
        while (out.len() + 1) % 4 != 0 {
            out.push(b' ');
        }
        out.push(b'\n');
        out
    }

    /// Where [`write`] puts each part of this profile.
    pub fn layout(&self) -> DcpiLayout {
        let mut line_offsets = Vec::with_capacity(self.header.len());
        let mut pos = 0u64;
        for l in &self.header {
            line_offsets.push(pos);
            pos += l.raw.len() as u64 + 1;
        }
        let binary_start = self.header_bytes().len() as u64;
        let mut chunk_offsets = Vec::with_capacity(self.chunks.len());
        let mut pos = binary_start;
        for c in &self.chunks {
            chunk_offsets.push(pos);
            pos += 8 + 4 * c.counts.len() as u64;
        }
        DcpiLayout {
            line_offsets,
            binary_start,
            chunk_offsets,
            footer_offset: pos,
        }
    }

    /// Checks the seed's rules that a reader can survive breaking; `file` and `layout` place the
    /// warnings.
    pub fn validate(&self, file: &str, layout: &DcpiLayout) -> Vec<Warning> {
        let mut w = Vec::new();
        let line_off = |i: usize| layout.line_offsets.get(i).copied().unwrap_or(0);
        for (i, l) in self.header.iter().enumerate() {
            if l.class == LineClass::Malformed {
                w.push(Error::invalid(
                    file,
                    line_off(i),
                    format!("DCPI header line {:?} is not `word value`", l.raw),
                ));
            } else if let Some(want) = l.value_problem() {
                w.push(Error::invalid(
                    file,
                    line_off(i),
                    format!(
                        "DCPI header line `{}`: value {:?} is not {want}",
                        l.key, l.value
                    ),
                ));
            }
        }
        for key in REQUIRED_KEYS {
            let at: Vec<usize> = (0..self.header.len())
                .filter(|&i| {
                    self.header[i].key == key && self.header[i].class != LineClass::Malformed
                })
                .collect();
            match at.len() {
                0 => w.push(Error::invalid(
                    file,
                    layout.binary_start.saturating_sub(1),
                    format!("DCPI header has no `{key}` line (required exactly once)"),
                )),
                1 => {}
                n => w.push(Error::invalid(
                    file,
                    line_off(at[1]),
                    format!("DCPI header has {n} `{key}` lines (required exactly once); the first is used"),
                )),
            }
        }
        let tsize = self.get("tsize").and_then(|v| v.parse::<u64>().ok());
        let chunk_off = |i: usize| layout.chunk_offsets.get(i).copied().unwrap_or(0);
        for (i, c) in self.chunks.iter().enumerate() {
            if c.counts.is_empty() {
                w.push(Error::invalid(
                    file,
                    chunk_off(i),
                    format!("chunk at offset {:#x} has no counts", c.offset),
                ));
            }
            if let Some(prev) = i.checked_sub(1).and_then(|p| self.chunks.get(p)) {
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
        let (offsets, samples) = self.totals();
        if offsets != self.footer.total_offsets as u64 {
            w.push(Error::at(
                ErrorKind::Mismatch,
                file,
                layout.footer_offset,
                format!(
                    "footer total_offsets {} does not match the {offsets} addresses with samples in the chunks",
                    self.footer.total_offsets
                ),
            ));
        }
        if samples != self.footer.total_samples as u64 {
            w.push(Error::at(
                ErrorKind::Mismatch,
                file,
                layout.footer_offset + 4,
                format!(
                    "footer total_samples {} does not match the {samples} samples in the chunks",
                    self.footer.total_samples
                ),
            ));
        }
        w
    }
}

/// Writes a profile in the seed's layout: header lines verbatim (unknown lines included), a padded
/// `samples` line, the chunks and the footer as stored (call
/// [`DcpiProfile::set_footer_from_chunks`] first for a consistent file).
pub fn write(p: &DcpiProfile) -> Vec<u8> {
    let mut out = p.header_bytes();
    for c in &p.chunks {
        out.extend_from_slice(&c.offset.to_le_bytes());
        // A chunk cannot hold more than 2^32 - 1 counts; longer ones are cut (never in practice).
        let n = c.counts.len().min(u32::MAX as usize);
        out.extend_from_slice(&(n as u32).to_le_bytes());
        for &v in &c.counts[..n] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.extend_from_slice(&p.footer.total_offsets.to_le_bytes());
    out.extend_from_slice(&p.footer.total_samples.to_le_bytes());
    out
}

/// Reads a profile: header (up to [`MAX_HEADER`] bytes), chunks and footer, then validates it.
pub fn parse(src: &Source) -> Result<ParsedDcpi> {
    let file = src.name().to_string();
    let head = src.bytes(0, src.len().min(MAX_HEADER), "DCPI header")?;
    let mut header = Vec::new();
    let mut line_offsets = Vec::new();
    let mut pos = 0usize;
    let binary_start = loop {
        let Some(nl) = head[pos..].iter().position(|&b| b == b'\n') else {
            return Err(if src.len() > MAX_HEADER {
                Error::too_large(
                    &file,
                    pos as u64,
                    "DCPI header (no `samples` line in the first MiB)",
                )
            } else {
                Error::truncated(&file, pos as u64, "DCPI header (no `samples` line)")
            });
        };
        let line = &head[pos..pos + nl];
        if let Some(bad) = line
            .iter()
            .position(|&b| b < 0x20 && b != b'\t' || b == 0x7f)
        {
            return Err(Error::invalid(
                &file,
                (pos + bad) as u64,
                format!(
                    "DCPI header: control byte {:#04x} in a header line",
                    line[bad]
                ),
            ));
        }
        let text = String::from_utf8_lossy(line);
        if let Some(rest) = text.strip_prefix("samples") {
            if rest.bytes().all(|b| b == b' ' || b == b'\t') {
                break (pos + nl + 1) as u64;
            }
        }
        line_offsets.push(pos as u64);
        header.push(HeaderLine::parse(&text));
        pos += nl + 1;
    };
    drop(head);

    let len = src.len();
    let footer_offset = match len.checked_sub(8) {
        Some(f) if f >= binary_start => f,
        _ => {
            return Err(Error::truncated(
                &file,
                binary_start,
                "DCPI footer (the binary section is shorter than its 8-byte footer)",
            ))
        }
    };
    let body = src.bytes(binary_start, len - binary_start, "DCPI binary section")?;
    let s = Slice::new(&body, binary_start, &file);
    let end = (footer_offset - binary_start) as usize;
    let mut chunks = Vec::new();
    let mut chunk_offsets = Vec::new();
    let mut p = 0usize;
    while p < end {
        if end - p < 8 {
            return Err(Error::truncated(
                &file,
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
                &file,
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
    let profile = DcpiProfile {
        header,
        chunks,
        footer,
    };
    let layout = DcpiLayout {
        line_offsets,
        binary_start,
        chunk_offsets,
        footer_offset,
    };
    let warnings = profile.validate(&file, &layout);
    Ok(ParsedDcpi {
        profile,
        layout,
        warnings,
    })
}

/// A deterministic example profile made from the seed's grammar, for fixtures and demos:
/// `chunks` chunks of `len` addresses each (gaps between them), counts shaped into a few hot
/// spots by a fixed pseudo-random sequence, every required line, optional lines, two unknown lines
/// (`tstart` and a comment) and a footer consistent with the chunks.
pub fn example(chunks: u32, len: u32) -> DcpiProfile {
    let len = len.max(1);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        // xorshift64: the same numbers on every platform.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::new();
    let mut offset = 0x40u64;
    for c in 0..chunks {
        let hot = next() % len as u64;
        let counts = (0..len as u64)
            .map(|i| {
                let d = i.abs_diff(hot);
                let peak = 2000 / (1 + d * d);
                let noise = next() % 8;
                // About a third of the addresses have no sample, as in real profiles.
                if noise < 3 && peak < 10 {
                    0
                } else {
                    (peak + noise) as u32
                }
            })
            .collect();
        out.push(DcpiChunk {
            offset: offset.min(u32::MAX as u64) as u32,
            counts,
        });
        offset += len as u64 + 0x20 + (c as u64 % 3) * 0x40;
    }
    let mut p = DcpiProfile {
        header: vec![
            HeaderLine::new("image", "3a5f09c2"),
            HeaderLine::new("epoch", "9703141230"),
            HeaderLine::new("platform", "alpha dec-3000-500"),
            HeaderLine::new("event", "cycles"),
            HeaderLine::new("period", "65536"),
            HeaderLine::new("tsize", &offset.to_string()),
            HeaderLine::new("cpuspeed", "300"),
            HeaderLine::new("cpucount", "2"),
            HeaderLine::new("path", "/usr/local/bin/solver"),
            HeaderLine::new("tstart", "120000000"),
            HeaderLine::new(
                "comment",
                "written by hpcscope from the DCPI profile grammar",
            ),
        ],
        chunks: out,
        footer: DcpiFooter {
            total_offsets: 0,
            total_samples: 0,
        },
    };
    p.set_footer_from_chunks();
    p
}

/// Most bins [`histogram`] makes, whatever the caller asks (a canvas is a few thousand pixels).
pub const MAX_BINS: usize = 1 << 16;

/// `bins` equal-width bins over the sampled address range: (first address of the bin, samples).
/// Empty when nothing was sampled; at most one bin per address and [`MAX_BINS`] bins.
pub fn histogram(p: &DcpiProfile, bins: usize) -> Vec<(u64, u64)> {
    let bins = bins.min(MAX_BINS);
    let mut lo = u64::MAX;
    let mut hi = 0u64;
    for (a, _) in p.address_counts() {
        lo = lo.min(a);
        hi = hi.max(a);
    }
    if bins == 0 || lo > hi {
        return Vec::new();
    }
    let span = (hi - lo) as u128 + 1;
    let width = u64::try_from(span.div_ceil(bins as u128))
        .unwrap_or(u64::MAX)
        .max(1);
    let n = span.div_ceil(width as u128) as usize;
    let mut out: Vec<(u64, u64)> = (0..n as u64).map(|i| (lo + i * width, 0)).collect();
    for (a, c) in p.address_counts() {
        if let Some(slot) = out.get_mut(((a - lo) / width) as usize) {
            slot.1 += c as u64;
        }
    }
    out
}

/// The epoch as a date, reading two-digit years 70-99 as 19xx (DCPI's era) and others as 20xx.
fn epoch_text(v: &str) -> Option<String> {
    let d = |r: std::ops::Range<usize>| v.get(r);
    match v.len() {
        10 => {
            let yy: u32 = d(0..2)?.parse().ok()?;
            let year = if yy >= 70 { 1900 + yy } else { 2000 + yy };
            Some(format!(
                "{year}-{}-{} {}:{} UTC",
                d(2..4)?,
                d(4..6)?,
                d(6..8)?,
                d(8..10)?
            ))
        }
        14 => Some(format!(
            "{}-{}-{} {}:{}:{} UTC",
            d(0..4)?,
            d(4..6)?,
            d(6..8)?,
            d(8..10)?,
            d(10..12)?,
            d(12..14)?
        )),
        _ => None,
    }
}

/// Value ids of the one metric: samples at the node itself, and in its subtree.
const EXCLUSIVE_ID: u16 = 0;
const INCLUSIVE_ID: u16 = 1;

struct DcpiData {
    profile: Arc<DcpiProfile>,
    values: SparseValues,
}

impl LazyData for DcpiData {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        Ok(if prof == 0 {
            self.values.clone()
        } else {
            SparseValues::default()
        })
    }
    fn context_values(&self, node: u32) -> Result<Vec<(u32, u16, f64)>> {
        let mut out = Vec::new();
        for id in [EXCLUSIVE_ID, INCLUSIVE_ID] {
            let v = self.values.get(node, id);
            if v != 0.0 {
                out.push((0, id, v));
            }
        }
        Ok(out)
    }
    fn address_histogram(&self, bins: usize) -> Result<Vec<(u64, u64)>> {
        Ok(histogram(&self.profile, bins))
    }
}

/// The image's display name: its `path` line, else `image <id>`.
fn image_label(p: &DcpiProfile) -> String {
    match (p.get("path"), p.get("image")) {
        (Some(path), _) => path.to_string(),
        (None, Some(id)) => format!("image {id}"),
        (None, None) => "image".to_string(),
    }
}

/// Fills the model: root -> image -> chunk (address range) -> sampled address.
pub fn to_dataset(parsed: ParsedDcpi, path: &str, size: u64) -> Result<Dataset> {
    let ParsedDcpi {
        profile, warnings, ..
    } = parsed;
    let start = profile.text_start();
    let label = image_label(&profile);
    let sampled: u64 = profile.totals().0;
    // ctx ids are u32: the tree must fit (it always does below 16 GiB of file).
    if sampled + profile.chunks.len() as u64 + 2 > u32::MAX as u64 {
        return Err(Error::too_large(
            path,
            0,
            "DCPI profile with more than 2^32 nodes",
        ));
    }
    let mut functions = vec![Function {
        name: crate::model::short_path(&label).to_string(),
        module: Some(0),
        offset: None,
        file: None,
        line: None,
    }];
    let mut b = CctBuilder::new(0);
    let mut triples = Vec::new();
    let mut next_id = 1u32;
    let image = b.add(
        0,
        next_id,
        Frame {
            module: Some(0),
            ..Frame::call(0)
        },
    );
    next_id += 1;
    let mut total = 0u64;
    for c in &profile.chunks {
        let first = start.saturating_add(c.offset as u64);
        let last = first.saturating_add((c.counts.len() as u64).saturating_sub(1));
        let f = functions.len() as u32;
        functions.push(Function {
            name: format!("{first:#x}-{last:#x}"),
            module: Some(0),
            offset: Some(c.offset as u64),
            file: None,
            line: None,
        });
        let chunk = b.add(
            image,
            next_id,
            Frame {
                relation: Relation::Lexical,
                module: Some(0),
                offset: Some(c.offset as u64),
                ..Frame::call(f)
            },
        );
        next_id += 1;
        let mut chunk_total = 0u64;
        for (i, &n) in c.counts.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let node = b.add(
                chunk,
                next_id,
                Frame {
                    kind: NodeKind::Context,
                    relation: Relation::Lexical,
                    lexical_type: LexicalType::Instruction,
                    function: None,
                    file: None,
                    line: None,
                    module: Some(0),
                    offset: Some(c.offset as u64 + i as u64),
                },
            );
            next_id += 1;
            triples.push((node, EXCLUSIVE_ID, n as f64));
            triples.push((node, INCLUSIVE_ID, n as f64));
            chunk_total += n as u64;
        }
        triples.push((chunk, INCLUSIVE_ID, chunk_total as f64));
        total += chunk_total;
    }
    triples.push((image, INCLUSIVE_ID, total as f64));
    triples.push((0, INCLUSIVE_ID, total as f64));
    let cct: Cct = b.finish(path)?;
    // Each node's ctx id is its builder index (ids were handed out in insertion order).
    let triples = triples
        .into_iter()
        .filter_map(|(n, id, v)| cct.node_of_ctx(n).map(|node| (node, id, v)))
        .collect();
    let values = SparseValues::from_triples(triples);

    let event = profile.get("event").unwrap_or("samples").to_string();
    let scope = |s: &str, kind, id| MetricScope {
        scope: s.into(),
        kind,
        prop_metric_id: id,
    };
    let stat = |s: &str, kind, id| SummaryStat {
        scope: s.into(),
        kind,
        formula: "$$".into(),
        combine: Combine::Sum,
        stat_metric_id: id,
    };
    let metrics = vec![Metric {
        name: event,
        unit: "samples".into(),
        scopes: vec![
            scope("execution", ScopeKind::Execution, INCLUSIVE_ID),
            scope("function", ScopeKind::Function, EXCLUSIVE_ID),
        ],
        summaries: vec![
            stat("execution", ScopeKind::Execution, INCLUSIVE_ID),
            stat("function", ScopeKind::Function, EXCLUSIVE_ID),
        ],
    }];

    let mut facts = Vec::new();
    for l in &profile.header {
        let key = match l.class {
            LineClass::Unknown => format!("{} (unknown line, kept)", l.key),
            LineClass::Malformed => "malformed line".to_string(),
            _ => l.key.clone(),
        };
        let value = if l.class == LineClass::Malformed {
            l.raw.clone()
        } else if l.key == "epoch" {
            let v = l.value.trim_end();
            match epoch_text(v) {
                Some(t) => format!("{v} ({t})"),
                None => v.to_string(),
            }
        } else {
            l.value.clone()
        };
        facts.push((key, value));
    }
    facts.push((
        "text start".into(),
        if profile.get("tstart").is_some() {
            format!("{start:#x}")
        } else {
            "0 (no tstart line: addresses are image offsets)".into()
        },
    ));
    facts.push(("chunks".into(), profile.chunks.len().to_string()));
    let (offsets, samples) = profile.totals();
    facts.push(("addresses with samples".into(), offsets.to_string()));
    facts.push(("total samples".into(), samples.to_string()));
    let footer_ok = offsets == profile.footer.total_offsets as u64
        && samples == profile.footer.total_samples as u64;
    facts.push((
        "footer".into(),
        format!(
            "total_offsets {}, total_samples {} ({})",
            profile.footer.total_offsets,
            profile.footer.total_samples,
            if footer_ok {
                "match the chunks"
            } else {
                "DO NOT match the chunks"
            }
        ),
    ));
    {
        let mut addrs = profile.address_counts();
        if let Some((first, _)) = addrs.next() {
            let last = addrs.last().map(|(a, _)| a).unwrap_or(first);
            facts.push((
                "sampled addresses".into(),
                format!("{first:#x}..={last:#x}"),
            ));
        }
    }
    let profile = Arc::new(profile);
    Ok(Dataset {
        format: "dcpi".into(),
        layout: "DCPI profile".into(),
        title: label.clone(),
        files: vec![FileEntry {
            path: path.to_string(),
            size,
        }],
        facts,
        id_names: vec!["SUMMARY".into()],
        modules: vec![Module { path: label }],
        source_files: Vec::new(),
        functions,
        cct,
        metrics,
        profiles: vec![ProfileInfo {
            summary: true,
            id_tuple: Vec::new(),
        }],
        summary_profile: Some(0),
        trace: None,
        warnings,
        data: Box::new(DcpiData { profile, values }),
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
pub struct Dcpi;
pub static DCPI: Dcpi = Dcpi;

/// A DCPI-style header starts with one of its keywords and is ASCII up to its `samples` line.
fn looks_like_dcpi(head: &[u8]) -> bool {
    const KEYS: [&[u8]; 12] = [
        b"image",
        b"epoch",
        b"platform",
        b"event",
        b"period",
        b"tsize",
        b"cpuspeed",
        b"cpuamask",
        b"cpuimplv",
        b"cpucount",
        b"path",
        b"version",
    ];
    let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let word = first
        .split(|&b| b == b' ' || b == b'\t')
        .next()
        .unwrap_or(&[]);
    if !KEYS.contains(&word) {
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

impl Format for Dcpi {
    fn id(&self) -> &'static str {
        ID
    }
    fn display_name(&self) -> &'static str {
        "DCPI profile"
    }
    fn detect(&self, _path: &str, _name: &str, head: &[u8]) -> Option<FileKind> {
        looks_like_dcpi(head).then_some(PROFILE)
    }
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool {
        files.iter().any(|(k, _)| *k == PROFILE)
    }
    fn one_dataset_per_file(&self) -> bool {
        true
    }
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()> {
        probe::probe(group, p)
    }
    fn open(&self, group: &DatasetGroup) -> Result<Dataset> {
        open(group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{group, InputFile};

    /// A small profile: required lines, one optional, two unknown lines, two chunks.
    fn sample() -> DcpiProfile {
        let mut p = DcpiProfile {
            header: vec![
                HeaderLine::new("image", "3a5f09c2"),
                HeaderLine::new("epoch", "9703141230"),
                HeaderLine::new("platform", "alpha dec-3000"),
                HeaderLine::new("event", "cycles"),
                HeaderLine::new("period", "65536"),
                HeaderLine::new("tsize", "4096"),
                HeaderLine::new("cpuspeed", "300"),
                HeaderLine::new("path", "/usr/bin/solver"),
                HeaderLine::parse("tstart\t120000000"),
                HeaderLine::new("future-key", "some value with  spaces"),
            ],
            chunks: vec![
                DcpiChunk {
                    offset: 0x10,
                    counts: vec![3, 0, 5],
                },
                DcpiChunk {
                    offset: 0x100,
                    counts: vec![7],
                },
            ],
            footer: DcpiFooter {
                total_offsets: 0,
                total_samples: 0,
            },
        };
        p.set_footer_from_chunks();
        p
    }

    fn dataset_of(bytes: Vec<u8>) -> Result<Dataset> {
        let (groups, _) = group(vec![InputFile {
            path: "solver.prof".into(),
            source: Source::from_vec("solver.prof", bytes),
        }]);
        assert_eq!(groups.len(), 1);
        crate::formats::open(&groups[0])
    }

    #[test]
    fn reads_hand_written_bytes() {
        let mut b = b"image 1f\nepoch 9703141230\nplatform alpha\nevent cycles\nperiod 4096\ntsize 64\ncpuspeed 300\nsamples\n".to_vec();
        assert_eq!(b.len() % 4, 0, "header chosen 4-aligned");
        b.extend_from_slice(&[0x08, 0, 0, 0]); // chunk offset 8
        b.extend_from_slice(&[2, 0, 0, 0]); // number 2
        b.extend_from_slice(&[4, 0, 0, 0]); // count at address 8: 4
        b.extend_from_slice(&[0, 1, 0, 0]); // count at address 9: 256
        b.extend_from_slice(&[2, 0, 0, 0]); // total_offsets 2
        b.extend_from_slice(&[4, 1, 0, 0]); // total_samples 260
        let p = parse(&Source::from_vec("t.prof", b.clone())).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.profile.header.len(), 7);
        assert_eq!(p.profile.get("event"), Some("cycles"));
        assert_eq!(p.layout.binary_start, 96);
        assert_eq!(
            p.profile.chunks,
            vec![DcpiChunk {
                offset: 8,
                counts: vec![4, 256]
            }]
        );
        assert_eq!(p.profile.footer.total_samples, 260);
        assert_eq!(
            p.profile.address_counts().collect::<Vec<_>>(),
            vec![(8, 4), (9, 256)]
        );
        // The writer reproduces these bytes exactly (the header was already 4-aligned).
        assert_eq!(write(&p.profile), b);
    }

    #[test]
    fn round_trip_keeps_every_field_and_unknown_lines() {
        let p = sample();
        let bytes = write(&p);
        let layout = p.layout();
        assert_eq!(layout.binary_start % 4, 0);
        assert_eq!(layout.footer_offset + 8, bytes.len() as u64);
        let back = parse(&Source::from_vec("s.prof", bytes.clone())).unwrap();
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        assert_eq!(back.profile, p);
        assert_eq!(back.layout, layout);
        let unknown: Vec<_> = back
            .profile
            .header
            .iter()
            .filter(|l| l.class == LineClass::Unknown)
            .map(|l| l.raw.as_str())
            .collect();
        assert_eq!(
            unknown,
            ["tstart\t120000000", "future-key some value with  spaces"]
        );
        // Rewriting what was read gives the same bytes again.
        assert_eq!(write(&back.profile), bytes);
        assert_eq!(back.profile.footer.total_offsets, 3);
        assert_eq!(back.profile.footer.total_samples, 15);
    }

    #[test]
    fn corrupted_footer_is_reported_at_its_offset() {
        let p = sample();
        let mut bytes = write(&p);
        let footer = p.layout().footer_offset as usize;
        bytes[footer + 4] ^= 0x40; // total_samples 15 -> 79
        let back = parse(&Source::from_vec("s.prof", bytes.clone())).unwrap();
        assert_eq!(back.warnings.len(), 1, "{:?}", back.warnings);
        let w = &back.warnings[0];
        assert_eq!(w.kind, ErrorKind::Mismatch);
        assert_eq!(w.offset, Some(footer as u64 + 4));
        assert!(w.to_string().contains("total_samples 79"), "{w}");
        bytes[footer] = 9; // total_offsets 3 -> 9
        let back = parse(&Source::from_vec("s.prof", bytes)).unwrap();
        let offs: Vec<_> = back.warnings.iter().map(|w| w.offset).collect();
        assert_eq!(offs, vec![Some(footer as u64), Some(footer as u64 + 4)]);
        // The dataset still opens and shows the warning.
        let ds = dataset_of({
            let mut b = write(&p);
            b[footer] = 1;
            b
        })
        .unwrap();
        assert_eq!(ds.warnings.len(), 1);
        assert!(ds
            .facts
            .iter()
            .any(|(k, v)| k == "footer" && v.contains("DO NOT")));
    }

    #[test]
    fn header_rules_missing_repeated_malformed() {
        let mut p = sample();
        p.header.retain(|l| l.key != "cpuspeed");
        p.header.push(HeaderLine::new("image", "77"));
        p.header.push(HeaderLine::new("epoch", "97-03-14"));
        p.header.push(HeaderLine::parse("lonely"));
        let bytes = write(&p);
        let back = parse(&Source::from_vec("s.prof", bytes)).unwrap();
        let texts: Vec<String> = back.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(back.warnings.len(), 5, "{texts:?}");
        assert!(texts.iter().any(|t| t.contains("no `cpuspeed` line")));
        assert!(texts.iter().any(|t| t.contains("2 `image` lines")));
        assert!(texts.iter().any(|t| t.contains("2 `epoch` lines")));
        assert!(texts
            .iter()
            .any(|t| t.contains("\"97-03-14\" is not a time")));
        assert!(texts
            .iter()
            .any(|t| t.contains("\"lonely\" is not `word value`")));
        // The first image line is the one used; the repeated one is kept for rewriting.
        assert_eq!(back.profile.get("image"), Some("3a5f09c2"));
        assert_eq!(
            back.profile.header.last().unwrap().class,
            LineClass::Malformed
        );
        assert_eq!(write(&back.profile), write(&p));
    }

    #[test]
    fn chunk_order_and_overlap_are_reported() {
        let mut p = sample();
        p.chunks.push(DcpiChunk {
            offset: 0x100, // same offset as the previous chunk
            counts: vec![1],
        });
        p.chunks.push(DcpiChunk {
            offset: 0x200,
            counts: vec![1; 4],
        });
        p.chunks.push(DcpiChunk {
            offset: 0x202, // inside 0x200..0x204
            counts: vec![1],
        });
        p.set_footer_from_chunks();
        let back = parse(&Source::from_vec("s.prof", write(&p))).unwrap();
        let layout = p.layout();
        let got: Vec<(Option<u64>, bool)> = back
            .warnings
            .iter()
            .map(|w| (w.offset, w.what.contains("overlaps")))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some(layout.chunk_offsets[2]), false),
                (Some(layout.chunk_offsets[4]), true)
            ]
        );
    }

    #[test]
    fn fatal_problems_are_errors_with_offsets() {
        // No samples line.
        let e = parse(&Source::from_vec(
            "x",
            b"image 1\nepoch 9703141230\n".to_vec(),
        ))
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
        // Binary section shorter than the footer.
        let e = parse(&Source::from_vec("x", b"image 1\nsamples\n\0\0\0".to_vec())).unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, Some(16)));
        // A chunk claiming more counts than the file holds.
        let mut b = b"image 1\nsamples\n".to_vec();
        b.extend_from_slice(&[0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 0, 0]);
        b.extend_from_slice(&[0; 8]);
        let e = parse(&Source::from_vec("x", b)).unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::Truncated, Some(16)));
        assert!(e.what.contains("4294967295 counts"), "{e}");
        // A control byte in the header.
        let e = parse(&Source::from_vec(
            "x",
            b"image 1\nev\x01ent x\nsamples\n".to_vec(),
        ))
        .unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::Invalid, Some(10)));
    }

    #[test]
    fn dataset_flat_view_values_and_histogram() {
        let ds = dataset_of(write(&sample())).unwrap();
        assert_eq!(ds.format, "dcpi");
        assert_eq!(ds.layout, "DCPI profile");
        assert_eq!(ds.title, "/usr/bin/solver");
        assert!(ds.warnings.is_empty());
        ds.cct.check().unwrap();
        // root, image, chunk 0x10 with addresses 0x10 and 0x12, chunk 0x100 with 0x100.
        assert_eq!(ds.cct.len(), 7);
        let names: Vec<String> = (0..7).map(|n| ds.frame_name(n)).collect();
        assert_eq!(
            names,
            [
                "<root>",
                "solver",
                "0x120000010-0x120000012",
                "solver+0x10",
                "solver+0x12",
                "0x120000100-0x120000100",
                "solver+0x100"
            ]
        );
        assert_eq!(ds.cct.depth, vec![0, 1, 2, 3, 3, 2, 3]);
        let v = ds.data.profile_values(0).unwrap();
        let m = &ds.metrics[0];
        assert_eq!(m.name, "cycles");
        let inc = m.inclusive(true).unwrap();
        let exc = m.exclusive(true).unwrap();
        assert_eq!(m.inclusive(false), Some(inc));
        assert_eq!(v.column(inc, 7), vec![15.0, 15.0, 8.0, 3.0, 5.0, 7.0, 7.0]);
        assert_eq!(v.column(exc, 7), vec![0.0, 0.0, 0.0, 3.0, 5.0, 0.0, 7.0]);
        assert_eq!(
            ds.data.context_values(4).unwrap(),
            vec![(0, exc, 5.0), (0, inc, 5.0)]
        );
        // Addresses 0x120000010 ..= 0x120000100 (241 addresses) in 3 bins of 81.
        let h = ds.data.address_histogram(3).unwrap();
        assert_eq!(
            h,
            vec![
                (0x120000010, 8),
                (0x120000010 + 81, 0),
                (0x120000010 + 162, 7)
            ]
        );
        assert_eq!(histogram(&sample(), 1000).len(), 241);
        assert_eq!(histogram(&sample(), usize::MAX).len(), 241);
        assert_eq!(histogram(&sample(), 0), vec![]);
        // Addresses past the top of the address space saturate instead of wrapping.
        let mut top = sample();
        top.header
            .push(HeaderLine::new("tstart", "fffffffffffffff0"));
        top.header.retain(|l| l.raw != "tstart\t120000000");
        assert_eq!(histogram(&top, 4), vec![(u64::MAX, 15)]);
        assert!(ds
            .facts
            .iter()
            .any(|(k, v)| k == "epoch" && v == "9703141230 (1997-03-14 12:30 UTC)"));
        assert!(
            ds.facts
                .iter()
                .any(|(k, v)| k == "future-key (unknown line, kept)"
                    && v == "some value with  spaces")
        );
    }

    #[test]
    fn example_is_valid_and_round_trips() {
        let p = example(5, 64);
        let back = parse(&Source::from_vec("e.prof", write(&p))).unwrap();
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        assert_eq!(back.profile, p);
        assert_eq!(p.chunks.len(), 5);
        let (offsets, samples) = p.totals();
        assert_eq!(p.footer.total_offsets as u64, offsets);
        assert_eq!(p.footer.total_samples as u64, samples);
        // The peak of every chunk is at least 2000 samples.
        assert!(p
            .chunks
            .iter()
            .all(|c| c.counts.iter().max() >= Some(&2000)));
        assert_eq!(example(5, 64), p, "deterministic");
    }

    #[test]
    fn truncated_and_bit_flipped_never_panic() {
        let bytes = write(&sample());
        for cut in 0..bytes.len() {
            if let Ok(p) = parse(&Source::from_vec("f", bytes[..cut].to_vec())) {
                to_dataset(p, "f", 0).unwrap().cct.check().unwrap();
            }
        }
        for i in 0..bytes.len() {
            for bit in [0x01u8, 0x10, 0x80] {
                let mut b = bytes.clone();
                b[i] ^= bit;
                if let Ok(p) = parse(&Source::from_vec("f", b)) {
                    let ds = to_dataset(p, "f", 0).unwrap();
                    ds.cct.check().unwrap();
                    let _ = ds.data.address_histogram(64).unwrap();
                }
            }
        }
        // A huge `number` right before the footer must not allocate.
        let mut b = b"image 1\nsamples\n".to_vec();
        b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0x40]);
        b.extend_from_slice(&[0; 8]);
        assert!(parse(&Source::from_vec("f", b)).is_err());
    }
}
