//! The metrics of a measurement folder: the union by name of every profile's raw metrics (those
//! without a formula), each with point, function (exclusive) and execution (inclusive) scopes
//! summed over profiles.

use super::profile::RunProfile;
use crate::error::{Error, Result};
use crate::model::{Metric, ScopeKind};
use std::collections::HashMap;

/// Raw metrics of all profiles, merged by name.
pub(super) struct MetricUnion {
    /// Names in order of first appearance; metric `i` has value ids `3i` (point), `3i + 1`
    /// (function) and `3i + 2` (execution).
    pub(super) names: Vec<String>,
    /// Name -> index into `names`.
    pub(super) index: HashMap<String, u16>,
    /// Derived metrics (with a formula) seen, which carry no values and are left out.
    pub(super) n_derived: usize,
}

impl MetricUnion {
    /// The union of the metrics of `profiles`; more than a third of u16 metrics (so value ids
    /// overflow) is an error naming `root`.
    pub(super) fn of(profiles: &[(String, RunProfile)], root: &str) -> Result<MetricUnion> {
        let mut names: Vec<String> = Vec::new();
        let mut index: HashMap<String, u16> = HashMap::new();
        let mut n_derived = 0usize;
        for (_, p) in profiles {
            for e in &p.epochs {
                for d in &e.metrics {
                    if !d.formula.is_empty() {
                        n_derived += 1;
                        continue;
                    }
                    if !index.contains_key(&d.name) {
                        if names.len() >= (u16::MAX / 3) as usize {
                            return Err(Error::too_large(
                                root,
                                0,
                                format!("more than {} metrics", u16::MAX / 3),
                            ));
                        }
                        index.insert(d.name.clone(), names.len() as u16);
                        names.push(d.name.clone());
                    }
                }
            }
        }
        Ok(MetricUnion {
            names,
            index,
            n_derived,
        })
    }

    /// The model's metrics: each with its three scopes, summed over profiles.
    pub(super) fn model_metrics(&self) -> Vec<Metric> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let base = i as u16 * 3;
                let scopes = [
                    ("point", ScopeKind::Point, base),
                    ("function", ScopeKind::Function, base + 1),
                    ("execution", ScopeKind::Execution, base + 2),
                ];
                Metric::summed(name.clone(), unit_of(name), &scopes)
            })
            .collect()
    }
}

/// Unit shown for a metric, from the suffix hpcrun puts in its name.
fn unit_of(name: &str) -> &'static str {
    if name.ends_with("(sec)") {
        "s"
    } else if name.ends_with("(usec)") {
        "us"
    } else if name.ends_with("(ns)") {
        "ns"
    } else if name.ends_with("(B)") {
        "B"
    } else {
        ""
    }
}
