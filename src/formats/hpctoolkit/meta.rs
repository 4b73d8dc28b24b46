//! meta.db: general properties, identifier names, performance metrics (propagation scopes, scope
//! instances, summary statistics), load modules, source files, functions and the context tree
//! (entry points, contexts with flex fields). Follows HPCToolkit `doc/FORMATS.md` "meta.db version
//! 4.0", and the April-2022 draft (seed 001) for the metrics and context-tree sections.

use super::layout::{self, section, Layout, Slot};
use crate::bytes::{le32, le64, Slice, Source, Table, MAX_CSTR};
use crate::error::{Error, Result, Warning};
use crate::model::{CodeRef, Module, SourceFile};

/// Known prefix sizes of each structure; a file may state a larger stride (newer minor version).
const SZ_METRIC_FINAL: u64 = 0x20;
const SZ_METRIC_APRIL: u64 = 0x18;
const SZ_SCOPE_INST: u64 = 0x10;
const SZ_SUMMARY_FINAL: u64 = 0x18;
const SZ_SCOPE_FINAL: u64 = 0x10;
const SZ_SCOPE_APRIL: u64 = 0x18;
const SZ_SUMMARY_APRIL: u64 = 0x10;
/// Load module and source file records: flags, then pPath.
const SZ_PATH: u64 = 0x10;
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

/// A load module or source file (prof2's meta.db: an application binary or source file).
#[derive(Clone, Debug, PartialEq)]
pub struct PathSpec {
    pub flags: u32,
    pub path: String,
}

/// A function, its pointers resolved to indexes into the modules and files (prof2's meta.db
/// holds the same record). `offset` and `line` are as stored, meaningful only with a module or
/// file.
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

/// The tables a context's [`CodeRef`] indexes into: load modules, source files and functions
/// (prof2's meta.db holds the same three).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodeTables {
    pub modules: Vec<PathSpec>,
    pub files: Vec<PathSpec>,
    /// Module and file indexes refer to `modules` and `files`.
    pub functions: Vec<FunctionSpec>,
}

impl CodeTables {
    /// The model's load modules and source files, paths as stored.
    pub fn model_paths(&self) -> (Vec<Module>, Vec<SourceFile>) {
        fn paths(t: &[PathSpec]) -> impl Iterator<Item = String> + '_ {
            t.iter().map(|x| x.path.clone())
        }
        (
            paths(&self.modules).map(|path| Module { path }).collect(),
            paths(&self.files).map(|path| SourceFile { path }).collect(),
        )
    }
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
    /// The fields `flags` says are present; indexes into `functions`, `files`, `modules`.
    pub code: CodeRef,
}

/// The general properties section: the database's title and description.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct General {
    pub title: String,
    pub description: String,
}

/// Everything meta.db holds, with pointers resolved to indexes.
#[derive(Clone, Debug, Default)]
pub struct MetaDb {
    pub minor_version: u8,
    pub general: General,
    pub id_names: Vec<String>,
    pub scopes: Vec<Scope>,
    pub metrics: Vec<MetricDesc>,
    pub code: CodeTables,
    pub entry_points: Vec<EntryPointSpec>,
    /// Contexts in reading order; each array of siblings stays in file order.
    pub contexts: Vec<ContextSpec>,
}

/// meta.db's header slots (FORMATS.md "meta.db version 4.0": szGeneral/pGeneral ...).
pub const GENERAL: Slot = (0, "general properties");
pub const ID_NAMES: Slot = (1, "identifier names");
pub const METRICS: Slot = (2, "performance metrics");
const CONTEXT_TREE: Slot = (3, "context tree");
const STRINGS: Slot = (4, "string table");
const MODULES: Slot = (5, "load modules");
const FILES: Slot = (6, "source files");
const FUNCTIONS: Slot = (7, "functions");

/// Sections of the meta.db header (size, pointer), in header order.
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
    Ok(Sections {
        general: section(src, GENERAL)?,
        id_names: section(src, ID_NAMES)?,
        metrics: section(src, METRICS)?,
        context: section(src, CONTEXT_TREE)?,
        strings: section(src, STRINGS)?,
        modules: section(src, MODULES)?,
        files: section(src, FILES)?,
        functions: section(src, FUNCTIONS)?,
    })
}

/// The database title, from the general properties section at `sec` (`max_len`: the longest
/// title accepted).
pub fn read_title(src: &Source, sec: u64, max_len: u64) -> Result<String> {
    src.cstr_at(src.u64_le_at(sec, "pTitle")?, max_len, "title")
}

/// The identifier kind names, from the identifier names section at `sec`.
pub fn read_id_names(src: &Source, sec: u64, max_len: u64) -> Result<Vec<String>> {
    let pp = src.u64_le_at(sec, "ppNames")?;
    let n_kinds = src.u8_at(sec + 8, "nKinds")?;
    let names = src.table(pp, n_kinds as u64, 8, 8, "identifier name pointer")?;
    (0..names.count)
        .map(|i| {
            let p = src.u64_le_at(names.offset(i), "identifier name pointer")?;
            src.cstr_at(p, max_len, "identifier name")
        })
        .collect()
}

/// `nMetrics` of the metrics section at `sec`.
pub fn n_metrics(src: &Source, sec: u64) -> Result<u32> {
    src.u32_le_at(sec + 0x08, "nMetrics")
}

/// `szMetric` of the metrics section at `sec`: 24 in the April-2022 draft, 32 (or more) since.
pub fn sz_metric(src: &Source, sec: u64) -> Result<u8> {
    src.u8_at(sec + 0x0c, "szMetric")
}

/// `szMetric` of a meta.db, the stride that tells the April-2022 draft.
pub fn metric_stride(src: &Source) -> Result<u8> {
    sz_metric(src, section(src, METRICS)?.1)
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
    let minor_version = layout::version(src)?.1;
    src.check(0, 0x90, "meta.db header")?;
    let s = read_sections(src)?;
    let mut m = MetaDb {
        minor_version,
        ..MetaDb::default()
    };

    let g = s.general.1;
    m.general = General {
        title: read_title(src, g, MAX_CSTR)?,
        description: req_str(src, src.u64_le_at(g + 8, "pDescription")?, "description")?,
    };
    m.id_names = read_id_names(src, s.id_names.1, MAX_CSTR)?;

    read_metrics(src, s.metrics.1, layout, &mut m)?;

    let (code, tables) = read_code(src, &s, warnings)?;
    m.code = code;
    read_context_tree(src, s.context, layout, &tables, &mut m, warnings)?;
    Ok(m)
}

/// Load modules, source files and functions, with where their records lie (the contexts point
/// at them). Each record is fetched once as a fixed array (fields at fixed offsets).
fn read_code(
    src: &Source,
    s: &Sections,
    warnings: &mut Vec<Warning>,
) -> Result<(CodeTables, Tables)> {
    let (modules, module_paths) = read_paths(src, s.modules.1, ("load module", "module path"))?;
    let (files, file_paths) = read_paths(src, s.files.1, ("source file", "file path"))?;
    let functions = section_table(src, s.functions.1, SZ_FUNCTION, "function")?;
    let mut code = CodeTables {
        modules: module_paths,
        files: file_paths,
        functions: Vec::with_capacity(functions.count as usize),
    };
    for i in 0..functions.count {
        let o = functions.offset(i);
        let r: [u8; SZ_FUNCTION as usize] = src.array(o, "function")?;
        // The pointer at `at` in the record, as an index into `table`.
        let mut pointee = |table: &Table, at: usize, what: &str| {
            resolve(src, table, le64(&r, at), o + at as u64, what, warnings)
        };
        code.functions.push(FunctionSpec {
            name: opt_str(src, le64(&r, 0), "function name")?,
            module: pointee(&modules, 0x08, "function module"),
            offset: le64(&r, 0x10),
            file: pointee(&files, 0x18, "function file"),
            line: le32(&r, 0x20),
            flags: le32(&r, 0x24),
        });
    }
    let tables = Tables {
        modules,
        files,
        functions,
    };
    Ok((code, tables))
}

/// A `{p, n: u32, sz: u16}` section header (modules, files, functions).
fn section_table(src: &Source, sec: u64, min: u64, what: &str) -> Result<Table> {
    let p = src.u64_le_at(sec, &format!("{what} array pointer"))?;
    let n = src.u32_le_at(sec + 8, &format!("{what} count"))?;
    let sz = src.u16_le_at(sec + 0x0c, &format!("{what} size"))?;
    src.table(p, n as u64, sz as u64, min, what)
}

/// The path records (load modules or source files) of the section at `sec`, appended to `out`;
/// returns their table, which other records point into. `what` names a record and `path` its
/// path in errors.
fn read_paths(
    src: &Source,
    sec: u64,
    (what, path): (&str, &str),
) -> Result<(Table, Vec<PathSpec>)> {
    let table = section_table(src, sec, SZ_PATH, what)?;
    let mut out = Vec::with_capacity(table.count as usize);
    for i in 0..table.count {
        let r: [u8; SZ_PATH as usize] = src.array(table.offset(i), what)?;
        out.push(PathSpec {
            flags: le32(&r, 0),
            path: req_str(src, le64(&r, 8), path)?,
        });
    }
    Ok((table, out))
}

/// The metrics section at `sec`: the metric table of the layout, its scopes and summaries.
fn read_metrics(src: &Source, sec: u64, layout: Layout, m: &mut MetaDb) -> Result<()> {
    let p_metrics = src.u64_le_at(sec, "pMetrics")?;
    let n_metrics = n_metrics(src, sec)? as u64;
    let sz_metric = sz_metric(src, sec)? as u64;
    let sz_summary = src.u8_at(sec + 0x0e, "szSummary")? as u64;
    let april = layout == Layout::DraftApril;
    let min = if april {
        SZ_METRIC_APRIL
    } else {
        SZ_METRIC_FINAL
    };
    let section = MetricsSection {
        src,
        sec,
        metrics: src.table(p_metrics, n_metrics, sz_metric, min, "metric")?,
        sz_summary,
    };
    if april {
        section.read_april(m)
    } else {
        section.read_final(m)
    }
}

/// The metrics section at `sec` as both layouts read it: its metric table and szSummary (as the
/// header states it); the rest of its header differs by layout.
struct MetricsSection<'a> {
    src: &'a Source,
    sec: u64,
    metrics: Table,
    sz_summary: u64,
}

/// The part of a summary statistic both layouts share, at `at`: pFormula, combine and
/// statMetricId (the final layout has its pScope before it).
fn summary(src: &Source, scope: usize, at: u64) -> Result<Summary> {
    Ok(Summary {
        scope,
        formula: req_str(src, src.u64_le_at(at, "pFormula")?, "formula")?,
        combine: src.u8_at(at + 0x08, "combine")?,
        stat_metric_id: src.u16_le_at(at + 0x0a, "statMetricId")?,
    })
}

impl MetricsSection<'_> {
    /// April-2022 draft: metric -> scopes (each with its own summaries); no shared scope table.
    fn read_april(&self, m: &mut MetaDb) -> Result<()> {
        let src = self.src;
        let sz_scope = src.u8_at(self.sec + 0x0d, "szScope")? as u64;
        for i in 0..self.metrics.count {
            let o = self.metrics.offset(i);
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
                let sums = src.table(
                    p_sum,
                    n_sum as u64,
                    self.sz_summary,
                    SZ_SUMMARY_APRIL,
                    "summary",
                )?;
                for k in 0..sums.count {
                    desc.summaries.push(summary(src, scope, sums.offset(k))?);
                }
            }
            m.metrics.push(desc);
        }
        Ok(())
    }

    /// Final layout: a shared table of propagation scopes, then metrics with scope instances and
    /// summary statistics that point into it.
    fn read_final(&self, m: &mut MetaDb) -> Result<()> {
        let src = self.src;
        let sz_inst = src.u8_at(self.sec + 0x0d, "szScopeInst")? as u64;
        let p_scopes = src.u64_le_at(self.sec + 0x10, "pScopes")?;
        let n_scopes = src.u16_le_at(self.sec + 0x18, "nScopes")?;
        let sz_scope = src.u8_at(self.sec + 0x1a, "szScope")? as u64;
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
        for i in 0..self.metrics.count {
            let o = self.metrics.offset(i);
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
                self.sz_summary,
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
                let scope = scope_of(src.u64_le_at(jo, "summary pScope")?, jo)?;
                desc.summaries.push(summary(src, scope, jo + 0x08)?);
            }
            m.metrics.push(desc);
        }
        Ok(())
    }
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

/// A child array pending its read: (pointer, byte size, parent).
type Pending = (u64, u64, ParentRef);

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
    let flex_at = flex_offset(layout);
    let max_records = (src.len() / 0x18).max(1);
    // Contexts lie in the section and are at least `flex_at` bytes: an upper bound, so the
    // list never regrows (capacity beyond the real count is never touched).
    m.contexts.reserve((sz.min(src.len()) / flex_at) as usize);
    let mut pending = read_tops(src, sec, layout, m)?;
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
        let arr = Siblings {
            bytes: Slice::new(&arr_bytes, start, src.name()),
            start,
            end,
            parent,
        };
        let mut o = start;
        while o < end {
            if m.contexts.len() as u64 >= max_records {
                return Err(Error::invalid(
                    src.name(),
                    o,
                    "context tree has more contexts than the file can hold (pointer cycle)",
                ));
            }
            let (c, children, rec_len) = read_context(src, &arr, o, layout, t, warnings)?;
            m.contexts.push(c);
            if children.1 != 0 {
                let me = ParentRef::Context((m.contexts.len() - 1) as u32);
                pending.push((children.0, children.1, me));
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

/// Where a context record's flex words start (the April draft has no `propagation` field).
fn flex_offset(layout: Layout) -> u64 {
    if layout == Layout::DraftApril {
        0x18
    } else {
        0x20
    }
}

/// The child arrays below the root: the April draft's root contexts, or the children of each entry
/// point (final layout; the entry points go to `m`). Returned last-first, as the reader pops them.
fn read_tops(src: &Source, sec: u64, layout: Layout, m: &mut MetaDb) -> Result<Vec<Pending>> {
    let mut pending: Vec<Pending> = Vec::new();
    if layout == Layout::DraftApril {
        let sz_roots = src.u64_le_at(sec, "szRoots")?;
        let p_roots = src.u64_le_at(sec + 8, "pRoots")?;
        pending.push((p_roots, sz_roots, ParentRef::Root));
        return Ok(pending);
    }
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
    Ok(pending)
}

/// One array of sibling contexts, read whole: its bytes, where it starts and ends in the file,
/// and the parent of its contexts.
struct Siblings<'a> {
    bytes: Slice<'a>,
    start: u64,
    end: u64,
    parent: ParentRef,
}

/// The context record at file offset `o` of `arr`: the context, its children array (pointer,
/// byte size) and the record's length (header and flex words).
#[inline]
fn read_context(
    src: &Source,
    arr: &Siblings,
    o: u64,
    layout: Layout,
    t: &Tables,
    warnings: &mut Vec<Warning>,
) -> Result<(ContextSpec, (u64, u64), u64)> {
    let flex_at = flex_offset(layout);
    let r = (o - arr.start) as usize;
    arr.bytes.get(r, flex_at as usize, "context")?;
    let h: [u8; 0x18] = arr.bytes.array(r, "context")?;
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
        arr.bytes.u16_le(r + 0x18, "propagation")?
    };
    let rec_len = flex_at + n_flex * 8;
    if o + rec_len > arr.end {
        return Err(Error::truncated(
            src.name(),
            o,
            "context record past the end of its array",
        ));
    }
    let flex_words = arr
        .bytes
        .get(r + flex_at as usize, (n_flex * 8) as usize, "flex words")?;
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
        parent: arr.parent,
        ctx_id,
        flags,
        relation,
        lexical_type,
        propagation,
        code: CodeRef::default(),
    };
    let mut ptrs = [0u64; 3];
    if flags & 1 != 0 {
        ptrs[0] = field(8, "pFunction")?;
    }
    if flags & 2 != 0 {
        ptrs[1] = field(8, "pFile")?;
        c.code.line = Some(field(4, "line")? as u32);
    }
    if flags & 4 != 0 {
        ptrs[2] = field(8, "pModule")?;
        c.code.offset = Some(field(8, "offset")?);
    }
    if flags & 1 != 0 {
        c.code.function = resolve(src, &t.functions, ptrs[0], o, "context function", warnings);
    }
    if flags & 2 != 0 {
        c.code.file = resolve(src, &t.files, ptrs[1], o, "context file", warnings);
    }
    if flags & 4 != 0 {
        c.code.module = resolve(src, &t.modules, ptrs[2], o, "context module", warnings);
    }
    Ok((c, (p_children, sz_children), rec_len))
}

#[cfg(test)]
mod tests;
