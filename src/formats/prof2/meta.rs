//! prof2 binary `meta.db` (`HPCTOOLKIT_expmt`; seed 000, "meta.db version 4.0"): a header of seven
//! (size, offset) section pairs, then General Properties, Performance Metrics, Application
//! Binaries, Source Files, Functions, Context Attribute Strings and the Context Tree of sibling
//! blocks. No public file exists: fixtures come from `crate::synth::prof2`.

// Performance Metrics hold variable-length specs (scopes, summaries); binaries, files and
// functions are fixed-stride tables whose specs other fields point at; context-tree nodes carry
// callee and lexical specs. The seed's hex column for CT nodes (0x1C..) disagrees with its decimal
// one (20..); the decimal offsets, which add up, are used. Footer `nmBDFORP` (big-endian) or
// `PROFDBmn`.

use super::{Footer, Version};
use crate::bytes::{Endian, Source, MAX_CSTR};
use crate::error::{Error, Result, Warning};
use crate::formats::ctx_ids::CtxIds;
use crate::model::{
    CctBuilder, CodeRef, Combine, Dataset, Frame, Function, LexicalType, Metric, MetricScope,
    Relation, ScopeKind, SummaryStat,
};

/// Binaries, source files and functions are the records (and tables) of the v4.0 meta.db.
pub use crate::formats::hpctoolkit::meta::{CodeTables, FunctionSpec, PathSpec};

pub const MAGIC: &[u8; 16] = b"HPCTOOLKIT_expmt";
pub const FOOTER: Footer = Footer(*b"PROFDBmn");
pub const HEADER_SIZE: u64 = 136;
pub const NUM_SECTIONS: u16 = 7;
pub const BINARY_SIZE: u16 = 12;
pub const FILE_SIZE: u16 = 12;
pub const FUNCTION_SIZE: u16 = 40;
pub const NODE_FIXED_SIZE: u64 = 22;

/// lex_flags bits.
pub const HAS_FUNCTION: u16 = 0x1;
pub const HAS_SRCLINE: u16 = 0x2;
pub const HAS_POINT: u16 = 0x4;
pub const IS_CALL_SRCLINE: u16 = 0x8;
/// call_flags bit.
pub const HAS_CALLER_SRCLINE: u8 = 0x1;

#[derive(Clone, Debug, PartialEq)]
pub struct MetaSummary {
    pub summary_mid: u16,
    /// 0 sum, 1 min, 2 max.
    pub combine: u8,
    pub formula: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MetaScope {
    pub raw_mid: u16,
    pub scope: String,
    pub summaries: Vec<MetaSummary>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MetaMetric {
    pub name: String,
    pub scopes: Vec<MetaScope>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Callee {
    /// 0 call, 1 inlined call.
    pub call_type: u8,
    pub flags: u8,
    /// Present when `flags & HAS_CALLER_SRCLINE`; index into `files` (None for a null pointer).
    pub caller_file: Option<u32>,
    pub caller_line: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Lexical {
    /// 0 function, 1 loop, 2 line, 3 point.
    pub lex_type: u8,
    pub flags: u16,
    /// Fields present by `flags`; indexes into `functions`, `files`, `binaries` (the module).
    pub code: CodeRef,
}

impl Lexical {
    /// A lexical spec of `lex_type` with `flags` and no fields filled in yet.
    pub fn new(lex_type: u8, flags: u16) -> Lexical {
        Lexical {
            lex_type,
            flags,
            code: CodeRef::default(),
        }
    }
}

/// One CT node; `parent` indexes `MetaDb::contexts` (None for a root), which is in preorder.
#[derive(Clone, Debug, PartialEq)]
pub struct MetaContext {
    pub ctx_id: u32,
    pub parent: Option<u32>,
    pub callee: Option<Callee>,
    pub lexical: Lexical,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MetaDb {
    pub version: Version,
    pub title: String,
    pub id_names: Vec<String>,
    pub metrics: Vec<MetaMetric>,
    /// The application binaries are its load modules.
    pub code: CodeTables,
    pub contexts: Vec<MetaContext>,
}

/// A section: offset and size from the header.
#[derive(Clone, Copy, Debug)]
struct Sec {
    ptr: u64,
    size: u64,
}

/// Sequential named reads inside one section, never past its end.
struct Cursor<'a> {
    src: &'a Source,
    e: Endian,
    pos: u64,
    end: u64,
}

impl Cursor<'_> {
    fn take(&mut self, n: u64, what: &str) -> Result<u64> {
        match self.pos.checked_add(n) {
            Some(e) if e <= self.end => {
                let at = self.pos;
                self.pos = e;
                Ok(at)
            }
            _ => Err(Error::truncated(
                self.src.name(),
                self.pos,
                format!("{what} (past the end of its section)"),
            )),
        }
    }
    fn u8(&mut self, what: &str) -> Result<u8> {
        let at = self.take(1, what)?;
        self.src.u8_at(at, what)
    }
    fn u16(&mut self, what: &str) -> Result<u16> {
        let at = self.take(2, what)?;
        self.src.u16_at(at, self.e, what)
    }
    fn cstr(&mut self, what: &str) -> Result<String> {
        let max = self
            .end
            .saturating_sub(self.pos)
            .saturating_sub(1)
            .min(MAX_CSTR);
        let s = self.src.cstr_at(self.pos, max, what)?;
        self.take(s.len() as u64 + 1, what)?;
        Ok(s)
    }
}

struct Reader<'a> {
    src: &'a Source,
    e: Endian,
    strings: Sec,
    binaries: (Sec, u32, u16),
    files: (Sec, u32, u16),
    functions: (Sec, u32, u16),
    warnings: &'a mut Vec<Warning>,
}

impl Reader<'_> {
    /// A string pointer into the Context Attribute Strings section.
    fn string(&mut self, ptr: u64, what: &str) -> Option<String> {
        let end = self.strings.ptr.saturating_add(self.strings.size);
        if ptr < self.strings.ptr || ptr >= end {
            self.warnings.push(Error::invalid(
                self.src.name(),
                ptr,
                format!("{what} pointer {ptr:#x} outside the strings section"),
            ));
            return None;
        }
        match self.src.cstr_at(ptr, (end - ptr - 1).min(MAX_CSTR), what) {
            Ok(s) => Some(s),
            Err(e) => {
                self.warnings.push(e);
                None
            }
        }
    }

    /// A pointer to a spec in a table section -> its index; 0 is "none", others must hit a spec.
    fn spec_index(&mut self, table: (Sec, u32, u16), ptr: u64, what: &str, at: u64) -> Option<u32> {
        if ptr == 0 {
            return None;
        }
        let (sec, count, size) = table;
        let base = sec.ptr + 6;
        let rel = ptr.checked_sub(base);
        match rel {
            Some(r) if size > 0 && r % size as u64 == 0 && r / (size as u64) < count as u64 => {
                Some((r / size as u64) as u32)
            }
            _ => {
                self.warnings.push(Error::invalid(
                    self.src.name(),
                    at,
                    format!("{what} pointer {ptr:#x} does not point at a spec"),
                ));
                None
            }
        }
    }
}

fn table_header(
    src: &Source,
    e: Endian,
    sec: Sec,
    min: u16,
    what: &str,
) -> Result<(Sec, u32, u16)> {
    if sec.size == 0 && sec.ptr == 0 {
        return Ok((sec, 0, min));
    }
    let count = src.u32_at(sec.ptr, e, &format!("number of {what}s"))?;
    let size = src.u16_at(sec.ptr + 4, e, &format!("{what} spec size"))?;
    src.table(sec.ptr + 6, count as u64, size as u64, min as u64, what)?;
    Ok((sec, count, size))
}

/// The Performance Metrics section: every spec is variable length, so counts are bounded by the
/// section (each read checks), never used to allocate.
fn read_metrics(c: &mut Cursor) -> Result<Vec<MetaMetric>> {
    let at = c.take(4, "number of metrics")?;
    let num_metrics = c.src.u32_at(at, c.e, "number of metrics")?;
    let mut metrics = Vec::new();
    for _ in 0..num_metrics {
        let num_scopes = c.u16("number of propagation scopes")?;
        let name = c.cstr("metric name")?;
        let mut scopes = Vec::new();
        for _ in 0..num_scopes {
            let raw_mid = c.u16("raw metric id")?;
            let num_summaries = c.u16("number of summaries")?;
            let scope = c.cstr("propagation scope")?;
            let mut summaries = Vec::new();
            for _ in 0..num_summaries {
                let summary_mid = c.u16("summary metric id")?;
                let combine = c.u8("combination formula")?;
                let formula = c.cstr("summary formula")?;
                summaries.push(MetaSummary {
                    summary_mid,
                    combine,
                    formula,
                });
            }
            scopes.push(MetaScope {
                raw_mid,
                scope,
                summaries,
            });
        }
        metrics.push(MetaMetric { name, scopes });
    }
    Ok(metrics)
}

/// The Functions table, its name, binary and file pointers resolved.
fn read_functions(r: &mut Reader) -> Result<Vec<FunctionSpec>> {
    let (src, e) = (r.src, r.e);
    let mut functions = Vec::with_capacity(r.functions.1 as usize);
    for i in 0..r.functions.1 as u64 {
        let p = r.functions.0.ptr + 6 + i * r.functions.2 as u64;
        let flags = src.u32_at(p, e, "function flags")?;
        let name_ptr = src.u64_at(p + 4, e, "function name pointer")?;
        let binary_ptr = src.u64_at(p + 12, e, "function binary pointer")?;
        let offset = src.u64_at(p + 20, e, "function binary offset")?;
        let file_ptr = src.u64_at(p + 28, e, "function file pointer")?;
        let line = src.u32_at(p + 36, e, "function line")?;
        let name = if name_ptr == 0 {
            None
        } else {
            r.string(name_ptr, "function name")
        };
        functions.push(FunctionSpec {
            name,
            module: r.spec_index(r.binaries, binary_ptr, "function binary", p + 12),
            offset,
            file: r.spec_index(r.files, file_ptr, "function file", p + 28),
            line,
            flags,
        });
    }
    Ok(functions)
}

impl MetaDb {
    /// Reads a whole meta.db. Dangling optional pointers are warnings; structural problems errors.
    pub fn read(src: &Source, warnings: &mut Vec<Warning>) -> Result<MetaDb> {
        let name = src.name();
        let version = Version::after_magic(src, MAGIC, "meta.db", warnings)?;
        let e = FOOTER.byte_order(src, 32, "meta.db", warnings)?;
        let num_sec = src.u16_at(18, e, "number of sections")?;
        if num_sec < NUM_SECTIONS {
            return Err(Error::invalid(
                name,
                18,
                format!("meta.db lists {num_sec} sections, needs {NUM_SECTIONS}"),
            ));
        }
        let mut secs = [Sec { ptr: 0, size: 0 }; 7];
        let names = [
            "general properties",
            "performance metric",
            "context tree",
            "context attribute strings",
            "application binary",
            "source file",
            "function",
        ];
        for (i, s) in secs.iter_mut().enumerate() {
            let at = 24 + 16 * i as u64;
            s.size = src.u64_at(at, e, &format!("{} section size", names[i]))?;
            s.ptr = src.u64_at(at + 8, e, &format!("{} section offset", names[i]))?;
            src.check(s.ptr, s.size, &format!("{} section", names[i]))?;
        }
        let [general, metric, ctree, strings, binaries, files, funcs] = secs;

        // General Properties: title, then the identifier name table.
        let mut c = Cursor {
            src,
            e,
            pos: general.ptr,
            end: general.ptr + general.size,
        };
        let title = c.cstr("database title")?;
        let num_kinds = c.u16("number of identifier kinds")?;
        let mut id_names = Vec::new();
        for _ in 0..num_kinds {
            id_names.push(c.cstr("identifier kind name")?);
        }

        let metrics = read_metrics(&mut Cursor {
            src,
            e,
            pos: metric.ptr,
            end: metric.ptr + metric.size,
        })?;

        let mut r = Reader {
            src,
            e,
            strings,
            binaries: table_header(src, e, binaries, BINARY_SIZE, "application binary")?,
            files: table_header(src, e, files, FILE_SIZE, "source file")?,
            functions: table_header(src, e, funcs, FUNCTION_SIZE, "function")?,
            warnings,
        };
        let read_paths =
            |r: &mut Reader, t: (Sec, u32, u16), what: &str| -> Result<Vec<PathSpec>> {
                let mut out = Vec::with_capacity(t.1 as usize);
                for i in 0..t.1 as u64 {
                    let p = t.0.ptr + 6 + i * t.2 as u64;
                    let flags = src.u32_at(p, e, &format!("{what} flags"))?;
                    let ptr = src.u64_at(p + 4, e, &format!("{what} path pointer"))?;
                    let path = r.string(ptr, &format!("{what} path")).unwrap_or_default();
                    out.push(PathSpec { flags, path });
                }
                Ok(out)
            };
        let (tb, tf) = (r.binaries, r.files);
        let binaries_v = read_paths(&mut r, tb, "application binary")?;
        let files_v = read_paths(&mut r, tf, "source file")?;
        let functions = read_functions(&mut r)?;
        let contexts = read_tree(&mut r, ctree)?;
        Ok(MetaDb {
            version,
            title,
            id_names,
            metrics,
            code: CodeTables {
                modules: binaries_v,
                files: files_v,
                functions,
            },
            contexts,
        })
    }

    /// The model's view of this meta.db: a dataset with its title, identifier names, names, tree,
    /// metrics and the facts about them.
    pub fn to_tree(&self) -> Dataset {
        let (modules, source_files) = self.code.model_paths();
        let mut t = Dataset {
            title: self.title.clone(),
            id_names: self.id_names.clone(),
            modules,
            source_files,
            functions: self
                .code
                .functions
                .iter()
                .map(|f| Function {
                    name: f
                        .name
                        .clone()
                        .unwrap_or_else(|| "<unknown function>".into()),
                    module: f.module,
                    // Without a binary, or when the file says -1, there is no offset; without a
                    // file, or when 0, no line.
                    offset: f.module.and((f.offset != u64::MAX).then_some(f.offset)),
                    file: f.file,
                    line: f.file.and((f.line != 0).then_some(f.line)),
                })
                .collect(),
            ..Default::default()
        };
        t.metrics = self
            .metrics
            .iter()
            .map(|m| Metric {
                scopes: m
                    .scopes
                    .iter()
                    .map(|s| MetricScope {
                        scope: s.scope.clone(),
                        kind: ScopeKind::of_name(&s.scope),
                        prop_metric_id: s.raw_mid,
                    })
                    .collect(),
                summaries: m
                    .scopes
                    .iter()
                    .flat_map(|s| {
                        s.summaries.iter().map(move |x| SummaryStat {
                            scope: s.scope.clone(),
                            kind: ScopeKind::of_name(&s.scope),
                            formula: x.formula.clone(),
                            // Another code reads as a sum.
                            combine: Combine::of_code(x.combine).unwrap_or(Combine::Sum),
                            stat_metric_id: x.summary_mid,
                        })
                    })
                    .collect(),
                ..Metric::named(&m.name)
            })
            .collect();
        let mut b = CctBuilder::new(0);
        // Builder index of each context (root = 0, contexts from 1).
        let mut idx: Vec<u32> = Vec::with_capacity(self.contexts.len());
        let mut ids = CtxIds::default();
        for c in &self.contexts {
            let parent = c
                .parent
                .and_then(|p| idx.get(p as usize).copied())
                .unwrap_or(0);
            let l = &c.lexical;
            let relation = match &c.callee {
                None => Relation::Lexical,
                Some(cl) if cl.call_type == 1 => Relation::InlinedCall,
                Some(_) => Relation::Call,
            };
            let lexical_type = match l.lex_type {
                1 => LexicalType::Loop,
                2 => LexicalType::Line,
                3 => LexicalType::Instruction,
                _ => LexicalType::Function,
            };
            let frame = Frame::context(relation, lexical_type, l.code);
            idx.push(b.add(parent, ids.claim(Some(c.ctx_id)), frame));
        }
        // Parents come before children in `contexts`, so the builder cannot fail; fall back to an
        // empty tree rather than panic if it ever did.
        t.cct = b.finish("meta.db").unwrap_or_default();
        t.facts.push((
            "tree from".into(),
            format!("meta.db (version {})", self.version),
        ));
        if ids.renumbered > 0 {
            t.facts.push((
                "repeated context ids".into(),
                format!("{} renumbered (no values attach)", ids.renumbered),
            ));
        }
        t
    }
}

/// Reads the context tree iteratively in preorder. Every node takes at least 22 bytes of the file,
/// so more nodes than the file could hold means blocks point back at each other.
fn read_tree(r: &mut Reader, ctree: Sec) -> Result<Vec<MetaContext>> {
    let src = r.src;
    let e = r.e;
    let name = src.name().to_string();
    let mut out: Vec<MetaContext> = Vec::new();
    if ctree.size == 0 {
        return Ok(out);
    }
    let root_size = src.u64_at(ctree.ptr, e, "root sibling block size")?;
    let root = ctree.ptr + 8;
    src.check(root, root_size, "root sibling block")?;
    let max_nodes = src.len() / NODE_FIXED_SIZE + 1;
    // (next node offset, block end, parent index)
    let mut stack: Vec<(u64, u64, Option<u32>)> = vec![(root, root + root_size, None)];
    while let Some(top) = stack.last_mut() {
        let (pos, end, parent) = *top;
        if pos >= end {
            stack.pop();
            continue;
        }
        if end - pos < NODE_FIXED_SIZE {
            return Err(Error::truncated(
                &name,
                pos,
                "context tree node (sibling block ends inside it)",
            ));
        }
        let ctx_id = src.u32_at(pos, e, "context id")?;
        let block_ptr = src.u64_at(pos + 4, e, "children block offset")?;
        let block_size = src.u64_at(pos + 12, e, "children block size")?;
        let callee_size = src.u8_at(pos + 20, "callee spec size")? as u64;
        let lexical_size = src.u8_at(pos + 21, "lexical spec size")? as u64;
        let node_end = pos + NODE_FIXED_SIZE + callee_size + lexical_size;
        if node_end > end {
            return Err(Error::truncated(
                &name,
                pos,
                "context tree node specs (past its sibling block)",
            ));
        }
        top.0 = node_end;
        let callee = read_callee(r, pos + NODE_FIXED_SIZE, callee_size)?;
        let lexical = read_lexical(r, pos + NODE_FIXED_SIZE + callee_size, lexical_size)?;
        if out.len() as u64 >= max_nodes {
            return Err(Error::invalid(
                &name,
                pos,
                "context tree has more nodes than the file can hold (blocks form a cycle)",
            ));
        }
        let me = out.len() as u32;
        out.push(MetaContext {
            ctx_id,
            parent,
            callee,
            lexical,
        });
        if block_size > 0 {
            src.check(block_ptr, block_size, "children sibling block")?;
            stack.push((block_ptr, block_ptr + block_size, Some(me)));
        }
    }
    Ok(out)
}

fn read_callee(r: &mut Reader, at: u64, size: u64) -> Result<Option<Callee>> {
    if size == 0 {
        return Ok(None);
    }
    let name = r.src.name();
    if size < 2 {
        return Err(Error::invalid(
            name,
            at,
            format!("callee spec of {size} bytes (needs 2)"),
        ));
    }
    let call_type = r.src.u8_at(at, "call type")?;
    let flags = r.src.u8_at(at + 1, "callee flags")?;
    let mut c = Callee {
        call_type,
        flags,
        caller_file: None,
        caller_line: None,
    };
    if flags & HAS_CALLER_SRCLINE != 0 {
        if size < 14 {
            return Err(Error::invalid(
                name,
                at,
                format!("callee spec of {size} bytes with a caller line (needs 14)"),
            ));
        }
        let fp = r.src.u64_at(at + 2, r.e, "caller file pointer")?;
        c.caller_file = r.spec_index(r.files, fp, "caller file", at + 2);
        let line = r.src.u32_at(at + 10, r.e, "caller line")?;
        c.caller_line = (line != 0).then_some(line);
    }
    if call_type > 1 {
        r.warnings.push(Error::invalid(
            name,
            at,
            format!("unknown call type {call_type}, read as a call"),
        ));
    }
    Ok(Some(c))
}

fn read_lexical(r: &mut Reader, at: u64, size: u64) -> Result<Lexical> {
    let name = r.src.name();
    if size < 3 {
        return Err(Error::invalid(
            name,
            at,
            format!("lexical spec of {size} bytes (needs 3)"),
        ));
    }
    let e = r.e;
    let lex_type = r.src.u8_at(at, "lexical type")?;
    let flags = r.src.u16_at(at + 1, e, "lexical flags")?;
    let need = 3
        + if flags & HAS_FUNCTION != 0 { 8 } else { 0 }
        + if flags & HAS_SRCLINE != 0 { 12 } else { 0 }
        + if flags & HAS_POINT != 0 { 16 } else { 0 };
    if size < need {
        return Err(Error::invalid(
            name,
            at,
            format!("lexical spec of {size} bytes, flags {flags:#x} need {need}"),
        ));
    }
    if lex_type > 3 {
        r.warnings.push(Error::invalid(
            name,
            at,
            format!("unknown lexical type {lex_type}, read as a function"),
        ));
    }
    let mut l = Lexical::new(lex_type, flags);
    let mut p = at + 3;
    if flags & HAS_FUNCTION != 0 {
        let fp = r.src.u64_at(p, e, "function pointer")?;
        l.code.function = r.spec_index(r.functions, fp, "context function", p);
        p += 8;
    }
    if flags & HAS_SRCLINE != 0 {
        let fp = r.src.u64_at(p, e, "source file pointer")?;
        l.code.file = r.spec_index(r.files, fp, "context source file", p);
        let line = r.src.u32_at(p + 8, e, "source line")?;
        l.code.line = Some(line);
        p += 12;
    }
    if flags & HAS_POINT != 0 {
        let bp = r.src.u64_at(p, e, "binary pointer")?;
        l.code.module = r.spec_index(r.binaries, bp, "context binary", p);
        l.code.offset = Some(r.src.u64_at(p + 8, e, "binary offset")?);
    }
    Ok(l)
}
