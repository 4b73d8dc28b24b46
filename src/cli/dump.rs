//! `hpcscope dump --json DIR`: a full transcript of a dataset, streamed as one JSON object:
//! names, metrics, the context tree, every profile's and context's values and every trace sample.
//! HPCToolkit databases are written from the file's own ids (as HPCToolkit's hpctesttool sees
//! them); other formats from the model, in the same shape.

use crate::formats::{self, hpctoolkit, DatasetGroup};
use crate::model::{
    Cct, CodeRef, Combine, Dataset, EntryKind, Identifier, LexicalType, NodeKind, Relation, NONE,
};
use serde::Serialize;
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

// The file's codes as the model's enums, whose serde names ("inlined_call", "main_thread") are
// the transcript's; none for a code the format does not define.

fn relation_of(r: u8) -> Option<Relation> {
    use Relation::*;
    [Lexical, Call, InlinedCall].get(r as usize).copied()
}

fn lexical_of(l: u8) -> Option<LexicalType> {
    use LexicalType::*;
    [Function, Loop, Line, Instruction].get(l as usize).copied()
}

fn entry_of(e: u16) -> Option<EntryKind> {
    use EntryKind::*;
    [UnknownEntry, MainThread, ApplicationThread]
        .get(e as usize)
        .copied()
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

/// Writes `x` as compact JSON (`None` as null).
fn row(out: Out, x: &impl Serialize) -> Result<(), String> {
    serde_json::to_writer(out, x).map_err(|e| e.to_string())
}

/// The transcript's sections before the contexts, written as one object left open for the
/// sections streamed after it.
#[derive(Serialize)]
struct Head<'a> {
    format: &'a str,
    title: &'a str,
    id_names: &'a [String],
    metrics: Vec<MetricRow<'a>>,
    modules: Vec<&'a str>,
    files: Vec<&'a str>,
    functions: Vec<FunctionRow<'a>>,
}

fn write_head(out: Out, head: &Head) -> Result<(), String> {
    let text = serde_json::to_string(head).map_err(|e| e.to_string())?;
    w(out, text.strip_suffix('}').unwrap_or(&text))
}

#[derive(Serialize)]
struct MetricRow<'a> {
    name: &'a str,
    scopes: Vec<ScopeRow<'a>>,
    summaries: Vec<SummaryRow<'a>>,
}

#[derive(Serialize)]
struct ScopeRow<'a> {
    scope: &'a str,
    prop_metric_id: u16,
}

#[derive(Serialize)]
struct SummaryRow<'a> {
    scope: &'a str,
    formula: &'a str,
    /// Null for a combine code the file does not define.
    combine: Option<Combine>,
    stat_metric_id: u16,
}

#[derive(Serialize)]
struct FunctionRow<'a> {
    name: Option<&'a str>,
    module: Option<u32>,
    offset: Option<u64>,
    file: Option<u32>,
    line: Option<u32>,
}

/// One context: an entry point (`entry_point` set, no relation) or a context of the tree with
/// its relation to its parent and its place.
#[derive(Default, Serialize)]
struct ContextRow {
    ctx_id: u32,
    parent: Option<u32>,
    entry_point: Option<EntryKind>,
    relation: Option<Relation>,
    lexical_type: Option<LexicalType>,
    #[serde(flatten)]
    code: CodeRef,
}

fn write_hpctoolkit(out: Out, ds: &Dataset, db: &hpctoolkit::Database) -> Result<(), String> {
    let m = &db.meta;
    let scope = |i: usize| m.scopes[i].name.as_str();
    write_head(
        out,
        &Head {
            format: hpctoolkit::ID,
            title: &m.general.title,
            id_names: &m.id_names,
            metrics: m
                .metrics
                .iter()
                .map(|d| MetricRow {
                    name: &d.name,
                    scopes: (d.scope_insts.iter())
                        .map(|i| ScopeRow {
                            scope: scope(i.scope),
                            prop_metric_id: i.prop_metric_id,
                        })
                        .collect(),
                    summaries: (d.summaries.iter())
                        .map(|s| SummaryRow {
                            scope: scope(s.scope),
                            formula: &s.formula,
                            combine: Combine::of_code(s.combine),
                            stat_metric_id: s.stat_metric_id,
                        })
                        .collect(),
                })
                .collect(),
            modules: m.code.modules.iter().map(|x| x.path.as_str()).collect(),
            files: m.code.files.iter().map(|x| x.path.as_str()).collect(),
            functions: (m.code.functions.iter())
                .map(|f| FunctionRow {
                    name: f.name.as_deref(),
                    module: f.module,
                    offset: f.module.map(|_| f.offset),
                    file: f.file,
                    line: f.file.map(|_| f.line),
                })
                .collect(),
        },
    )?;
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
    array(out, 1..ds.cct.tree.len(), |o, node| {
        let ctx = ds.cct.ctx_id[node];
        if let NodeKind::EntryPoint(_) = ds.cct.frame[node].kind {
            let e = find(&eps, ctx).map(|i| &m.entry_points[i]);
            let entry_point = e.and_then(|e| entry_of(e.entry_point));
            return row(
                o,
                &ContextRow {
                    ctx_id: ctx,
                    entry_point,
                    ..ContextRow::default()
                },
            );
        }
        let Some(c) = find(&by_id, ctx).map(|i| &contexts[i]) else {
            return Err(format!("context {ctx} missing from meta.db"));
        };
        row(
            o,
            &ContextRow {
                ctx_id: ctx,
                parent: parent_ctx(&ds.cct, node),
                entry_point: None,
                relation: relation_of(c.relation),
                lexical_type: lexical_of(c.lexical_type),
                code: c.code,
            },
        )
    })?;
    w(out, ",\"profiles\":")?;
    array(out, db.profiles.profiles.iter().enumerate(), |o, (i, p)| {
        let ids = db.profiles.id_tuple(i).map(|t| {
            t.iter()
                .map(|id| Identifier {
                    kind: id.kind.into(),
                    logical_id: id.logical_id,
                    physical_id: id.physical_id,
                    physical: id.flags & 1 != 0,
                })
                .collect()
        });
        let v = db.profile_raw(i).map_err(|e| e.to_string())?;
        write_profile(o, p.is_summary(i), ids, v.triples())
    })?;
    write_context_values(
        out,
        (0..db.n_cct_contexts()).map(|ctx| {
            let ctx = ctx as u32;
            let v = db.context_raw(ctx).map_err(|e| e.to_string())?;
            Ok(v.into_iter().map(|(mid, p, x)| (ctx, mid, p, x)).collect())
        }),
    )?;
    let trace = db.trace.as_ref().map(|(_, t)| {
        let lines = t.lines.iter().map(|l| (l.prof_index, l.samples()));
        (
            Some(t.min_timestamp),
            Some(t.max_timestamp),
            lines.collect(),
        )
    });
    write_trace(out, trace, |i, n| {
        db.trace_raw(i, 0, n).map_err(|e| e.to_string())
    })?;
    write_formulas(out, ds, |n| {
        ds.cct.ctx_id.get(n).copied().unwrap_or(n as u32)
    })?;
    w(out, "}\n")
}

/// The ctx id of a node's parent; none for the root's children (entry points, or contexts of
/// formats without them).
fn parent_ctx(cct: &Cct, node: usize) -> Option<u32> {
    match cct.tree.parent[node] {
        0 | NONE => None,
        p => Some(cct.ctx_id[p as usize]),
    }
}

/// One profile: `{"summary", "id_tuple" (null when the file gives none), "values": [[ctx id,
/// metric id, value]...]}`.
fn write_profile(
    o: Out,
    summary: bool,
    ids: Option<Vec<Identifier>>,
    values: impl IntoIterator<Item = (u32, u16, f64)>,
) -> Result<(), String> {
    w(o, &format!("{{\"summary\":{summary},\"id_tuple\":"))?;
    row(o, &ids)?;
    w(o, ",\"values\":")?;
    array(o, values, |o, (c, mid, x)| {
        w(o, &format!("[{c},{mid},{}]", jf(x)))
    })?;
    w(o, "}")
}

/// `"context_values"`: `[ctx id, metric id, profile index, value]`, context by context.
fn write_context_values(
    out: Out,
    contexts: impl IntoIterator<Item = Result<Vec<(u32, u16, u32, f64)>, String>>,
) -> Result<(), String> {
    w(out, ",\"context_values\":[")?;
    let mut first = true;
    for values in contexts {
        for (ctx, mid, p, x) in values? {
            let sep = if first { "" } else { "," };
            w(out, &format!("{sep}[{ctx},{mid},{p},{}]", jf(x)))?;
            first = false;
        }
    }
    w(out, "]")
}

/// A trace's (min time, max time, each line's (profile index, sample count)).
type TraceHead = (Option<u64>, Option<u64>, Vec<(u32, u64)>);

/// `"trace"`: null, or `{"min", "max", "lines": [{"prof_index", "samples": [[time, ctx id]...]}]}`
/// with each line's samples from `samples(line, count)`.
fn write_trace(
    out: Out,
    trace: Option<TraceHead>,
    samples: impl Fn(usize, u64) -> Result<Vec<(u64, u32)>, String>,
) -> Result<(), String> {
    w(out, ",\"trace\":")?;
    let Some((min, max, lines)) = trace else {
        return w(out, "null");
    };
    w(
        out,
        &format!("{{\"min\":{},\"max\":{},\"lines\":", opt(min), opt(max)),
    )?;
    array(out, lines.into_iter().enumerate(), |o, (i, (prof, n))| {
        w(o, &format!("{{\"prof_index\":{prof},\"samples\":"))?;
        array(o, samples(i, n)?, |o, (ts, c)| w(o, &format!("[{ts},{c}]")))?;
        w(o, "}")
    })?;
    w(out, "}")
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
                for n in 0..ds.cct.tree.len() {
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
    write_head(
        out,
        &Head {
            format: &ds.format,
            title: &ds.title,
            id_names: &ds.id_names,
            metrics: (ds.metrics.iter())
                .map(|mt| MetricRow {
                    name: &mt.name,
                    scopes: (mt.scopes.iter())
                        .map(|s| ScopeRow {
                            scope: &s.scope,
                            prop_metric_id: s.prop_metric_id,
                        })
                        .collect(),
                    summaries: (mt.summaries.iter())
                        .map(|s| SummaryRow {
                            scope: &s.scope,
                            formula: &s.formula,
                            combine: Some(s.combine),
                            stat_metric_id: s.stat_metric_id,
                        })
                        .collect(),
                })
                .collect(),
            modules: ds.modules.iter().map(|x| x.path.as_str()).collect(),
            files: ds.source_files.iter().map(|x| x.path.as_str()).collect(),
            functions: (ds.functions.iter())
                .map(|f| FunctionRow {
                    name: Some(&f.name),
                    module: f.module,
                    offset: f.offset,
                    file: f.file,
                    line: f.line,
                })
                .collect(),
        },
    )?;
    let cct = &ds.cct;
    let ctx_of = |n: u32| cct.ctx_id.get(n as usize).copied().unwrap_or(n);
    w(out, ",\"contexts\":")?;
    array(out, 1..cct.tree.len(), |o, n| {
        let fr = &cct.frame[n];
        let entry = match fr.kind {
            NodeKind::EntryPoint(e) => Some(e),
            _ => None,
        };
        // An entry point has no relation to its parent.
        let (relation, lexical_type) = match entry {
            Some(_) => (None, None),
            None => (Some(fr.relation), Some(fr.lexical_type)),
        };
        row(
            o,
            &ContextRow {
                ctx_id: cct.ctx_id[n],
                parent: parent_ctx(cct, n),
                entry_point: entry,
                relation,
                lexical_type,
                code: fr.code,
            },
        )
    })?;
    w(out, ",\"profiles\":")?;
    array(out, ds.profiles.iter().enumerate(), |o, (i, p)| {
        let v = ds.data.profile_values(i).map_err(|e| e.to_string())?;
        let values = v.iter().map(|(n, id, x)| (ctx_of(n), id, x));
        write_profile(o, p.summary, Some(p.id_tuple.clone()), values)
    })?;
    write_context_values(
        out,
        (0..cct.tree.len() as u32).map(|n| {
            let v = ds.data.context_values(n).map_err(|e| e.to_string())?;
            let c = cct.ctx_id[n as usize];
            Ok(v.into_iter().map(|(p, id, x)| (c, id, p, x)).collect())
        }),
    )?;
    let trace = ds.trace.as_ref().map(|t| {
        let lines = t.lines.iter().map(|l| (l.prof_index, l.samples));
        (t.min_time, t.max_time, lines.collect())
    });
    write_trace(out, trace, |i, n| {
        let s = ds.data.trace_samples(i, 0, n).map_err(|e| e.to_string())?;
        Ok(s.into_iter().map(|s| (s.time, ctx_of(s.node))).collect())
    })?;
    write_formulas(out, ds, |n| ctx_of(n as u32))?;
    w(out, "}\n")
}
