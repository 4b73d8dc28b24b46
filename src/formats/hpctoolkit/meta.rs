//! meta.db: general properties, identifier names, performance metrics (propagation scopes, scope
//! instances, summary statistics), load modules, source files, functions and the context tree
//! (entry points, contexts with flex fields). Follows HPCToolkit `doc/FORMATS.md` "meta.db version
//! 4.0", and the April-2022 draft (seed 001) for the metrics and context-tree sections.

use super::Layout;
use crate::bytes::{le32, le64, Slice, Source, Table, MAX_CSTR};
use crate::error::{Error, Result, Warning};

/// Known prefix sizes of each structure; a file may state a larger stride (newer minor version).
const SZ_METRIC_FINAL: u64 = 0x20;
const SZ_METRIC_APRIL: u64 = 0x18;
const SZ_SCOPE_INST: u64 = 0x10;
const SZ_SUMMARY_FINAL: u64 = 0x18;
const SZ_SCOPE_FINAL: u64 = 0x10;
const SZ_SCOPE_APRIL: u64 = 0x18;
const SZ_SUMMARY_APRIL: u64 = 0x10;
const SZ_MODULE: u64 = 0x10;
const SZ_FILE: u64 = 0x10;
const SZ_FUNCTION: u64 = 0x28;
const SZ_ENTRY_POINT: u64 = 0x20;

/// A propagation scope. April-2022 files name scopes only; `scope_type` is then `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct Scope {
    pub name: String,
    /// 0 custom, 1 point, 2 execution, 3 transitive.
    pub scope_type: Option<u8>,
    pub propagation_index: u8,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ScopeInst {
    /// Index into `MetaDb::scopes`.
    pub scope: usize,
    pub prop_metric_id: u16,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub scope: usize,
    pub formula: String,
    /// 0 sum, 1 min, 2 max (raw, unknown values kept).
    pub combine: u8,
    pub stat_metric_id: u16,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MetricDesc {
    pub name: String,
    pub scope_insts: Vec<ScopeInst>,
    pub summaries: Vec<Summary>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModuleSpec {
    pub flags: u32,
    pub path: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FileSpec {
    pub flags: u32,
    pub path: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionSpec {
    /// `None` when `pName` is 0 (an anonymous function).
    pub name: Option<String>,
    pub module: Option<u32>,
    pub offset: u64,
    pub file: Option<u32>,
    pub line: u32,
    pub flags: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EntryPointSpec {
    pub ctx_id: u32,
    /// 0 unknown entry, 1 main thread, 2 application thread (raw).
    pub entry_point: u16,
    pub pretty_name: String,
}

/// Parent of a context as read: the global root, an entry point or another context (indexes into
/// `MetaDb::entry_points` / `MetaDb::contexts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParentRef {
    Root,
    Entry(u32),
    Context(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ContextSpec {
    pub parent: ParentRef,
    pub ctx_id: u32,
    pub flags: u8,
    pub relation: u8,
    pub lexical_type: u8,
    /// Absent in the April-2022 draft (reads 0).
    pub propagation: u16,
    pub function: Option<u32>,
    pub file: Option<u32>,
    pub line: Option<u32>,
    pub module: Option<u32>,
    pub offset: Option<u64>,
}

/// Everything meta.db holds, with pointers resolved to indexes.
#[derive(Clone, Debug, Default)]
pub struct MetaDb {
    pub minor_version: u8,
    pub title: String,
    pub description: String,
    pub id_names: Vec<String>,
    pub scopes: Vec<Scope>,
    pub metrics: Vec<MetricDesc>,
    pub modules: Vec<ModuleSpec>,
    pub files: Vec<FileSpec>,
    pub functions: Vec<FunctionSpec>,
    pub entry_points: Vec<EntryPointSpec>,
    /// Contexts in reading order; each array of siblings stays in file order.
    pub contexts: Vec<ContextSpec>,
}

/// Section pointers of the meta.db header, in header order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sections {
    pub general: (u64, u64),
    pub id_names: (u64, u64),
    pub metrics: (u64, u64),
    pub context: (u64, u64),
    pub strings: (u64, u64),
    pub modules: (u64, u64),
    pub files: (u64, u64),
    pub functions: (u64, u64),
}

pub fn read_sections(src: &Source) -> Result<Sections> {
    let sec = |i: u64, what: &str| -> Result<(u64, u64)> {
        let off = 0x10 + 0x10 * i;
        Ok((
            src.u64_le_at(off, &format!("{what} section size"))?,
            src.u64_le_at(off + 8, &format!("{what} section pointer"))?,
        ))
    };
    Ok(Sections {
        general: sec(0, "general properties")?,
        id_names: sec(1, "identifier names")?,
        metrics: sec(2, "performance metrics")?,
        context: sec(3, "context tree")?,
        strings: sec(4, "string table")?,
        modules: sec(5, "load modules")?,
        files: sec(6, "source files")?,
        functions: sec(7, "functions")?,
    })
}

/// `szMetric` of the metrics section: 24 in the April-2022 draft, 32 (or more) since.
pub fn metric_stride(src: &Source) -> Result<u8> {
    let s = read_sections(src)?;
    // The pointer is the file's: near u64::MAX the sum overflows (a panic in debug builds).
    let at = s.metrics.1.checked_add(0x0c);
    src.u8_at(at.unwrap_or(u64::MAX), "szMetric")
}

/// A string pointer: `None` for 0, else the NUL-terminated string it points to.
fn opt_str(src: &Source, ptr: u64, what: &str) -> Result<Option<String>> {
    if ptr == 0 {
        return Ok(None);
    }
    src.cstr_at(ptr, MAX_CSTR, what).map(Some)
}

fn req_str(src: &Source, ptr: u64, what: &str) -> Result<String> {
    src.cstr_at(ptr, MAX_CSTR, what)
}

/// Index of the record a pointer designates in `table`, `None` when it designates none.
fn index_in(table: &Table, ptr: u64) -> Option<u32> {
    let rel = ptr.checked_sub(table.ptr)?;
    if table.stride == 0 || rel >= table.byte_len() {
        return None;
    }
    // One division, 32-bit when it fits (every real meta.db): this runs for each context.
    let i = match (u32::try_from(rel), u32::try_from(table.stride)) {
        (Ok(r), Ok(st)) => (r / st) as u64,
        _ => rel / table.stride,
    };
    if i * table.stride != rel {
        return None;
    }
    u32::try_from(i).ok()
}

/// Resolves an optional pointer into a table; a dangling one becomes a warning and `None`.
fn resolve(
    src: &Source,
    table: &Table,
    ptr: u64,
    at: u64,
    what: &str,
    warnings: &mut Vec<Warning>,
) -> Option<u32> {
    if ptr == 0 {
        return None;
    }
    let i = index_in(table, ptr);
    if i.is_none() && warnings.len() < 100 {
        warnings.push(src.err(
            crate::error::ErrorKind::Invalid,
            at,
            format!("{what} pointer {ptr:#x} designates no record; ignored"),
        ));
    }
    i
}

/// Reads meta.db (held in memory by the caller: every structure is visited once).
pub fn read(src: &Source, layout: Layout, warnings: &mut Vec<Warning>) -> Result<MetaDb> {
    let minor_version = src.u8_at(0x0f, "minor version")?;
    src.check(0, 0x90, "meta.db header")?;
    let s = read_sections(src)?;
    let mut m = MetaDb {
        minor_version,
        ..MetaDb::default()
    };

    // General properties.
    let g = s.general.1;
    m.title = req_str(src, src.u64_le_at(g, "pTitle")?, "title")?;
    m.description = req_str(src, src.u64_le_at(g + 8, "pDescription")?, "description")?;

    // Identifier names.
    let pp = src.u64_le_at(s.id_names.1, "ppNames")?;
    let n_kinds = src.u8_at(s.id_names.1 + 8, "nKinds")?;
    let names = src.table(pp, n_kinds as u64, 8, 8, "identifier name pointer")?;
    for i in 0..names.count {
        let p = src.u64_le_at(names.offset(i), "identifier name pointer")?;
        m.id_names.push(req_str(src, p, "identifier name")?);
    }

    read_metrics(src, s.metrics.1, layout, &mut m)?;

    // Load modules, source files, functions.
    // Each record is fetched once as a fixed array (fields at fixed offsets, no per-field read).
    let modules = section_table(src, s.modules.1, SZ_MODULE, "load module")?;
    for i in 0..modules.count {
        let r: [u8; SZ_MODULE as usize] = src.array(modules.offset(i), "load module")?;
        m.modules.push(ModuleSpec {
            flags: le32(&r, 0),
            path: req_str(src, le64(&r, 8), "module path")?,
        });
    }
    let files = section_table(src, s.files.1, SZ_FILE, "source file")?;
    for i in 0..files.count {
        let r: [u8; SZ_FILE as usize] = src.array(files.offset(i), "source file")?;
        m.files.push(FileSpec {
            flags: le32(&r, 0),
            path: req_str(src, le64(&r, 8), "file path")?,
        });
    }
    let functions = section_table(src, s.functions.1, SZ_FUNCTION, "function")?;
    m.functions.reserve(functions.count as usize);
    for i in 0..functions.count {
        let o = functions.offset(i);
        let r: [u8; SZ_FUNCTION as usize] = src.array(o, "function")?;
        m.functions.push(FunctionSpec {
            name: opt_str(src, le64(&r, 0), "function name")?,
            module: resolve(
                src,
                &modules,
                le64(&r, 0x08),
                o + 8,
                "function module",
                warnings,
            ),
            offset: le64(&r, 0x10),
            file: resolve(
                src,
                &files,
                le64(&r, 0x18),
                o + 0x18,
                "function file",
                warnings,
            ),
            line: le32(&r, 0x20),
            flags: le32(&r, 0x24),
        });
    }

    let tables = Tables {
        modules,
        files,
        functions,
    };
    read_context_tree(src, s.context, layout, &tables, &mut m, warnings)?;
    Ok(m)
}

/// A `{p, n: u32, sz: u16}` section header (modules, files, functions).
fn section_table(src: &Source, sec: u64, min: u64, what: &str) -> Result<Table> {
    let p = src.u64_le_at(sec, &format!("{what} array pointer"))?;
    let n = src.u32_le_at(sec + 8, &format!("{what} count"))?;
    let sz = src.u16_le_at(sec + 0x0c, &format!("{what} size"))?;
    src.table(p, n as u64, sz as u64, min, what)
}

fn read_metrics(src: &Source, sec: u64, layout: Layout, m: &mut MetaDb) -> Result<()> {
    let p_metrics = src.u64_le_at(sec, "pMetrics")?;
    let n_metrics = src.u32_le_at(sec + 0x08, "nMetrics")?;
    let sz_metric = src.u8_at(sec + 0x0c, "szMetric")? as u64;
    if layout == Layout::DraftApril {
        // Draft: metric -> scopes (each with its own summaries); no shared scope table.
        let sz_scope = src.u8_at(sec + 0x0d, "szScope")? as u64;
        let sz_summary = src.u8_at(sec + 0x0e, "szSummary")? as u64;
        let metrics = src.table(
            p_metrics,
            n_metrics as u64,
            sz_metric,
            SZ_METRIC_APRIL,
            "metric",
        )?;
        for i in 0..metrics.count {
            let o = metrics.offset(i);
            let name = req_str(src, src.u64_le_at(o, "metric pName")?, "metric name")?;
            let n_scopes = src.u16_le_at(o + 0x08, "metric nScopes")?;
            let p_scopes = src.u64_le_at(o + 0x10, "metric pScopes")?;
            let scopes = src.table(p_scopes, n_scopes as u64, sz_scope, SZ_SCOPE_APRIL, "scope")?;
            let mut desc = MetricDesc {
                name,
                scope_insts: Vec::new(),
                summaries: Vec::new(),
            };
            for j in 0..scopes.count {
                let so = scopes.offset(j);
                let sname = req_str(src, src.u64_le_at(so, "scope pScope")?, "scope name")?;
                let scope = match m.scopes.iter().position(|s| s.name == sname) {
                    Some(k) => k,
                    None => {
                        m.scopes.push(Scope {
                            name: sname,
                            scope_type: None,
                            propagation_index: 0xff,
                        });
                        m.scopes.len() - 1
                    }
                };
                let n_sum = src.u16_le_at(so + 0x08, "scope nSummaries")?;
                desc.scope_insts.push(ScopeInst {
                    scope,
                    prop_metric_id: src.u16_le_at(so + 0x0a, "propMetricId")?,
                });
                let p_sum = src.u64_le_at(so + 0x10, "scope pSummaries")?;
                let sums =
                    src.table(p_sum, n_sum as u64, sz_summary, SZ_SUMMARY_APRIL, "summary")?;
                for k in 0..sums.count {
                    let ko = sums.offset(k);
                    desc.summaries.push(Summary {
                        scope,
                        formula: req_str(src, src.u64_le_at(ko, "pFormula")?, "formula")?,
                        combine: src.u8_at(ko + 0x08, "combine")?,
                        stat_metric_id: src.u16_le_at(ko + 0x0a, "statMetricId")?,
                    });
                }
            }
            m.metrics.push(desc);
        }
        return Ok(());
    }
    let sz_inst = src.u8_at(sec + 0x0d, "szScopeInst")? as u64;
    let sz_summary = src.u8_at(sec + 0x0e, "szSummary")? as u64;
    let p_scopes = src.u64_le_at(sec + 0x10, "pScopes")?;
    let n_scopes = src.u16_le_at(sec + 0x18, "nScopes")?;
    let sz_scope = src.u8_at(sec + 0x1a, "szScope")? as u64;
    let scopes = src.table(
        p_scopes,
        n_scopes as u64,
        sz_scope,
        SZ_SCOPE_FINAL,
        "propagation scope",
    )?;
    for i in 0..scopes.count {
        let o = scopes.offset(i);
        m.scopes.push(Scope {
            name: req_str(src, src.u64_le_at(o, "pScopeName")?, "scope name")?,
            scope_type: Some(src.u8_at(o + 0x08, "scope type")?),
            propagation_index: src.u8_at(o + 0x09, "propagationIndex")?,
        });
    }
    let scope_of = |ptr: u64, at: u64| -> Result<usize> {
        index_in(&scopes, ptr).map(|i| i as usize).ok_or_else(|| {
            Error::invalid(
                src.name(),
                at,
                format!("pScope {ptr:#x} designates no propagation scope"),
            )
        })
    };
    let metrics = src.table(
        p_metrics,
        n_metrics as u64,
        sz_metric,
        SZ_METRIC_FINAL,
        "metric",
    )?;
    for i in 0..metrics.count {
        let o = metrics.offset(i);
        let name = req_str(src, src.u64_le_at(o, "metric pName")?, "metric name")?;
        let p_insts = src.u64_le_at(o + 0x08, "pScopeInsts")?;
        let p_sums = src.u64_le_at(o + 0x10, "pSummaries")?;
        let n_insts = src.u16_le_at(o + 0x18, "nScopeInsts")?;
        let n_sums = src.u16_le_at(o + 0x1a, "nSummaries")?;
        let insts = src.table(
            p_insts,
            n_insts as u64,
            sz_inst,
            SZ_SCOPE_INST,
            "scope instance",
        )?;
        let sums = src.table(
            p_sums,
            n_sums as u64,
            sz_summary,
            SZ_SUMMARY_FINAL,
            "summary statistic",
        )?;
        let mut desc = MetricDesc {
            name,
            scope_insts: Vec::with_capacity(insts.count as usize),
            summaries: Vec::with_capacity(sums.count as usize),
        };
        for j in 0..insts.count {
            let jo = insts.offset(j);
            desc.scope_insts.push(ScopeInst {
                scope: scope_of(src.u64_le_at(jo, "scope instance pScope")?, jo)?,
                prop_metric_id: src.u16_le_at(jo + 0x08, "propMetricId")?,
            });
        }
        for j in 0..sums.count {
            let jo = sums.offset(j);
            desc.summaries.push(Summary {
                scope: scope_of(src.u64_le_at(jo, "summary pScope")?, jo)?,
                formula: req_str(src, src.u64_le_at(jo + 0x08, "pFormula")?, "formula")?,
                combine: src.u8_at(jo + 0x10, "combine")?,
                stat_metric_id: src.u16_le_at(jo + 0x12, "statMetricId")?,
            });
        }
        m.metrics.push(desc);
    }
    Ok(())
}

struct Tables {
    modules: Table,
    files: Table,
    functions: Table,
}

/// Packing of flex sub-fields: each takes the first free, naturally aligned slot (FORMATS.md).
struct Flex {
    claimed: u64,
}

impl Flex {
    fn allocate(&mut self, size: u32) -> u64 {
        let mask = (1u64 << size) - 1;
        let mut off = 0;
        while off + size <= 64 {
            if self.claimed & (mask << off) == 0 {
                self.claimed |= mask << off;
                return off as u64;
            }
            off += size;
        }
        // Five sub-fields need at most 40 bytes; unreachable with the fields this reader knows.
        64
    }
}

/// Reads the context tree: entry points (final layout) or root contexts (April draft), then every
/// child array, iteratively. Each context record lies in the section, so a file can describe at
/// most `size / 0x18` contexts: more means a pointer cycle.
fn read_context_tree(
    src: &Source,
    (sz, sec): (u64, u64),
    layout: Layout,
    t: &Tables,
    m: &mut MetaDb,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let flex_at: u64 = if layout == Layout::DraftApril {
        0x18
    } else {
        0x20
    };
    let max_records = (src.len() / 0x18).max(1);
    // Contexts lie in the section and are at least `flex_at` bytes: an upper bound, so the
    // list never regrows (capacity beyond the real count is never touched).
    m.contexts.reserve((sz.min(src.len()) / flex_at) as usize);
    // Pending child arrays: (pointer, byte size, parent).
    let mut pending: Vec<(u64, u64, ParentRef)> = Vec::new();
    if layout == Layout::DraftApril {
        let sz_roots = src.u64_le_at(sec, "szRoots")?;
        let p_roots = src.u64_le_at(sec + 8, "pRoots")?;
        pending.push((p_roots, sz_roots, ParentRef::Root));
    } else {
        let p_eps = src.u64_le_at(sec, "pEntryPoints")?;
        let n_eps = src.u16_le_at(sec + 0x08, "nEntryPoints")?;
        let sz_ep = src.u8_at(sec + 0x0a, "szEntryPoint")? as u64;
        let eps = src.table(p_eps, n_eps as u64, sz_ep, SZ_ENTRY_POINT, "entry point")?;
        for i in 0..eps.count {
            let o = eps.offset(i);
            let sz_children = src.u64_le_at(o, "entry point szChildren")?;
            let p_children = src.u64_le_at(o + 0x08, "entry point pChildren")?;
            m.entry_points.push(EntryPointSpec {
                ctx_id: src.u32_le_at(o + 0x10, "entry point ctxId")?,
                entry_point: src.u16_le_at(o + 0x14, "entryPoint")?,
                pretty_name: req_str(
                    src,
                    src.u64_le_at(o + 0x18, "pPrettyName")?,
                    "entry point name",
                )?,
            });
            pending.push((p_children, sz_children, ParentRef::Entry(i as u32)));
        }
        // Entry points are listed first to last; children arrays are consumed from the end.
        pending.reverse();
    }
    while let Some((start, size, parent)) = pending.pop() {
        if size == 0 {
            continue;
        }
        let end = start
            .checked_add(size)
            .filter(|&e| e <= src.len())
            .ok_or_else(|| {
                Error::truncated(src.name(), start, format!("context array of {size} bytes"))
            })?;
        let mark = pending.len();
        // The whole sibling array at once (meta.db is in memory: this borrows).
        let arr_bytes = src.bytes(start, size, "context array")?;
        let arr = Slice::new(&arr_bytes, start, src.name());
        let mut o = start;
        while o < end {
            if m.contexts.len() as u64 >= max_records {
                return Err(Error::invalid(
                    src.name(),
                    o,
                    "context tree has more contexts than the file can hold (pointer cycle)",
                ));
            }
            let r = (o - start) as usize;
            arr.get(r, flex_at as usize, "context")?;
            let h: [u8; 0x18] = arr.array(r, "context")?;
            let u64_at = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&h[i..i + 8]);
                u64::from_le_bytes(b)
            };
            let sz_children = u64_at(0);
            let p_children = u64_at(0x08);
            let ctx_id = u32::from_le_bytes([h[0x10], h[0x11], h[0x12], h[0x13]]);
            let (flags, relation, lexical_type) = (h[0x14], h[0x15], h[0x16]);
            let n_flex = h[0x17] as u64;
            let propagation = if layout == Layout::DraftApril {
                0
            } else {
                arr.u16_le(r + 0x18, "propagation")?
            };
            let rec_len = flex_at + n_flex * 8;
            if o + rec_len > end {
                return Err(Error::truncated(
                    src.name(),
                    o,
                    "context record past the end of its array",
                ));
            }
            let flex_words = arr.get(r + flex_at as usize, (n_flex * 8) as usize, "flex words")?;
            let mut flex = Flex { claimed: 0 };
            let mut field = |size: u32, what: &str| -> Result<u64> {
                let off = flex.allocate(size) as usize;
                let Some(b) = flex_words.get(off..off + size as usize) else {
                    return Err(Error::invalid(
                        src.name(),
                        o,
                        format!("context {ctx_id}: {what} beyond its {n_flex} flex words"),
                    ));
                };
                let mut v = [0u8; 8];
                v[..b.len()].copy_from_slice(b);
                Ok(u64::from_le_bytes(v))
            };
            let mut c = ContextSpec {
                parent,
                ctx_id,
                flags,
                relation,
                lexical_type,
                propagation,
                function: None,
                file: None,
                line: None,
                module: None,
                offset: None,
            };
            let mut ptrs = [0u64; 3];
            if flags & 1 != 0 {
                ptrs[0] = field(8, "pFunction")?;
            }
            if flags & 2 != 0 {
                ptrs[1] = field(8, "pFile")?;
                c.line = Some(field(4, "line")? as u32);
            }
            if flags & 4 != 0 {
                ptrs[2] = field(8, "pModule")?;
                c.offset = Some(field(8, "offset")?);
            }
            if flags & 1 != 0 {
                c.function = resolve(src, &t.functions, ptrs[0], o, "context function", warnings);
            }
            if flags & 2 != 0 {
                c.file = resolve(src, &t.files, ptrs[1], o, "context file", warnings);
            }
            if flags & 4 != 0 {
                c.module = resolve(src, &t.modules, ptrs[2], o, "context module", warnings);
            }
            m.contexts.push(c);
            if sz_children != 0 {
                pending.push((
                    p_children,
                    sz_children,
                    ParentRef::Context((m.contexts.len() - 1) as u32),
                ));
            }
            o += rec_len;
        }
        // Child arrays were pushed in file order: reverse them so the first is read first.
        pending[mark..].reverse();
    }
    // The reservation was an upper bound: give the rest back (shrinks in place).
    m.contexts.shrink_to_fit();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a small meta.db: bytes appended 8-aligned, header section pointers patched in.
    struct B(Vec<u8>);
    impl B {
        fn at(&self) -> u64 {
            self.0.len() as u64
        }
        fn align(&mut self) {
            while self.0.len() % 8 != 0 {
                self.0.push(0);
            }
        }
        fn str(&mut self, s: &str) -> u64 {
            let p = self.at();
            self.0.extend_from_slice(s.as_bytes());
            self.0.push(0);
            p
        }
        fn u8(&mut self, v: u8) {
            self.0.push(v);
        }
        fn u16(&mut self, v: u16) {
            self.0.extend_from_slice(&v.to_le_bytes());
        }
        fn u32(&mut self, v: u32) {
            self.0.extend_from_slice(&v.to_le_bytes());
        }
        fn u64(&mut self, v: u64) {
            self.0.extend_from_slice(&v.to_le_bytes());
        }
        fn pad(&mut self, n: usize) {
            self.0.extend(std::iter::repeat(0).take(n));
        }
        fn section(&mut self, i: u64, p: u64, sz: u64) {
            let o = (0x10 + 0x10 * i) as usize;
            self.0[o..o + 8].copy_from_slice(&sz.to_le_bytes());
            self.0[o + 8..o + 16].copy_from_slice(&p.to_le_bytes());
        }
    }

    /// One context record: header, then flex words. `propagation` only in the final layout.
    #[allow(clippy::too_many_arguments)]
    fn ctx(
        b: &mut B,
        april: bool,
        children: (u64, u64),
        id: u32,
        flags: u8,
        rel: u8,
        lex: u8,
        flex: &[u64],
    ) {
        b.u64(children.0); // szChildren
        b.u64(children.1); // pChildren
        b.u32(id); // ctxId
        b.u8(flags); // flags
        b.u8(rel); // relation
        b.u8(lex); // lexicalType
        b.u8(flex.len() as u8); // nFlexWords
        if !april {
            b.u16(1); // propagation
            b.pad(6);
        }
        for &w in flex {
            b.u64(w); // flex words
        }
    }

    /// A database with one metric (point + execution scopes, one `sum` summary), one module,
    /// one file, one function and the tree  main -> { line f.c:7, instruction lib+0x40 at f.c:9 }.
    fn build(april: bool) -> Vec<u8> {
        let mut b = B(b"HPCTOOLKITmeta\x04\x00".to_vec());
        b.pad(0x80); // section table, patched below
        let title = b.str("demo");
        let desc = b.str("about");
        let kind0 = b.str("RANK");
        let mname = b.str("CPUTIME (sec)");
        let point = b.str("point");
        let exec = b.str("execution");
        let formula = b.str("$$");
        let path_m = b.str("/lib/libx.so");
        let path_f = b.str("/src/f.c");
        let fname = b.str("main");
        let ep_name = b.str("main thread");
        b.align();
        // General properties.
        let g = b.at();
        b.u64(title); // pTitle
        b.u64(desc); // pDescription
        b.section(0, g, 0x10);
        // Identifier names: pointer array then header.
        let names = b.at();
        b.u64(kind0);
        let idn = b.at();
        b.u64(names); // ppNames
        b.u8(1); // nKinds
        b.align();
        b.section(1, idn, 9);
        // Metrics.
        let msec;
        if april {
            // Summary {pFormula, combine, statMetricId} (16), scopes {pScope, nSummaries,
            // propMetricId, pSummaries} (24), metric {pName, nScopes, pScopes} (24).
            let sums = b.at();
            b.u64(formula);
            b.u8(0); // combine: sum
            b.u8(0);
            b.u16(7); // statMetricId
            b.pad(4);
            let scopes = b.at();
            b.u64(point);
            b.u16(0); // nSummaries
            b.u16(2); // propMetricId
            b.pad(4);
            b.u64(0); // pSummaries
            b.u64(exec);
            b.u16(1);
            b.u16(3);
            b.pad(4);
            b.u64(sums);
            let metrics = b.at();
            b.u64(mname);
            b.u16(2); // nScopes
            b.pad(6);
            b.u64(scopes);
            msec = b.at();
            b.u64(metrics); // pMetrics
            b.u32(1); // nMetrics
            b.u8(24); // szMetric
            b.u8(24); // szScope
            b.u8(16); // szSummary
            b.align();
        } else {
            // Scope table {pScopeName, type, propagationIndex} (16).
            let scopes = b.at();
            b.u64(point);
            b.u8(1); // type point
            b.u8(0xff);
            b.pad(6);
            b.u64(exec);
            b.u8(2); // type execution
            b.u8(0xff);
            b.pad(6);
            let insts = b.at();
            for (sc, id) in [(scopes, 2u16), (scopes + 16, 3)] {
                b.u64(sc); // pScope
                b.u16(id); // propMetricId
                b.pad(6);
            }
            let sums = b.at();
            b.u64(scopes + 16); // pScope: execution
            b.u64(formula); // pFormula
            b.u8(0); // combine: sum
            b.u8(0);
            b.u16(7); // statMetricId
            b.pad(4);
            let metrics = b.at();
            b.u64(mname); // pName
            b.u64(insts); // pScopeInsts
            b.u64(sums); // pSummaries
            b.u16(2); // nScopeInsts
            b.u16(1); // nSummaries
            b.pad(4);
            msec = b.at();
            b.u64(metrics); // pMetrics
            b.u32(1); // nMetrics
            b.u8(32); // szMetric
            b.u8(16); // szScopeInst
            b.u8(24); // szSummary
            b.u8(0);
            b.u64(scopes); // pScopes
            b.u16(2); // nScopes
            b.u8(16); // szScope
            b.align();
        }
        b.section(2, msec, 0x1b);
        // Module, file, function arrays and their section headers (stride 16, 16, 40).
        let module = b.at();
        b.u32(0);
        b.pad(4);
        b.u64(path_m);
        let file = b.at();
        b.u32(1); // flags: copied
        b.pad(4);
        b.u64(path_f);
        let func = b.at();
        b.u64(fname); // pName
        b.u64(module); // pModule
        b.u64(0x1000); // offset
        b.u64(file); // pFile
        b.u32(3); // line
        b.u32(0); // flags
        for (i, p, sz) in [(5u64, module, 16u16), (6, file, 16), (7, func, 40)] {
            let h = b.at();
            b.u64(p);
            b.u32(1);
            b.u16(sz);
            b.align();
            b.section(i, h, 0x0e);
        }
        // Contexts: the two leaves, then main (their parent), then the tree header.
        let leaves = b.at();
        ctx(&mut b, april, (0, 0), 5, 2, 0, 2, &[file, 7]); // line f.c:7 (pFile, line)
        ctx(&mut b, april, (0, 0), 6, 6, 1, 3, &[file, 9, module, 0x40]); // instruction
        let leaves_len = b.at() - leaves;
        let main = b.at();
        ctx(&mut b, april, (leaves_len, leaves), 4, 1, 1, 0, &[func]); // main (pFunction)
        let main_len = b.at() - main;
        let tree = b.at();
        if april {
            b.u64(main_len); // szRoots
            b.u64(main); // pRoots
        } else {
            let ep = b.at();
            b.u64(main_len); // szChildren
            b.u64(main); // pChildren
            b.u32(1); // ctxId
            b.u16(1); // entryPoint: main thread
            b.pad(2);
            b.u64(ep_name); // pPrettyName
            let h = b.at();
            b.u64(ep); // pEntryPoints
            b.u16(1); // nEntryPoints
            b.u8(32); // szEntryPoint
            b.align();
            b.section(3, h, 0x0b);
        }
        if april {
            b.section(3, tree, 0x10);
        }
        b.0.extend_from_slice(b"_meta.db");
        b.0
    }

    fn check(m: &MetaDb, april: bool) {
        assert_eq!(
            (m.title.as_str(), m.description.as_str()),
            ("demo", "about")
        );
        assert_eq!(m.id_names, vec!["RANK"]);
        assert_eq!(
            m.scopes.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["point", "execution"]
        );
        let d = &m.metrics[0];
        assert_eq!(d.name, "CPUTIME (sec)");
        assert_eq!(
            d.scope_insts,
            vec![
                ScopeInst {
                    scope: 0,
                    prop_metric_id: 2
                },
                ScopeInst {
                    scope: 1,
                    prop_metric_id: 3
                }
            ]
        );
        assert_eq!(
            d.summaries,
            vec![Summary {
                scope: 1,
                formula: "$$".into(),
                combine: 0,
                stat_metric_id: 7
            }]
        );
        assert_eq!(m.modules[0].path, "/lib/libx.so");
        assert_eq!(
            (m.files[0].flags, m.files[0].path.as_str()),
            (1, "/src/f.c")
        );
        assert_eq!(
            m.functions[0],
            FunctionSpec {
                name: Some("main".into()),
                module: Some(0),
                offset: 0x1000,
                file: Some(0),
                line: 3,
                flags: 0
            }
        );
        let ids: Vec<u32> = m.contexts.iter().map(|c| c.ctx_id).collect();
        assert_eq!(ids, vec![4, 5, 6]);
        let (main, line, ins) = (&m.contexts[0], &m.contexts[1], &m.contexts[2]);
        assert_eq!(main.function, Some(0));
        assert_eq!(
            (
                line.parent,
                line.file,
                line.line,
                line.relation,
                line.lexical_type
            ),
            (ParentRef::Context(0), Some(0), Some(7), 0, 2)
        );
        assert_eq!(
            (ins.file, ins.line, ins.module, ins.offset),
            (Some(0), Some(9), Some(0), Some(0x40))
        );
        if april {
            assert!(m.entry_points.is_empty());
            assert_eq!(main.parent, ParentRef::Root);
            assert_eq!((main.propagation, m.scopes[0].scope_type), (0, None));
        } else {
            assert_eq!(
                m.entry_points,
                vec![EntryPointSpec {
                    ctx_id: 1,
                    entry_point: 1,
                    pretty_name: "main thread".into()
                }]
            );
            assert_eq!(main.parent, ParentRef::Entry(0));
            assert_eq!((main.propagation, m.scopes[1].scope_type), (1, Some(2)));
        }
    }

    #[test]
    fn reads_final_layout() {
        let src = Source::from_vec("meta.db", build(false));
        assert_eq!(metric_stride(&src).unwrap(), 32);
        let mut w = Vec::new();
        check(&read(&src, Layout::Final, &mut w).unwrap(), false);
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn reads_april_draft_layout() {
        let src = Source::from_vec("meta.db", build(true));
        assert_eq!(metric_stride(&src).unwrap(), 24);
        let mut w = Vec::new();
        check(&read(&src, Layout::DraftApril, &mut w).unwrap(), true);
    }

    #[test]
    fn stride_smaller_than_known_fields_is_an_error() {
        // szFunction shrinks below the 40 known bytes: an error, not a misread. (Larger strides,
        // e.g. profile.db's 48 against 44 known bytes, are read by the corpus tests.)
        let mut bytes = build(false);
        let s = read_sections(&Source::from_vec("meta.db", bytes.clone())).unwrap();
        let at = (s.functions.1 + 0x0c) as usize;
        bytes[at..at + 2].copy_from_slice(&32u16.to_le_bytes());
        let mut w = Vec::new();
        let e = read(&Source::from_vec("meta.db", bytes), Layout::Final, &mut w).unwrap_err();
        assert!(e.to_string().contains("stride 32 smaller"), "{e}");
    }

    #[test]
    fn flex_field_beyond_flex_words_is_an_error() {
        let mut bytes = build(false);
        // The line context (ctx 5) says hasPoint too, but has only 2 flex words.
        let pos = bytes
            .windows(4)
            .position(|w| w == 5u32.to_le_bytes())
            .unwrap();
        bytes[pos + 4] = 6; // flags: srcloc + point
        let mut w = Vec::new();
        let e = read(&Source::from_vec("meta.db", bytes), Layout::Final, &mut w).unwrap_err();
        assert!(e.to_string().contains("beyond its 2 flex words"), "{e}");
    }

    #[test]
    fn flex_packing_follows_spec() {
        // function + srcloc + point: pFunction 0, pFile 8, line 16, pModule 24, offset 32.
        let mut f = Flex { claimed: 0 };
        assert_eq!(
            [
                f.allocate(8),
                f.allocate(8),
                f.allocate(4),
                f.allocate(8),
                f.allocate(8)
            ],
            [0, 8, 16, 24, 32]
        );
        // srcloc + point: pFile 0, line 8, pModule 16, offset 24 (line's word is not shared).
        let mut f = Flex { claimed: 0 };
        assert_eq!(
            [f.allocate(8), f.allocate(4), f.allocate(8), f.allocate(8)],
            [0, 8, 16, 24]
        );
        // Two u32 share a word even with a u64 between them.
        let mut f = Flex { claimed: 0 };
        assert_eq!([f.allocate(4), f.allocate(8), f.allocate(4)], [0, 8, 4]);
    }

    #[test]
    fn section_pointer_near_u64_max_is_an_error() {
        // Found by replaying u64::MAX in every field with overflow checks on.
        let mut b = build(false);
        b[0x38..0x40].copy_from_slice(&u64::MAX.to_le_bytes());
        let src = Source::from_vec("meta.db", b);
        assert!(metric_stride(&src).is_err());
    }

    #[test]
    fn pointer_to_index() {
        let t = Table {
            ptr: 0x100,
            count: 3,
            stride: 0x10,
        };
        assert_eq!(index_in(&t, 0x100), Some(0));
        assert_eq!(index_in(&t, 0x120), Some(2));
        assert_eq!(index_in(&t, 0x130), None);
        assert_eq!(index_in(&t, 0x108), None);
        assert_eq!(index_in(&t, 0x80), None);
    }
}
