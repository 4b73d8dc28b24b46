//! cct.db of a synthetic database (HPCToolkit `doc/FORMATS.md`, cct.db): header, Context Infos,
//! then per context a block of 12-byte (profile, value) pairs sorted by (metric, profile) and
//! 10-byte (metric, start) indices. Context-major, so written in chunks of contexts whose values
//! fit a memory budget, regenerating every profile for each chunk.

use super::{ctx_block, file_header, Block};
use crate::synth::bytes::{align, ByteWriter, Sink};
use crate::synth::{SynthDb, SynthStats};
use std::io::{self, Write};

/// The values of a chunk of contexts, in file order: runs of (ctx, metric id) sorted by profile.
#[derive(Default)]
struct Chunk {
    prof_of: Vec<u32>,
    value_of: Vec<f64>,
    /// Next free position of each (ctx, slot) run while filling.
    fill: Vec<u64>,
    /// One profile's values (see `SynthDb::fill_profile`).
    profile: Vec<f64>,
}

impl SynthDb {
    /// cct.db with at most about `chunk_bytes` of values gathered in memory at a time.
    pub fn write_cct<W: Write>(
        &self,
        st: &SynthStats,
        w: &mut W,
        chunk_bytes: u64,
    ) -> io::Result<u64> {
        let n = self.tree.nodes.len();
        let (head, blocks, footer) = self.cct_head(st);
        let mut out = Sink::new(w);
        out.put(head.as_bytes())?;
        drop(head);
        let mut chunk = Chunk::default();
        let mut bytes = ByteWriter::le();
        let mut a = 0usize;
        while a < n {
            // Contexts [a, z) whose values fit the budget (at least one).
            let mut z = a;
            let mut total = 0u64;
            while z < n {
                let (nv, _) = st.ctx_counts(self.tree.node_of_ctx[z] as usize);
                if z > a && (total + nv) * 12 > chunk_bytes {
                    break;
                }
                total += nv;
                z += 1;
            }
            self.gather(st, a, z, total, &mut chunk);
            let mut at = 0usize;
            for (ctx, &bl) in blocks.iter().enumerate().take(z).skip(a) {
                let node = self.tree.node_of_ctx[ctx] as usize;
                bytes.clear();
                let (nv, _) = st.ctx_counts(node);
                for i in at..at + nv as usize {
                    bytes.u32(chunk.prof_of[i]);
                    bytes.f64(chunk.value_of[i]);
                }
                let mut start = 0u64;
                for j in 0..self.slots() {
                    let c = st.count[node * self.slots() + j] as u64;
                    if c > 0 {
                        bytes.u16(j as u16);
                        bytes.u64(start);
                        start += c;
                    }
                }
                at += nv as usize;
                out.pad_to(bl.values)?;
                out.put(bytes.as_bytes())?;
                out.expect_at(bl.end, "context block size differs from the counting pass")?;
            }
            a = z;
        }
        out.pad_to(footer)?;
        out.put(b"__ctx.db")?;
        Ok(out.pos())
    }

    /// The header and Context Infos, where each context's block goes, and where the footer goes.
    fn cct_head(&self, st: &SynthStats) -> (ByteWriter, Vec<Block>, u64) {
        let n = self.tree.nodes.len();
        let mut head = ByteWriter::le();
        file_header(&mut head, b"ctxt", 1);
        let infos = 0x20u64;
        let infos_len = 0x10 + 32 * n as u64;
        head.set_u64(0x10, infos_len);
        head.set_u64(0x18, infos);
        head.u64(infos + 0x10);
        head.u32(n as u32);
        head.u8(32);
        head.zeros(3);
        let mut cursor = infos + infos_len;
        let mut blocks = Vec::with_capacity(n);
        for ctx in 0..n {
            let (nv, nm) = st.ctx_counts(self.tree.node_of_ctx[ctx] as usize);
            let bl = ctx_block(cursor, nv, nm as u64);
            head.u64(nv);
            head.u64(bl.values);
            head.u16(nm);
            head.zeros(6);
            head.u64(bl.index);
            cursor = bl.end;
            blocks.push(bl);
        }
        (head, blocks, align(cursor, 8))
    }

    /// Gathers the `total` values of contexts [a, z) into `chunk`: slot runs (ctx, metric, scope)
    /// in metric-id order, filled profile by profile so each run comes out sorted by profile.
    fn gather(&self, st: &SynthStats, a: usize, z: usize, total: u64, chunk: &mut Chunk) {
        let k = self.slots();
        chunk.fill.clear();
        let mut at = 0u64;
        for ctx in a..z {
            let node = self.tree.node_of_ctx[ctx] as usize;
            for j in 0..k {
                chunk.fill.push(at);
                at += st.count[node * k + j] as u64;
            }
        }
        chunk.prof_of.clear();
        chunk.prof_of.resize(total as usize, 0);
        chunk.value_of.clear();
        chunk.value_of.resize(total as usize, 0.0);
        if total == 0 {
            return;
        }
        let buf = &mut chunk.profile;
        for prof in 1..=self.profiles() {
            let (ra, rz) = self.range(prof);
            self.fill_profile(prof, buf);
            for ctx in a..z {
                let node = self.tree.node_of_ctx[ctx];
                if node != 0 && (node < ra || node >= rz) {
                    continue;
                }
                let base = node as usize * k;
                for j in 0..k {
                    let v = buf[base + j];
                    if v != 0.0 {
                        let slot = &mut chunk.fill[(ctx - a) * k + j];
                        chunk.prof_of[*slot as usize] = prof;
                        chunk.value_of[*slot as usize] = v;
                        *slot += 1;
                    }
                }
            }
        }
    }
}
