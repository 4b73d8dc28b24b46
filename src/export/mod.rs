//! Writers from the model to other tools' formats, pure functions of a `Dataset` and the analysis:
//! speedscope JSON (speedscope's file-format-spec.ts), Chrome trace event JSON (the "Trace Event
//! Format" document, loads in Perfetto), folded stacks (flamegraph.pl / inferno) and CSV tables.

pub mod chrome;
pub mod csv;
pub mod diff;
pub mod folded;
pub mod spans;
pub mod speedscope;

use crate::analysis::frames::Names;
use crate::analysis::values::{metric_columns, point_from_inclusive, Columns, Selection};
use crate::error::{Error, Result};
use crate::model::Dataset;

/// An export format, as named on the command line and by the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Speedscope,
    Chrome,
    Folded,
    Csv,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "speedscope" => Format::Speedscope,
            "chrome" | "perfetto" => Format::Chrome,
            "folded" | "collapsed" => Format::Folded,
            "csv" => Format::Csv,
            _ => return None,
        })
    }
    /// File name suffix of an export in this format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Speedscope => ".speedscope.json",
            Format::Chrome => ".trace.json",
            Format::Folded => ".folded",
            Format::Csv => ".csv",
        }
    }
    /// MIME type for a download.
    pub fn mime(self) -> &'static str {
        match self {
            Format::Speedscope | Format::Chrome => "application/json",
            Format::Folded => "text/plain",
            Format::Csv => "text/csv",
        }
    }
}

/// Metric index for a `--metric` argument: an exact name, else a case-insensitive prefix;
/// without a name, the first metric whose summary inclusive root value is non-zero (else 0).
pub fn pick_metric(ds: &Dataset, name: Option<&str>) -> Result<usize> {
    if ds.metrics.is_empty() {
        return Err(Error::invalid(
            &ds.title,
            0,
            "the dataset has no metrics to export",
        ));
    }
    if let Some(name) = name {
        if let Some(i) = ds.metrics.iter().position(|m| m.name == name) {
            return Ok(i);
        }
        let lower = name.to_lowercase();
        if let Some(i) = ds
            .metrics
            .iter()
            .position(|m| m.name.to_lowercase().starts_with(&lower))
        {
            return Ok(i);
        }
        let names: Vec<&str> = ds.metrics.iter().map(|m| m.name.as_str()).collect();
        return Err(Error::invalid(
            &ds.title,
            0,
            format!("no metric '{name}' (metrics: {})", names.join(", ")),
        ));
    }
    // With a taxonomy, its first time metric with a value (of the dataset's own metrics: the
    // writers export those).
    if let Some(m) = crate::analysis::derived::taxonomy_default(ds, true) {
        return Ok(m);
    }
    for i in 0..ds.metrics.len() {
        if let Ok(c) = metric_columns(ds, i, &Selection::Summary) {
            if c.inclusive.first().is_some_and(|v| *v != 0.0) {
                return Ok(i);
            }
        }
    }
    Ok(0)
}

/// Exports dataset `ds` in `format`, values of metric `metric` summed over the summary selection.
pub fn export(ds: &Dataset, format: Format, metric: usize) -> Result<String> {
    match format {
        Format::Speedscope => speedscope::write(ds, metric),
        Format::Chrome => chrome::write(ds, metric),
        Format::Folded => folded::write(ds, metric),
        Format::Csv => csv::write(ds),
    }
}

/// What the sampled exports draw: names, summary columns and self (point) values of one metric.
pub(crate) struct Flame {
    pub names: Names,
    pub columns: Columns,
    /// Value of each node alone (inclusive less its children's), so that they sum to the root.
    pub point: Vec<f64>,
}

impl Flame {
    pub fn new(ds: &Dataset, metric: usize) -> Result<Flame> {
        let columns = metric_columns(ds, metric, &Selection::Summary)?;
        let mut point = point_from_inclusive(ds, &columns.inclusive);
        // Subtraction leaves rounding residue (1e-17) where a node has no value of its own.
        let root = columns.inclusive.first().copied().unwrap_or(0.0).abs();
        for p in point.iter_mut() {
            if p.abs() <= root * 1e-12 || !p.is_finite() {
                *p = 0.0;
            }
        }
        Ok(Flame {
            names: Names::new(ds),
            columns,
            point,
        })
    }
}

/// Pops the stack of a preorder walk (node, data of its path) down to node `parent`: what is
/// left is the path of the node whose parent it is.
pub(crate) fn pop_to<T>(stack: &mut Vec<(u32, T)>, parent: u32) {
    while stack.last().is_some_and(|(n, _)| *n != parent) {
        stack.pop();
    }
}

/// A frame name fit for a one-line, `;`-separated stack: control characters become spaces.
pub(crate) fn clean_name(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Shortest text that reads back as the same f64 (integers without ".0").
pub(crate) fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "0".into()
    }
}
