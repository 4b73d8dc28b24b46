//! meta.db of a synthetic database, laid out like hpcprof (HPCToolkit `doc/FORMATS.md`, meta.db):
//! header, General, IdNames, Metrics, Strings, Modules, Files, Functions, Context (children arrays
//! in preorder of their parents, then the entry points), footer. Built in memory.

use super::file_header;
// The identifier kinds meta.db names, in hpcprof's order: the list hpcrun's reader uses too.
use crate::formats::hpcrun::DEFAULT_ID_NAMES as ID_NAMES;
use crate::synth::bytes::ByteWriter;
use crate::synth::tree::{SynthNode, ENTRY_UNKNOWN};
use crate::synth::values::{SCOPES, STATS};
use crate::synth::SynthDb;

/// A section's (size, offset) as the file header lists it.
type Section = (u64, u64);

/// Where the string table put each name.
struct Names {
    entries: Vec<u64>,
    modules: Vec<u64>,
    files: Vec<u64>,
    functions: Vec<u64>,
}

/// Where the Modules, Files and Functions tables start: context records point into them.
struct Tables {
    modules: u64,
    files: u64,
    functions: u64,
}

impl SynthNode {
    /// Which optional fields the context record carries: function, source line, point.
    fn flags(&self) -> u8 {
        let c = &self.code;
        (c.function.is_some() as u8)
            | ((c.file.is_some() as u8) << 1)
            | ((c.module.is_some() as u8) << 2)
    }
    fn flex_words(&self) -> u8 {
        let c = &self.code;
        (c.function.is_some() as u8) + 2 * (c.file.is_some() as u8) + 2 * (c.module.is_some() as u8)
    }
    fn record_len(&self) -> u64 {
        if self.entry.is_some() {
            0x20
        } else {
            0x20 + 8 * self.flex_words() as u64
        }
    }
}

impl SynthDb {
    /// meta.db, laid out like hpcprof: header, General, IdNames, Metrics, Strings, Modules, Files,
    /// Functions, Context (children arrays, then the entry points), footer.
    pub fn meta_bytes(&self) -> Vec<u8> {
        let mut b = ByteWriter::le();
        file_header(&mut b, b"meta", 8);
        let mut sections = [(0u64, 0u64); 8];
        sections[0] = self.put_general(&mut b);
        b.align(8);
        sections[1] = put_id_names(&mut b);
        b.align(8);
        sections[2] = self.put_metrics(&mut b);
        let (strings, names) = self.put_strings(&mut b);
        sections[4] = strings;
        b.align(8);
        let (modules, lm_table) = put_path_table(&mut b, &names.modules);
        sections[5] = modules;
        // Source files ("copied" stays 0: no src/ copies are written).
        let (files, sf_table) = put_path_table(&mut b, &names.files);
        sections[6] = files;
        let tables = Tables {
            modules: lm_table,
            files: sf_table,
            functions: b.pos() + 0x10,
        };
        sections[7] = self.put_functions(&mut b, &names, &tables);
        sections[3] = self.put_context(&mut b, &names, &tables);
        b.align(8);
        b.bytes(b"_meta.db");
        for (i, (sz, p)) in sections.iter().enumerate() {
            b.set_u64(0x10 + 16 * i as u64, *sz);
            b.set_u64(0x18 + 16 * i as u64, *p);
        }
        b.into_bytes()
    }

    /// General properties: title and a description of the spec.
    fn put_general(&self, b: &mut ByteWriter) -> Section {
        let gen = b.pos();
        b.zeros(16);
        let title = b.cstr(&self.spec.title);
        let s = &self.spec;
        let description = format!(
            "Synthetic database written by `hpcscope synth`: {} ranks x {} threads, {} contexts, \
             call depth up to {}, {} metrics, {} trace samples per line, seed {}.",
            s.ranks,
            s.threads,
            self.tree.nodes.len() - 1,
            s.depth,
            s.metrics,
            s.samples,
            s.seed
        );
        let desc = b.cstr(&description);
        b.set_u64(gen, title);
        b.set_u64(gen + 8, desc);
        (b.pos() - gen, gen)
    }

    /// Performance metrics: the propagation scopes, then per metric its instances (one per scope)
    /// and summary statistics (every statistic of every scope), then the descriptor table.
    fn put_metrics(&self, b: &mut ByteWriter) -> Section {
        let met = b.pos();
        b.zeros(0x1b);
        let scope_names: Vec<u64> = SCOPES.iter().map(|s| b.cstr(s.0)).collect();
        b.align(8);
        let scopes = b.pos();
        for (i, s) in SCOPES.iter().enumerate() {
            b.u64(scope_names[i]);
            b.u8(s.1);
            b.u8(s.2);
            b.zeros(6);
        }
        let mut descs = Vec::new();
        for (m, name) in self.metric_names.iter().enumerate() {
            let insts = b.pos();
            for s in 0..SCOPES.len() {
                b.u64(scopes + 16 * s as u64);
                b.u16(Self::prop_metric_id(m, s));
                b.zeros(6);
            }
            let formulas: Vec<u64> = ["1", "$$", "($$^2)"].iter().map(|f| b.cstr(f)).collect();
            b.align(8);
            let sums = b.pos();
            for s in 0..SCOPES.len() {
                for (stat, &(formula, combine)) in STATS.iter().enumerate() {
                    let fi = match formula {
                        "1" => 0,
                        "$$" => 1,
                        _ => 2,
                    };
                    b.u64(scopes + 16 * s as u64);
                    b.u64(formulas[fi]);
                    b.u8(combine);
                    b.u8(0);
                    b.u16(Self::stat_metric_id(m, stat, s));
                    b.zeros(4);
                }
            }
            let pname = b.cstr(name);
            b.align(8);
            descs.push((pname, insts, sums));
        }
        let table = b.pos();
        for (pname, insts, sums) in descs {
            b.u64(pname);
            b.u64(insts);
            b.u64(sums);
            b.u16(SCOPES.len() as u16);
            b.u16((SCOPES.len() * STATS.len()) as u16);
            b.zeros(4);
        }
        let end = b.pos();
        b.set_u64(met, table);
        b.set_u32(met + 8, self.metric_names.len() as u32);
        b.set_u8(met + 12, 32);
        b.set_u8(met + 13, 16);
        b.set_u8(met + 14, 24);
        b.set_u64(met + 0x10, scopes);
        b.set_u16(met + 0x18, SCOPES.len() as u16);
        b.set_u8(met + 0x1a, 16);
        (end - met, met)
    }

    /// The common string table: entry point names, module paths, file paths, function names.
    fn put_strings(&self, b: &mut ByteWriter) -> (Section, Names) {
        let strings = b.pos();
        let names = Names {
            entries: ["unknown entry", "main thread", "application thread"]
                .iter()
                .map(|s| b.cstr(s))
                .collect(),
            modules: self.tree.modules.iter().map(|m| b.cstr(m)).collect(),
            files: self.tree.files.iter().map(|f| b.cstr(f)).collect(),
            functions: self
                .tree
                .functions
                .iter()
                .map(|f| b.cstr(&f.name))
                .collect(),
        };
        ((b.pos() - strings, strings), names)
    }

    fn put_functions(&self, b: &mut ByteWriter, names: &Names, t: &Tables) -> Section {
        let fs = b.pos();
        b.u64(t.functions);
        b.u32(self.tree.functions.len() as u32);
        b.u16(40);
        b.zeros(2);
        for (i, f) in self.tree.functions.iter().enumerate() {
            b.u64(names.functions[i]);
            b.u64(f.module.map_or(0, |m| t.modules + 16 * m as u64));
            b.u64(if f.module.is_some() { f.offset } else { 0 });
            b.u64(f.file.map_or(0, |x| t.files + 16 * x as u64));
            b.u32(if f.file.is_some() { f.line } else { 0 });
            b.u32(0);
        }
        (b.pos() - fs, fs)
    }

    /// Context tree: children arrays in preorder of their parents, then the entry points.
    fn put_context(&self, b: &mut ByteWriter, names: &Names, t: &Tables) -> Section {
        let ct = b.pos();
        let n = self.tree.nodes.len();
        // (size, offset) of each node's children array, 0 size when it has none.
        let mut cursor = ct + 0x10;
        let mut array_of = vec![(0u64, 0u64); n];
        for (i, array) in array_of.iter_mut().enumerate().skip(1) {
            let size: u64 = self
                .children(i)
                .map(|c| self.tree.nodes[c].record_len())
                .sum();
            if size > 0 {
                *array = (size, cursor);
                cursor += size;
            }
        }
        let entries = cursor;
        b.u64(entries);
        let n_entries = self.tree.nodes.iter().filter(|x| x.entry.is_some()).count();
        b.u16(n_entries as u16);
        b.u8(32);
        b.zeros(5);
        for (i, &(size, at)) in array_of.iter().enumerate().skip(1) {
            if size == 0 {
                continue;
            }
            debug_assert_eq!(b.pos(), at);
            for c in self.children(i) {
                self.put_context_record(b, c, array_of[c], t);
            }
        }
        debug_assert_eq!(b.pos(), entries);
        for c in self.children(0) {
            let x = &self.tree.nodes[c];
            let kind = x.entry.unwrap_or(ENTRY_UNKNOWN);
            let (sz, p) = array_of[c];
            b.u64(sz);
            b.u64(p);
            b.u32(x.ctx_id);
            b.u16(kind);
            b.zeros(2);
            b.u64(names.entries[(kind as usize).min(2)]);
        }
        (b.pos() - ct, ct)
    }

    /// One context record: its children array, ctx id, flags, relation, lexical type and the
    /// optional function, source line and point.
    fn put_context_record(&self, b: &mut ByteWriter, c: usize, (sz, p): (u64, u64), t: &Tables) {
        let x = &self.tree.nodes[c];
        b.u64(sz);
        b.u64(p);
        b.u32(x.ctx_id);
        b.u8(x.flags());
        b.u8(x.relation);
        b.u8(x.lexical_type);
        b.u8(x.flex_words());
        b.u16(x.propagate as u16);
        b.zeros(6);
        let c = &x.code;
        if let Some(f) = c.function {
            b.u64(t.functions + 40 * f as u64);
        }
        if let Some(f) = c.file {
            b.u64(t.files + 16 * f as u64);
            b.u32(c.line.unwrap_or(0));
            b.u32(0);
        }
        if let Some(m) = c.module {
            b.u64(t.modules + 16 * m as u64);
            b.u64(c.offset.unwrap_or(0));
        }
    }

    /// The children of node `i`, in preorder: each next child starts where the last one's subtree
    /// ends.
    fn children(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let end = self.tree.subtree_end[i] as usize;
        let mut c = i + 1;
        std::iter::from_fn(move || {
            (c < end).then(|| {
                let this = c;
                c = self.tree.subtree_end[c] as usize;
                this
            })
        })
    }
}

/// Identifier names: the pointer array follows the names.
fn put_id_names(b: &mut ByteWriter) -> Section {
    let idn = b.pos();
    b.u64(0);
    b.u8(ID_NAMES.len() as u8);
    b.u8(0);
    let names: Vec<u64> = ID_NAMES.iter().map(|n| b.cstr(n)).collect();
    b.align(8);
    let pp = b.pos();
    for p in names {
        b.u64(p);
    }
    b.set_u64(idn, pp);
    (b.pos() - idn, idn)
}

/// A table of 16-byte path records (Modules or Files: flags 0, padding, string pointer); returns
/// the section and where the records start.
fn put_path_table(b: &mut ByteWriter, paths: &[u64]) -> (Section, u64) {
    let start = b.pos();
    let table = start + 0x10;
    b.u64(table);
    b.u32(paths.len() as u32);
    b.u16(16);
    b.zeros(2);
    for p in paths {
        b.u32(0);
        b.u32(0);
        b.u64(*p);
    }
    ((b.pos() - start, start), table)
}
