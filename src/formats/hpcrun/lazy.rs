//! The values and trace samples of an opened measurement folder, computed on demand: a profile's
//! point values propagated up the merged tree into exclusive ("function") and inclusive
//! ("execution") values, and trace records mapped to merged nodes.

use super::trace_lines::TraceLine;
use crate::error::{Error, Result};
use crate::model::{LazyData, SparseValues, TraceSample};
use std::collections::HashMap;

/// Values and traces behind a measurement dataset.
pub(super) struct HpcrunData {
    /// Point values per (non-summary) profile: (node, metric, value).
    pub(super) points: Vec<Vec<(u32, u16, f64)>>,
    pub(super) summary: Option<usize>,
    pub(super) parent: Vec<u32>,
    /// Whether a node's value also counts in its parent's exclusive ("function") value.
    pub(super) lexical: Vec<bool>,
    pub(super) traces: Vec<TraceLine>,
}

impl HpcrunData {
    fn propagate(&self, points: &[(u32, u16, f64)]) -> SparseValues {
        let n = self.parent.len();
        let mut by_metric: HashMap<u16, Vec<(u32, f64)>> = HashMap::new();
        for &(node, m, v) in points {
            by_metric.entry(m).or_default().push((node, v));
        }
        let mut triples = Vec::new();
        let mut metrics: Vec<_> = by_metric.into_iter().collect();
        crate::sort::sort_by_key(&mut metrics, |(m, _)| *m);
        for (m, pts) in metrics {
            let mut point = vec![0.0; n];
            for (node, v) in pts {
                if let Some(p) = point.get_mut(node as usize) {
                    *p += v;
                }
            }
            let mut incl = point.clone();
            let mut excl = point.clone();
            // Preorder: every parent precedes its children, so one reverse sweep propagates.
            for i in (1..n).rev() {
                let p = self.parent[i] as usize;
                if p < n {
                    incl[p] += incl[i];
                    if self.lexical[i] {
                        excl[p] += excl[i];
                    }
                }
            }
            let base = m * 3;
            for i in 0..n {
                if point[i] != 0.0 {
                    triples.push((i as u32, base, point[i]));
                }
                if excl[i] != 0.0 {
                    triples.push((i as u32, base + 1, excl[i]));
                }
                if incl[i] != 0.0 {
                    triples.push((i as u32, base + 2, incl[i]));
                }
            }
        }
        SparseValues::from_triples(triples)
    }
}

impl LazyData for HpcrunData {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        if Some(prof) == self.summary {
            let all: Vec<_> = self.points.iter().flatten().copied().collect();
            return Ok(self.propagate(&all));
        }
        match self.points.get(prof) {
            Some(p) => Ok(self.propagate(p)),
            None => Err(Error::invalid("", 0, format!("no profile {prof}"))),
        }
    }
    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        let Some(l) = self.traces.get(line) else {
            return Ok(Vec::new());
        };
        Ok(l.records(start, count)?
            .into_iter()
            .map(|r| TraceSample {
                time: r.time_ns,
                node: l
                    .ctx_map
                    .binary_search_by_key(&r.ctx_id, |&(c, _)| c)
                    .map(|i| l.ctx_map[i].1)
                    .unwrap_or(0),
            })
            .collect())
    }
    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        match self.traces.get(line) {
            Some(l) => l.find(time),
            None => Ok(None),
        }
    }
}
