//! The records the profile views receive: metric and profile lists, a context's details, search
//! results, and the struct-of-arrays windows of visible flame rectangles and table rows.

use crate::analysis::flame::FlameFrames;
use crate::analysis::table::TableRows;
use crate::analysis::values::Columns;
use crate::model::Dataset;

/// One metric as the choosers list it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MetricName {
    pub index: u32,
    pub name: String,
    pub unit: String,
}

/// The name tables the flame rectangles and table rows index into.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct NameTables {
    /// Frame names by name id.
    pub names: Vec<String>,
    /// Load modules (short paths) by module id, for the colour-by-module legend.
    pub modules: Vec<String>,
}

/// Where a context's code is: source file and line, load module.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Place {
    pub file: Option<String>,
    pub line: Option<u32>,
    pub module: Option<String>,
}

impl Place {
    /// Where context `node` of `ds` is (its function's file, line and module where the frame
    /// names none).
    pub fn of(ds: &Dataset, node: u32) -> Place {
        let (file, line, module) = ds.frame_place(node);
        Place {
            file: file.map(str::to_string),
            line,
            module: module.map(str::to_string),
        }
    }
}

/// One metric as the selectors list it: the dataset's own, then its taxonomy's formula metrics.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MetricInfo {
    #[serde(flatten)]
    pub metric: MetricName,
    /// From the taxonomy (the first node showing the metric); empty without one.
    pub description: String,
    /// A formula metric, with its formulas as text ("100 * (A / B)").
    pub derived: bool,
    pub formula_inclusive: Option<String>,
    pub formula_exclusive: Option<String>,
    /// Whether the metric has inclusive and exclusive values (a formula metric may have one).
    pub has_inclusive: bool,
    pub has_exclusive: bool,
    /// The summary (or first profile) has a value of it at the root; a formula metric: one of
    /// its inputs has. The tables leave metrics without values out of the default columns.
    pub has_values: bool,
    /// Cells show the percent of the root's value (the taxonomy's `render: percent`; always
    /// without a taxonomy).
    pub percent: bool,
    /// printf-like number format from the taxonomy (`%6.2f %%`).
    pub format: Option<String>,
}

/// The metric tree of a dataset with a taxonomy, for the metric and column choosers.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TaxonomyInfo {
    /// The file it came from.
    pub source: String,
    pub nodes: Vec<crate::model::TaxonomyNode>,
    pub roots: Vec<u32>,
    /// Metrics the tables show as columns by default, in the taxonomy's order: those of the
    /// variants of nodes visible by default whose render does not hide them.
    pub default_columns: Vec<u32>,
}

/// One profile as the profile selector lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProfileEntry {
    pub index: u32,
    pub label: String,
    pub summary: bool,
    /// Position in rank, thread order (lists show profiles so; `index` is file order).
    pub order: u32,
}

/// The profiles of `ds` as the profile selector and the distribution panels list them.
pub fn profile_entries(ds: &Dataset) -> Vec<ProfileEntry> {
    let order = crate::model::profile_order(&ds.profiles, &ds.id_names);
    ds.profiles
        .iter()
        .enumerate()
        .map(|(i, p)| ProfileEntry {
            index: i as u32,
            label: p.label(&ds.id_names),
            summary: p.summary,
            order: order[i],
        })
        .collect()
}

/// What the views need once per dataset.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProfileMeta {
    pub metrics: Vec<MetricInfo>,
    /// The metric tree, when the dataset has a taxonomy.
    pub taxonomy: Option<TaxonomyInfo>,
    pub profiles: Vec<ProfileEntry>,
    pub has_summary: bool,
    pub contexts: u32,
    /// The metric to show first: with a taxonomy its first time metric with a value, otherwise
    /// the first with a non-zero total.
    pub default_metric: u32,
    #[serde(flatten)]
    pub tables: NameTables,
}

/// Everything a tooltip or side panel shows about one context.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NodeInfo {
    pub node: u32,
    /// The format's own context id (HPCToolkit ctxId).
    pub ctx_id: u32,
    pub name: String,
    /// "function", "loop", "line", "instruction", "entry", "root".
    pub kind: String,
    /// "call", "inlined call", "lexical".
    pub relation: String,
    pub inlined: bool,
    #[serde(flatten)]
    pub place: Place,
    pub offset_hex: Option<String>,
    pub depth: u32,
    pub metric: String,
    pub unit: String,
    pub inclusive: f64,
    pub exclusive: f64,
    pub root_inclusive: f64,
    /// Names from the root down to this node.
    pub path: Vec<String>,
}

/// Result of a search over frame names.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SearchInfo {
    pub pattern: String,
    /// Flame frames (in the current flame tree) whose name matches.
    pub frames: u32,
    /// Distinct names that match.
    pub names: u32,
    /// Inclusive total of the matches with nested matches counted once.
    pub total: f64,
    pub root_total: f64,
    pub error: Option<String>,
}

/// Visible flame rectangles, struct-of-arrays, with the flame graph's values of each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlameWindow {
    /// Each rectangle's `node` is the CCT node standing for it (the first of a merged frame).
    pub frames: FlameFrames,
    pub values: Columns,
    /// Bit 0: matches the search; bit 1: inlined; bit 2: lexical level (loop/line).
    pub flags: Vec<u8>,
}

/// Visible rows of a table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableWindow {
    /// Flags bit 2: the row matches the search.
    pub rows: TableRows,
    /// CCT node standing for each row (`u32::MAX` for module/file rows).
    pub cct: Vec<u32>,
    pub labels: Vec<String>,
    /// Row-major: for each row, inclusive and exclusive value of every metric.
    pub values: Vec<f64>,
}

/// Which table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableKind {
    TopDown = 0,
    BottomUp = 1,
    Flat = 2,
}

impl TableKind {
    pub fn parse(s: &str) -> Option<TableKind> {
        match s {
            "topdown" | "top-down" => Some(TableKind::TopDown),
            "bottomup" | "bottom-up" => Some(TableKind::BottomUp),
            "flat" => Some(TableKind::Flat),
            _ => None,
        }
    }
}
