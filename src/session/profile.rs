//! Profile views of a session's datasets (flame graph, top-down / bottom-up / flat tables,
//! distribution): one `analysis::profile::ProfileView` per dataset, made on first use, and the
//! names the page uses for tables and profile selections.

use super::{request, Result, Session};
use crate::analysis::profile::{ProfileView, TableKind};
use crate::analysis::values::Selection;
use crate::model::Dataset;

impl<H> Session<H> {
    /// Dataset `id` and its profile-view state (made on first use). A comparison id
    /// (`compare_open`) names the comparison's delta-table dataset.
    pub fn profile(&mut self, id: u32) -> Result<(&Dataset, &mut ProfileView)> {
        if super::compare::is_compare_id(id) {
            return self.compare_table(id);
        }
        let ds = self.ws.opened(id)?;
        let pv = self
            .profiles
            .entry(id)
            .or_insert_with(|| ProfileView::new(ds));
        Ok((ds, pv))
    }
}

/// The table named `kind`: "topdown", "bottomup" or "flat".
pub fn table_kind(kind: &str) -> Result<TableKind> {
    TableKind::parse(kind).ok_or_else(|| request(format!("unknown table '{kind}'")))
}

/// The profiles summed, by kind: "summary", "profile" (the first of `indices`) or "subset".
pub fn selection(kind: &str, indices: &[u32]) -> Result<Selection> {
    Ok(match kind {
        "summary" => Selection::Summary,
        "profile" => {
            Selection::Profile(*indices.first().ok_or_else(|| request("no profile given"))? as usize)
        }
        "subset" => Selection::Subset(indices.iter().map(|&i| i as usize).collect()),
        _ => return Err(request(format!("unknown selection '{kind}'"))),
    })
}
