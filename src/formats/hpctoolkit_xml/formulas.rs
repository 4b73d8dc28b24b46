//! experiment.xml's MetricTable as a flat metric taxonomy: one node per metric in table order,
//! with its `show`, `show-percent` and `fmt` attributes, and the view formulas (`<MetricFormula
//! t="view">`) as formula metrics computed as hpcviewer.e4 computes them (rules below); `@n`,
//! other functions and non-sum statistics are not computed and give a warning naming the column.

use super::experiment::{Experiment, MetricDef, MetricType};
use super::to_model::split_name;
use crate::error::{Error, Warning};
use crate::model::formula_text::{self, Resolve, Syntax};
use crate::model::taxonomy::{Expr, Func, MetricVariant, Render, TaxonomyNode};
use crate::model::{DerivedMetric, Metric, MetricTaxonomy, ScopeKind};
use std::collections::HashMap;

// hpcviewer's `ExperimentBuilder2` makes a view column a `DerivedMetric`; `MetricVarMap` gives
// its variables their values:
// - `$n` is the value of the column with id n (an unknown id is an error in hpcviewer too);
// - `#n` is the column whose order (`o=`) is n, 0 when none has it. In an exclusive formula it is
//   that column's value where the column's partner (its exclusive twin) has a value, else 0
//   (hpcviewer tests the partner and then returns the column's own value); a column reading its
//   own order gets 0;
// - a view column read by another is its formula, expanded (a cycle is an error, where hpcviewer
//   recurses until its stack overflows); division by 0 gives 0 and a result of 0 is no value
//   ([`Expr::eval`]).
// Not computed, with a warning naming the column: `@n` (the root's value), functions other than
// sum, min, max, sqrt, pow, log, floor and ceil, and columns that are a statistic other than the
// sum (the views hold each metric's sum).

/// A view formula without a combine formula computes its column when shown: no value is stored.
pub fn is_view_only(m: &MetricDef) -> bool {
    view_formula(m).is_some() && !m.formulas.iter().any(|(t, _)| t == "combine")
}

fn view_formula(m: &MetricDef) -> Option<&str> {
    m.formulas
        .iter()
        .find(|(t, _)| t == "view")
        .map(|f| f.1.as_str())
}

/// Resolves the variables of view formulas against the MetricTable.
struct Table<'a> {
    defs: &'a [MetricDef],
    by_id: HashMap<u32, usize>,
    by_order: HashMap<i64, usize>,
    /// Column id -> (model metric, exclusive): the columns the views hold as a metric's value.
    stored: HashMap<u32, (u32, bool)>,
    /// Column ids being expanded, innermost last.
    stack: Vec<u32>,
}

impl Table<'_> {
    /// The value of column `d` as an expression: its model metric's value, or its own formula.
    fn value(&mut self, d: usize) -> Result<Expr, String> {
        let def = &self.defs[d];
        if let Some(f) = view_formula(def).filter(|_| is_view_only(def)) {
            if self.stack.contains(&def.id) {
                return Err(format!("formula of column {} reads itself", def.id));
            }
            if self.stack.len() > 32 {
                return Err("view formulas nested more than 32 deep".into());
            }
            self.stack.push(def.id);
            let e = formula_text::parse_text(f, Syntax::Hpcviewer, &mut Owner { t: self, d });
            self.stack.pop();
            return e;
        }
        match self.stored.get(&def.id) {
            Some(&(metric, exclusive)) => Ok(Expr::Value { metric, exclusive }),
            None => Err(format!(
                "column {} ('{}') is not a value hpcscope shows (a statistic other than the sum)",
                def.id, def.name
            )),
        }
    }
}

/// The resolver of one column's formula (`d`, whose type decides what `#n` reads).
struct Owner<'a, 'b> {
    t: &'a mut Table<'b>,
    d: usize,
}

impl Resolve for Owner<'_, '_> {
    fn var(&mut self, sigil: char, n: u32) -> Result<Expr, String> {
        let me = &self.t.defs[self.d];
        match sigil {
            '$' => {
                let d = *self
                    .t
                    .by_id
                    .get(&n)
                    .ok_or_else(|| format!("no metric column has id {n}"))?;
                self.t.value(d)
            }
            '#' => {
                let Some(&b) = self.t.by_order.get(&i64::from(n)) else {
                    return Ok(Expr::Number(0.0));
                };
                if me.t == MetricType::Exclusive {
                    let partner = self.t.defs[b].partner;
                    let Some(&p) = partner.and_then(|p| self.t.by_id.get(&p)) else {
                        return Ok(Expr::Number(0.0));
                    };
                    let test = self.t.value(p)?;
                    let value = self.t.value(b)?;
                    Ok(Expr::Gated {
                        test: Box::new(test),
                        value: Box::new(value),
                    })
                } else if b == self.d {
                    Ok(Expr::Number(0.0))
                } else {
                    self.t.value(b)
                }
            }
            _ => Err(format!(
                "'{sigil}{n}' (the root's value of a metric) is not supported"
            )),
        }
    }

    fn call(&mut self, name: &str, args: Vec<Expr>) -> Result<Expr, String> {
        // graphbuilder's names for the functions METRICS.yaml also has.
        let f = match name {
            "sum" => Func::Sum,
            "min" => Func::Min,
            "max" => Func::Max,
            "sqrt" => Func::Sqrt,
            "pow" => Func::Pow,
            "log" => Func::Log,
            "floor" => Func::Floor,
            "ceil" => Func::Ceil,
            _ => return Err(format!("function '{name}' is not supported")),
        };
        if !f.takes(args.len()) {
            return Err(format!("function '{name}' given {} arguments", args.len()));
        }
        Ok(Expr::Call(f, args))
    }
}

/// The MetricTable as a taxonomy over the model's `metrics` (built by `to_model::metrics`: one per
/// base name), with the view formulas as formula metrics. `None` without metrics.
pub fn taxonomy(
    x: &Experiment,
    metrics: &[Metric],
    warnings: &mut Vec<Warning>,
    file: &str,
) -> Option<MetricTaxonomy> {
    if metrics.is_empty() && !x.tables.metrics.iter().any(is_view_only) {
        return None;
    }
    let mut stored = HashMap::new();
    for (k, m) in metrics.iter().enumerate() {
        for (kind, exclusive) in [(ScopeKind::Execution, false), (ScopeKind::Function, true)] {
            if let Some(id) = m.value_id(kind, true) {
                stored.insert(u32::from(id), (k as u32, exclusive));
            }
        }
    }
    let mut by_id = HashMap::new();
    let mut by_order = HashMap::new();
    for (i, d) in x.tables.metrics.iter().enumerate() {
        by_id.entry(d.id).or_insert(i);
        // hpcviewer keeps the last column of an order in its map.
        if let Some(o) = d.order {
            by_order.insert(o, i);
        }
    }
    let mut table = Table {
        defs: &x.tables.metrics,
        by_id,
        by_order,
        stored,
        stack: Vec::new(),
    };
    // Formula metrics: the view-only columns grouped by base name, inclusive and exclusive.
    let mut derived: Vec<DerivedMetric> = Vec::new();
    for (i, d) in x.tables.metrics.iter().enumerate() {
        if !is_view_only(d) {
            continue;
        }
        let (base, _, from_name) = split_name(&d.name);
        let exclusive = match d.t {
            MetricType::Exclusive => true,
            MetricType::Inclusive => false,
            MetricType::Nil => from_name == Some(ScopeKind::Function),
        };
        let j = match derived.iter().position(|m| m.name == base) {
            Some(j) => j,
            None => {
                derived.push(DerivedMetric {
                    name: base.to_string(),
                    description: format!("hpcviewer view formula of experiment.xml ({base})"),
                    unit: Metric::unit_of_name(base),
                    inclusive: None,
                    exclusive: None,
                });
                derived.len() - 1
            }
        };
        let f = view_formula(d).unwrap_or("");
        match table.value(i) {
            Ok(e) => {
                let slot = if exclusive {
                    &mut derived[j].exclusive
                } else {
                    &mut derived[j].inclusive
                };
                if slot.is_none() {
                    *slot = Some(e);
                }
            }
            Err(e) => warnings.push(Error::invalid(
                file,
                0,
                format!(
                    "view formula of metric column {} ('{}' = {f}) not computed: {e}",
                    d.id, d.name
                ),
            )),
        }
    }
    // Formulas only read the model's metrics (view columns are expanded), so dropping a formula
    // metric renumbers nothing a formula reads.
    derived.retain(|m| m.inclusive.is_some() || m.exclusive.is_some());
    let derived_index = |name: &str| derived.iter().position(|m| m.name == name);
    // Nodes in MetricTable order, one per view metric, then the metrics only MetricDB lists.
    let mut nodes: Vec<TaxonomyNode> = Vec::new();
    let mut node_of: HashMap<u32, usize> = HashMap::new();
    for d in &x.tables.metrics {
        let metric = if is_view_only(d) {
            derived_index(split_name(&d.name).0).map(|j| (metrics.len() + j) as u32)
        } else {
            table.stored.get(&d.id).map(|&(k, _)| k)
        };
        let Some(metric) = metric else { continue };
        // show: 0 hidden, 1 shown, 2 inclusive only, 3 exclusive only, 4 never shown.
        let shown = matches!(d.show, 1..=3);
        match node_of.get(&metric) {
            Some(&n) => nodes[n].visible |= shown,
            None => {
                node_of.insert(metric, nodes.len());
                let name = match metrics.get(metric as usize) {
                    Some(m) => m.name.clone(),
                    None => derived[metric as usize - metrics.len()].name.clone(),
                };
                nodes.push(TaxonomyNode {
                    short_description: String::new(),
                    description: String::new(),
                    name,
                    visible: shown,
                    children: Vec::new(),
                    variants: vec![MetricVariant {
                        name: String::new(),
                        render: Render {
                            number: true,
                            percent: d.show_percent,
                            hidden: false,
                            colorbar: false,
                        },
                        format: d.format.clone(),
                        metric: Some(metric),
                    }],
                });
            }
        }
    }
    for (k, m) in metrics.iter().enumerate() {
        if !node_of.contains_key(&(k as u32)) {
            nodes.push(TaxonomyNode {
                name: m.name.clone(),
                visible: true,
                variants: vec![MetricVariant {
                    name: String::new(),
                    render: Render {
                        number: true,
                        percent: true,
                        hidden: false,
                        colorbar: false,
                    },
                    format: None,
                    metric: Some(k as u32),
                }],
                ..TaxonomyNode::default()
            });
        }
    }
    Some(MetricTaxonomy {
        source: format!("{file} (MetricTable)"),
        roots: (0..nodes.len() as u32).collect(),
        nodes,
        derived,
    })
}
