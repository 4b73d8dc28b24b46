//! A forward reader over the fetched bytes of a profile section: big-endian integers and
//! `hpcfmt_str` strings (hpcrun-fmt.c), every count checked against the bytes left before
//! anything is allocated, errors at absolute file offsets.

use crate::bytes::Slice;
use crate::error::{Error, Result};

/// A forward reader over a byte slice whose errors carry absolute file offsets.
pub(super) struct Cur<'a> {
    pub(super) s: Slice<'a>,
    pub(super) pos: usize,
    /// Reads may not pass this position (end of the current section).
    pub(super) end: usize,
}

impl<'a> Cur<'a> {
    pub(super) fn new(s: Slice<'a>, pos: usize, end: usize) -> Cur<'a> {
        Cur {
            s,
            pos,
            end: end.min(s.len()),
        }
    }
    pub(super) fn abs(&self) -> u64 {
        self.s.base + self.pos as u64
    }
    pub(super) fn remaining(&self) -> usize {
        self.end.saturating_sub(self.pos)
    }
    pub(super) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(Error::truncated(self.s.file, self.abs(), what));
        }
        let b = self.s.get(self.pos, n, what)?;
        self.pos += n;
        Ok(b)
    }
    pub(super) fn arr<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }
    pub(super) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.arr::<1>(what)?[0])
    }
    pub(super) fn u16(&mut self, what: &str) -> Result<u16> {
        Ok(u16::from_be_bytes(self.arr(what)?))
    }
    pub(super) fn u32(&mut self, what: &str) -> Result<u32> {
        Ok(u32::from_be_bytes(self.arr(what)?))
    }
    pub(super) fn u64(&mut self, what: &str) -> Result<u64> {
        Ok(u64::from_be_bytes(self.arr(what)?))
    }
    /// `hpcfmt_str`: u32 length, then that many bytes (no NUL).
    pub(super) fn str(&mut self, what: &str) -> Result<String> {
        let at = self.abs();
        let n = self.u32(what)? as usize;
        if n > self.remaining() {
            return Err(Error::truncated(
                self.s.file,
                at,
                format!("{what} of {n} bytes"),
            ));
        }
        Ok(String::from_utf8_lossy(self.take(n, what)?).into_owned())
    }
    /// A u32 count of items each at least `min_size` bytes, checked against what is left.
    pub(super) fn count(&mut self, min_size: usize, what: &str) -> Result<usize> {
        let at = self.abs();
        let n = self.u32(what)? as usize;
        self.check_count(n, min_size, at, what)?;
        Ok(n)
    }
    pub(super) fn check_count(&self, n: usize, min_size: usize, at: u64, what: &str) -> Result<()> {
        match n.checked_mul(min_size) {
            Some(b) if b <= self.remaining() => Ok(()),
            _ => Err(Error::too_large(
                self.s.file,
                at,
                format!(
                    "{what} {n} (needs at least {min_size} bytes each, {} left)",
                    self.remaining()
                ),
            )),
        }
    }
    /// `n` items (a count checked against the bytes left), each read by `item` with its index.
    pub(super) fn items<T>(
        &mut self,
        n: usize,
        mut item: impl FnMut(&mut Self, usize) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            out.push(item(self, i)?);
        }
        Ok(out)
    }
    pub(super) fn nvpairs(&mut self, what: &str) -> Result<Vec<(String, String)>> {
        let n = self.count(8, what)?;
        self.items(n, |c, _| {
            Ok((
                c.str("name of a name-value pair")?,
                c.str("value of a name-value pair")?,
            ))
        })
    }
}
