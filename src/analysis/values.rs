//! Dense inclusive / exclusive columns of one metric for the summary profile, one profile or the
//! sum over a subset of profiles. Follows HPCToolkit's propagation scopes (doc/FORMATS.md, meta.db
//! "Performance Metrics"): execution = inclusive, function = exclusive (the node plus its lexical
//! children, not crossing calls), point = the node alone. Missing scopes are derived from the others.

use crate::error::{Error, Result};
use crate::model::{Dataset, ScopeKind, SparseValues};

/// Which profiles a column sums.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The summary profile (or, when the format has none, the sum over all profiles).
    Summary,
    /// One profile (index into `Dataset::profiles`).
    Profile(usize),
    /// The sum over these profiles.
    Subset(Vec<usize>),
}

/// Inclusive and exclusive value of every node (index = model node).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    pub inclusive: Vec<f64>,
    pub exclusive: Vec<f64>,
}

/// Profiles a selection reads, and whether they are summary profiles (the summary profile stores
/// statistics under other value ids than the per-profile values).
pub fn selection_profiles(ds: &Dataset, sel: &Selection) -> Result<(Vec<usize>, bool)> {
    let check = |p: usize| -> Result<usize> {
        if p < ds.profiles.len() {
            Ok(p)
        } else {
            Err(Error::invalid(
                &ds.title,
                0,
                format!("profile {p} out of range ({} profiles)", ds.profiles.len()),
            ))
        }
    };
    Ok(match sel {
        Selection::Summary => match ds.summary_profile {
            Some(p) => (vec![check(p)?], true),
            None => (
                (0..ds.profiles.len())
                    .filter(|&p| !ds.profiles[p].summary)
                    .collect(),
                false,
            ),
        },
        Selection::Profile(p) => {
            let p = check(*p)?;
            (vec![p], ds.profiles[p].summary)
        }
        Selection::Subset(ps) => {
            let mut out = Vec::with_capacity(ps.len());
            for &p in ps {
                let p = check(p)?;
                if ds.profiles[p].summary {
                    return Err(Error::invalid(
                        &ds.title,
                        0,
                        "a subset of profiles cannot include the summary profile",
                    ));
                }
                out.push(p);
            }
            out.sort_unstable();
            out.dedup();
            (out, false)
        }
    })
}

/// Columns of metric `metric` for a selection, reading each selected profile's values.
pub fn metric_columns(ds: &Dataset, metric: usize, sel: &Selection) -> Result<Columns> {
    let (profs, summary) = selection_profiles(ds, sel)?;
    let mut loaded = Vec::with_capacity(profs.len());
    for p in profs {
        loaded.push(ds.data.profile_values(p)?);
    }
    let refs: Vec<&SparseValues> = loaded.iter().collect();
    columns_from_values(ds, metric, &refs, summary)
}

/// Columns of view metric `metric` summed over already loaded profile values: a dataset metric's
/// values, or a formula metric computed from the columns of the metrics it reads.
pub fn columns_from_values(
    ds: &Dataset,
    metric: usize,
    values: &[&SparseValues],
    summary: bool,
) -> Result<Columns> {
    let Some(d) = ds.derived_metric(metric) else {
        return raw_columns(ds, metric, values, summary);
    };
    // The metrics the formula reads, each computed once (a formula metric only reads metrics
    // numbered before it, so the recursion ends).
    let mut deps: Vec<(u32, Columns)> = Vec::new();
    let mut ins = Vec::new();
    for f in [&d.inclusive, &d.exclusive].into_iter().flatten() {
        f.inputs(&mut ins);
    }
    for (m, _) in ins {
        if (m as usize) < metric && !deps.iter().any(|(k, _)| *k == m) {
            deps.push((m, columns_from_values(ds, m as usize, values, summary)?));
        }
    }
    let col = |m: u32| deps.iter().find(|(k, _)| *k == m).map(|(_, c)| c);
    Ok(super::derived::derived_columns(ds.cct.tree.len(), d, &col))
}

/// Columns of dataset metric `metric` summed over already loaded profile values.
fn raw_columns(
    ds: &Dataset,
    metric: usize,
    values: &[&SparseValues],
    summary: bool,
) -> Result<Columns> {
    let m = ds.metrics.get(metric).ok_or_else(|| {
        Error::invalid(
            &ds.title,
            0,
            format!(
                "metric {metric} out of range ({} metrics)",
                ds.view_metrics()
            ),
        )
    })?;
    let n = ds.cct.tree.len();
    let column = |id: u16| -> Vec<f64> {
        let mut out = vec![0.0; n];
        for v in values {
            v.add_column_into(id, &mut out);
        }
        out
    };
    let mut incl = m.inclusive(summary).map(column);
    // The root is the model's own synthetic node: a reader may store nothing for it (uftrace
    // does not). Its inclusive value is then the sum over its children, so views have a total.
    if let Some(i) = incl.as_mut() {
        if i.first() == Some(&0.0) {
            let sum: f64 = ds.cct.tree.children(0).map(|c| i[c as usize]).sum();
            i[0] = sum;
        }
    }
    let excl = m.exclusive(summary).map(column);
    let point = m.value_id(ScopeKind::Point, summary).map(column);
    Ok(match (incl, excl, point) {
        (Some(i), Some(e), _) => Columns {
            inclusive: i,
            exclusive: e,
        },
        (Some(i), None, p) => {
            let p = p.unwrap_or_else(|| point_from_inclusive(ds, &i));
            Columns {
                exclusive: exclusive_from_point(ds, &p),
                inclusive: i,
            }
        }
        (None, Some(e), p) => {
            let inclusive = match p {
                Some(p) => inclusive_from_point(ds, &p),
                None => inclusive_from_point(ds, &point_from_exclusive(ds, &e)),
            };
            Columns {
                inclusive,
                exclusive: e,
            }
        }
        (None, None, Some(p)) => Columns {
            inclusive: inclusive_from_point(ds, &p),
            exclusive: exclusive_from_point(ds, &p),
        },
        (None, None, None) => Columns {
            inclusive: vec![0.0; n],
            exclusive: vec![0.0; n],
        },
    })
}

/// Execution scope from point values: each node adds its subtree (reverse preorder, O(n)).
pub fn inclusive_from_point(ds: &Dataset, point: &[f64]) -> Vec<f64> {
    let mut out = point.to_vec();
    out.resize(ds.cct.tree.len(), 0.0);
    for i in (1..ds.cct.tree.len()).rev() {
        let p = ds.cct.tree.parent[i] as usize;
        if p < i {
            out[p] += out[i];
        }
    }
    out
}

/// Function scope from point values: a node adds its lexical descendants, stopping at calls.
pub fn exclusive_from_point(ds: &Dataset, point: &[f64]) -> Vec<f64> {
    let mut out = point.to_vec();
    out.resize(ds.cct.tree.len(), 0.0);
    for i in (1..ds.cct.tree.len()).rev() {
        if super::frames::is_head(ds, i as u32) {
            continue;
        }
        let p = ds.cct.tree.parent[i] as usize;
        if p < i {
            out[p] += out[i];
        }
    }
    out
}

/// The metric a view shows first: with a taxonomy, its first time metric with a value
/// ([`super::derived::taxonomy_default`]); otherwise the first metric whose summary (or summed)
/// inclusive value at the root is non-zero. Reads only the summary profile (or the first profile
/// without one).
pub fn default_metric(ds: &Dataset) -> usize {
    if let Some(m) = super::derived::taxonomy_default(ds, false) {
        return m;
    }
    let (prof, summary) = match ds.summary_profile {
        Some(p) => (p, true),
        None => match (0..ds.profiles.len()).find(|&p| !ds.profiles[p].summary) {
            Some(p) => (p, false),
            None => return 0,
        },
    };
    let Ok(vals) = ds.data.profile_values(prof) else {
        return 0;
    };
    let nonzero = |id: Option<u16>| {
        id.is_some_and(|id| {
            vals.get(0, id) != 0.0 || ds.cct.tree.children(0).any(|c| vals.get(c, id) != 0.0)
        })
    };
    (0..ds.metrics.len())
        .find(|&m| {
            let mt = &ds.metrics[m];
            nonzero(mt.inclusive(summary))
                || nonzero(mt.exclusive(summary))
                || nonzero(mt.value_id(ScopeKind::Point, summary))
        })
        .unwrap_or(0)
}

/// Point values back from inclusive ones: a node's inclusive value less its children's.
pub fn point_from_inclusive(ds: &Dataset, incl: &[f64]) -> Vec<f64> {
    let mut out = incl.to_vec();
    out.resize(ds.cct.tree.len(), 0.0);
    for i in 1..ds.cct.tree.len() {
        let p = ds.cct.tree.parent[i] as usize;
        if p < i {
            out[p] -= incl.get(i).copied().unwrap_or(0.0);
        }
    }
    out
}

/// Point values back from function-scope exclusive ones: a node's exclusive value less that of
/// its lexical children (which it already contains).
pub fn point_from_exclusive(ds: &Dataset, excl: &[f64]) -> Vec<f64> {
    let mut out = excl.to_vec();
    out.resize(ds.cct.tree.len(), 0.0);
    for i in 1..ds.cct.tree.len() {
        if super::frames::is_head(ds, i as u32) {
            continue;
        }
        let p = ds.cct.tree.parent[i] as usize;
        if p < i {
            out[p] -= excl.get(i).copied().unwrap_or(0.0);
        }
    }
    out
}

/// Value of one node in every non-summary profile (index into `Dataset::profiles`, value), for
/// the distribution plot. Uses the context-major values when the format has them, otherwise reads
/// each profile. Inclusive (`exclusive` false) or exclusive value; derived scopes are computed
/// per profile like [`columns_from_values`] does; a formula metric's value in each profile is its
/// formula over that profile's values of its inputs.
pub fn node_distribution(
    ds: &Dataset,
    metric: usize,
    node: u32,
    exclusive: bool,
) -> Result<Vec<(u32, f64)>> {
    let Some(d) = ds.derived_metric(metric) else {
        return raw_distribution(ds, metric, node, exclusive);
    };
    let profs: Vec<u32> = (0..ds.profiles.len())
        .filter(|&p| !ds.profiles[p].summary)
        .map(|p| p as u32)
        .collect();
    let Some(f) = d.formula(exclusive) else {
        return Ok(profs.into_iter().map(|p| (p, 0.0)).collect());
    };
    let mut ins = Vec::new();
    f.inputs(&mut ins);
    // ((metric, exclusive), its distribution) of each input.
    type Dist = Vec<(u32, f64)>;
    let mut deps: Vec<((u32, bool), Dist)> = Vec::new();
    for (m, x) in ins {
        if (m as usize) < metric && !deps.iter().any(|(k, _)| *k == (m, x)) {
            deps.push(((m, x), node_distribution(ds, m as usize, node, x)?));
        }
    }
    Ok(profs
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let v = f.eval(&mut |m, x| {
                deps.iter()
                    .find(|(k, _)| *k == (m, x))
                    .and_then(|(_, d)| d.get(i))
                    .map_or(0.0, |&(_, v)| v)
            });
            (p, v)
        })
        .collect())
}

/// [`node_distribution`] of a dataset metric.
fn raw_distribution(
    ds: &Dataset,
    metric: usize,
    node: u32,
    exclusive: bool,
) -> Result<Vec<(u32, f64)>> {
    let m = ds
        .metrics
        .get(metric)
        .ok_or_else(|| Error::invalid(&ds.title, 0, format!("metric {metric} out of range")))?;
    let id = if exclusive {
        m.exclusive(false)
    } else {
        m.inclusive(false)
    };
    let profs: Vec<usize> = (0..ds.profiles.len())
        .filter(|&p| !ds.profiles[p].summary && ds.data.profile_has_values(p))
        .collect();
    if let Some(id) = id {
        let cv = ds.data.context_values(node)?;
        if !cv.is_empty() {
            let mut out: Vec<(u32, f64)> = profs.iter().map(|&p| (p as u32, 0.0)).collect();
            for (p, vid, v) in cv {
                if vid != id {
                    continue;
                }
                if let Ok(i) = out.binary_search_by_key(&p, |&(q, _)| q) {
                    out[i].1 += v;
                }
            }
            return Ok(out);
        }
    }
    let mut out = Vec::with_capacity(profs.len());
    for p in profs {
        let vals = ds.data.profile_values(p)?;
        let v = match id {
            Some(id) => vals.get(node, id),
            None => {
                let c = columns_from_values(ds, metric, &[&vals], false)?;
                let col = if exclusive { c.exclusive } else { c.inclusive };
                col.get(node as usize).copied().unwrap_or(0.0)
            }
        };
        out.push((p as u32, v));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::folded::{from_folded, FoldedScopes};

    #[test]
    fn inclusive_and_exclusive_from_point_values() {
        let ds = from_folded(
            "main;solve;mpi_wait 30\nmain;solve 10\nmain;loop@s.c:5;line@s.c:6 7\nmain;loop@s.c:5;line@s.c:6;foo 2\nmain 1\n",
            FoldedScopes::Point,
        )
        .unwrap();
        let c = metric_columns(&ds, 0, &Selection::Summary).unwrap();
        let node = |p: &str| crate::analysis::folded::node_of_path(&ds, p).unwrap() as usize;
        assert_eq!(c.inclusive[0], 50.0);
        assert_eq!(c.inclusive[node("main")], 50.0);
        assert_eq!(c.inclusive[node("main;solve")], 40.0);
        assert_eq!(c.exclusive[node("main;solve")], 10.0);
        assert_eq!(c.inclusive[node("main;loop@s.c:5")], 9.0);
        // main's exclusive value takes in its loop and line (function scope) but not foo.
        assert_eq!(c.exclusive[node("main")], 8.0);
        assert_eq!(c.exclusive[node("main;loop@s.c:5")], 7.0);
        assert_eq!(c.exclusive[node("main;loop@s.c:5;line@s.c:6;foo")], 2.0);
    }

    #[test]
    fn every_derivation_agrees() {
        let text = "main;solve;mpi_wait 30\nmain;solve 10\nmain;loop@s.c:5;line@s.c:6 7\nmain;loop@s.c:5;line@s.c:6;foo 2\nmain 1\nmain;f;f;f 4\n";
        let want = metric_columns(
            &from_folded(text, FoldedScopes::Point).unwrap(),
            0,
            &Selection::Summary,
        )
        .unwrap();
        for scopes in [
            FoldedScopes::Inclusive,
            FoldedScopes::Exclusive,
            FoldedScopes::Both,
        ] {
            let ds = from_folded(text, scopes).unwrap();
            let got = metric_columns(&ds, 0, &Selection::Summary).unwrap();
            assert_eq!(got, want, "{scopes:?}");
        }
    }

    #[test]
    fn one_profile_and_subsets() {
        // Three profiles: profile k holds the text's values times (k + 1).
        let ds = crate::analysis::folded::from_folded_profiles("a;b 3\na;c 1\n", 3).unwrap();
        let b = crate::analysis::folded::node_of_path(&ds, "a;b").unwrap() as usize;
        let one = metric_columns(&ds, 0, &Selection::Profile(2)).unwrap();
        assert_eq!((one.inclusive[0], one.inclusive[b]), (12.0, 9.0));
        let sub = metric_columns(&ds, 0, &Selection::Subset(vec![0, 2, 2])).unwrap();
        assert_eq!((sub.inclusive[0], sub.inclusive[b]), (16.0, 12.0));
        let all = metric_columns(&ds, 0, &Selection::Summary).unwrap();
        assert_eq!(all.inclusive[0], 24.0);
        assert!(metric_columns(&ds, 0, &Selection::Profile(3)).is_err());
        assert!(metric_columns(&ds, 5, &Selection::Summary).is_err());
    }

    #[test]
    fn missing_root_value_is_the_sum_of_its_children() {
        let mut ds = from_folded("a;b 3\nc 2\n", FoldedScopes::Both).unwrap();
        // Drop every value of the root, as a reader that never stores the synthetic root does.
        let v = ds.data.profile_values(0).unwrap();
        let kept: Vec<_> = v.iter().filter(|&(n, _, _)| n != 0).collect();
        let v = SparseValues::from_triples(kept);
        ds.data = Box::new(crate::analysis::folded::MemData {
            profiles: vec![v.clone(), v],
        });
        let c = metric_columns(&ds, 0, &Selection::Summary).unwrap();
        assert_eq!(c.inclusive[0], 5.0);
        assert_eq!(default_metric(&ds), 0);
    }

    #[test]
    fn distribution_over_profiles() {
        let ds = crate::analysis::folded::from_folded_profiles("a;b 3\na;c 1\n", 3).unwrap();
        let b = crate::analysis::folded::node_of_path(&ds, "a;b").unwrap();
        let d = node_distribution(&ds, 0, b, false).unwrap();
        assert_eq!(d, [(0, 3.0), (1, 6.0), (2, 9.0)]);
        let a = crate::analysis::folded::node_of_path(&ds, "a").unwrap();
        let d = node_distribution(&ds, 0, a, false).unwrap();
        assert_eq!(d, [(0, 4.0), (1, 8.0), (2, 12.0)]);
        assert_eq!(node_distribution(&ds, 0, a, true).unwrap()[2], (2, 0.0));
    }

    #[test]
    fn deep_path_is_iterative() {
        let path = format!("main{} 5\n", ";f".repeat(100_000));
        let ds = from_folded(&path, FoldedScopes::Point).unwrap();
        let c = metric_columns(&ds, 0, &Selection::Summary).unwrap();
        assert_eq!(c.inclusive[0], 5.0);
        assert_eq!(c.inclusive[50_000], 5.0);
        assert_eq!(c.exclusive[50_000], 0.0);
        assert_eq!(c.exclusive[ds.cct.tree.len() - 1], 5.0);
    }
}
