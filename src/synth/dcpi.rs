//! Writer of DCPI-style profiles in seed 003's layout (header lines verbatim, a `samples` line
//! padded so the binary section is 4-aligned, little-endian chunks, footer), where each part lands,
//! and the deterministic example profile behind `hpcscope fixture dcpi`.

use super::bytes::ByteWriter;
use super::rng::XorShift64;
use crate::formats::dcpi::{DcpiChunk, DcpiFooter, DcpiLayout, DcpiProfile, HeaderLine};

/// The header as written: each line and a `samples` line padded with blanks so the binary
/// section starts at a multiple of four bytes, as the seed recommends.
fn put_header(p: &DcpiProfile, w: &mut ByteWriter) {
    for l in &p.header {
        // A newline inside a line would split it on reading.
        for b in l.raw.bytes() {
            w.u8(if b == b'\n' { b' ' } else { b });
        }
        w.u8(b'\n');
    }
    w.bytes(b"samples");
    while !(w.pos() + 1).is_multiple_of(4) {
        w.u8(b' ');
    }
    w.u8(b'\n');
}

/// Writes a profile in the seed's layout: header lines verbatim (unknown lines included), a padded
/// `samples` line, the chunks and the footer as stored (call
/// [`DcpiProfile::set_footer_from_chunks`] first for a consistent file).
pub fn write(p: &DcpiProfile) -> Vec<u8> {
    let mut w = ByteWriter::le();
    put_header(p, &mut w);
    for c in &p.chunks {
        w.u32(c.offset);
        // A chunk cannot hold more than 2^32 - 1 counts; longer ones are cut (never in practice).
        let n = c.counts.len().min(u32::MAX as usize);
        w.u32(n as u32);
        for &v in &c.counts[..n] {
            w.u32(v);
        }
    }
    w.u32(p.footer.total_offsets);
    w.u32(p.footer.total_samples);
    w.into_bytes()
}

/// Where [`write()`] puts each part of `p`.
pub fn layout(p: &DcpiProfile) -> DcpiLayout {
    let mut line_offsets = Vec::with_capacity(p.header.len());
    let mut pos = 0u64;
    for l in &p.header {
        line_offsets.push(pos);
        pos += l.raw.len() as u64 + 1;
    }
    let mut header = ByteWriter::le();
    put_header(p, &mut header);
    let binary_start = header.pos();
    let mut chunk_offsets = Vec::with_capacity(p.chunks.len());
    let mut pos = binary_start;
    for c in &p.chunks {
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

/// A deterministic example profile made from the seed's grammar, for fixtures and demos:
/// `chunks` chunks of `len` addresses each (gaps between them), counts shaped into a few hot
/// spots by a fixed pseudo-random sequence, every required line, optional lines, two unknown lines
/// (`tstart` and a comment) and a footer consistent with the chunks.
pub fn example(chunks: u32, len: u32) -> DcpiProfile {
    let len = len.max(1);
    let mut rng = XorShift64::new(0x2545_f491_4f6c_dd1d);
    let mut out = Vec::new();
    let mut offset = 0x40u64;
    for c in 0..chunks {
        let hot = rng.next_u64() % len as u64;
        let counts = (0..len as u64)
            .map(|i| {
                let d = i.abs_diff(hot);
                let peak = 2000 / (1 + d * d);
                let noise = rng.next_u64() % 8;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Source;
    use crate::formats::dcpi::parse;

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
}
