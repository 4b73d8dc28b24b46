//! One error type for every reader: a kind, the file, the byte offset and what was being read,
//! so a message reads like "truncated trace header at 0x1a0 in trace.db". Tolerable problems are
//! `Warning`s of the same shape that the UI lists instead of failing.

use std::fmt;

/// What went wrong, coarsely; the message carries the detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A read ran past the end of the file (or of a structure's stated size).
    Truncated,
    /// Magic bytes or footer did not match the format.
    BadMagic,
    /// A version or layout this reader does not know.
    Unsupported,
    /// A field holds a value that cannot be right (bad pointer, stride too small, ...).
    Invalid,
    /// A count or size that would need more memory or time than is reasonable.
    TooLarge,
    /// Files that do not belong together (different runs, missing companion file).
    Mismatch,
    /// The byte source itself failed (I/O, network, Blob read).
    Io,
    /// The format of a file or folder was not recognised.
    Unrecognized,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "truncated",
            ErrorKind::BadMagic => "bad magic",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Invalid => "invalid",
            ErrorKind::TooLarge => "too large",
            ErrorKind::Mismatch => "mismatch",
            ErrorKind::Io => "I/O error",
            ErrorKind::Unrecognized => "unrecognized",
        }
    }
}

/// A fatal problem reading a file: kind, file name, absolute byte offset (when known) and
/// a short description of the structure or field that broke.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Error {
    pub kind: ErrorKind,
    pub file: String,
    pub offset: Option<u64>,
    pub what: String,
}

/// A tolerable problem: same shape as an error, shown by the UI, never fatal.
pub type Warning = Error;

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(
        kind: ErrorKind,
        file: impl Into<String>,
        offset: Option<u64>,
        what: impl Into<String>,
    ) -> Error {
        Error {
            kind,
            file: file.into(),
            offset,
            what: what.into(),
        }
    }
    pub fn at(kind: ErrorKind, file: &str, offset: u64, what: impl Into<String>) -> Error {
        Error::new(kind, file, Some(offset), what)
    }
    pub fn truncated(file: &str, offset: u64, what: impl Into<String>) -> Error {
        Error::at(ErrorKind::Truncated, file, offset, what)
    }
    pub fn invalid(file: &str, offset: u64, what: impl Into<String>) -> Error {
        Error::at(ErrorKind::Invalid, file, offset, what)
    }
    pub fn too_large(file: &str, offset: u64, what: impl Into<String>) -> Error {
        Error::at(ErrorKind::TooLarge, file, offset, what)
    }
    pub fn bad_magic(file: &str, offset: u64, what: impl Into<String>) -> Error {
        Error::at(ErrorKind::BadMagic, file, offset, what)
    }
    pub fn unsupported(file: &str, offset: Option<u64>, what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unsupported, file, offset, what)
    }
    pub fn mismatch(file: &str, what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Mismatch, file, None, what)
    }
    pub fn io(file: &str, offset: Option<u64>, what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Io, file, offset, what)
    }
    pub fn unrecognized(file: &str, what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Unrecognized, file, None, what)
    }
    /// The warning that `n` items were invalid (`what` follows the count: "values name metrics
    /// not in the table (skipped)"), at `offset` of `file`; none when `n` is 0.
    pub fn count(n: u64, file: &str, offset: Option<u64>, what: &str) -> Option<Error> {
        (n > 0).then(|| Error::new(ErrorKind::Invalid, file, offset, format!("{n} {what}")))
    }
    /// Adds context in front of `what` ("in metric 3: ...") while keeping kind, file and offset.
    pub fn context(mut self, ctx: impl fmt::Display) -> Error {
        self.what = format!("{ctx}: {}", self.what);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.as_str(), self.what)?;
        if let Some(off) = self.offset {
            write!(f, " at {off:#x}")?;
        }
        if !self.file.is_empty() {
            write!(f, " in {}", self.file)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_file_structure_and_offset() {
        let e = Error::truncated("trace.db", 0x1a0, "trace header");
        assert_eq!(e.to_string(), "truncated trace header at 0x1a0 in trace.db");
        let e = Error::mismatch("profile.db", "database files come from different runs")
            .context("opening db");
        assert_eq!(
            e.to_string(),
            "mismatch opening db: database files come from different runs in profile.db"
        );
    }
}
