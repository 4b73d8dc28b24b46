//! Writes prof2 files from the seed 000 text, in either byte order: meta.db (`HPCTOOLKIT_expmt`,
//! for which no public file exists), profile.db, cct.db and trace.db. Used to make test fixtures
//! and to check the readers by round trips; headers are padded to 0x80 as real files are.

use super::meta::{
    self, Callee, Lexical, MetaContext, MetaDb, MetaFunction, MetaMetric, MetaPath, MetaScope,
    MetaSummary, FOOTER_BE as META_BE, FOOTER_LE as META_LE, HAS_CALLER_SRCLINE, HAS_FUNCTION,
    HAS_POINT, HAS_SRCLINE,
};
use super::profile::{IdElem, END_MARKER as PROF_END};
use super::{cct, profile, trace, Version};
use crate::bytes::Endian;

/// Appends fields in one byte order and patches earlier ones.
struct W {
    buf: Vec<u8>,
    e: Endian,
}

macro_rules! put {
    ($($name:ident $at:ident $t:ty;)*) => {$(
        fn $name(&mut self, v: $t) {
            let b = match self.e {
                Endian::Big => v.to_be_bytes(),
                Endian::Little => v.to_le_bytes(),
            };
            self.buf.extend_from_slice(&b);
        }
        fn $at(&mut self, at: u64, v: $t) {
            let b = match self.e {
                Endian::Big => v.to_be_bytes(),
                Endian::Little => v.to_le_bytes(),
            };
            self.buf[at as usize..at as usize + b.len()].copy_from_slice(&b);
        }
    )*};
}

impl W {
    fn new(e: Endian) -> W {
        W { buf: Vec::new(), e }
    }
    fn pos(&self) -> u64 {
        self.buf.len() as u64
    }
    fn pad_to(&mut self, n: u64) {
        while self.pos() < n {
            self.buf.push(0);
        }
    }
    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    fn cstr(&mut self, s: &str) {
        // A NUL inside would end the string early on reading.
        self.buf.extend(s.bytes().filter(|&b| b != 0));
        self.buf.push(0);
    }
    put! {
        u16 u16_at u16;
        u32 u32_at u32;
        u64 u64_at u64;
    }
    fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
}

fn footer(e: Endian, be: &[u8; 8], le: &[u8; 8]) -> [u8; 8] {
    match e {
        Endian::Big => *be,
        Endian::Little => *le,
    }
}

fn callee_size(c: &meta::Callee) -> u64 {
    2 + if c.flags & HAS_CALLER_SRCLINE != 0 {
        12
    } else {
        0
    }
}

fn lexical_size(l: &meta::Lexical) -> u64 {
    3 + if l.flags & HAS_FUNCTION != 0 { 8 } else { 0 }
        + if l.flags & HAS_SRCLINE != 0 { 12 } else { 0 }
        + if l.flags & HAS_POINT != 0 { 16 } else { 0 }
}

/// Writes a meta.db: header, General Properties, Metrics, Strings, Binaries, Files, Functions,
/// Context Tree (root block first, then each node's children block in context order), footer.
/// Contexts must be in preorder with parents before children, as `MetaDb::read` returns them.
pub fn meta_db(m: &MetaDb, e: Endian) -> Vec<u8> {
    let mut w = W::new(e);
    w.bytes(meta::MAGIC);
    w.u8(m.version.major);
    w.u8(m.version.minor);
    w.u16(meta::NUM_SECTIONS);
    w.pad_to(meta::HEADER_SIZE);
    // Section (offset, size) pairs patched in at the end, in header order.
    let mut sec = [(0u64, 0u64); 7];

    let start = w.pos();
    w.cstr(&m.title);
    w.u16(m.id_names.len() as u16);
    for n in &m.id_names {
        w.cstr(n);
    }
    sec[0] = (start, w.pos() - start);

    let start = w.pos();
    w.u32(m.metrics.len() as u32);
    for met in &m.metrics {
        w.u16(met.scopes.len() as u16);
        w.cstr(&met.name);
        for s in &met.scopes {
            w.u16(s.raw_mid);
            w.u16(s.summaries.len() as u16);
            w.cstr(&s.scope);
            for x in &s.summaries {
                w.u16(x.summary_mid);
                w.u8(x.combine);
                w.cstr(&x.formula);
            }
        }
    }
    sec[1] = (start, w.pos() - start);

    let start = w.pos();
    let put_str = |w: &mut W, s: &str| -> u64 {
        let at = w.pos();
        w.cstr(s);
        at
    };
    let bin_str: Vec<u64> = m
        .binaries
        .iter()
        .map(|b| put_str(&mut w, &b.path))
        .collect();
    let file_str: Vec<u64> = m.files.iter().map(|f| put_str(&mut w, &f.path)).collect();
    let func_str: Vec<u64> = m
        .functions
        .iter()
        .map(|f| f.name.as_deref().map_or(0, |n| put_str(&mut w, n)))
        .collect();
    sec[3] = (start, w.pos() - start);

    let bin_base = w.pos() + 6;
    let file_base = bin_base + m.binaries.len() as u64 * meta::BINARY_SIZE as u64 + 6;
    let func_base = file_base + m.files.len() as u64 * meta::FILE_SIZE as u64 + 6;
    let bin_ptr = |i: Option<u32>| i.map_or(0, |i| bin_base + i as u64 * meta::BINARY_SIZE as u64);
    let file_ptr = |i: Option<u32>| i.map_or(0, |i| file_base + i as u64 * meta::FILE_SIZE as u64);
    let func_ptr =
        |i: Option<u32>| i.map_or(0, |i| func_base + i as u64 * meta::FUNCTION_SIZE as u64);
    for (k, (list, strs, size)) in [
        (&m.binaries, &bin_str, meta::BINARY_SIZE),
        (&m.files, &file_str, meta::FILE_SIZE),
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
    w.u32(m.functions.len() as u32);
    w.u16(meta::FUNCTION_SIZE);
    for (f, &s) in m.functions.iter().zip(&func_str) {
        w.u32(f.flags);
        w.u64(s);
        w.u64(bin_ptr(f.binary));
        w.u64(f.binary_offset.unwrap_or(u64::MAX));
        w.u64(file_ptr(f.file));
        w.u32(f.line.unwrap_or(0));
    }
    sec[6] = (start, w.pos() - start);

    // Context tree: sizes first, then blocks in a fixed order so pointers are known.
    let n = m.contexts.len();
    let node_size: Vec<u64> = m
        .contexts
        .iter()
        .map(|c| {
            meta::NODE_FIXED_SIZE
                + c.callee.as_ref().map_or(0, callee_size)
                + lexical_size(&c.lexical)
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, c) in m.contexts.iter().enumerate() {
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
    for i in 0..n {
        if !children[i].is_empty() {
            block_at[i] = next_block;
            next_block += block_len(&children[i]);
        }
    }
    let write_node = |w: &mut W, i: usize| {
        let c = &m.contexts[i];
        w.u32(c.ctx_id);
        w.u64(block_at[i]);
        w.u64(block_len(&children[i]));
        w.u8(c.callee.as_ref().map_or(0, callee_size) as u8);
        w.u8(lexical_size(&c.lexical) as u8);
        if let Some(cl) = &c.callee {
            w.u8(cl.call_type);
            w.u8(cl.flags);
            if cl.flags & HAS_CALLER_SRCLINE != 0 {
                w.u64(file_ptr(cl.caller_file));
                w.u32(cl.caller_line.unwrap_or(0));
            }
        }
        let l = &c.lexical;
        w.u8(l.lex_type);
        w.u16(l.flags);
        if l.flags & HAS_FUNCTION != 0 {
            w.u64(func_ptr(l.function));
        }
        if l.flags & HAS_SRCLINE != 0 {
            w.u64(file_ptr(l.src_file));
            w.u32(l.src_line.unwrap_or(0));
        }
        if l.flags & HAS_POINT != 0 {
            w.u64(bin_ptr(l.binary));
            w.u64(l.binary_offset.unwrap_or(0));
        }
    };
    w.u64(root_len);
    for &i in &roots {
        write_node(&mut w, i);
    }
    for kids in &children {
        for &k in kids {
            write_node(&mut w, k);
        }
    }
    sec[2] = (start, w.pos() - start);

    for (i, (ptr, size)) in sec.iter().enumerate() {
        w.u64_at(24 + 16 * i as u64, *size);
        w.u64_at(32 + 16 * i as u64, *ptr);
    }
    w.bytes(&footer(e, META_BE, META_LE));
    w.buf
}

/// One profile to write: its identifier tuple and, by ascending context id, its (metric id, value)
/// pairs (values of 0 are written as given: the writer does not judge).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileFixture {
    pub id_tuple: Vec<IdElem>,
    pub values: Vec<(u32, Vec<(u16, f64)>)>,
}

/// Writes a profile.db: header padded to 0x80, Profile Infos, identifier tuples, value blocks.
pub fn profile_db(profiles: &[ProfileFixture], e: Endian) -> Vec<u8> {
    let mut w = W::new(e);
    w.bytes(profile::MAGIC);
    w.bytes(&[1, 0]);
    w.u32(profiles.len() as u32);
    w.u16(2);
    w.pad_to(0x80);
    let pi_ptr = w.pos();
    w.pad_to(pi_ptr + profiles.len() as u64 * profile::PROF_INFO_SIZE);
    let idt_ptr = w.pos();
    let mut idt = Vec::new();
    for p in profiles {
        idt.push(w.pos());
        w.u16(p.id_tuple.len() as u16);
        for el in &p.id_tuple {
            w.u16(el.kind);
            w.u64(el.physical);
            w.u64(el.logical);
        }
    }
    let idt_size = w.pos() - idt_ptr;
    for (i, p) in profiles.iter().enumerate() {
        let prof_off = w.pos();
        let mut index = Vec::new();
        let mut n = 0u64;
        for (ctx, vals) in &p.values {
            index.push((*ctx, n));
            for &(mid, v) in vals {
                w.f64(v);
                w.u16(mid);
                n += 1;
            }
        }
        for (ctx, idx) in &index {
            w.u32(*ctx);
            w.u64(*idx);
        }
        w.u32(PROF_END);
        w.u64(n);
        let at = pi_ptr + i as u64 * profile::PROF_INFO_SIZE;
        w.u64_at(at, idt[i]);
        w.u64_at(at + 32, n);
        w.u32_at(at + 40, index.len() as u32);
        w.u64_at(at + 44, prof_off);
    }
    w.u64_at(24, profiles.len() as u64 * profile::PROF_INFO_SIZE);
    w.u64_at(32, pi_ptr);
    w.u64_at(40, idt_size);
    w.u64_at(48, idt_ptr);
    w.bytes(&footer(e, profile::FOOTER_BE, profile::FOOTER_LE));
    w.buf
}

/// Writes the cct.db holding the same values as `profiles`, context-major: one Context Info per
/// context id from 0 to the largest, each block sorted by (metric id, profile index).
pub fn cct_db(profiles: &[ProfileFixture], e: Endian) -> Vec<u8> {
    let mut by_ctx: std::collections::BTreeMap<u32, Vec<(u16, u32, f64)>> = Default::default();
    for (pi, p) in profiles.iter().enumerate() {
        for (ctx, vals) in &p.values {
            let e = by_ctx.entry(*ctx).or_default();
            e.extend(vals.iter().map(|&(m, v)| (m, pi as u32, v)));
        }
    }
    let num_ctx = by_ctx.keys().next_back().map_or(0, |&c| c + 1);
    let mut w = W::new(e);
    w.bytes(cct::MAGIC);
    w.bytes(&[1, 0]);
    w.u32(num_ctx);
    w.u16(1);
    w.u64(num_ctx as u64 * cct::CTX_INFO_SIZE);
    w.pad_to(0x80);
    let ci_ptr = w.pos();
    w.u64_at(32, ci_ptr);
    w.pad_to(ci_ptr + num_ctx as u64 * cct::CTX_INFO_SIZE);
    for ctx in 0..num_ctx {
        let mut vals = by_ctx.remove(&ctx).unwrap_or_default();
        vals.sort_by_key(|&(m, p, _)| (m, p));
        let off = w.pos();
        let mut mids: Vec<(u16, u64)> = Vec::new();
        for (i, &(m, p, v)) in vals.iter().enumerate() {
            if mids.last().map(|x| x.0) != Some(m) {
                mids.push((m, i as u64));
            }
            w.f64(v);
            w.u32(p);
        }
        if !vals.is_empty() {
            for &(m, i) in &mids {
                w.u16(m);
                w.u64(i);
            }
            w.u16(cct::END_MARKER);
            w.u64(vals.len() as u64);
        }
        let at = ci_ptr + ctx as u64 * cct::CTX_INFO_SIZE;
        w.u32_at(at, ctx);
        w.u64_at(at + 4, vals.len() as u64);
        w.u16_at(at + 12, mids.len() as u16);
        w.u64_at(at + 14, off);
    }
    w.bytes(&footer(e, cct::FOOTER_BE, cct::FOOTER_LE));
    w.buf
}

/// One trace line to write: (time ns, context id) samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceLineFixture {
    pub prof_info_idx: u32,
    pub trace_type: u16,
    pub samples: Vec<(u64, u32)>,
}

/// Writes a trace.db: header padded to 0x80 with the global time range (0/0 when there are no
/// samples, as the real writer leaves it), Trace Headers, lines. No footer, as in the seed.
pub fn trace_db(lines: &[TraceLineFixture], e: Endian) -> Vec<u8> {
    let mut w = W::new(e);
    w.bytes(trace::MAGIC);
    w.bytes(&[1, 0]);
    w.u32(lines.len() as u32);
    w.u16(1);
    w.u64(lines.len() as u64 * trace::TRACE_HEADER_SIZE);
    w.u64(0x80);
    let times = lines.iter().flat_map(|l| l.samples.iter().map(|s| s.0));
    let (min, max) = times.fold((u64::MAX, 0), |(a, b), t| (a.min(t), b.max(t)));
    let (min, max) = if min > max { (0, 0) } else { (min, max) };
    w.u64(min);
    w.u64(max);
    w.pad_to(0x80);
    let hdr = w.pos();
    w.pad_to(hdr + lines.len() as u64 * trace::TRACE_HEADER_SIZE);
    for (i, l) in lines.iter().enumerate() {
        let start = w.pos();
        for &(t, c) in &l.samples {
            w.u64(t);
            w.u32(c);
        }
        let at = hdr + i as u64 * trace::TRACE_HEADER_SIZE;
        w.u32_at(at, l.prof_info_idx);
        w.u16_at(at + 4, l.trace_type);
        w.u64_at(at + 6, start);
        w.u64_at(at + 14, w.pos());
    }
    w.buf
}

// ---- The sample database: fixtures for tests, `hpcscope fixture prof2` and browser tests. ----

fn path(flags: u32, p: &str) -> MetaPath {
    MetaPath {
        flags,
        path: p.into(),
    }
}

/// A lexical spec of `lex_type` with `flags` and no fields filled in yet.
pub fn lexical(lex_type: u8, flags: u16) -> Lexical {
    Lexical {
        lex_type,
        flags,
        function: None,
        src_file: None,
        src_line: None,
        binary: None,
        binary_offset: None,
    }
}

/// A meta.db using every optional part of seed 000: caller lines, inlined calls, loops, lines,
/// points, anonymous functions, functions without binaries, several scopes and summaries.
pub fn sample_meta() -> MetaDb {
    let ctx = |ctx_id, parent, callee, lexical| MetaContext {
        ctx_id,
        parent,
        callee,
        lexical,
    };
    MetaDb {
        version: Version { major: 4, minor: 0 },
        title: "solver run".into(),
        id_names: ["SUMMARY", "NODE", "RANK", "THREAD"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        metrics: vec![
            MetaMetric {
                name: "REALTIME (sec)".into(),
                scopes: vec![
                    MetaScope {
                        raw_mid: 1,
                        scope: "execution".into(),
                        summaries: vec![
                            MetaSummary {
                                summary_mid: 512,
                                combine: 0,
                                formula: "$$".into(),
                            },
                            MetaSummary {
                                summary_mid: 514,
                                combine: 2,
                                formula: "$$".into(),
                            },
                        ],
                    },
                    MetaScope {
                        raw_mid: 2,
                        scope: "function".into(),
                        summaries: vec![MetaSummary {
                            summary_mid: 256,
                            combine: 0,
                            formula: "$$".into(),
                        }],
                    },
                ],
            },
            MetaMetric {
                name: "cycles".into(),
                scopes: vec![MetaScope {
                    raw_mid: 3,
                    scope: "point".into(),
                    summaries: vec![],
                }],
            },
        ],
        binaries: vec![path(0, "/bin/solver"), path(0, "/lib/libm.so.6")],
        files: vec![path(1, "solver.c"), path(0, "/usr/include/math.h")],
        functions: vec![
            MetaFunction {
                flags: 0,
                name: Some("main".into()),
                binary: Some(0),
                binary_offset: Some(0x1040),
                file: Some(0),
                line: Some(10),
            },
            MetaFunction {
                flags: 0,
                name: Some("sqrt".into()),
                binary: Some(1),
                binary_offset: None,
                file: Some(1),
                line: None,
            },
            MetaFunction {
                flags: 0,
                name: None,
                binary: None,
                binary_offset: None,
                file: None,
                line: None,
            },
        ],
        contexts: vec![
            // 0: main, called from the root
            ctx(
                1,
                None,
                Some(Callee {
                    call_type: 0,
                    flags: 0,
                    caller_file: None,
                    caller_line: None,
                }),
                Lexical {
                    function: Some(0),
                    ..lexical(0, 0x1)
                },
            ),
            // 1: loop at solver.c:12
            ctx(
                2,
                Some(0),
                None,
                Lexical {
                    src_file: Some(0),
                    src_line: Some(12),
                    ..lexical(1, 0x2)
                },
            ),
            // 2: line solver.c:13 that is a call line
            ctx(
                3,
                Some(1),
                None,
                Lexical {
                    src_file: Some(0),
                    src_line: Some(13),
                    ..lexical(2, 0x2 | 0x8)
                },
            ),
            // 3: sqrt inlined, with an explicit caller line
            ctx(
                4,
                Some(2),
                Some(Callee {
                    call_type: 1,
                    flags: 1,
                    caller_file: Some(0),
                    caller_line: Some(13),
                }),
                Lexical {
                    function: Some(1),
                    src_file: Some(1),
                    src_line: Some(99),
                    ..lexical(0, 0x3)
                },
            ),
            // 4: an instruction in libm
            ctx(
                5,
                Some(3),
                None,
                Lexical {
                    binary: Some(1),
                    binary_offset: Some(0x2f40),
                    ..lexical(3, 0x4)
                },
            ),
            // 5: an anonymous function called from main, with every lexical field
            ctx(
                6,
                Some(0),
                Some(Callee {
                    call_type: 0,
                    flags: 1,
                    caller_file: Some(0),
                    caller_line: Some(20),
                }),
                Lexical {
                    function: Some(2),
                    src_file: Some(0),
                    src_line: Some(30),
                    binary: Some(0),
                    binary_offset: Some(0x1100),
                    ..lexical(0, 0x7)
                },
            ),
            // 6: a second root
            ctx(
                7,
                None,
                None,
                Lexical {
                    function: None,
                    ..lexical(0, 0)
                },
            ),
        ],
    }
}

/// Profiles for the sample meta.db: a summary (partials 512/256) and two threads (ids 1, 2).
pub fn sample_profiles() -> Vec<ProfileFixture> {
    let thread = |logical| {
        vec![
            IdElem {
                kind: 2,
                physical: 5,
                logical: 5,
            },
            IdElem {
                kind: 0xc003,
                physical: 0,
                logical,
            },
        ]
    };
    vec![
        ProfileFixture {
            id_tuple: vec![IdElem {
                kind: 0,
                physical: 0,
                logical: 0,
            }],
            values: vec![
                (0, vec![(512, 10.0)]),
                (1, vec![(256, 1.5), (512, 10.0)]),
                (4, vec![(256, 8.5), (512, 8.5)]),
            ],
        },
        ProfileFixture {
            id_tuple: thread(0),
            values: vec![
                (0, vec![(1, 4.0)]),
                (1, vec![(1, 4.0), (2, 1.0)]),
                (4, vec![(1, 3.0), (2, 3.0)]),
            ],
        },
        ProfileFixture {
            id_tuple: thread(1),
            values: vec![
                (0, vec![(1, 6.0)]),
                (1, vec![(1, 6.0), (2, 0.5)]),
                (4, vec![(1, 5.5), (2, 5.5)]),
            ],
        },
    ]
}

/// Two calling-context lines (one sample names an unknown context, 99) and an empty metric line.
pub fn sample_trace() -> Vec<TraceLineFixture> {
    vec![
        TraceLineFixture {
            prof_info_idx: 1,
            trace_type: 0,
            samples: vec![(1_000, 1), (1_500, 4), (2_000, 99), (3_000, 5)],
        },
        TraceLineFixture {
            prof_info_idx: 2,
            trace_type: 0,
            samples: vec![(1_200, 4)],
        },
        TraceLineFixture {
            prof_info_idx: 2,
            trace_type: 1,
            samples: vec![],
        },
    ]
}

/// The four files of the sample database in byte order `e`: (file name, bytes).
pub fn sample_database(e: Endian) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("meta.db", meta_db(&sample_meta(), e)),
        ("profile.db", profile_db(&sample_profiles(), e)),
        ("cct.db", cct_db(&sample_profiles(), e)),
        ("trace.db", trace_db(&sample_trace(), e)),
    ]
}
