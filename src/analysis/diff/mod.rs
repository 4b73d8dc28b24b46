//! Comparing two runs of any formats (issue 17): calling contexts matched by call path
//! (matching.rs), metrics by name (metrics.rs), per-function totals (functions.rs), the
//! differential flame graph and details of a comparison (view.rs) and its union tree as a dataset
//! for the delta tables (union_ds.rs). Pure functions of the two datasets.

pub mod functions;
pub mod matching;
pub mod metrics;
pub mod union_ds;
pub mod view;

pub use functions::{diff_functions, function_totals, FunctionDiff, FunctionTotal};
pub use metrics::{MetricPair, Normalize};
pub use view::{Comparison, DiffNodeInfo, DiffTotals, DiffWindow};

#[cfg(test)]
mod tests;
