//! The ASCII header of a DCPI-style profile (seed 003): `<word> <space>+ <rest_of_line>` lines up
//! to a `samples` line, each kept verbatim and classified by the seed's grammar; the reader's and
//! the probe's only copy of the line rules.

use super::DcpiLayout;
use crate::bytes::Source;
use crate::error::{Error, Result, Warning};

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

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// Whether a line (without its newline) is the `samples` line that ends the header: the word
/// `samples` and nothing but blanks after it.
pub fn is_samples_line(line: &str) -> bool {
    line.strip_prefix("samples")
        .is_some_and(|rest| rest.chars().all(is_blank))
}

/// The header's lines, where each starts, and where the binary section starts.
pub(super) struct Header {
    pub lines: Vec<HeaderLine>,
    pub line_offsets: Vec<u64>,
    pub binary_start: u64,
}

/// Reads the header lines up to the `samples` line (within the first [`MAX_HEADER`] bytes). A
/// control byte in a line or a missing `samples` line is an error at its offset.
pub(super) fn read(src: &Source, file: &str) -> Result<Header> {
    let head = src.bytes(0, src.len().min(MAX_HEADER), "DCPI header")?;
    let mut lines = Vec::new();
    let mut line_offsets = Vec::new();
    let mut pos = 0usize;
    loop {
        let Some(nl) = head[pos..].iter().position(|&b| b == b'\n') else {
            return Err(if src.len() > MAX_HEADER {
                Error::too_large(
                    file,
                    pos as u64,
                    "DCPI header (no `samples` line in the first MiB)",
                )
            } else {
                Error::truncated(file, pos as u64, "DCPI header (no `samples` line)")
            });
        };
        let line = &head[pos..pos + nl];
        if let Some(bad) = line
            .iter()
            .position(|&b| b < 0x20 && b != b'\t' || b == 0x7f)
        {
            return Err(Error::invalid(
                file,
                (pos + bad) as u64,
                format!(
                    "DCPI header: control byte {:#04x} in a header line",
                    line[bad]
                ),
            ));
        }
        let text = String::from_utf8_lossy(line);
        if is_samples_line(&text) {
            return Ok(Header {
                lines,
                line_offsets,
                binary_start: (pos + nl + 1) as u64,
            });
        }
        line_offsets.push(pos as u64);
        lines.push(HeaderLine::parse(&text));
        pos += nl + 1;
    }
}

/// The header rules a reader survives breaking: malformed lines, values outside the grammar,
/// required lines missing or repeated. `layout` places the warnings.
pub(super) fn validate(lines: &[HeaderLine], file: &str, layout: &DcpiLayout) -> Vec<Warning> {
    let mut w = Vec::new();
    let line_off = |i: usize| layout.line_offsets.get(i).copied().unwrap_or(0);
    for (i, l) in lines.iter().enumerate() {
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
        let at: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].key == key && lines[i].class != LineClass::Malformed)
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
                format!(
                    "DCPI header has {n} `{key}` lines (required exactly once); the first is used"
                ),
            )),
        }
    }
    w
}
