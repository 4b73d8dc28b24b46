//! Byte sources and bounds-checked reads at absolute offsets. Format code reads through a
//! [`Source`]: a named, shared handle on any [`ReadAt`] (memory, a native file, a dropped File or a URL
//! through `block_cache`), so format code does not know where bytes come from. Every read names its
//! field ("truncated metric count at 0x18 in meta.db"); none can panic or allocate beyond the file.

use crate::error::{Error, ErrorKind, Result};
use std::borrow::Cow;
use std::sync::Arc;

/// Random access to the bytes of one file. Implementations: [`MemSource`] (a `Vec<u8>`/`&[u8]`),
/// [`FileSource`] (a native file) and [`crate::block_cache::BlockCache`] (Blob slices read in a
/// Worker, HTTP range requests), each behind the same interface.
pub trait ReadAt {
    /// Total size in bytes.
    fn size(&self) -> u64;
    /// Fills `buf` with the bytes at `offset`. The caller guarantees `offset + buf.len() <= size()`;
    /// an `Err` carries a description of an I/O failure (network, Blob read).
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String>;
    /// The whole contents when they already sit in memory: lets readers borrow instead of copy.
    fn as_slice(&self) -> Option<&[u8]> {
        None
    }
    /// Fills `buf` like `read_exact_at`, for bytes read once in a stream (a scan of a trace line):
    /// a cached source passes them through without keeping them. Default: `read_exact_at`.
    fn read_uncached_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        self.read_exact_at(offset, buf)
    }
    /// Advice that bytes `offset..offset + len` are about to be read in order (a trace line
    /// scanned in chunks): a source that fetches ahead of time may fetch them as one piece.
    /// Reads stay correct without it. Default: ignored.
    fn advise_sequential(&self, _offset: u64, _len: u64) {}
    /// Advice that each `(offset, len)` range will be read soon, in any order: a source whose
    /// reads can wait for bytes fetched concurrently (a URL on a single-range server while the
    /// open is planned, see `Session::open_prefetch`) names them all at once instead of one
    /// round trip after another. Reads stay correct without it. Default: ignored.
    fn will_need(&self, _ranges: &[(u64, u64)]) {}
    /// Fills `out` with the bytes of each `(offset, len)` range in turn (`out.len()` is the sum of
    /// the lengths; the caller checked every range). Sources where a round trip costs more than
    /// the bytes (HTTP) answer many scattered ranges with one request; the default reads each.
    fn read_many_at(
        &self,
        ranges: &[(u64, u64)],
        out: &mut [u8],
    ) -> std::result::Result<(), String> {
        let mut at = 0usize;
        for &(off, len) in ranges {
            let n = usize::try_from(len).map_err(|_| "range too large".to_string())?;
            let dst = out
                .get_mut(at..at.saturating_add(n))
                .ok_or("ranges longer than the output")?;
            self.read_exact_at(off, dst)?;
            at += n;
        }
        Ok(())
    }
}

/// Bytes held in memory.
pub struct MemSource(pub Cow<'static, [u8]>);

impl ReadAt for MemSource {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        let start = usize::try_from(offset).map_err(|_| "offset beyond memory".to_string())?;
        let src = self
            .0
            .get(start..start.saturating_add(buf.len()))
            .ok_or("read past end")?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn as_slice(&self) -> Option<&[u8]> {
        Some(&self.0)
    }
}

/// A file on disk read with positioned reads: opening a multi-GB database costs only what the
/// readers touch (native CLI and benchmarks; the browser reads Blobs instead).
#[cfg(not(target_arch = "wasm32"))]
pub struct FileSource {
    file: std::fs::File,
    size: u64,
}

#[cfg(not(target_arch = "wasm32"))]
impl FileSource {
    pub fn open(path: &std::path::Path) -> std::io::Result<FileSource> {
        let file = std::fs::File::open(path)?;
        let size = file.metadata()?.len();
        Ok(FileSource { file, size })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl ReadAt for FileSource {
    fn size(&self) -> u64 {
        self.size
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.file
                .read_exact_at(buf, offset)
                .map_err(|e| e.to_string())
        }
        #[cfg(not(unix))]
        {
            use std::io::{Read, Seek, SeekFrom};
            let mut f = &self.file;
            f.seek(SeekFrom::Start(offset)).map_err(|e| e.to_string())?;
            f.read_exact(buf).map_err(|e| e.to_string())
        }
    }
}

/// Byte order of a field, for formats whose endianness depends on the file (hpcrun, prof2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

/// A located, counted array of fixed-stride records inside a file, with `count * stride` checked
/// to lie within the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    pub ptr: u64,
    pub count: u64,
    pub stride: u64,
}

impl Table {
    /// Absolute offset of record `i`. Within the file for `i < count` (checked when the table was
    /// made); beyond, it saturates instead of overflowing, so the read that follows fails cleanly.
    pub fn offset(&self, i: u64) -> u64 {
        self.ptr.saturating_add(i.saturating_mul(self.stride))
    }
    pub fn byte_len(&self) -> u64 {
        self.count * self.stride
    }
}

/// A named handle on one file's bytes. Cheap to clone.
#[derive(Clone)]
pub struct Source {
    name: Arc<str>,
    inner: Arc<dyn ReadAt>,
    /// `inner.size()`, asked once: every bounds check needs it.
    len: u64,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Source({}, {} bytes)", self.name, self.len())
    }
}

/// Counts bytes read (tests bound the work of opening hostile files with it; see work.rs).
#[inline(always)]
fn read(n: usize) {
    crate::work::add(crate::work::Work::BytesRead, n);
}

/// Reads at most this many bytes when looking for the NUL ending a C string, unless told otherwise.
pub const MAX_CSTR: u64 = 1 << 20;

macro_rules! int_reads {
    ($($le:ident $be:ident $any:ident $t:ty;)*) => {$(
        #[doc = concat!("Reads a little-endian `", stringify!($t), "` at `off`.")]
        pub fn $le(&self, off: u64, what: &str) -> Result<$t> {
            Ok(<$t>::from_le_bytes(self.array(off, what)?))
        }
        #[doc = concat!("Reads a big-endian `", stringify!($t), "` at `off`.")]
        pub fn $be(&self, off: u64, what: &str) -> Result<$t> {
            Ok(<$t>::from_be_bytes(self.array(off, what)?))
        }
        #[doc = concat!("Reads a `", stringify!($t), "` at `off` in the given byte order.")]
        pub fn $any(&self, off: u64, endian: Endian, what: &str) -> Result<$t> {
            match endian {
                Endian::Little => self.$le(off, what),
                Endian::Big => self.$be(off, what),
            }
        }
    )*};
}

impl Source {
    pub fn new(name: impl Into<Arc<str>>, inner: Arc<dyn ReadAt>) -> Source {
        let len = inner.size();
        Source {
            name: name.into(),
            inner,
            len,
        }
    }
    /// A source over bytes in memory.
    pub fn from_vec(name: impl Into<Arc<str>>, bytes: Vec<u8>) -> Source {
        Source::new(name, Arc::new(MemSource(Cow::Owned(bytes))))
    }
    pub fn from_static(name: impl Into<Arc<str>>, bytes: &'static [u8]) -> Source {
        Source::new(name, Arc::new(MemSource(Cow::Borrowed(bytes))))
    }
    /// Name used in error messages (the file name, or a path within the dropped folder).
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The whole file when it is in memory.
    pub fn as_slice(&self) -> Option<&[u8]> {
        self.inner.as_slice()
    }

    /// Error for `what` at `off` in this file.
    pub fn err(&self, kind: ErrorKind, off: u64, what: impl Into<String>) -> Error {
        Error::at(kind, &self.name, off, what)
    }

    /// Checks that `len` bytes at `off` lie inside the file.
    pub fn check(&self, off: u64, len: u64, what: &str) -> Result<()> {
        match off.checked_add(len) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(Error::truncated(&self.name, off, what)),
        }
    }

    /// `len` bytes at `off`: borrowed when the file is in memory, read otherwise.
    pub fn bytes(&self, off: u64, len: u64, what: &str) -> Result<Cow<'_, [u8]>> {
        self.check(off, len, what)?;
        read(len as usize);
        if let Some(all) = self.inner.as_slice() {
            // Both casts are safe: the range was checked against a length that fits in memory.
            return Ok(Cow::Borrowed(&all[off as usize..(off + len) as usize]));
        }
        let n = usize::try_from(len).map_err(|_| Error::too_large(&self.name, off, what))?;
        let mut buf = vec![0u8; n];
        self.inner
            .read_exact_at(off, &mut buf)
            .map_err(|e| Error::io(&self.name, Some(off), format!("{what}: {e}")))?;
        Ok(Cow::Owned(buf))
    }

    /// Says that bytes `off..off + len` will be read next, in order, with `read_streamed`
    /// (see [`ReadAt::advise_sequential`]). Nothing for files in memory.
    pub fn advise_sequential(&self, off: u64, len: u64) {
        if self.inner.as_slice().is_none() {
            self.inner.advise_sequential(off, len);
        }
    }

    /// Says that each `(off, len)` range will be read soon (see [`ReadAt::will_need`]); ranges
    /// past the end are clipped. Nothing for files in memory.
    pub fn will_need(&self, ranges: &[(u64, u64)]) {
        if self.inner.as_slice().is_some() {
            return;
        }
        let len = self.len();
        let clipped: Vec<(u64, u64)> = ranges
            .iter()
            .filter(|&&(off, n)| n > 0 && off < len)
            .map(|&(off, n)| (off, n.min(len - off)))
            .collect();
        if !clipped.is_empty() {
            self.inner.will_need(&clipped);
        }
    }

    /// Fills `buf` with the bytes at `off`, bypassing the source's block cache: for large reads
    /// streamed once (scanning a trace line), which would only evict what is worth keeping.
    pub fn read_streamed(&self, off: u64, buf: &mut [u8], what: &str) -> Result<()> {
        self.fill(off, buf, what, true)
    }

    /// The bytes of each `(offset, len)` range, concatenated in order, read with one batched call
    /// of the byte source (one HTTP request for many scattered ranges). Every range is checked
    /// against the file first, and the total against `max_total` (an allocation bound).
    pub fn read_many(&self, ranges: &[(u64, u64)], max_total: u64, what: &str) -> Result<Vec<u8>> {
        let mut total = 0u64;
        for &(off, len) in ranges {
            self.check(off, len, what)?;
            total = total.saturating_add(len);
        }
        if total > max_total {
            return Err(self.err(
                ErrorKind::TooLarge,
                ranges.first().map(|r| r.0).unwrap_or(0),
                format!("{what}: {total} bytes in one batch"),
            ));
        }
        read(total as usize);
        let mut out = vec![0u8; total as usize];
        if let Some(all) = self.inner.as_slice() {
            let mut at = 0usize;
            for &(off, len) in ranges {
                // Checked above against a length that fits in memory.
                out[at..at + len as usize]
                    .copy_from_slice(&all[off as usize..(off + len) as usize]);
                at += len as usize;
            }
            return Ok(out);
        }
        self.inner.read_many_at(ranges, &mut out).map_err(|e| {
            Error::io(
                &self.name,
                ranges.first().map(|r| r.0),
                format!("{what}: {e}"),
            )
        })?;
        Ok(out)
    }

    /// Fills `buf` with the bytes at `off` (a reused buffer: no allocation per read).
    pub fn read_into(&self, off: u64, buf: &mut [u8], what: &str) -> Result<()> {
        self.fill(off, buf, what, false)
    }

    /// [`Source::read_into`], through the source's block cache or (`uncached`) around it.
    fn fill(&self, off: u64, buf: &mut [u8], what: &str, uncached: bool) -> Result<()> {
        self.check(off, buf.len() as u64, what)?;
        read(buf.len());
        if let Some(all) = self.inner.as_slice() {
            // Both casts are safe: the range was checked against a length that fits in memory.
            buf.copy_from_slice(&all[off as usize..off as usize + buf.len()]);
            return Ok(());
        }
        let r = if uncached {
            self.inner.read_uncached_at(off, buf)
        } else {
            self.inner.read_exact_at(off, buf)
        };
        r.map_err(|e| Error::io(&self.name, Some(off), format!("{what}: {e}")))
    }

    /// Exactly `N` bytes at `off`.
    pub fn array<const N: usize>(&self, off: u64, what: &str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        self.read_exact(off, &mut out, what)?;
        Ok(out)
    }

    /// Fills `out` with the bytes at `off` (one copy of this for every size of `array`).
    fn read_exact(&self, off: u64, out: &mut [u8], what: &str) -> Result<()> {
        self.check(off, out.len() as u64, what)?;
        read(out.len());
        if let Some(all) = self.inner.as_slice() {
            out.copy_from_slice(&all[off as usize..off as usize + out.len()]);
            return Ok(());
        }
        self.inner
            .read_exact_at(off, out)
            .map_err(|e| Error::io(&self.name, Some(off), format!("{what}: {e}")))
    }

    pub fn u8_at(&self, off: u64, what: &str) -> Result<u8> {
        Ok(self.array::<1>(off, what)?[0])
    }

    int_reads! {
        u16_le_at u16_be_at u16_at u16;
        u32_le_at u32_be_at u32_at u32;
        u64_le_at u64_be_at u64_at u64;
        i32_le_at i32_be_at i32_at i32;
        i64_le_at i64_be_at i64_at i64;
    }

    pub fn f64_le_at(&self, off: u64, what: &str) -> Result<f64> {
        Ok(f64::from_le_bytes(self.array(off, what)?))
    }
    pub fn f64_be_at(&self, off: u64, what: &str) -> Result<f64> {
        Ok(f64::from_be_bytes(self.array(off, what)?))
    }
    pub fn f64_at(&self, off: u64, endian: Endian, what: &str) -> Result<f64> {
        Ok(match endian {
            Endian::Little => self.f64_le_at(off, what)?,
            Endian::Big => self.f64_be_at(off, what)?,
        })
    }

    /// A NUL-terminated string starting at `off`, at most `max_len` bytes before the NUL.
    /// Invalid UTF-8 is replaced (names are shown, never interpreted).
    pub fn cstr_at(&self, off: u64, max_len: u64, what: &str) -> Result<String> {
        if off >= self.len() {
            return Err(Error::truncated(&self.name, off, what));
        }
        let avail = (self.len() - off).min(max_len.saturating_add(1));
        // Read in growing chunks so a short name near a huge file's start costs little.
        let mut chunk = 256u64.min(avail);
        loop {
            let bytes = self.bytes(off, chunk, what)?;
            // `CStr` finds the NUL with the vectorized memchr.
            if let Ok(c) = std::ffi::CStr::from_bytes_until_nul(&bytes) {
                let nul = c.to_bytes().len();
                // Valid UTF-8 (the usual case) is checked by the fast validator, copied once.
                let text = &bytes[..nul];
                return Ok(match std::str::from_utf8(text) {
                    Ok(s) => s.to_owned(),
                    Err(_) => String::from_utf8_lossy(text).into_owned(),
                });
            }
            if chunk == avail {
                let kind = if avail > max_len {
                    ErrorKind::TooLarge
                } else {
                    ErrorKind::Truncated
                };
                return Err(self.err(kind, off, format!("{what} (no terminating NUL)")));
            }
            chunk = (chunk * 4).min(avail);
        }
    }

    /// A table of `count` records of `stride` bytes at `ptr`. Fails when the stride is smaller than
    /// `min_stride` (the part this reader needs) or when `count * stride` does not fit in the file,
    /// so a file that claims 2^60 records gets an error, not an allocation.
    pub fn table(
        &self,
        ptr: u64,
        count: u64,
        stride: u64,
        min_stride: u64,
        what: &str,
    ) -> Result<Table> {
        if stride < min_stride {
            return Err(self.err(
                ErrorKind::Invalid,
                ptr,
                format!(
                    "{what} stride {stride} smaller than the {min_stride} bytes of known fields"
                ),
            ));
        }
        let bytes = count.checked_mul(stride).ok_or_else(|| {
            self.err(
                ErrorKind::TooLarge,
                ptr,
                format!("{what} table of {count} records"),
            )
        })?;
        match ptr.checked_add(bytes) {
            Some(end) if end <= self.len() => Ok(Table { ptr, count, stride }),
            _ => Err(self.err(
                ErrorKind::Truncated,
                ptr,
                format!(
                    "{what} table of {count} x {stride} bytes (file has {} bytes)",
                    self.len()
                ),
            )),
        }
    }
}

/// Named reads inside a byte slice that was already fetched from a [`Source`], with `base` the
/// slice's absolute offset so errors still point into the file. For hot loops over a chunk.
#[derive(Clone, Copy)]
pub struct Slice<'a> {
    pub data: &'a [u8],
    pub base: u64,
    pub file: &'a str,
}

macro_rules! slice_reads {
    ($($le:ident $be:ident $t:ty;)*) => {$(
        pub fn $le(&self, pos: usize, what: &str) -> Result<$t> {
            Ok(<$t>::from_le_bytes(self.array(pos, what)?))
        }
        pub fn $be(&self, pos: usize, what: &str) -> Result<$t> {
            Ok(<$t>::from_be_bytes(self.array(pos, what)?))
        }
    )*};
}

impl<'a> Slice<'a> {
    pub fn new(data: &'a [u8], base: u64, file: &'a str) -> Slice<'a> {
        Slice { data, base, file }
    }
    pub fn len(&self) -> usize {
        self.data.len()
    }
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    pub fn get(&self, pos: usize, len: usize, what: &str) -> Result<&'a [u8]> {
        let got = pos
            .checked_add(len)
            .and_then(|end| self.data.get(pos..end))
            .ok_or_else(|| {
                Error::truncated(self.file, self.base.saturating_add(pos as u64), what)
            })?;
        read(len);
        Ok(got)
    }
    pub fn array<const N: usize>(&self, pos: usize, what: &str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.get(pos, N, what)?);
        Ok(out)
    }
    pub fn u8(&self, pos: usize, what: &str) -> Result<u8> {
        Ok(self.array::<1>(pos, what)?[0])
    }
    slice_reads! {
        u16_le u16_be u16;
        u32_le u32_be u32;
        u64_le u64_be u64;
        i64_le i64_be i64;
        f64_le f64_be f64;
    }
}

/// Little-endian fields at fixed offsets of a record already fetched as an array
/// (`Source::array`): the offsets are constants of the format, inside the record's size.
pub fn le16<const N: usize>(r: &[u8; N], o: usize) -> u16 {
    u16::from_le_bytes([r[o], r[o + 1]])
}
pub fn le32<const N: usize>(r: &[u8; N], o: usize) -> u32 {
    u32::from_le_bytes([r[o], r[o + 1], r[o + 2], r[o + 3]])
}
pub fn le64<const N: usize>(r: &[u8; N], o: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&r[o..o + 8]);
    u64::from_le_bytes(b)
}

/// A source that is not in memory (tests): its reads take the copying path every remote source
/// takes.
#[cfg(test)]
pub(crate) struct Remote(pub Vec<u8>);

#[cfg(test)]
impl ReadAt for Remote {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        buf.copy_from_slice(&self.0[offset as usize..offset as usize + buf.len()]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(bytes: &[u8]) -> Source {
        Source::from_vec("test.db", bytes.to_vec())
    }

    #[test]
    fn little_and_big_endian_unaligned() {
        let s = src(&[
            0xAA, // 0x00: padding, so every field below is unaligned
            0x01, 0x02, // 0x01: u16
            0x01, 0x02, 0x03, 0x04, // 0x03: u32
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // 0x07: u64
        ]);
        assert_eq!(s.u16_le_at(1, "a").unwrap(), 0x0201);
        assert_eq!(s.u16_be_at(1, "a").unwrap(), 0x0102);
        assert_eq!(s.u32_le_at(3, "b").unwrap(), 0x0403_0201);
        assert_eq!(s.u32_be_at(3, "b").unwrap(), 0x0102_0304);
        assert_eq!(s.u64_le_at(7, "c").unwrap(), 0x0807_0605_0403_0201);
        assert_eq!(
            s.u64_at(7, Endian::Big, "c").unwrap(),
            0x0102_0304_0506_0708
        );
        assert_eq!(s.u8_at(0, "pad").unwrap(), 0xAA);
    }

    #[test]
    fn f64_both_orders() {
        let mut b = 1.5f64.to_le_bytes().to_vec();
        b.extend_from_slice(&(-2.25f64).to_be_bytes());
        let s = src(&b);
        assert_eq!(s.f64_le_at(0, "x").unwrap(), 1.5);
        assert_eq!(s.f64_be_at(8, "y").unwrap(), -2.25);
    }

    #[test]
    fn reads_past_end_name_field_and_offset() {
        let s = src(&[1, 2, 3]);
        let e = s.u32_le_at(1, "metric count").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
        assert_eq!(e.offset, Some(1));
        assert_eq!(e.to_string(), "truncated metric count at 0x1 in test.db");
        // Offsets near u64::MAX must not overflow.
        assert!(s.u64_le_at(u64::MAX - 2, "x").is_err());
        assert!(s.bytes(u64::MAX, 2, "x").is_err());
    }

    #[test]
    fn cstr_stops_at_nul_and_bounds() {
        let s = src(b"main\0solve\0noend");
        assert_eq!(s.cstr_at(0, MAX_CSTR, "name").unwrap(), "main");
        assert_eq!(s.cstr_at(5, MAX_CSTR, "name").unwrap(), "solve");
        assert_eq!(
            s.cstr_at(11, MAX_CSTR, "name").unwrap_err().kind,
            ErrorKind::Truncated
        );
        assert_eq!(
            s.cstr_at(0, 2, "name").unwrap_err().kind,
            ErrorKind::TooLarge
        );
        assert!(s.cstr_at(99, MAX_CSTR, "name").is_err());
    }

    #[test]
    fn cstr_invalid_utf8_is_replaced() {
        let s = src(&[b'a', 0xFF, b'b', 0]);
        assert_eq!(s.cstr_at(0, MAX_CSTR, "name").unwrap(), "a\u{FFFD}b");
    }

    #[test]
    fn table_checks_stride_and_size() {
        let s = src(&[0u8; 64]);
        let t = s.table(16, 3, 16, 8, "metric").unwrap();
        assert_eq!(t.offset(2), 48);
        // An index from the file beyond the table: an offset past the end, not an overflow.
        assert_eq!(t.offset(u64::MAX), u64::MAX);
        assert!(s.u8_at(t.offset(u64::MAX / 8), "metric").is_err());
        assert_eq!(
            s.table(16, 4, 16, 8, "metric").unwrap_err().kind,
            ErrorKind::Truncated
        );
        assert_eq!(
            s.table(0, 2, 4, 8, "metric").unwrap_err().kind,
            ErrorKind::Invalid
        );
        assert_eq!(
            s.table(0, 1 << 60, 32, 8, "metric").unwrap_err().kind,
            ErrorKind::TooLarge
        );
        assert_eq!(
            s.table(8, u64::MAX / 2, 2, 2, "metric").unwrap_err().kind,
            ErrorKind::Truncated
        );
    }

    #[test]
    fn remote_source_copies_same_bytes() {
        let data: Vec<u8> = (0..=255u8).collect();
        let s = Source::new("remote.db", Arc::new(Remote(data)));
        assert!(s.as_slice().is_none());
        assert_eq!(s.u32_be_at(0x10, "x").unwrap(), 0x1011_1213);
        assert_eq!(
            &*s.bytes(250, 6, "tail").unwrap(),
            &[250, 251, 252, 253, 254, 255]
        );
        assert!(s.bytes(250, 7, "tail").is_err());
        let mut buf = [0u8; 3];
        s.read_into(0x20, &mut buf, "x").unwrap();
        assert_eq!(buf, [0x20, 0x21, 0x22]);
        assert!(s.read_into(254, &mut buf, "x").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn file_source_reads_at_offsets() {
        let path = std::env::temp_dir().join(format!("hpcscope-filesource-{}", std::process::id()));
        std::fs::write(&path, (0..=255u8).collect::<Vec<u8>>()).unwrap();
        let s = Source::new("f.db", Arc::new(FileSource::open(&path).unwrap()));
        assert_eq!(s.len(), 256);
        assert!(s.as_slice().is_none());
        assert_eq!(s.u32_le_at(0x21, "x").unwrap(), 0x2423_2221);
        assert_eq!(&*s.bytes(254, 2, "tail").unwrap(), &[254, 255]);
        assert!(s.bytes(255, 2, "tail").is_err());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn slice_reads_report_absolute_offsets() {
        let data = [0u8, 1, 0, 0, 0];
        let sl = Slice::new(&data, 0x100, "cct.db");
        assert_eq!(sl.u32_le(1, "ctx").unwrap(), 1);
        let e = sl.u32_le(2, "ctx").unwrap_err();
        assert_eq!(e.offset, Some(0x102));
        assert_eq!(e.file, "cct.db");
        assert!(sl.get(usize::MAX, 2, "x").is_err());
    }
}
