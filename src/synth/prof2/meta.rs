//! Encoder of prof2 meta.db files (seed 000, `HPCTOOLKIT_expmt`) in either byte order: header
//! padded to 0x88, General Properties, Metrics, Strings, Binaries, Files, Functions, Context Tree
//! (root block first, then each node's children block in context order), footer.

use crate::bytes::Endian;
use crate::formats::prof2::meta::{
    self, Callee, Lexical, MetaContext, MetaDb, FOOTER, HAS_CALLER_SRCLINE, HAS_FUNCTION,
    HAS_POINT, HAS_SRCLINE,
};
use crate::synth::bytes::ByteWriter;

/// A section's (offset, size) as the header lists it.
type Section = (u64, u64);

fn callee_size(c: &Callee) -> u64 {
    2 + if c.flags & HAS_CALLER_SRCLINE != 0 {
        12
    } else {
        0
    }
}

fn lexical_size(l: &Lexical) -> u64 {
    3 + if l.flags & HAS_FUNCTION != 0 { 8 } else { 0 }
        + if l.flags & HAS_SRCLINE != 0 { 12 } else { 0 }
        + if l.flags & HAS_POINT != 0 { 16 } else { 0 }
}

/// Where the Binaries, Files and Functions records start, so records elsewhere can point at
/// them by index.
struct Tables {
    binaries: u64,
    files: u64,
    functions: u64,
}

impl Tables {
    fn binary(&self, i: Option<u32>) -> u64 {
        i.map_or(0, |i| self.binaries + i as u64 * meta::BINARY_SIZE as u64)
    }
    fn file(&self, i: Option<u32>) -> u64 {
        i.map_or(0, |i| self.files + i as u64 * meta::FILE_SIZE as u64)
    }
    fn function(&self, i: Option<u32>) -> u64 {
        i.map_or(0, |i| {
            self.functions + i as u64 * meta::FUNCTION_SIZE as u64
        })
    }
}

/// Writes a meta.db: header, General Properties, Metrics, Strings, Binaries, Files, Functions,
/// Context Tree (root block first, then each node's children block in context order), footer.
/// Contexts must be in preorder with parents before children, as `MetaDb::read` returns them.
pub fn meta_db(m: &MetaDb, e: Endian) -> Vec<u8> {
    let mut w = ByteWriter::new(e);
    w.bytes(meta::MAGIC);
    w.u8(m.version.major);
    w.u8(m.version.minor);
    w.u16(meta::NUM_SECTIONS);
    w.pad_to(meta::HEADER_SIZE);
    // Section (offset, size) pairs patched in at the end, in header order.
    let mut sec = [(0u64, 0u64); 7];
    sec[0] = put_general(&mut w, m);
    sec[1] = put_metrics(&mut w, m);

    let start = w.pos();
    // The binaries' paths, then the files'.
    let [bin_str, file_str] = [&m.code.modules, &m.code.files].map(|paths| {
        paths
            .iter()
            .map(|p| w.cstr_without_nuls(&p.path))
            .collect::<Vec<u64>>()
    });
    let func_str: Vec<u64> = m
        .code
        .functions
        .iter()
        .map(|f| f.name.as_deref().map_or(0, |n| w.cstr_without_nuls(n)))
        .collect();
    sec[3] = (start, w.pos() - start);

    let binaries = w.pos() + 6;
    let files = binaries + m.code.modules.len() as u64 * meta::BINARY_SIZE as u64 + 6;
    let t = Tables {
        binaries,
        files,
        functions: files + m.code.files.len() as u64 * meta::FILE_SIZE as u64 + 6,
    };
    for (k, (list, strs, size)) in [
        (&m.code.modules, &bin_str, meta::BINARY_SIZE),
        (&m.code.files, &file_str, meta::FILE_SIZE),
    ]
    .into_iter()
    .enumerate()
    {
        let start = w.pos();
        w.u32(list.len() as u32);
        w.u16(size);
        for (p, &s) in list.iter().zip(strs) {
            w.u32(p.flags);
            w.u64(s);
        }
        sec[4 + k] = (start, w.pos() - start);
    }
    let start = w.pos();
    w.u32(m.code.functions.len() as u32);
    w.u16(meta::FUNCTION_SIZE);
    for (f, &s) in m.code.functions.iter().zip(&func_str) {
        w.u32(f.flags);
        w.u64(s);
        w.u64(t.binary(f.module));
        w.u64(f.offset);
        w.u64(t.file(f.file));
        w.u32(f.line);
    }
    sec[6] = (start, w.pos() - start);
    sec[2] = put_context_tree(&mut w, &m.contexts, &t);

    for (i, (ptr, size)) in sec.iter().enumerate() {
        w.set_u64(24 + 16 * i as u64, *size);
        w.set_u64(32 + 16 * i as u64, *ptr);
    }
    w.bytes(&FOOTER.bytes(e));
    w.into_bytes()
}

/// General Properties: the title and the identifier names.
fn put_general(w: &mut ByteWriter, m: &MetaDb) -> Section {
    let start = w.pos();
    w.cstr_without_nuls(&m.title);
    w.u16(m.id_names.len() as u16);
    for n in &m.id_names {
        w.cstr_without_nuls(n);
    }
    (start, w.pos() - start)
}

/// Metrics: per metric its scopes, per scope its summaries, names inline.
fn put_metrics(w: &mut ByteWriter, m: &MetaDb) -> Section {
    let start = w.pos();
    w.u32(m.metrics.len() as u32);
    for met in &m.metrics {
        w.u16(met.scopes.len() as u16);
        w.cstr_without_nuls(&met.name);
        for s in &met.scopes {
            w.u16(s.raw_mid);
            w.u16(s.summaries.len() as u16);
            w.cstr_without_nuls(&s.scope);
            for x in &s.summaries {
                w.u16(x.summary_mid);
                w.u8(x.combine);
                w.cstr_without_nuls(&x.formula);
            }
        }
    }
    (start, w.pos() - start)
}

/// Context Tree: sizes first, then blocks in a fixed order (roots, then each node's children in
/// context order) so every pointer is known before it is written.
fn put_context_tree(w: &mut ByteWriter, contexts: &[MetaContext], t: &Tables) -> Section {
    let n = contexts.len();
    let node_size: Vec<u64> = contexts
        .iter()
        .map(|c| {
            meta::NODE_FIXED_SIZE
                + c.callee.as_ref().map_or(0, callee_size)
                + lexical_size(&c.lexical)
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, c) in contexts.iter().enumerate() {
        match c.parent {
            Some(p) if (p as usize) < n => children[p as usize].push(i),
            _ => roots.push(i),
        }
    }
    let block_len = |list: &[usize]| list.iter().map(|&i| node_size[i]).sum::<u64>();
    let start = w.pos();
    let root_len = block_len(&roots);
    let mut next_block = start + 8 + root_len;
    let mut block_at = vec![0u64; n];
    for (at, kids) in block_at.iter_mut().zip(&children) {
        if !kids.is_empty() {
            *at = next_block;
            next_block += block_len(kids);
        }
    }
    let write_node = |w: &mut ByteWriter, i: usize| {
        put_node(w, &contexts[i], (block_at[i], block_len(&children[i])), t)
    };
    w.u64(root_len);
    for &i in &roots {
        write_node(w, i);
    }
    for kids in &children {
        for &k in kids {
            write_node(w, k);
        }
    }
    (start, w.pos() - start)
}

/// One context node: ctx id, its children block (offset, size), callee and lexical parts.
fn put_node(w: &mut ByteWriter, c: &MetaContext, (block, block_size): (u64, u64), t: &Tables) {
    w.u32(c.ctx_id);
    w.u64(block);
    w.u64(block_size);
    w.u8(c.callee.as_ref().map_or(0, callee_size) as u8);
    w.u8(lexical_size(&c.lexical) as u8);
    if let Some(cl) = &c.callee {
        w.u8(cl.call_type);
        w.u8(cl.flags);
        if cl.flags & HAS_CALLER_SRCLINE != 0 {
            w.u64(t.file(cl.caller_file));
            w.u32(cl.caller_line.unwrap_or(0));
        }
    }
    let l = &c.lexical;
    w.u8(l.lex_type);
    w.u16(l.flags);
    if l.flags & HAS_FUNCTION != 0 {
        w.u64(t.function(l.code.function));
    }
    if l.flags & HAS_SRCLINE != 0 {
        w.u64(t.file(l.code.file));
        w.u32(l.code.line.unwrap_or(0));
    }
    if l.flags & HAS_POINT != 0 {
        w.u64(t.binary(l.code.module));
        w.u64(l.code.offset.unwrap_or(0));
    }
}
