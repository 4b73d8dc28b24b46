//! Per-function totals of a run and their comparison: each function's self (exclusive) and total
//! (inclusive) value over the run, from the summary profile (or the sum of all profiles), with
//! recursion counted once; functions of two runs match by (name, load module basename).

use super::matching::resolved_modules;
use crate::analysis::frames::is_head;
use crate::analysis::names::{FrameTexts, Interner};
use crate::analysis::values::{metric_columns, point_from_inclusive, Columns, Selection};
use crate::error::Result;
use crate::model::IdMap;
use crate::model::{short_path, Dataset, NodeKind, NONE};
use std::collections::HashMap;

// Values outside every function (on the root or an entry point) belong to that frame's row, so
// the self values of all rows add up to the root's total.

/// One function of a run: self and total value of one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionTotal {
    pub name: String,
    /// Load module basename, `None` when the frame names none.
    pub module: Option<String>,
    pub self_value: f64,
    pub total: f64,
    /// A function instance's row (false for the root's and the entry points').
    pub is_function: bool,
}

/// The functions of run `ds` for `metric`, in first-seen preorder, and the root's total.
pub fn function_totals(ds: &Dataset, metric: usize) -> Result<(Vec<FunctionTotal>, f64)> {
    let cols = summary_columns(ds, metric)?;
    let root = cols.inclusive.first().copied().unwrap_or(0.0);
    let mut point = point_from_inclusive(ds, &cols.inclusive);
    // Subtraction leaves rounding residue where a node has no value of its own.
    for p in point.iter_mut() {
        if p.abs() <= root.abs() * 1e-12 || !p.is_finite() {
            *p = 0.0;
        }
    }
    let n = ds.cct.tree.len();
    // Row of each node: its own for function instances, entry points and the root; else its
    // parent's (a loop or line belongs to its enclosing function).
    let mut row_of = vec![NONE; n];
    let mut rows: Vec<FunctionTotal> = Vec::new();
    let mut index: IdMap<(u32, u32), u32> = IdMap::default();
    // Rows are keyed by name text (two function entries may share a name); only the nodes that
    // start a row are named.
    let mut texts = FrameTexts::new(ds);
    let mut names = Interner::default();
    let modules = resolved_modules(ds);
    let module_of = |i: usize| -> u32 { modules[i] };
    // Module basenames can repeat over full paths: key rows by basename text.
    let mut base_id: IdMap<u32, u32> = IdMap::default();
    let mut basenames: HashMap<String, u32> = HashMap::new();
    let mut module_key = |m: u32| -> u32 {
        if m == NONE {
            return NONE;
        }
        *base_id.entry(m).or_insert_with(|| {
            let b = ds
                .modules
                .get(m as usize)
                .map(|x| short_path(&x.path).to_string())
                .unwrap_or_default();
            let k = basenames.len() as u32;
            *basenames.entry(b).or_insert(k)
        })
    };
    // Open instances of each row on the current path, for counting recursion once.
    let mut open: Vec<u32> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    for i in 0..n {
        while let Some(&top) = stack.last() {
            if (i as u32) < ds.cct.tree.subtree_end[top as usize] {
                break;
            }
            stack.pop();
            if let Some(c) = open.get_mut(row_of[top as usize] as usize) {
                *c -= 1;
            }
        }
        let head = is_head(ds, i as u32);
        let own = head || ds.cct.frame[i].kind != NodeKind::Context || i == 0;
        let p = ds.cct.tree.parent[i] as usize;
        let row = if own || p >= i {
            let name = texts.id(&mut names, i as u32);
            let key = (name, module_key(module_of(i)));
            *index.entry(key).or_insert_with(|| {
                let m = module_of(i);
                rows.push(FunctionTotal {
                    name: names.get(name).unwrap_or("").to_string(),
                    module: (m != NONE)
                        .then(|| ds.modules.get(m as usize))
                        .flatten()
                        .map(|x| short_path(&x.path).to_string()),
                    self_value: 0.0,
                    total: 0.0,
                    is_function: head,
                });
                open.push(0);
                rows.len() as u32 - 1
            })
        } else {
            row_of[p]
        };
        row_of[i] = row;
        let r = row as usize;
        rows[r].self_value += point[i];
        if own {
            if open[r] == 0 {
                rows[r].total += cols.inclusive[i];
            }
            open[r] += 1;
            stack.push(i as u32);
        }
    }
    Ok((rows, root))
}

/// Summary columns of `metric` (as [`metric_columns`] makes them), read in one pass over a
/// shared summary profile when it stores both scopes: a comparison reads two 1M-context runs.
pub fn summary_columns(ds: &Dataset, metric: usize) -> Result<Columns> {
    let m = ds.metrics.get(metric);
    if let (Some(p), Some(i), Some(e)) = (
        ds.summary_profile,
        m.and_then(|m| m.inclusive(true)),
        m.and_then(|m| m.exclusive(true)),
    ) {
        let values = ds.data.profile_values_shared(p)?;
        let mut cols = values.columns(&[i, e], ds.cct.tree.len()).into_iter();
        let (Some(mut inclusive), Some(exclusive)) = (cols.next(), cols.next()) else {
            return metric_columns(ds, metric, &Selection::Summary);
        };
        // As metric_columns: a root without a value of its own sums its children.
        if inclusive.first() == Some(&0.0) {
            let sum: f64 = ds.cct.tree.children(0).map(|c| inclusive[c as usize]).sum();
            inclusive[0] = sum;
        }
        return Ok(Columns {
            inclusive,
            exclusive,
        });
    }
    metric_columns(ds, metric, &Selection::Summary)
}

/// One function in either run: its values in both (0 where the run lacks it).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FunctionDiff {
    pub function: String,
    pub module: Option<String>,
    pub base_self: f64,
    pub new_self: f64,
    pub base_total: f64,
    pub new_total: f64,
    /// A function's row (false for the root's and the entry points').
    #[serde(skip)]
    pub is_function: bool,
}

/// Functions of two runs matched by (name, module basename), largest self change first. Rows
/// of frames that are not functions (root, entry points) are kept only when they hold a value of
/// their own. `scale` multiplies (base, new) values (normalisation).
pub fn diff_functions(
    base: &[FunctionTotal],
    new: &[FunctionTotal],
    scale: (f64, f64),
) -> Vec<FunctionDiff> {
    let mut out: Vec<FunctionDiff> = Vec::with_capacity(base.len().max(new.len()));
    let mut index: HashMap<(&str, Option<&str>), usize> = HashMap::new();
    for (side, rows) in [(0, base), (1, new)] {
        let f = if side == 0 { scale.0 } else { scale.1 };
        for r in rows {
            let key = (r.name.as_str(), r.module.as_deref());
            let k = *index.entry(key).or_insert_with(|| {
                out.push(FunctionDiff {
                    function: r.name.clone(),
                    module: r.module.clone(),
                    base_self: 0.0,
                    new_self: 0.0,
                    base_total: 0.0,
                    new_total: 0.0,
                    is_function: r.is_function,
                });
                out.len() - 1
            });
            let d = &mut out[k];
            if side == 0 {
                d.base_self += r.self_value * f;
                d.base_total += r.total * f;
            } else {
                d.new_self += r.self_value * f;
                d.new_total += r.total * f;
            }
        }
    }
    out.retain(|d| d.is_function || d.base_self != 0.0 || d.new_self != 0.0);
    crate::sort::sort_by(&mut out, |a, b| {
        let da = (a.new_self - a.base_self).abs();
        let db = (b.new_self - b.base_self).abs();
        db.total_cmp(&da)
            .then(
                b.new_total
                    .max(b.base_total)
                    .total_cmp(&a.new_total.max(a.base_total)),
            )
            .then_with(|| a.function.cmp(&b.function))
            .then_with(|| a.module.cmp(&b.module))
    });
    out
}
