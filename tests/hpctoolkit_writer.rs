//! Round trips of the HPCToolkit v4.0 writer (`synth::hpctoolkit`): databases written
//! from several specs are parsed back by an independent strict parser of doc/FORMATS.md written
//! here (headers, section bounds, alignment, strides, footers, every value and trace sample), and
//! their values are checked for HPCToolkit's propagation and summary rules.

use hpcscope::formats;
use hpcscope::model::{Combine, Dataset, EntryKind, LexicalType, NodeKind, Relation, ScopeKind};
use hpcscope::synth::example::{example_database, example_spec};
use hpcscope::synth::spec::MAX_CHAIN;
use hpcscope::synth::tree::{ENTRY_APPLICATION_THREAD, ENTRY_MAIN_THREAD};
use hpcscope::synth::values::{
    SCOPES, SCOPE_EXECUTION, SCOPE_FUNCTION, SCOPE_POINT, STATS, STAT_COUNT, STAT_MAX, STAT_MIN,
    STAT_SUM,
};
use hpcscope::synth::{SynthDb, SynthSpec};
use std::collections::BTreeMap;

mod common;

// ----- a strict little reader over one file -----

struct F<'a> {
    name: &'a str,
    b: &'a [u8],
}

impl<'a> F<'a> {
    fn new(name: &'a str, b: &'a [u8]) -> F<'a> {
        F { name, b }
    }
    fn get(&self, off: u64, len: u64) -> &'a [u8] {
        self.b
            .get(off as usize..(off + len) as usize)
            .unwrap_or_else(|| panic!("{}: {len} bytes at {off:#x} past the end", self.name))
    }
    fn u8(&self, off: u64) -> u8 {
        self.get(off, 1)[0]
    }
    fn u16(&self, off: u64) -> u16 {
        u16::from_le_bytes(self.get(off, 2).try_into().unwrap())
    }
    fn u32(&self, off: u64) -> u32 {
        u32::from_le_bytes(self.get(off, 4).try_into().unwrap())
    }
    fn u64(&self, off: u64) -> u64 {
        u64::from_le_bytes(self.get(off, 8).try_into().unwrap())
    }
    fn f64(&self, off: u64) -> f64 {
        f64::from_le_bytes(self.get(off, 8).try_into().unwrap())
    }
    fn cstr(&self, off: u64) -> String {
        let rest = self.get(off, self.b.len() as u64 - off);
        let end = rest.iter().position(|&c| c == 0).expect("NUL-terminated");
        String::from_utf8(rest[..end].to_vec()).unwrap()
    }
    /// The array a section starts with: (pointer, count, element size), from the u64, u32 and
    /// u8 at the section's offsets 0, 8 and 12.
    fn array_at(&self, sec: (u64, u64)) -> (u64, u64, u64) {
        let p = sec.1;
        (self.u64(p), self.u32(p + 8) as u64, self.u8(p + 12) as u64)
    }
    /// An unsigned integer of `size` (2 or 4) bytes.
    fn uint(&self, off: u64, size: u64) -> u64 {
        match size {
            2 => self.u16(off).into(),
            4 => self.u32(off).into(),
            _ => panic!("no {size}-byte integers here"),
        }
    }
    /// A sparse value block (profile.db's values of one profile, cct.db's of one context):
    /// `values` = (count, pointer) of its (sub-key, f64) pairs, `keys` = (count, pointer) of its
    /// (key, index of the key's first pair) entries; keys and each key's sub-keys strictly
    /// increase, every key has a pair. Keys are `key` bytes, sub-keys `sub` bytes, each array
    /// aligned to its integer's size. (key, sub-key, value) in file order.
    fn sparse(
        &self,
        values: (u64, u64),
        keys: (u64, u64),
        key: u64,
        sub: u64,
    ) -> Vec<(u64, u64, f64)> {
        let ((n_values, p_values), (n_keys, p_idx)) = (values, keys);
        let mut out = Vec::new();
        if n_keys == 0 {
            assert_eq!(n_values, 0);
            return out;
        }
        let (key_entry, pair) = (key + 8, sub + 8);
        assert!(p_values % sub == 0 && p_idx % key == 0 && p_values + pair * n_values <= p_idx);
        self.get(p_idx, key_entry * n_keys);
        let mut prev_key = None;
        for k in 0..n_keys {
            let at = p_idx + key_entry * k;
            let id = self.uint(at, key);
            assert!(prev_key < Some(id), "{}: keys sorted", self.name);
            prev_key = Some(id);
            let start = self.u64(at + key);
            let end = if k + 1 < n_keys {
                self.u64(at + key_entry + key)
            } else {
                n_values
            };
            assert!(start < end && end <= n_values);
            let mut prev_sub = None;
            for v in start..end {
                let s = self.uint(p_values + pair * v, sub);
                assert!(prev_sub < Some(s), "{}: sub-keys sorted", self.name);
                prev_sub = Some(s);
                out.push((id, s, self.f64(p_values + pair * v + sub)));
            }
        }
        out
    }
    /// Checks magic, version, footer; returns the (size, pointer) of each header section, each
    /// checked to lie in the file and to be 8-aligned.
    fn header(&self, format: &[u8; 4], footer: &[u8; 8], n: u64) -> Vec<(u64, u64)> {
        assert_eq!(self.get(0, 10), b"HPCTOOLKIT", "{}", self.name);
        assert_eq!(self.get(10, 4), format, "{}", self.name);
        assert_eq!((self.u8(14), self.u8(15)), (4, 0), "{} version", self.name);
        let len = self.b.len() as u64;
        assert_eq!(self.get(len - 8, 8), footer, "{} footer", self.name);
        (0..n)
            .map(|i| {
                let (sz, p) = (self.u64(0x10 + 16 * i), self.u64(0x18 + 16 * i));
                assert!(p % 8 == 0 && p + sz <= len - 8, "{} section {i}", self.name);
                (sz, p)
            })
            .collect()
    }
}

fn within(what: &str, p: u64, len: u64, sec: (u64, u64)) {
    assert!(
        p >= sec.1 && p + len <= sec.1 + sec.0,
        "{what} at {p:#x}+{len} outside section {:#x}+{}",
        sec.1,
        sec.0
    );
}

fn files(db: &SynthDb) -> BTreeMap<String, Vec<u8>> {
    db.to_files().into_iter().collect()
}

// ----- meta.db -----

fn check_meta(db: &SynthDb, bytes: &[u8]) {
    let f = F::new("meta.db", bytes);
    let s = f.header(b"meta", b"_meta.db", 8);
    let (general, idn, met, ctx, strs, lms, sfs, fns) =
        (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]);
    // hpcprof's section order.
    let starts: Vec<u64> = [0, 1, 2, 4, 5, 6, 7, 3].iter().map(|&i| s[i].1).collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "{starts:x?}");
    let title = f.u64(general.1);
    within("title", title, db.spec.title.len() as u64 + 1, general);
    assert_eq!(f.cstr(title), db.spec.title);
    assert!(f.cstr(f.u64(general.1 + 8)).contains("hpcscope synth"));
    // Identifier names.
    let n_kinds = f.u8(idn.1 + 8) as u64;
    let names: Vec<String> = (0..n_kinds)
        .map(|i| f.cstr(f.u64(f.u64(idn.1) + 8 * i)))
        .collect();
    // HPCToolkit's standard kinds (`IDTUPLE_*`), as hpcrun names them without a dictionary.
    assert_eq!(names, formats::hpcrun::DEFAULT_ID_NAMES);
    // Metrics: final-layout strides and ids.
    let (p_metrics, n_metrics) = (f.u64(met.1), f.u32(met.1 + 8) as u64);
    assert_eq!(
        (f.u8(met.1 + 12), f.u8(met.1 + 13), f.u8(met.1 + 14)),
        (32, 16, 24)
    );
    let (p_scopes, n_scopes, sz_scope) =
        (f.u64(met.1 + 0x10), f.u16(met.1 + 0x18), f.u8(met.1 + 0x1a));
    assert_eq!((n_scopes as usize, sz_scope), (SCOPES.len(), 16));
    within("scopes", p_scopes, 16 * n_scopes as u64, met);
    for (i, sc) in SCOPES.iter().enumerate() {
        let at = p_scopes + 16 * i as u64;
        assert_eq!(f.cstr(f.u64(at)), sc.0);
        assert_eq!((f.u8(at + 8), f.u8(at + 9)), (sc.1, sc.2));
    }
    assert_eq!(n_metrics as usize, db.metrics());
    within("metric table", p_metrics, 32 * n_metrics, met);
    for m in 0..n_metrics {
        let at = p_metrics + 32 * m;
        assert_eq!(f.cstr(f.u64(at)), db.metric_names[m as usize]);
        let (insts, sums) = (f.u64(at + 8), f.u64(at + 16));
        let (n_insts, n_sums) = (f.u16(at + 0x18) as u64, f.u16(at + 0x1a) as u64);
        assert_eq!((n_insts, n_sums), (3, 15));
        within("scope insts", insts, 16 * n_insts, met);
        within("summaries", sums, 24 * n_sums, met);
        for i in 0..n_insts {
            let scope = (f.u64(insts + 16 * i) - p_scopes) / 16;
            assert_eq!(
                f.u16(insts + 16 * i + 8),
                SynthDb::prop_metric_id(m as usize, scope as usize)
            );
        }
        for i in 0..n_sums {
            let at = sums + 24 * i;
            let scope = ((f.u64(at) - p_scopes) / 16) as usize;
            let formula = f.cstr(f.u64(at + 8));
            let combine = f.u8(at + 0x10);
            let id = f.u16(at + 0x12);
            let stat = STATS
                .iter()
                .position(|s| s.0 == formula && s.1 == combine)
                .expect("known statistic");
            assert_eq!(id, SynthDb::stat_metric_id(m as usize, stat, scope));
        }
    }
    // Strings, modules, files, functions.
    let table = |sec: (u64, u64), stride: u64| {
        let (p, n, sz) = (
            f.u64(sec.1),
            f.u32(sec.1 + 8) as u64,
            f.u16(sec.1 + 12) as u64,
        );
        assert_eq!(sz, stride);
        within("table", p, n * sz, sec);
        (p, n)
    };
    let (p_lm, n_lm) = table(lms, 16);
    let (p_sf, n_sf) = table(sfs, 16);
    let (p_fn, n_fn) = table(fns, 40);
    let in_strings = |p: u64| {
        let s = f.cstr(p);
        within("string", p, s.len() as u64 + 1, strs);
        s
    };
    let modules: Vec<String> = (0..n_lm)
        .map(|i| in_strings(f.u64(p_lm + 16 * i + 8)))
        .collect();
    assert_eq!(modules, db.tree.modules);
    let srcs: Vec<String> = (0..n_sf)
        .map(|i| in_strings(f.u64(p_sf + 16 * i + 8)))
        .collect();
    assert_eq!(srcs, db.tree.files);
    let idx = |p: u64, base: u64, stride: u64, n: u64| -> Option<u32> {
        if p == 0 {
            return None;
        }
        assert!(p >= base && (p - base).is_multiple_of(stride) && (p - base) / stride < n);
        Some(((p - base) / stride) as u32)
    };
    assert_eq!(n_fn as usize, db.tree.functions.len());
    for (i, want) in db.tree.functions.iter().enumerate() {
        let at = p_fn + 40 * i as u64;
        assert_eq!(in_strings(f.u64(at)), want.name);
        assert_eq!(idx(f.u64(at + 8), p_lm, 16, n_lm), want.module);
        assert_eq!(f.u64(at + 16), want.offset);
        assert_eq!(idx(f.u64(at + 24), p_sf, 16, n_sf), want.file);
        assert_eq!(f.u32(at + 32), want.line);
    }
    // Context tree: walk it iteratively, in preorder, and compare node by node.
    let (p_entries, n_entries, sz_entry) =
        (f.u64(ctx.1), f.u16(ctx.1 + 8) as u64, f.u8(ctx.1 + 10));
    assert_eq!(sz_entry, 32);
    within("entry points", p_entries, 32 * n_entries, ctx);
    // Stack of (record offset, is entry, parent node, remaining siblings' end).
    let mut seen = vec![0u32]; // preorder of visited ctx ids, node 0 first
    let mut parent_of = vec![u32::MAX];
    let mut stack: Vec<(u64, u64, bool, u32)> =
        vec![(p_entries, p_entries + 32 * n_entries, true, 0)];
    while let Some(&(at, end, entry, parent)) = stack.last() {
        if at >= end {
            stack.pop();
            continue;
        }
        let node = seen.len() as u32;
        let want = &db.tree.nodes[node as usize];
        assert_eq!(want.parent, parent, "parent of node {node}");
        parent_of.push(parent);
        let (sz, p) = (f.u64(at), f.u64(at + 8));
        assert_eq!(f.u32(at + 0x10), want.ctx_id);
        seen.push(want.ctx_id);
        let len = if entry {
            assert_eq!(Some(f.u16(at + 0x14)), want.entry);
            let name = f.cstr(f.u64(at + 0x18));
            let expect = ["unknown entry", "main thread", "application thread"];
            assert_eq!(name, expect[want.entry.unwrap() as usize]);
            32
        } else {
            assert_eq!(want.entry, None);
            let flags = f.u8(at + 0x14);
            assert_eq!(f.u8(at + 0x15), want.relation);
            assert_eq!(f.u8(at + 0x16), want.lexical_type);
            let words = f.u8(at + 0x17) as u64;
            assert_eq!(f.u16(at + 0x18), want.propagate as u16);
            let mut w = at + 0x20;
            let mut function = None;
            let (mut file, mut line, mut module, mut offset) = (None, 0, None, 0);
            if flags & 1 != 0 {
                function = idx(f.u64(w), p_fn, 40, n_fn);
                w += 8;
            }
            if flags & 2 != 0 {
                file = idx(f.u64(w), p_sf, 16, n_sf);
                line = f.u32(w + 8);
                w += 16;
            }
            if flags & 4 != 0 {
                module = idx(f.u64(w), p_lm, 16, n_lm);
                offset = f.u64(w + 8);
                w += 16;
            }
            assert_eq!(w, at + 0x20 + 8 * words, "flex words of node {node}");
            assert_eq!(
                (function, file, module),
                (want.code.function, want.code.file, want.code.module)
            );
            if file.is_some() {
                assert_eq!(Some(line), want.code.line);
            }
            if module.is_some() {
                assert_eq!(Some(offset), want.code.offset);
            }
            0x20 + 8 * words
        };
        stack.last_mut().unwrap().0 = at + len;
        if sz > 0 {
            assert_eq!(p % 8, 0);
            within("children", p, sz, ctx);
            stack.push((p, p + sz, false, node));
        }
    }
    assert_eq!(
        seen.len(),
        db.tree.nodes.len(),
        "every node reached exactly once"
    );
    let mut ids = seen.clone();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), seen.len(), "ctx ids unique");
}

// ----- profile.db -----

type IdTuple = Vec<(u8, u32, u64, bool)>;
/// A profile as read back: (is summary, id tuple, its (ctx, metric id, value) in file order).
type ProfileRead = (bool, IdTuple, Vec<(u32, u16, f64)>);

/// Every profile's values as (ctx, metric id, value) in file order, and (is summary, id tuple).
fn read_profiles(bytes: &[u8]) -> Vec<ProfileRead> {
    let f = F::new("profile.db", bytes);
    let s = f.header(b"prof", b"_prof.db", 2);
    let (infos, tuples) = (s[0], s[1]);
    let (p, n, sz) = f.array_at(infos);
    assert_eq!(sz, 48, "szProfile as real hpcprof files state it");
    within("profile infos", p, n * sz, infos);
    let mut out = Vec::new();
    for i in 0..n {
        let at = p + sz * i;
        let (n_values, p_values) = (f.u64(at), f.u64(at + 8));
        let (n_ctxs, p_idx) = (f.u32(at + 16) as u64, f.u64(at + 24));
        let (p_tuple, flags) = (f.u64(at + 32), f.u32(at + 40));
        assert_eq!(flags & 1 == 1, i == 0, "only profile 0 is the summary");
        let mut tuple = Vec::new();
        if i == 0 {
            assert_eq!(p_tuple, 0);
        } else {
            let n_ids = f.u16(p_tuple) as u64;
            within("id tuple", p_tuple, 8 + 16 * n_ids, tuples);
            for j in 0..n_ids {
                let e = p_tuple + 8 + 16 * j;
                tuple.push((f.u8(e), f.u32(e + 4), f.u64(e + 8), f.u16(e + 2) & 1 == 1));
            }
        }
        let values = f
            .sparse((n_values, p_values), (n_ctxs, p_idx), 4, 2)
            .into_iter()
            .map(|(ctx, id, value)| {
                assert!(value != 0.0, "only non-zero values are stored");
                (ctx as u32, id as u16, value)
            })
            .collect();
        out.push((i == 0, tuple, values));
    }
    out
}

// ----- cct.db -----

/// (ctx, metric id, profile index, value) in file order.
fn read_cct(bytes: &[u8], n_nodes: usize) -> Vec<(u32, u16, u32, f64)> {
    let f = F::new("cct.db", bytes);
    let s = f.header(b"ctxt", b"__ctx.db", 1);
    let infos = s[0];
    let (p, n, sz) = f.array_at(infos);
    assert_eq!((n as usize, sz), (n_nodes, 32));
    within("ctx infos", p, n * sz, infos);
    let mut out = Vec::new();
    for ctx in 0..n {
        let at = p + 32 * ctx;
        let (n_values, p_values) = (f.u64(at), f.u64(at + 8));
        let (n_metrics, p_idx) = (f.u16(at + 16) as u64, f.u64(at + 24));
        let block = f.sparse((n_values, p_values), (n_metrics, p_idx), 2, 4);
        for (id, prof, value) in block {
            assert!(prof > 0, "cct.db holds no summary values");
            out.push((ctx as u32, id as u16, prof as u32, value));
        }
    }
    out
}

// ----- trace.db -----

/// A trace line as read back: (profile index, its (time ns, ctx id) samples).
type TraceLineRead = (u32, Vec<(u64, u32)>);

fn read_trace(bytes: &[u8]) -> (u64, u64, Vec<TraceLineRead>) {
    let f = F::new("trace.db", bytes);
    let s = f.header(b"trce", b"trace.db", 1);
    let sec = s[0];
    let (p, n, sz) = f.array_at(sec);
    assert_eq!(sz, 24);
    within("trace headers", p, n * sz, sec);
    let (min, max) = (f.u64(sec.1 + 0x10), f.u64(sec.1 + 0x18));
    let mut lines = Vec::new();
    for i in 0..n {
        let at = p + 24 * i;
        let (prof, start, end) = (f.u32(at), f.u64(at + 8), f.u64(at + 16));
        assert!(start % 4 == 0 && end >= start && (end - start) % 12 == 0);
        f.get(start, end - start);
        let samples = (0..(end - start) / 12)
            .map(|j| (f.u64(start + 12 * j), f.u32(start + 12 * j + 8)))
            .collect();
        lines.push((prof, samples));
    }
    (min, max, lines)
}

// ----- the same database through the project's reader -----

/// The reader's dataset of the writer's files.
fn open(files: &BTreeMap<String, Vec<u8>>) -> Dataset {
    common::open_files("synth.d", files.clone())
}

/// Compares everything the reader exposes with the plan: metrics, scopes, functions, contexts,
/// every value of every profile and context, every trace sample.
fn check_reader(db: &SynthDb, files: &BTreeMap<String, Vec<u8>>) {
    let ds = open(files);
    assert_eq!(ds.format, "hpctoolkit");
    assert_eq!(ds.layout, "v4.0 final");
    assert_eq!(ds.title, db.spec.title);
    assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    assert_eq!(ds.id_names[..4], ["SUMMARY", "NODE", "RANK", "THREAD"]);
    let paths = |v: Vec<String>| v;
    assert_eq!(
        paths(ds.modules.iter().map(|m| m.path.clone()).collect()),
        db.tree.modules
    );
    assert_eq!(
        paths(ds.source_files.iter().map(|m| m.path.clone()).collect()),
        db.tree.files
    );
    assert_eq!(ds.functions.len(), db.tree.functions.len());
    for (got, want) in ds.functions.iter().zip(&db.tree.functions) {
        assert_eq!(got.name, want.name);
        assert_eq!(got.module, want.module);
        assert_eq!(got.offset, want.module.map(|_| want.offset));
        assert_eq!(got.file, want.file);
        assert_eq!(got.line, want.file.map(|_| want.line));
    }
    // Metrics and their scopes and statistics.
    assert_eq!(ds.metrics.len(), db.metrics());
    for (m, metric) in ds.metrics.iter().enumerate() {
        assert_eq!(metric.name, db.metric_names[m]);
        let kinds = [ScopeKind::Point, ScopeKind::Function, ScopeKind::Execution];
        for (s, sc) in metric.scopes.iter().enumerate() {
            assert_eq!(sc.scope, SCOPES[s].0);
            assert_eq!(sc.kind, kinds[s]);
            assert_eq!(sc.prop_metric_id, SynthDb::prop_metric_id(m, s));
        }
        assert_eq!(metric.summaries.len(), 15);
        for sm in &metric.summaries {
            let s = SCOPES.iter().position(|x| x.0 == sm.scope).unwrap();
            let combine = match sm.combine {
                Combine::Sum => 0,
                Combine::Min => 1,
                Combine::Max => 2,
            };
            let stat = STATS
                .iter()
                .position(|x| x.0 == sm.formula && x.1 == combine)
                .unwrap();
            assert_eq!(sm.stat_metric_id, SynthDb::stat_metric_id(m, stat, s));
        }
        assert_eq!(
            metric.inclusive(false),
            Some(SynthDb::prop_metric_id(m, SCOPE_EXECUTION))
        );
        assert_eq!(
            metric.exclusive(false),
            Some(SynthDb::prop_metric_id(m, SCOPE_FUNCTION))
        );
        assert_eq!(
            metric.inclusive(true),
            Some(SynthDb::stat_metric_id(m, STAT_SUM, SCOPE_EXECUTION)),
            "the summary's inclusive value is the sum of $$, not the count of profiles"
        );
    }
    // The tree: same shape (preorder both), same frames, ctx ids kept.
    let cct = &ds.cct;
    cct.check()
        .expect("Cct::check on the reader's tree of the writer's output");
    assert_eq!(cct.tree.len(), db.tree.nodes.len());
    for (i, want) in db.tree.nodes.iter().enumerate() {
        assert_eq!(cct.ctx_id[i], want.ctx_id, "node {i}");
        assert_eq!(cct.tree.parent[i], want.parent, "node {i}");
        let f = &cct.frame[i];
        if i == 0 {
            assert_eq!(f.kind, NodeKind::Root);
            continue;
        }
        if let Some(e) = want.entry {
            let kind = [
                EntryKind::UnknownEntry,
                EntryKind::MainThread,
                EntryKind::ApplicationThread,
            ][e as usize];
            assert_eq!(f.kind, NodeKind::EntryPoint(kind));
            continue;
        }
        assert_eq!(f.kind, NodeKind::Context);
        let rel = [Relation::Lexical, Relation::Call, Relation::InlinedCall];
        assert_eq!(f.relation, rel[want.relation as usize], "node {i}");
        let lex = [
            LexicalType::Function,
            LexicalType::Loop,
            LexicalType::Line,
            LexicalType::Instruction,
        ];
        assert_eq!(f.lexical_type, lex[want.lexical_type as usize], "node {i}");
        assert_eq!(f.code, want.code, "node {i}");
    }
    // Profiles: identity and every value (model nodes are the plan's nodes).
    assert_eq!(ds.profiles.len() as u32, db.profiles() + 1);
    assert_eq!(ds.summary_profile, Some(0));
    let mut by_ctx: BTreeMap<u32, Vec<(u32, u16, f64)>> = BTreeMap::new();
    for (p, info) in ds.profiles.iter().enumerate() {
        assert_eq!(info.summary, p == 0);
        if p > 0 {
            let want: Vec<_> = db.id_tuple(p as u32);
            let got: Vec<_> = info
                .id_tuple
                .iter()
                .map(|id| (id.kind as u8, id.logical_id, id.physical_id, id.physical))
                .collect();
            assert_eq!(got, want, "id tuple of profile {p}");
        }
        let values = ds.data.profile_values(p).unwrap();
        let mut got: Vec<(u32, u16, f64)> = values
            .iter()
            .map(|(node, id, v)| (cct.ctx_id[node as usize], id, v))
            .collect();
        got.sort_by_key(|r| (r.0, r.1));
        assert_eq!(got, db.profile_values(p as u32), "values of profile {p}");
        if p > 0 {
            for (ctx, id, v) in got {
                by_ctx.entry(ctx).or_default().push((p as u32, id, v));
            }
        }
    }
    // cct.db through the model: (profile, metric id, value) per node.
    for node in 0..cct.tree.len() as u32 {
        let mut got = ds.data.context_values(node).unwrap();
        got.sort_by_key(|r| (r.0, r.1));
        let mut want = by_ctx
            .remove(&cct.ctx_id[node as usize])
            .unwrap_or_default();
        want.sort_by_key(|r| (r.0, r.1));
        assert_eq!(got, want, "context values of node {node}");
    }
    // Traces.
    let Some(trace) = &ds.trace else {
        assert_eq!(db.spec.samples, 0, "reader found no trace");
        return;
    };
    assert_eq!(trace.lines.len() as u32, db.profiles());
    let mut lo = u64::MAX;
    let mut hi = 0;
    for (l, line) in trace.lines.iter().enumerate() {
        assert_eq!(line.prof_index, l as u32 + 1);
        assert_eq!(line.samples, db.spec.samples);
        let want = db.trace_line(line.prof_index);
        let got = ds.data.trace_samples(l, 0, line.samples).unwrap();
        let got: Vec<(u64, u32)> = got
            .iter()
            .map(|s| (s.time, cct.ctx_id[s.node as usize]))
            .collect();
        assert_eq!(got, want, "trace line {l}");
        // Binary search agrees with the samples.
        let mid = want.len() / 2;
        assert_eq!(
            ds.data.trace_find(l, want[mid].0).unwrap(),
            Some(mid as u64)
        );
        assert_eq!(ds.data.trace_find(l, want[0].0 - 1).unwrap(), None);
        lo = lo.min(want[0].0);
        hi = hi.max(want[want.len() - 1].0);
    }
    assert_eq!((trace.min_time, trace.max_time), (Some(lo), Some(hi)));
}

// ----- the round trip -----

fn round_trip(spec: &SynthSpec) {
    let db = SynthDb::new(spec).unwrap();
    let files = files(&db);
    for (name, bytes) in &files {
        // The writer pads before each footer (hpcprof does not always).
        assert_eq!(bytes.len() % 8, 0, "{name}: footer is 8-aligned");
    }
    check_meta(&db, &files["meta.db"]);
    check_reader(&db, &files);
    let n = db.tree.nodes.len();
    let k = db.metrics() * 3;

    // Profiles: identity, values, propagation rules.
    let profiles = read_profiles(&files["profile.db"]);
    assert_eq!(profiles.len() as u32, db.profiles() + 1);
    let mut dense: Vec<Vec<f64>> = Vec::new();
    for (i, (summary, tuple, values)) in profiles.iter().enumerate() {
        assert_eq!(*summary, i == 0);
        if i > 0 {
            assert_eq!(*tuple, db.id_tuple(i as u32));
        }
        assert_eq!(*values, db.profile_values(i as u32), "profile {i} values");
        if i == 0 {
            continue;
        }
        let mut d = vec![0.0; n * k];
        for &(ctx, id, v) in values {
            let node = db.node_of_ctx(ctx).unwrap() as usize;
            d[node * k + id as usize] = v;
        }
        // Inclusive (execution) = own point value + children's inclusive; exclusive (function)
        // adds only children whose propagation bit is set. Values are binary fractions and
        // integers, so the sums are exact in any order.
        for node in 0..n {
            for m in 0..db.metrics() {
                let own = |s: usize| d[node * k + 3 * m + s];
                let (mut ex, mut fu) = (own(SCOPE_POINT), own(SCOPE_POINT));
                for c in (node + 1..n).filter(|&c| db.tree.nodes[c].parent as usize == node) {
                    ex += d[c * k + 3 * m + SCOPE_EXECUTION];
                    if db.tree.nodes[c].propagate {
                        fu += d[c * k + 3 * m + SCOPE_FUNCTION];
                    }
                }
                assert_eq!(
                    own(SCOPE_EXECUTION),
                    ex,
                    "profile {i} node {node} metric {m}"
                );
                assert_eq!(
                    own(SCOPE_FUNCTION),
                    fu,
                    "profile {i} node {node} metric {m}"
                );
                let has_children =
                    (node + 1 < n) && db.tree.nodes[node + 1].parent as usize == node;
                if has_children {
                    assert_eq!(own(SCOPE_POINT), 0.0, "point values sit on leaves");
                }
            }
        }
        dense.push(d);
    }
    // Summary statistics over the profiles.
    let mut summary = vec![[0.0f64; 5]; n * k];
    for &(ctx, id, v) in &profiles[0].2 {
        let node = db.node_of_ctx(ctx).unwrap() as usize;
        let (m, rest) = (id as usize / 15, id as usize % 15);
        summary[node * k + 3 * m + rest % 3][rest / 3] = v;
    }
    for j in 0..n * k {
        let vals: Vec<f64> = dense.iter().map(|d| d[j]).filter(|&v| v != 0.0).collect();
        let st = summary[j];
        assert_eq!(st[STAT_COUNT], vals.len() as f64);
        assert_eq!(st[STAT_SUM], vals.iter().sum::<f64>());
        if !vals.is_empty() {
            assert_eq!(
                st[STAT_MIN],
                vals.iter().cloned().fold(f64::INFINITY, f64::min)
            );
            assert_eq!(st[STAT_MAX], vals.iter().cloned().fold(0.0, f64::max));
        }
    }
    // The global context holds the whole run.
    let total_cpu: f64 = dense.iter().map(|d| d[SCOPE_EXECUTION]).sum();
    assert!(total_cpu > 0.0);

    // cct.db = the same values, context-major.
    let cct = read_cct(&files["cct.db"], n);
    let mut want = Vec::new();
    for ctx in 0..n as u32 {
        let node = db.node_of_ctx(ctx).unwrap() as usize;
        for j in 0..k {
            for (p, d) in dense.iter().enumerate() {
                if d[node * k + j] != 0.0 {
                    want.push((ctx, j as u16, p as u32 + 1, d[node * k + j]));
                }
            }
        }
    }
    assert_eq!(cct, want, "cct.db is profile.db transposed");

    // Traces.
    if spec.samples == 0 {
        assert!(!files.contains_key("trace.db"));
        return;
    }
    let (min, max, lines) = read_trace(&files["trace.db"]);
    assert_eq!(lines.len() as u32, db.profiles());
    let mut lo = u64::MAX;
    let mut hi = 0;
    for (i, (prof, samples)) in lines.iter().enumerate() {
        assert_eq!(*prof, i as u32 + 1);
        assert_eq!(*samples, db.trace_line(*prof));
        assert_eq!(samples.len() as u64, spec.samples);
        assert!(
            samples.windows(2).all(|w| w[0].0 < w[1].0),
            "increasing times"
        );
        assert!(
            samples.windows(2).all(|w| w[0].1 != 0 || w[1].1 != 0),
            "no 0,0"
        );
        let d = &dense[i];
        for &(_, ctx) in samples {
            if ctx == 0 {
                continue;
            }
            let node = db.node_of_ctx(ctx).unwrap() as usize;
            assert!(
                node + 1 == n || db.tree.nodes[node + 1].parent as usize != node,
                "trace sample on a leaf"
            );
            assert!(
                d[node * k] > 0.0,
                "sampled leaf has CPU time in its profile"
            );
        }
        lo = lo.min(samples[0].0);
        hi = hi.max(samples.last().unwrap().0);
    }
    assert_eq!((min, max), (lo, hi));
}

#[test]
fn example_round_trips() {
    let spec = example_spec();
    round_trip(&spec);
    let files = example_database();
    let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, ["meta.db", "profile.db", "cct.db", "trace.db"]);
    let db = SynthDb::new(&spec).unwrap();
    assert_eq!(db.spec.title, "hpcscope example");
    assert_eq!(db.profiles(), 8);
    assert!(
        (150..=260).contains(&db.tree.nodes.len()),
        "{}",
        db.tree.nodes.len()
    );
    let entries: Vec<_> = db.tree.nodes.iter().filter_map(|x| x.entry).collect();
    assert_eq!(entries, [ENTRY_MAIN_THREAD, ENTRY_APPLICATION_THREAD]);
    let names: Vec<&str> = db.tree.functions.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"main"), "{names:?}");
    // Deterministic: the same spec gives the same bytes.
    assert_eq!(files, example_database());
}

#[test]
fn parameter_sets_round_trip() {
    let base = SynthSpec::default();
    for spec in [
        SynthSpec {
            ranks: 1,
            threads: 1,
            contexts: 10,
            depth: 2,
            metrics: 1,
            samples: 5,
            seed: 7,
            ..base.clone()
        },
        SynthSpec {
            ranks: 3,
            threads: 4,
            contexts: 600,
            depth: 14,
            metrics: 6,
            samples: 200,
            seed: 99,
            ..base.clone()
        },
        SynthSpec {
            ranks: 2,
            threads: 1,
            contexts: 300,
            depth: 5,
            metrics: 8,
            samples: 0,
            seed: 3,
            unknown_entry: false,
            ..base.clone()
        },
        SynthSpec {
            ranks: 1,
            threads: 3,
            contexts: 2000,
            depth: 30,
            metrics: 2,
            samples: 50,
            seed: 12345,
            ..base.clone()
        },
        SynthSpec {
            ranks: 2,
            threads: 2,
            contexts: 100,
            samples: 300,
            chain: 60,
            names: vec![
                "<img src=x onerror=alert(1)>".into(),
                "</script><script>alert(2)</script>".into(),
                "tab\there\u{1}\u{1b}[31m".into(),
            ],
            ..base.clone()
        },
    ] {
        round_trip(&spec);
    }
}

#[test]
fn cct_chunks_do_not_change_the_bytes() {
    let spec = SynthSpec {
        ranks: 3,
        threads: 2,
        contexts: 400,
        ..SynthSpec::default()
    };
    let db = SynthDb::new(&spec).unwrap();
    let st = db.stats();
    let mut whole = Vec::new();
    db.write_cct(&st, &mut whole, u64::MAX).unwrap();
    let mut chunked = Vec::new();
    db.write_cct(&st, &mut chunked, 100).unwrap();
    assert_eq!(whole, chunked);
    assert_eq!(whole, files(&db)["cct.db"]);
}

#[test]
fn seeds_differ_and_tree_sizes_follow_the_spec() {
    let a = SynthDb::new(&SynthSpec {
        seed: 1,
        contexts: 3000,
        ..SynthSpec::default()
    })
    .unwrap();
    let b = SynthDb::new(&SynthSpec {
        seed: 2,
        contexts: 3000,
        ..SynthSpec::default()
    })
    .unwrap();
    assert_ne!(a.meta_bytes(), b.meta_bytes());
    for db in [&a, &b] {
        let n = db.tree.nodes.len();
        assert!((2400..=3800).contains(&n), "{n} contexts for 3000 asked");
    }
    assert!(SynthDb::new(&SynthSpec {
        ranks: 0,
        ..SynthSpec::default()
    })
    .is_err());
    assert!(SynthDb::new(&SynthSpec {
        metrics: 0,
        ..SynthSpec::default()
    })
    .is_err());
}

#[test]
fn cli_writes_the_same_bytes_as_the_library() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("synth-cli");
    let _ = std::fs::remove_dir_all(&dir);
    let args: Vec<String> = [
        "--ranks",
        "2",
        "--threads",
        "3",
        "--contexts",
        "150",
        "--depth",
        "6",
        "--metrics",
        "2",
        "--samples",
        "40",
        "--seed",
        "5",
        "--title",
        "cli test",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([dir.to_string_lossy().into_owned()])
    .collect();
    hpcscope::cli::synth::run(&args).unwrap();
    let db = SynthDb::new(&SynthSpec {
        title: "cli test".into(),
        ranks: 2,
        threads: 3,
        contexts: 150,
        depth: 6,
        metrics: 2,
        samples: 40,
        seed: 5,
        unknown_entry: true,
        chain: 0,
        names: Vec::new(),
    })
    .unwrap();
    for (name, bytes) in db.to_files() {
        let on_disk = std::fs::read(dir.join(&name)).unwrap();
        assert!(
            on_disk == bytes,
            "{name} differs between write_dir and to_files"
        );
    }
    assert!(hpcscope::cli::synth::run(&["--ranks".to_string()]).is_err());
    assert!(hpcscope::cli::synth::run(&["--bogus".to_string(), "x".to_string()]).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The strict parser above accepts what hpcprof itself wrote: its checks are HPCToolkit's layout,
/// not just the writer's habits.
#[test]
fn strict_parser_accepts_real_hpcprof_databases() {
    let Some(root) = common::corpus_dir("hpctoolkit/v4") else {
        return;
    };
    let dirs = std::fs::read_dir(root).unwrap();
    let mut checked = 0;
    for d in dirs.flatten() {
        let p = d.path();
        let profile = std::fs::read(p.join("profile.db")).unwrap();
        let profiles = read_profiles(&profile);
        assert!(profiles[0].0, "{}", p.display());
        if let Ok(cct) = std::fs::read(p.join("cct.db")) {
            let f = F::new("cct.db", &cct);
            let n = f.u32(f.u64(0x18) + 8) as usize;
            let mut values = read_cct(&cct, n);
            // hpcprof's cct.db is its profile.db transposed, value for value.
            let mut want: Vec<(u32, u16, u32, f64)> = Vec::new();
            for (i, (_, _, vals)) in profiles.iter().enumerate().skip(1) {
                want.extend(vals.iter().map(|&(c, m, v)| (c, m, i as u32, v)));
            }
            let key = |r: &(u32, u16, u32, f64)| (r.0, r.1, r.2);
            values.sort_by_key(key);
            want.sort_by_key(key);
            assert_eq!(values, want, "{}", p.display());
        }
        if let Ok(trace) = std::fs::read(p.join("trace.db")) {
            let (_, _, lines) = read_trace(&trace);
            for (prof, samples) in lines {
                assert!((prof as usize) < profiles.len());
                assert!(samples.windows(2).all(|w| w[0].0 <= w[1].0));
            }
        }
        checked += 1;
    }
    assert!(checked >= 10, "{checked} corpus databases");
}

/// `chain` makes a call path exactly that deep (main -> recurse x N through line call sites) and
/// `names` adds functions named verbatim; the rest of the tree is the one without them.
#[test]
fn chain_and_names_extend_the_tree() {
    let base = SynthSpec {
        contexts: 200,
        samples: 10,
        ..SynthSpec::default()
    };
    let plain = SynthDb::new(&base).unwrap();
    let spec = SynthSpec {
        chain: 1000,
        names: vec!["<b>x</b>".into(), "y\u{7}".into()],
        ..base.clone()
    };
    let db = SynthDb::new(&spec).unwrap();
    // Each extra name adds site + call + line; the chain adds a site, then call + line per frame.
    assert_eq!(
        db.tree.nodes.len(),
        plain.tree.nodes.len() + 2 * 3 + 1 + 2 * 1000
    );
    let mut depth = vec![0u32; db.tree.nodes.len()];
    for i in 1..db.tree.nodes.len() {
        depth[i] = depth[db.tree.nodes[i].parent as usize] + 1;
    }
    let deepest = (0..db.tree.nodes.len()).max_by_key(|&i| depth[i]).unwrap();
    // root 0, main-thread entry 1, main 2, call site 3, then (recurse, line) per frame.
    assert_eq!(depth[deepest], 3 + 2 * 1000);
    let recurse = db
        .tree
        .functions
        .iter()
        .position(|f| f.name == "recurse")
        .unwrap() as u32;
    let frames = (1..db.tree.nodes.len())
        .filter(|&i| db.tree.nodes[i].code.function == Some(recurse))
        .count();
    assert_eq!(frames, 1000);
    for name in &spec.names {
        let f = db.tree.functions.iter().find(|f| &f.name == name).unwrap();
        assert_eq!(
            db.tree.files[f.file.unwrap() as usize],
            format!("/opt/synth/src/{name}")
        );
    }
    assert!(SynthDb::new(&SynthSpec {
        chain: MAX_CHAIN + 1,
        ..base
    })
    .is_err());
}
