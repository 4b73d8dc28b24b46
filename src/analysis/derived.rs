//! Values of a taxonomy's formula metrics (model::taxonomy): per context from the columns of the
//! metrics they read, per profile for the distribution, and the metric a view shows first when a
//! taxonomy exists. hpcviewer computes a derived metric's value in every view from the values of
//! its inputs in that view's row; so do the tables (see `table::row_value`).

use super::profile::{MetricInfo, MetricName};
use super::values::Columns;
use crate::model::{
    Dataset, DerivedMetric, MetricTaxonomy, MetricVariant, SparseValues, TaxonomyNode,
};

/// Columns of formula metric `d`: each node's inclusive and exclusive value is the formula over
/// that node's values of its inputs (`col(m)` gives the columns of view metric `m`).
pub fn derived_columns<'a>(
    n: usize,
    d: &DerivedMetric,
    col: &dyn Fn(u32) -> Option<&'a Columns>,
) -> Columns {
    let column = |exclusive: bool| -> Vec<f64> {
        let Some(f) = d.formula(exclusive) else {
            return vec![0.0; n];
        };
        (0..n)
            .map(|i| {
                f.eval(&mut |m, x| {
                    col(m)
                        .and_then(|c| if x { &c.exclusive } else { &c.inclusive }.get(i))
                        .copied()
                        .unwrap_or(0.0)
                })
            })
            .collect()
    };
    Columns {
        inclusive: column(false),
        exclusive: column(true),
    }
}

/// How a metric's name says it measures time: 0 for CPU time or cycles (what a profile is first
/// looked at by), 1 for another time, 2 for anything else.
pub fn time_class(name: &str, unit: &str) -> u8 {
    let n = name.to_ascii_lowercase();
    let base = n.rsplit("::").next().unwrap_or(&n);
    let cpu = [
        "cputime",
        "realtime",
        "cpu-clock",
        "task-clock",
        "papi_tot_cyc",
    ];
    if cpu.iter().any(|c| n.contains(c)) || base == "cycles" || base.starts_with("cycles ") {
        return 0;
    }
    let timed = ["(sec)", "(s)", "(ms)", "(us)", "(ns)"];
    if timed.iter().any(|t| n.ends_with(t)) || matches!(unit, "s" | "ms" | "us" | "ns") {
        return 1;
    }
    2
}

/// The metrics of a taxonomy's variants in preorder, with whether their node is visible by
/// default and whether it is a root.
pub fn preorder_metrics(t: &MetricTaxonomy) -> Vec<(u32, bool, bool)> {
    let mut out = Vec::new();
    for (n, depth) in preorder_nodes(t) {
        let node = &t.nodes[n as usize];
        let root = depth == 0;
        out.extend(
            node.variants
                .iter()
                .filter_map(|v| v.metric.map(|m| (m, node.visible, root))),
        );
    }
    out
}

/// The metric a view shows first when the dataset has a taxonomy: of the metrics with a value at
/// the root, the first that measures CPU time or cycles (a root's before a deeper node's, then in
/// the taxonomy's order), else likewise the first other time, else the first shown by default.
/// `raw_only` keeps to the dataset's own metrics (exports). `None` without a taxonomy or without
/// any such metric.
pub fn taxonomy_default(ds: &Dataset, raw_only: bool) -> Option<usize> {
    let t = ds.taxonomy.as_ref()?;
    let (prof, summary) = match ds.summary_profile {
        Some(p) => (p, true),
        None => (
            (0..ds.profiles.len()).find(|&p| !ds.profiles[p].summary)?,
            false,
        ),
    };
    let vals = ds.data.profile_values_shared(prof).ok()?;
    let cands: Vec<(u32, bool, bool)> = preorder_metrics(t)
        .into_iter()
        .filter(|&(m, _, _)| !raw_only || (m as usize) < ds.metrics.len())
        .filter(|&(m, _, _)| root_value(ds, &vals, summary, m, 0) != 0.0)
        .collect();
    let class = |m: u32| {
        let (name, unit) = ds.metric_label(m as usize);
        time_class(name, unit)
    };
    let timed = cands
        .iter()
        .enumerate()
        .filter(|(_, &(m, _, _))| class(m) < 2)
        .min_by_key(|&(i, &(m, _, root))| (class(m), !root, i));
    timed
        .map(|(_, c)| c)
        .or_else(|| cands.iter().find(|&&(_, visible, _)| visible))
        .map(|&(m, _, _)| m as usize)
}

/// For each view metric, whether it has a value: a non-zero inclusive or exclusive value at the
/// root of the summary profile (the first profile without one), which sums every context's
/// values; a formula metric has one when one of its inputs has. All true when nothing is readable.
pub fn metrics_with_values(ds: &Dataset) -> Vec<bool> {
    let n = ds.view_metrics();
    let (prof, summary) = match ds.summary_profile {
        Some(p) => (p, true),
        None => match (0..ds.profiles.len()).find(|&p| !ds.profiles[p].summary) {
            Some(p) => (p, false),
            None => return vec![true; n],
        },
    };
    let Ok(vals) = ds.data.profile_values_shared(prof) else {
        return vec![true; n];
    };
    let mut out = vec![false; n];
    for m in 0..n {
        out[m] = match ds.derived_metric(m) {
            None => root_value(ds, &vals, summary, m as u32, 0) != 0.0,
            Some(d) => {
                let mut ins = Vec::new();
                for f in [&d.inclusive, &d.exclusive].into_iter().flatten() {
                    f.inputs(&mut ins);
                }
                ins.iter()
                    .any(|&(k, _)| (k as usize) < m && out[k as usize])
            }
        };
    }
    out
}

/// Inclusive value at the root of view metric `m` (its exclusive value when it has no
/// inclusive one), from the root's stored values.
fn root_value(ds: &Dataset, vals: &SparseValues, summary: bool, m: u32, depth: u32) -> f64 {
    let stored = |m: usize, exclusive: bool| {
        let mt = &ds.metrics[m];
        let id = if exclusive {
            mt.exclusive(summary)
        } else {
            mt.inclusive(summary)
        };
        id.map_or(0.0, |id| {
            let v = vals.get(0, id);
            // Readers that store nothing at the synthetic root: its children's sum.
            if v != 0.0 || exclusive {
                v
            } else {
                ds.cct.tree.children(0).map(|c| vals.get(c, id)).sum()
            }
        })
    };
    if (m as usize) < ds.metrics.len() {
        let v = stored(m as usize, false);
        return if v != 0.0 {
            v
        } else {
            stored(m as usize, true)
        };
    }
    let Some(d) = ds.derived_metric(m as usize) else {
        return 0.0;
    };
    if depth > crate::model::taxonomy::MAX_DEPTH {
        return 0.0;
    }
    let Some(f) = d.inclusive.as_ref().or(d.exclusive.as_ref()) else {
        return 0.0;
    };
    f.eval(&mut |k, x| {
        if (k as usize) < ds.metrics.len() {
            stored(k as usize, x)
        } else {
            root_value(ds, vals, summary, k, depth + 1)
        }
    })
}

/// Metrics whose columns the tables show by default: those of the variants of nodes visible by
/// default whose render does not hide them (hpcviewer hides `render: hidden` variants), in the
/// taxonomy's order, each once.
pub fn default_columns(t: &MetricTaxonomy) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for (n, _) in preorder_nodes(t) {
        let node = &t.nodes[n as usize];
        if !node.visible {
            continue;
        }
        for v in &node.variants {
            if let Some(m) = v.metric.filter(|_| !v.render.hidden) {
                if !out.contains(&m) {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Node indexes of a taxonomy in preorder (roots first, each followed by its children) with their
/// depth (0 for a root), each once (aliases may list one node under several parents).
pub fn preorder_nodes(t: &MetricTaxonomy) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut stack: Vec<(u32, u32)> = t.roots.iter().rev().map(|&r| (r, 0)).collect();
    let mut seen = vec![false; t.nodes.len()];
    while let Some((n, depth)) = stack.pop() {
        let Some(node) = t.nodes.get(n as usize) else {
            continue;
        };
        if std::mem::replace(&mut seen[n as usize], true) {
            continue;
        }
        out.push((n, depth));
        stack.extend(node.children.iter().rev().map(|&c| (c, depth + 1)));
    }
    out
}

/// The metrics as the selectors list them, with what the taxonomy says of each (the first node
/// in preorder showing it): description, percent cells, number format, formulas as text.
pub fn metric_infos(ds: &Dataset) -> Vec<MetricInfo> {
    let mut shown: Vec<Option<(&TaxonomyNode, &MetricVariant)>> = vec![None; ds.view_metrics()];
    if let Some(t) = &ds.taxonomy {
        for (n, _) in preorder_nodes(t) {
            let node = &t.nodes[n as usize];
            for v in &node.variants {
                if let Some(slot) = v.metric.and_then(|m| shown.get_mut(m as usize)) {
                    slot.get_or_insert((node, v));
                }
            }
        }
    }
    let name = |m: u32, x: bool| {
        let n = ds.metric_label(m as usize).0;
        if x {
            format!("{n} (E)")
        } else {
            format!("{n} (I)")
        }
    };
    let with_values = metrics_with_values(ds);
    (0..ds.view_metrics())
        .map(|i| {
            let (mname, unit) = ds.metric_label(i);
            let d = ds.derived_metric(i);
            let (description, percent, format) = match shown[i] {
                Some((node, v)) => (node.description.clone(), v.render.percent, v.format.clone()),
                None => (String::new(), ds.taxonomy.is_none() || d.is_none(), None),
            };
            MetricInfo {
                metric: MetricName {
                    index: i as u32,
                    name: mname.to_string(),
                    unit: unit.to_string(),
                },
                description,
                derived: d.is_some(),
                formula_inclusive: d.and_then(|d| d.inclusive.as_ref()).map(|f| f.text(&name)),
                formula_exclusive: d.and_then(|d| d.exclusive.as_ref()).map(|f| f.text(&name)),
                has_inclusive: d.is_none_or(|d| d.inclusive.is_some()),
                has_exclusive: d.is_none_or(|d| d.exclusive.is_some()),
                has_values: with_values[i],
                percent,
                format,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_classes() {
        for (name, unit, class) in [
            ("CPUTIME (sec)", "s", 0),
            ("REALTIME (sec)", "s", 0),
            ("cycles", "", 0),
            ("perf::cycles", "", 0),
            ("perf::cpu-clock", "", 0),
            ("GPUOP (sec)", "s", 1),
            ("GSAMP:PER (cyc)", "", 2),
            ("GKER:COUNT", "", 2),
            ("GINS:STL_ANY", "", 2),
            ("instructions", "", 2),
        ] {
            assert_eq!(time_class(name, unit), class, "{name}");
        }
    }
}
