//! Comparisons of two opened datasets (issue 17): one `analysis::diff::Comparison` per (base, new,
//! merged), addressed by a comparison id the page gets from `compare_open`. The delta tables are
//! the comparison's union dataset (base, new and delta metrics) behind a `ProfileView`, reached
//! through [`Session::profile`] with the comparison id, so the page's table code serves both.

use super::{request, Result, Session};
use crate::analysis::diff::view::CompareMeta;
use crate::analysis::diff::{Comparison, DiffTotals, MetricPair, Normalize};
use crate::analysis::profile::ProfileView;
use crate::model::Dataset;

/// Comparison ids start here: dataset ids count up from 1 and never get near it.
pub const FIRST_COMPARE_ID: u32 = 0x4000_0000;

/// One comparison: the datasets it was made from, and its tables' dataset and view state, made
/// on first use after each change of metric or normalisation.
pub struct CompareState {
    pub base: u32,
    pub new: u32,
    pub merged: bool,
    pub cmp: Comparison,
    table: Option<(Dataset, ProfileView)>,
}

/// `compare_open`'s answer: the comparison id and what the view needs once.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CompareOpened {
    pub id: u32,
    #[serde(flatten)]
    pub meta: CompareMeta,
}

/// True for an id `compare_open` gave.
pub fn is_compare_id(id: u32) -> bool {
    id >= FIRST_COMPARE_ID
}

impl<H> Session<H> {
    /// Compares dataset `base` with dataset `new` (function-level trees when `merged`), or finds
    /// the comparison made before. Fails with a message the page shows when a dataset is unknown
    /// or cannot be compared (a trace-only database, no calling contexts).
    pub fn compare_open(&mut self, base: u32, new: u32, merged: bool) -> Result<CompareOpened> {
        let found = self
            .compares
            .iter()
            .find(|(_, c)| c.base == base && c.new == new && c.merged == merged)
            .map(|(&id, _)| id);
        let id = match found {
            Some(id) => id,
            None => {
                let (b, n) = (self.ws.opened(base)?, self.ws.opened(new)?);
                let cmp = Comparison::new(b, n, merged)?;
                let id = FIRST_COMPARE_ID + self.next_compare;
                self.next_compare += 1;
                self.compares.insert(
                    id,
                    CompareState {
                        base,
                        new,
                        merged,
                        cmp,
                        table: None,
                    },
                );
                id
            }
        };
        let (c, b, n) = self.comparison(id)?;
        Ok(CompareOpened {
            id,
            meta: c.cmp.meta(b, n),
        })
    }

    /// Comparison `id` with its base and new datasets: the flame graph, tooltips and
    /// distributions are asked of its `cmp` directly (the tables through [`Session::profile`]).
    pub fn comparison(&mut self, id: u32) -> Result<(&mut CompareState, &Dataset, &Dataset)> {
        let c = self
            .compares
            .get_mut(&id)
            .ok_or_else(|| request(format!("no comparison {id}")))?;
        let b = self.ws.dataset(c.base);
        let n = self.ws.dataset(c.new);
        match (b, n) {
            (Some(b), Some(n)) => Ok((c, b, n)),
            _ => Err(request(format!("comparison {id}: a dataset was closed"))),
        }
    }

    /// Chooses the metric of each run (`None`: the default pair, the first time-like metric both
    /// have) and the normalisation ("none", "scaled", "percent").
    pub fn compare_metric(
        &mut self,
        id: u32,
        pair: Option<MetricPair>,
        normalize: &str,
    ) -> Result<DiffTotals> {
        let norm = Normalize::parse(normalize)
            .ok_or_else(|| request(format!("unknown normalisation '{normalize}'")))?;
        let (c, b, n) = self.comparison(id)?;
        let totals = c.cmp.set_metric(b, n, pair, norm)?;
        c.table = None;
        Ok(totals)
    }

    /// Union nodes from the root down to `node` (the breadcrumb); empty when out of range.
    pub fn compare_flame_path(&mut self, id: u32, node: u32) -> Result<Vec<u32>> {
        let (c, _, _) = self.comparison(id)?;
        if node as usize >= c.cmp.union.len() {
            return Ok(Vec::new());
        }
        Ok(c.cmp.union.path(node))
    }

    /// The delta table of comparison `id` as CSV (`export::diff::write_csv`).
    pub fn compare_export_csv(&mut self, id: u32) -> Result<super::Exported> {
        let (c, b, n) = self.comparison(id)?;
        Ok(super::Exported {
            text: crate::export::diff::write_csv(&c.cmp, b, n)?,
            extension: ".csv",
            mime: "text/csv",
        })
    }

    /// Forgets comparison `id`; false when there was none.
    pub fn compare_close(&mut self, id: u32) -> bool {
        self.compares.remove(&id).is_some()
    }

    /// The tables' dataset of comparison `id` and its view state (made on first use).
    pub(super) fn compare_table(&mut self, id: u32) -> Result<(&Dataset, &mut ProfileView)> {
        let (c, b, n) = self.comparison(id)?;
        if c.cmp.columns().base.inclusive.len() != c.cmp.union.len() {
            return Err(request(format!("comparison {id}: no metric chosen")));
        }
        if c.table.is_none() {
            let ds = c.cmp.union_dataset(b, n)?;
            let pv = ProfileView::new(&ds);
            c.table = Some((ds, pv));
        }
        match &mut c.table {
            Some((ds, pv)) => Ok((&*ds, pv)),
            None => Err(request(format!("comparison {id} has no table"))),
        }
    }
}
