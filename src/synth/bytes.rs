//! The one byte writer of every generator: [`ByteWriter`] appends fixed-width fields in one byte
//! order, patches earlier ones, pads and aligns; [`Sink`] streams bytes to an `io::Write` and checks
//! that each structure lands where its header said it would.

use crate::bytes::Endian;
use std::io::{self, Write};

/// `x` rounded up to a multiple of `a`.
pub fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// A growable buffer of fields in one byte order, for structures built in memory.
#[derive(Clone, Debug)]
pub struct ByteWriter {
    buf: Vec<u8>,
    endian: Endian,
}

macro_rules! fields {
    ($($put:ident $set:ident $t:ty;)*) => {$(
        #[doc = concat!("Appends a `", stringify!($t), "` in the writer's byte order.")]
        pub fn $put(&mut self, v: $t) {
            let b = match self.endian {
                Endian::Big => v.to_be_bytes(),
                Endian::Little => v.to_le_bytes(),
            };
            self.buf.extend_from_slice(&b);
        }
        #[doc = concat!("Overwrites the `", stringify!($t), "` at `at` (already written).")]
        pub fn $set(&mut self, at: u64, v: $t) {
            let b = match self.endian {
                Endian::Big => v.to_be_bytes(),
                Endian::Little => v.to_le_bytes(),
            };
            self.buf[at as usize..at as usize + b.len()].copy_from_slice(&b);
        }
    )*};
}

impl ByteWriter {
    pub fn new(endian: Endian) -> ByteWriter {
        ByteWriter {
            buf: Vec::new(),
            endian,
        }
    }

    /// A little-endian writer.
    pub fn le() -> ByteWriter {
        ByteWriter::new(Endian::Little)
    }

    /// Bytes written so far: the offset of the next field.
    pub fn pos(&self) -> u64 {
        self.buf.len() as u64
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Empties the buffer, keeping its allocation and byte order.
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn set_u8(&mut self, at: u64, v: u8) {
        self.buf[at as usize] = v;
    }

    fields! {
        u16 set_u16 u16;
        u32 set_u32 u32;
        u64 set_u64 u64;
    }

    /// Appends an IEEE 754 double in the writer's byte order.
    pub fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    pub fn zeros(&mut self, n: u64) {
        self.buf.resize(self.buf.len() + n as usize, 0);
    }

    /// Zeros up to offset `off` (a layout that is already past it is a bug of the caller).
    pub fn pad_to(&mut self, off: u64) {
        debug_assert!(
            off >= self.pos(),
            "at {:#x}, asked to pad to {off:#x}",
            self.pos()
        );
        self.zeros(off.saturating_sub(self.pos()));
    }

    /// Zeros up to the next multiple of `a`.
    pub fn align(&mut self, a: u64) {
        self.pad_to(align(self.pos(), a));
    }

    /// Appends `s` verbatim and a NUL; returns where it starts.
    pub fn cstr(&mut self, s: &str) -> u64 {
        let at = self.pos();
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        at
    }

    /// Appends `s` without the NUL bytes it holds (a reader would end the string at the first)
    /// and a NUL; returns where it starts.
    pub fn cstr_without_nuls(&mut self, s: &str) -> u64 {
        let at = self.pos();
        self.buf.extend(s.bytes().filter(|&b| b != 0));
        self.buf.push(0);
        at
    }
}

/// A streaming sink that knows its position, so each structure can be checked to land where the
/// header said it would.
pub struct Sink<'a, W: Write> {
    w: &'a mut W,
    pos: u64,
}

impl<'a, W: Write> Sink<'a, W> {
    pub fn new(w: &'a mut W) -> Sink<'a, W> {
        Sink { w, pos: 0 }
    }

    /// Bytes written so far.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    pub fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.w.write_all(b)?;
        self.pos += b.len() as u64;
        Ok(())
    }

    /// Zeros up to offset `off`; an error when the sink is already past it (a layout bug).
    pub fn pad_to(&mut self, off: u64) -> io::Result<()> {
        if off < self.pos {
            return Err(layout_bug(format!(
                "at {:#x}, planned {:#x}",
                self.pos, off
            )));
        }
        const ZEROS: [u8; 64] = [0; 64];
        while self.pos < off {
            let n = (off - self.pos).min(64) as usize;
            self.put(&ZEROS[..n])?;
        }
        Ok(())
    }

    /// An error naming `what` unless the sink is exactly at `end`, where a planned structure ends.
    pub fn expect_at(&self, end: u64, what: &str) -> io::Result<()> {
        if self.pos == end {
            Ok(())
        } else {
            Err(layout_bug(what.to_string()))
        }
    }
}

/// The error of a writer whose bytes differ from its own plan.
fn layout_bug(what: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("writer layout bug: {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_in_both_byte_orders_and_patches() {
        for (endian, want) in [
            (Endian::Little, [0x34, 0x12, 0x78, 0x56, 0x34, 0x12]),
            (Endian::Big, [0x12, 0x34, 0x12, 0x34, 0x56, 0x78]),
        ] {
            let mut w = ByteWriter::new(endian);
            w.u16(0x1234);
            w.u32(0);
            w.set_u32(2, 0x1234_5678);
            assert_eq!(w.as_bytes(), want);
        }
        let mut w = ByteWriter::le();
        w.u8(1);
        w.align(8);
        assert_eq!(w.pos(), 8);
        assert_eq!(w.cstr("a\0b"), 8);
        assert_eq!(w.cstr_without_nuls("a\0b"), 12);
        w.f64(1.0);
        assert_eq!(&w.as_bytes()[8..15], b"a\0b\0ab\0");
        assert_eq!(&w.as_bytes()[15..], 1.0f64.to_le_bytes());
    }

    #[test]
    fn sink_refuses_to_move_back() {
        let mut v = Vec::new();
        let mut s = Sink::new(&mut v);
        s.put(b"abc").unwrap();
        s.pad_to(130).unwrap();
        assert_eq!(s.pos(), 130);
        assert!(s.expect_at(130, "x").is_ok());
        let e = s.pad_to(2).unwrap_err().to_string();
        assert_eq!(e, "writer layout bug: at 0x82, planned 0x2");
        assert!(s.expect_at(129, "block").is_err());
        assert_eq!(v.len(), 130);
    }
}
