//! `hpcscope dump --json DIR`: a full transcript of a dataset, streamed as one JSON object:
//! names, metrics, the context tree, every profile's and context's values and every trace sample.
//! HPCToolkit databases are written from the file's own ids (as HPCToolkit's hpctesttool sees
//! them); other formats from the model, in the same shape.

use crate::formats::{self, hpctoolkit, DatasetGroup};
use crate::model::{Combine, Dataset, EntryKind, LexicalType, NodeKind, Relation, NONE};
use std::io::Write;
use std::path::Path;

pub fn run(args: &[String]) -> Result<(), String> {
    let dir = match args {
        [flag, dir] if flag == "--json" => dir,
        _ => return Err("usage: hpcscope dump --json DIR".into()),
    };
    let inputs = super::read_inputs(Path::new(dir))?;
    let (groups, _) = formats::group(inputs);
    let group = match groups.as_slice() {
        [g] => g,
        [] => return Err(format!("{dir}: no dataset recognised")),
        many => {
            let roots: Vec<&str> = many.iter().map(|g| g.root.as_str()).collect();
            return Err(format!(
                "{dir} holds {} datasets ({}); dump one at a time",
                many.len(),
                roots.join(", ")
            ));
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    write_json(group, &mut out)?;
    out.flush().map_err(|e| e.to_string())
}

/// Writes the transcript of one dataset group to `out`.
pub fn write_json(group: &DatasetGroup, out: &mut dyn Write) -> Result<(), String> {
    if group.format_id() == hpctoolkit::ID {
        let (ds, db) = hpctoolkit::open_database(group).map_err(|e| e.to_string())?;
        write_hpctoolkit(out, &ds, &db)
    } else {
        let ds = formats::open(group).map_err(|e| e.to_string())?;
        write_model(out, &ds)
    }
}

type Out<'a> = &'a mut dyn Write;

fn w(out: Out, s: &str) -> Result<(), String> {
    out.write_all(s.as_bytes()).map_err(|e| e.to_string())
}

fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "null".into())
}

/// Shortest text that reads back as the same f64 (non-finite values have no JSON form: null).
fn jf(v: f64) -> String {
    serde_json::to_string(&v).unwrap_or_else(|_| "null".into())
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "null".into())
}

fn combine_name(c: u8) -> Option<&'static str> {
    ["sum", "min", "max"].get(c as usize).copied()
}

fn relation_name(r: u8) -> Option<&'static str> {
    ["lexical", "call", "inlined_call"].get(r as usize).copied()
}

fn lexical_name(l: u8) -> Option<&'static str> {
    ["function", "loop", "line", "instruction"]
        .get(l as usize)
        .copied()
}

fn entry_name(e: u16) -> Option<&'static str> {
    ["unknown_entry", "main_thread", "application_thread"]
        .get(e as usize)
        .copied()
}

fn q(s: Option<&str>) -> String {
    s.map(js).unwrap_or_else(|| "null".into())
}

/// Writes `items` as a JSON array, one `item` call per element.
fn array<T>(
    out: Out,
    items: impl IntoIterator<Item = T>,
    mut item: impl FnMut(Out, T) -> Result<(), String>,
) -> Result<(), String> {
    w(out, "[")?;
    for (i, x) in items.into_iter().enumerate() {
        if i > 0 {
            w(out, ",")?;
        }
        item(out, x)?;
    }
    w(out, "]")
}

fn write_hpctoolkit(out: Out, ds: &Dataset, db: &hpctoolkit::Database) -> Result<(), String> {
    let m = &db.meta;
    w(
        out,
        &format!(
            "{{\"format\":\"hpctoolkit\",\"title\":{},\"id_names\":",
            js(&m.title)
        ),
    )?;
    array(out, &m.id_names, |o, n| w(o, &js(n)))?;
    w(out, ",\"metrics\":")?;
    array(out, &m.metrics, |o, d| {
        w(o, &format!("{{\"name\":{},\"scopes\":", js(&d.name)))?;
        array(o, &d.scope_insts, |o, i| {
            w(
                o,
                &format!(
                    "{{\"scope\":{},\"prop_metric_id\":{}}}",
                    js(&m.scopes[i.scope].name),
                    i.prop_metric_id
                ),
            )
        })?;
        w(o, ",\"summaries\":")?;
        array(o, &d.summaries, |o, s| {
            w(
                o,
                &format!(
                    "{{\"scope\":{},\"formula\":{},\"combine\":{},\"stat_metric_id\":{}}}",
                    js(&m.scopes[s.scope].name),
                    js(&s.formula),
                    q(combine_name(s.combine)),
                    s.stat_metric_id
                ),
            )
        })?;
        w(o, "}")
    })?;
    w(out, ",\"modules\":")?;
    array(out, &m.modules, |o, x| w(o, &js(&x.path)))?;
    w(out, ",\"files\":")?;
    array(out, &m.files, |o, x| w(o, &js(&x.path)))?;
    w(out, ",\"functions\":")?;
    array(out, &m.functions, |o, f| {
        w(
            o,
            &format!(
                "{{\"name\":{},\"module\":{},\"offset\":{},\"file\":{},\"line\":{}}}",
                q(f.name.as_deref()),
                opt(f.module),
                opt(f.module.map(|_| f.offset)),
                opt(f.file),
                opt(f.file.map(|_| f.line))
            ),
        )
    })?;
    // Contexts in tree preorder (entry points first in each subtree), as the tree nests them.
    let contexts = db.contexts().map_err(|e| e.to_string())?;
    let mut by_id: Vec<(u32, usize)> = contexts
        .iter()
        .enumerate()
        .map(|(i, c)| (c.ctx_id, i))
        .collect();
    by_id.sort_unstable();
    let eps: Vec<(u32, usize)> = {
        let mut v: Vec<_> = m
            .entry_points
            .iter()
            .enumerate()
            .map(|(i, e)| (e.ctx_id, i))
            .collect();
        v.sort_unstable();
        v
    };
    let find =
        |v: &[(u32, usize)], id: u32| v.binary_search_by_key(&id, |x| x.0).ok().map(|i| v[i].1);
    w(out, ",\"contexts\":")?;
    array(out, 1..ds.cct.len(), |o, node| {
        let ctx = ds.cct.ctx_id[node];
        let parent = ds.cct.parent[node];
        let parent_id = if parent == 0 || parent == NONE {
            None
        } else {
            Some(ds.cct.ctx_id[parent as usize])
        };
        if let NodeKind::EntryPoint(_) = ds.cct.frame[node].kind {
            let e = find(&eps, ctx).map(|i| &m.entry_points[i]);
            return w(o, &format!(
                "{{\"ctx_id\":{ctx},\"parent\":null,\"entry_point\":{},\"relation\":null,\"lexical_type\":null,\"function\":null,\"file\":null,\"line\":null,\"module\":null,\"offset\":null}}",
                q(e.and_then(|e| entry_name(e.entry_point)))
            ));
        }
        let Some(c) = find(&by_id, ctx).map(|i| &contexts[i]) else {
            return Err(format!("context {ctx} missing from meta.db"));
        };
        w(o, &format!(
            "{{\"ctx_id\":{ctx},\"parent\":{},\"entry_point\":null,\"relation\":{},\"lexical_type\":{},\"function\":{},\"file\":{},\"line\":{},\"module\":{},\"offset\":{}}}",
            opt(parent_id),
            q(relation_name(c.relation)),
            q(lexical_name(c.lexical_type)),
            opt(c.function),
            opt(c.file),
            opt(c.line),
            opt(c.module),
            opt(c.offset)
        ))
    })?;
    w(out, ",\"profiles\":")?;
    array(out, db.profiles.profiles.iter().enumerate(), |o, (i, p)| {
        w(
            o,
            &format!("{{\"summary\":{},\"id_tuple\":", p.is_summary(i)),
        )?;
        match db.profiles.id_tuple(i) {
            None => w(o, "null")?,
            Some(t) => array(o, t, |o, id| {
                w(
                    o,
                    &format!(
                        "{{\"kind\":{},\"logical_id\":{},\"physical_id\":{},\"physical\":{}}}",
                        id.kind,
                        id.logical_id,
                        id.physical_id,
                        id.flags & 1 != 0
                    ),
                )
            })?,
        }
        w(o, ",\"values\":")?;
        let v = db.profile_raw(i).map_err(|e| e.to_string())?;
        array(o, v.triples(), |o, (c, mid, x)| {
            w(o, &format!("[{c},{mid},{}]", jf(x)))
        })?;
        w(o, "}")
    })?;
    w(out, ",\"context_values\":[")?;
    let mut first = true;
    for ctx in 0..db.n_cct_contexts() {
        let ctx = ctx as u32;
        for (mid, p, x) in db.context_raw(ctx).map_err(|e| e.to_string())? {
            w(
                out,
                &format!(
                    "{}[{ctx},{mid},{p},{}]",
                    if first { "" } else { "," },
                    jf(x)
                ),
            )?;
            first = false;
        }
    }
    w(out, "],\"trace\":")?;
    match &db.trace {
        None => w(out, "null")?,
        Some((_, t)) => {
            w(
                out,
                &format!(
                    "{{\"min\":{},\"max\":{},\"lines\":",
                    t.min_timestamp, t.max_timestamp
                ),
            )?;
            array(out, t.lines.iter().enumerate(), |o, (i, l)| {
                w(
                    o,
                    &format!("{{\"prof_index\":{},\"samples\":", l.prof_index),
                )?;
                let s = db.trace_raw(i, 0, l.samples()).map_err(|e| e.to_string())?;
                array(o, s, |o, (ts, c)| w(o, &format!("[{ts},{c}]")))?;
                w(o, "}")
            })?;
            w(out, "}")?;
        }
    }
    write_formulas(out, ds, |n| {
        ds.cct.ctx_id.get(n).copied().unwrap_or(n as u32)
    })?;
    w(out, "}\n")
}

/// `"formula_metrics"`: the formula metrics of the dataset's taxonomy (METRICS.yaml, or
/// experiment.xml's view formulas), each with its formulas as text and every profile's non-zero
/// values per context as `[profile index, ctx id, inclusive, exclusive]`, computed as the views
/// compute them ([`columns_from_values`]). Empty without formula metrics.
fn write_formulas(out: Out, ds: &Dataset, ctx: impl Fn(usize) -> u32) -> Result<(), String> {
    use crate::analysis::values::columns_from_values;
    let first = ds.metrics.len();
    let name = |m: u32, x: bool| {
        let n = ds.metric_label(m as usize).0;
        format!("{n} ({})", if x { "E" } else { "I" })
    };
    // Every profile's values once, all formula metrics from them.
    let mut values: Vec<Vec<(u32, u32, f64, f64)>> = vec![Vec::new(); ds.view_metrics() - first];
    if !values.is_empty() {
        for (p, info) in ds.profiles.iter().enumerate() {
            let v = ds.data.profile_values(p).map_err(|e| e.to_string())?;
            for (j, out) in values.iter_mut().enumerate() {
                let c = columns_from_values(ds, first + j, &[&v], info.summary)
                    .map_err(|e| e.to_string())?;
                for n in 0..ds.cct.len() {
                    let (i, x) = (c.inclusive[n], c.exclusive[n]);
                    if i != 0.0 || x != 0.0 {
                        out.push((p as u32, ctx(n), i, x));
                    }
                }
            }
        }
    }
    w(out, ",\"formula_metrics\":")?;
    array(out, values.iter().enumerate(), |o, (j, vals)| {
        let Some(d) = ds.derived_metric(first + j) else {
            return w(o, "null");
        };
        let text = |f: &Option<crate::model::Expr>| match f {
            Some(f) => js(&f.text(&name)),
            None => "null".into(),
        };
        w(
            o,
            &format!(
                "{{\"name\":{},\"unit\":{},\"inclusive\":{},\"exclusive\":{},\"values\":",
                js(&d.name),
                js(&d.unit),
                text(&d.inclusive),
                text(&d.exclusive)
            ),
        )?;
        array(o, vals, |o, &(p, c, i, x)| {
            w(o, &format!("[{p},{c},{},{}]", jf(i), jf(x)))
        })?;
        w(o, "}")
    })
}

/// The same transcript from the model, for formats without file-level ids: node ctx_ids stand for
/// contexts, value ids for metric ids.
pub(crate) fn write_model(out: Out, ds: &Dataset) -> Result<(), String> {
    w(
        out,
        &format!(
            "{{\"format\":{},\"title\":{},\"id_names\":",
            js(&ds.format),
            js(&ds.title)
        ),
    )?;
    array(out, &ds.id_names, |o, n| w(o, &js(n)))?;
    w(out, ",\"metrics\":")?;
    array(out, &ds.metrics, |o, mt| {
        w(o, &format!("{{\"name\":{},\"scopes\":", js(&mt.name)))?;
        array(o, &mt.scopes, |o, s| {
            w(
                o,
                &format!(
                    "{{\"scope\":{},\"prop_metric_id\":{}}}",
                    js(&s.scope),
                    s.prop_metric_id
                ),
            )
        })?;
        w(o, ",\"summaries\":")?;
        array(o, &mt.summaries, |o, s| {
            let c = match s.combine {
                Combine::Sum => "sum",
                Combine::Min => "min",
                Combine::Max => "max",
            };
            w(
                o,
                &format!(
                    "{{\"scope\":{},\"formula\":{},\"combine\":\"{c}\",\"stat_metric_id\":{}}}",
                    js(&s.scope),
                    js(&s.formula),
                    s.stat_metric_id
                ),
            )
        })?;
        w(o, "}")
    })?;
    w(out, ",\"modules\":")?;
    array(out, &ds.modules, |o, x| w(o, &js(&x.path)))?;
    w(out, ",\"files\":")?;
    array(out, &ds.source_files, |o, x| w(o, &js(&x.path)))?;
    w(out, ",\"functions\":")?;
    array(out, &ds.functions, |o, f| {
        w(
            o,
            &format!(
                "{{\"name\":{},\"module\":{},\"offset\":{},\"file\":{},\"line\":{}}}",
                js(&f.name),
                opt(f.module),
                opt(f.offset),
                opt(f.file),
                opt(f.line)
            ),
        )
    })?;
    let cct = &ds.cct;
    w(out, ",\"contexts\":")?;
    array(out, 1..cct.len(), |o, n| {
        let fr = &cct.frame[n];
        let p = cct.parent[n];
        let parent = if p == 0 || p == NONE {
            None
        } else {
            Some(cct.ctx_id[p as usize])
        };
        let entry = match fr.kind {
            NodeKind::EntryPoint(EntryKind::MainThread) => Some("main_thread"),
            NodeKind::EntryPoint(EntryKind::ApplicationThread) => Some("application_thread"),
            NodeKind::EntryPoint(EntryKind::UnknownEntry) => Some("unknown_entry"),
            _ => None,
        };
        let (rel, lex) = if entry.is_some() {
            (None, None)
        } else {
            (
                Some(match fr.relation {
                    Relation::Lexical => "lexical",
                    Relation::Call => "call",
                    Relation::InlinedCall => "inlined_call",
                }),
                Some(match fr.lexical_type {
                    LexicalType::Function => "function",
                    LexicalType::Loop => "loop",
                    LexicalType::Line => "line",
                    LexicalType::Instruction => "instruction",
                }),
            )
        };
        w(o, &format!(
            "{{\"ctx_id\":{},\"parent\":{},\"entry_point\":{},\"relation\":{},\"lexical_type\":{},\"function\":{},\"file\":{},\"line\":{},\"module\":{},\"offset\":{}}}",
            cct.ctx_id[n],
            opt(parent),
            q(entry),
            q(rel),
            q(lex),
            opt(fr.function),
            opt(fr.file),
            opt(fr.line),
            opt(fr.module),
            opt(fr.offset)
        ))
    })?;
    w(out, ",\"profiles\":")?;
    array(out, ds.profiles.iter().enumerate(), |o, (i, p)| {
        w(o, &format!("{{\"summary\":{},\"id_tuple\":", p.summary))?;
        array(o, &p.id_tuple, |o, id| {
            w(
                o,
                &format!(
                    "{{\"kind\":{},\"logical_id\":{},\"physical_id\":{},\"physical\":{}}}",
                    id.kind, id.logical_id, id.physical_id, id.physical
                ),
            )
        })?;
        w(o, ",\"values\":")?;
        let v = ds.data.profile_values(i).map_err(|e| e.to_string())?;
        array(o, v.iter(), |o, (n, id, x)| {
            let c = cct.ctx_id.get(n as usize).copied().unwrap_or(n);
            w(o, &format!("[{c},{id},{}]", jf(x)))
        })?;
        w(o, "}")
    })?;
    w(out, ",\"context_values\":[")?;
    let mut first = true;
    for n in 0..cct.len() as u32 {
        for (p, id, x) in ds.data.context_values(n).map_err(|e| e.to_string())? {
            w(
                out,
                &format!(
                    "{}[{},{id},{p},{}]",
                    if first { "" } else { "," },
                    cct.ctx_id[n as usize],
                    jf(x)
                ),
            )?;
            first = false;
        }
    }
    w(out, "],\"trace\":")?;
    match &ds.trace {
        None => w(out, "null")?,
        Some(t) => {
            w(
                out,
                &format!(
                    "{{\"min\":{},\"max\":{},\"lines\":",
                    opt(t.min_time),
                    opt(t.max_time)
                ),
            )?;
            array(out, t.lines.iter().enumerate(), |o, (i, l)| {
                w(
                    o,
                    &format!("{{\"prof_index\":{},\"samples\":", l.prof_index),
                )?;
                let s = ds
                    .data
                    .trace_samples(i, 0, l.samples)
                    .map_err(|e| e.to_string())?;
                array(o, s, |o, s| {
                    let c = cct.ctx_id.get(s.node as usize).copied().unwrap_or(s.node);
                    w(o, &format!("[{},{c}]", s.time))
                })?;
                w(o, "}")
            })?;
            w(out, "}")?;
        }
    }
    write_formulas(out, ds, |n| cct.ctx_id.get(n).copied().unwrap_or(n as u32))?;
    w(out, "}\n")
}
