//! trace.db of a synthetic database (HPCToolkit `doc/FORMATS.md`, trace.db): header, Context
//! Trace Headers with the global time range, then each profile's line of 12-byte (time ns, ctx)
//! samples, 8-aligned, and the footer. Streamed.

use super::file_header;
use crate::synth::bytes::{align, ByteWriter, Sink};
use crate::synth::trace::TraceGen;
use crate::synth::SynthDb;
use std::io::{self, Write};

/// Samples gathered before each write.
const SAMPLES_PER_WRITE: usize = 8192;

impl SynthDb {
    /// trace.db (nothing written and `Ok(0)` when the spec asks for no samples).
    pub fn write_trace<W: Write>(&self, w: &mut W) -> io::Result<u64> {
        let s = self.spec.samples;
        if s == 0 {
            return Ok(0);
        }
        let (head, starts, footer) = self.trace_head();
        let mut out = Sink::new(w);
        out.put(head.as_bytes())?;
        let mut buf = Vec::new();
        let mut bytes = ByteWriter::le();
        for (i, &start) in (1..=self.profiles()).zip(&starts) {
            out.pad_to(start)?;
            let mut tg = TraceGen::new(self, i, &mut buf);
            for j in 0..s {
                let (t, c) = tg.sample(self, i, j);
                bytes.u64(t);
                bytes.u32(c);
                if bytes.pos() >= 12 * SAMPLES_PER_WRITE as u64 {
                    out.put(bytes.as_bytes())?;
                    bytes.clear();
                }
            }
            out.put(bytes.as_bytes())?;
            bytes.clear();
        }
        out.pad_to(footer)?;
        out.put(b"trace.db")?;
        Ok(out.pos())
    }

    /// The header and trace headers, where each line starts, and where the footer goes.
    fn trace_head(&self) -> (ByteWriter, Vec<u64>, u64) {
        let s = self.spec.samples;
        let p = self.profiles() as u64;
        let mut head = ByteWriter::le();
        file_header(&mut head, b"trce", 1);
        let sec = 0x20u64;
        let sec_len = 0x20 + 24 * p;
        head.set_u64(0x10, sec_len);
        head.set_u64(0x18, sec);
        let min = (1..=p as u32)
            .map(|i| self.timestamp(i, 0))
            .min()
            .unwrap_or(0);
        let max = (1..=p as u32)
            .map(|i| self.timestamp(i, s - 1))
            .max()
            .unwrap_or(0);
        head.u64(sec + 0x20);
        head.u32(p as u32);
        head.u8(24);
        head.zeros(3);
        head.u64(min);
        head.u64(max);
        let mut cursor = align(sec + sec_len, 8);
        let mut starts = Vec::with_capacity(p as usize);
        for i in 1..=p as u32 {
            let start = align(cursor, 8);
            head.u32(i);
            head.u32(0);
            head.u64(start);
            head.u64(start + 12 * s);
            cursor = start + 12 * s;
            starts.push(start);
        }
        (head, starts, align(cursor, 8))
    }
}
