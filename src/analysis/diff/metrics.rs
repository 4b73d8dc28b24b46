//! Which metric of one run compares with which of the other: equal names first, then names equal
//! but for case and a trailing unit (`CPUTIME (sec)` ~ `cputime`); the default pair is the first
//! time-like metric both runs have, else the first pair. Also the normalisations of a comparison.

use crate::model::{Dataset, Metric};

/// A metric of each run that compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MetricPair {
    pub base: u32,
    pub new: u32,
}

/// How values are scaled before they are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Normalize {
    /// Values as the runs recorded them.
    None,
    /// The base run scaled so that its total equals the new run's (flamegraph's `difffolded.pl
    /// -n`): per-sample shares compare when the runs took different numbers of samples.
    Scaled,
    /// Each run's values as a percentage of its own root.
    Percent,
}

impl Normalize {
    pub fn parse(s: &str) -> Option<Normalize> {
        Some(match s {
            "" | "none" => Normalize::None,
            "scaled" | "scale" | "samples" => Normalize::Scaled,
            "percent" | "%" => Normalize::Percent,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Normalize::None => "none",
            Normalize::Scaled => "scaled",
            Normalize::Percent => "percent",
        }
    }
    /// Factors for (base, new) values given the runs' totals; a zero total keeps its values.
    pub fn factors(self, base_total: f64, new_total: f64) -> (f64, f64) {
        let ok = |t: f64| t != 0.0 && t.is_finite();
        match self {
            Normalize::None => (1.0, 1.0),
            Normalize::Scaled if ok(base_total) && ok(new_total) => (new_total / base_total, 1.0),
            Normalize::Scaled => (1.0, 1.0),
            Normalize::Percent => (
                if ok(base_total) {
                    100.0 / base_total
                } else {
                    1.0
                },
                if ok(new_total) {
                    100.0 / new_total
                } else {
                    1.0
                },
            ),
        }
    }
}

/// A metric name without case and trailing unit: `CPUTIME (sec)` -> `cputime`.
pub fn loose_name(name: &str) -> String {
    let t = name.trim();
    let t = match t.rfind(" (") {
        Some(i) if t.ends_with(')') => &t[..i],
        _ => t,
    };
    t.trim().to_lowercase()
}

/// Whether a metric measures time (seconds, cycles of a clock are not time).
pub fn time_like(m: &Metric) -> bool {
    let n = m.name.to_lowercase();
    let unit = m.unit.to_lowercase();
    matches!(
        unit.as_str(),
        "s" | "sec" | "ns" | "us" | "µs" | "ms" | "seconds"
    ) || n.contains("time")
        || n.contains("(sec)")
        || n.contains("clock")
}

/// Pairs of metrics with the same name (exactly, else loosely), in the base run's order; a
/// metric pairs at most once.
pub fn matched_metrics(base: &Dataset, new: &Dataset) -> Vec<MetricPair> {
    let mut used = vec![false; new.metrics.len()];
    let mut out = Vec::new();
    for (bi, bm) in base.metrics.iter().enumerate() {
        let exact = new
            .metrics
            .iter()
            .enumerate()
            .position(|(ni, nm)| !used[ni] && nm.name == bm.name);
        let loose = || {
            let l = loose_name(&bm.name);
            new.metrics
                .iter()
                .enumerate()
                .position(|(ni, nm)| !used[ni] && loose_name(&nm.name) == l)
        };
        if let Some(ni) = exact.or_else(loose) {
            used[ni] = true;
            out.push(MetricPair {
                base: bi as u32,
                new: ni as u32,
            });
        }
    }
    out
}

/// The pair to show first: the first time-like matched metric, else the first matched one.
pub fn default_pair(base: &Dataset, pairs: &[MetricPair]) -> Option<MetricPair> {
    pairs
        .iter()
        .find(|p| base.metrics.get(p.base as usize).is_some_and(time_like))
        .or(pairs.first())
        .copied()
}

/// Metric index of `ds` named `name`: exactly, else loosely, else by a case-insensitive prefix.
pub fn find_metric(ds: &Dataset, name: &str) -> Option<usize> {
    let lower = name.to_lowercase();
    let loose = loose_name(name);
    ds.metrics
        .iter()
        .position(|m| m.name == name)
        .or_else(|| ds.metrics.iter().position(|m| loose_name(&m.name) == loose))
        .or_else(|| {
            ds.metrics
                .iter()
                .position(|m| m.name.to_lowercase().starts_with(&lower))
        })
}

/// Why two runs cannot be compared on a metric, as a sentence naming what each run has.
pub fn no_common_metric(base: &Dataset, new: &Dataset) -> String {
    let list = |ds: &Dataset| {
        if ds.metrics.is_empty() {
            "no metrics".to_string()
        } else {
            let names: Vec<&str> = ds.metrics.iter().take(8).map(|m| m.name.as_str()).collect();
            let more = ds.metrics.len().saturating_sub(8);
            if more > 0 {
                format!("{} and {more} more", names.join(", "))
            } else {
                names.join(", ")
            }
        }
    };
    format!(
        "the runs have no metric in common (base '{}': {}; new '{}': {}); choose one metric of each run",
        base.title,
        list(base),
        new.title,
        list(new)
    )
}
