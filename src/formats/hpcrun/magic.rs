//! The 24-byte first line of every hpcrun file (hpcrun-fmt.h `HPCRUN_FMT_Magic` and
//! `HPCTRACE_FMT_Magic`): an 18-byte magic padded with `_`, a 5-character version ("04.00") and a
//! byte-order letter, which hpcrun always writes as `b` (big-endian).

use crate::bytes::Slice;
use crate::error::{Error, Result};

/// Bytes of the magic line; the file's contents start after it.
pub const MAGIC_LINE_LEN: usize = 24;

/// What the magic line of a profile or trace says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MagicLine {
    /// "04.00", "02.00", "01.01" ...
    pub version: String,
    /// `b` for big-endian, the only order hpcrun writes.
    pub byte_order: u8,
}

impl MagicLine {
    /// Reads the line at the start of `s`, which must begin with `magic`; `kind` ("profile",
    /// "trace") names the file in errors.
    pub fn read(s: Slice, magic: &[u8; 18], kind: &str) -> Result<MagicLine> {
        if s.get(0, 18, &format!("{kind} magic"))? != magic {
            return Err(Error::bad_magic(
                s.file,
                s.base,
                format!("not an hpcrun {kind}"),
            ));
        }
        let version = s.get(18, 5, &format!("{kind} version"))?;
        Ok(MagicLine {
            version: String::from_utf8_lossy(version).into_owned(),
            byte_order: s.u8(23, &format!("{kind} byte order"))?,
        })
    }

    /// The version with its byte-order letter ("04.00b"), as summaries show it.
    pub fn label(&self) -> String {
        format!("{}{}", self.version, self.byte_order as char)
    }

    /// The readers only know big-endian files: any other letter is unsupported.
    pub fn require_big_endian(&self, file: &str, kind: &str) -> Result<()> {
        if self.byte_order == b'b' {
            return Ok(());
        }
        Err(Error::unsupported(
            file,
            Some(23),
            format!("hpcrun {kind} byte order '{}'", self.byte_order as char),
        ))
    }
}
