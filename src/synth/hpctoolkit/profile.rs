//! profile.db of a synthetic database (HPCToolkit `doc/FORMATS.md`, profile.db): header, Profile
//! Infos (`szProfile` 48), identifier tuples, then per profile (summary first) a sparse block of
//! 10-byte (metric, value) pairs and 12-byte (ctx, start) indices. Streamed, offsets planned first.

use super::{file_header, prof_block, Block};
use crate::synth::bytes::{align, ByteWriter, Sink};
use crate::synth::{SynthDb, SynthStats};
use std::io::{self, Write};

/// One block's values and context index, gathered before they are written.
struct BlockBytes {
    values: ByteWriter,
    index: ByteWriter,
}

impl BlockBytes {
    /// Writes the block where the plan put it and empties the buffers.
    fn emit<W: Write>(&mut self, out: &mut Sink<W>, bl: Block) -> io::Result<()> {
        out.pad_to(bl.values)?;
        out.put(self.values.as_bytes())?;
        out.pad_to(bl.index)?;
        out.put(self.index.as_bytes())?;
        out.expect_at(bl.end, "profile block size differs from the counting pass")?;
        self.values.clear();
        self.index.clear();
        Ok(())
    }
}

impl SynthDb {
    pub fn write_profile<W: Write>(&self, st: &SynthStats, w: &mut W) -> io::Result<u64> {
        let (head, blocks, footer) = self.profile_head(st);
        let mut out = Sink::new(w);
        out.put(head.as_bytes())?;
        let mut bytes = BlockBytes {
            values: ByteWriter::le(),
            index: ByteWriter::le(),
        };
        // Summary profile: statistics of every (metric, scope) in stat-id order.
        let mut n_vals = 0u64;
        for ctx in 0..self.tree.nodes.len() {
            let node = self.tree.node_of_ctx[ctx] as usize;
            let start = n_vals;
            self.summary_values(st, node, |id, v| {
                bytes.values.u16(id);
                bytes.values.f64(v);
                n_vals += 1;
            });
            if n_vals > start {
                bytes.index.u32(ctx as u32);
                bytes.index.u64(start);
            }
        }
        bytes.emit(&mut out, blocks[0])?;
        let k = self.slots();
        let mut buf = Vec::new();
        for prof in 1..=self.profiles() {
            self.fill_profile(prof, &mut buf);
            let (a, z) = self.range(prof);
            let mut n_vals = 0u64;
            for ctx in 0..self.tree.nodes.len() {
                let node = self.tree.node_of_ctx[ctx];
                if node != 0 && (node < a || node >= z) {
                    continue;
                }
                let start = n_vals;
                let base = node as usize * k;
                for (j, &v) in buf[base..base + k].iter().enumerate() {
                    if v != 0.0 {
                        bytes.values.u16(j as u16);
                        bytes.values.f64(v);
                        n_vals += 1;
                    }
                }
                if n_vals > start {
                    bytes.index.u32(ctx as u32);
                    bytes.index.u64(start);
                }
            }
            bytes.emit(&mut out, blocks[prof as usize])?;
        }
        out.pad_to(footer)?;
        out.put(b"_prof.db")?;
        Ok(out.pos())
    }

    /// The header, Profile Infos and identifier tuples, where each profile's block goes, and where
    /// the footer goes.
    fn profile_head(&self, st: &SynthStats) -> (ByteWriter, Vec<Block>, u64) {
        let p = self.profiles() as u64;
        let mut head = ByteWriter::le();
        file_header(&mut head, b"prof", 2);
        let infos = 0x30u64;
        let infos_len = 0x10 + 48 * (p + 1);
        let tuples = align(infos + infos_len, 8);
        let tuple_lens: Vec<u64> = (1..=p as u32)
            .map(|i| 8 + 16 * self.id_tuple(i).len() as u64)
            .collect();
        let tuples_len: u64 = tuple_lens.iter().sum();
        let mut blocks = Vec::with_capacity(p as usize + 1);
        let mut cursor = tuples + tuples_len;
        for i in 0..=p as usize {
            let bl = prof_block(cursor, st.prof_values[i], st.prof_ctxs[i] as u64);
            cursor = bl.end;
            blocks.push(bl);
        }
        let footer = align(cursor, 8);
        head.set_u64(0x10, infos_len);
        head.set_u64(0x18, infos);
        head.set_u64(0x20, tuples_len);
        head.set_u64(0x28, tuples);
        head.u64(infos + 0x10);
        head.u32(p as u32 + 1);
        head.u8(48);
        head.zeros(3);
        let mut tuple_at = tuples;
        for (i, bl) in blocks.iter().enumerate() {
            head.u64(st.prof_values[i]);
            head.u64(bl.values);
            head.u32(st.prof_ctxs[i]);
            head.u32(0);
            head.u64(bl.index);
            if i == 0 {
                head.u64(0);
                head.u32(1);
            } else {
                head.u64(tuple_at);
                tuple_at += tuple_lens[i - 1];
                head.u32(0);
            }
            head.u32(0);
        }
        head.pad_to(tuples);
        for i in 1..=p as u32 {
            let ids = self.id_tuple(i);
            head.u16(ids.len() as u16);
            head.zeros(6);
            for (kind, logical, physical, is_phys) in ids {
                head.u8(kind);
                head.u8(0);
                head.u16(is_phys as u16);
                head.u32(logical);
                head.u64(physical);
            }
        }
        (head, blocks, footer)
    }
}
