//! What an opened XML-era database reads on demand: the summary values experiment.xml carried (in
//! memory), each thread's values from its metric database (node id `i` = row `i`; row 1 is
//! hpcprof's root when no scope has id 1) and the trace records, whose ids name scopes by `it`.

use super::metric_db::MetricDbFile;
use super::trace::XmlTraceLine;
use crate::error::{Error, Result};
use crate::model::{LazyData, SparseValues, TraceSample};
use std::sync::Arc;

/// One thread (a profile after the summary): its values, when the database has them.
pub struct Thread {
    pub rank: u32,
    pub thread: u32,
    pub db: Option<MetricDbFile>,
}

pub struct XmlData {
    summary: Arc<SparseValues>,
    threads: Vec<Thread>,
    lines: Vec<XmlTraceLine>,
    /// (scope id, node) sorted by id.
    node_of_id: Vec<(u32, u32)>,
    /// Scope id of each node (the root's is 0).
    node_ids: Vec<u32>,
    /// (trace id, node) sorted by trace id.
    trace_ids: Vec<(u32, u32)>,
}

impl XmlData {
    pub fn new(
        summary: Arc<SparseValues>,
        threads: Vec<Thread>,
        lines: Vec<XmlTraceLine>,
        node_ids: Vec<u32>,
        trace_ids: Vec<(u32, u32)>,
    ) -> XmlData {
        let node_of_id = crate::model::cct::by_ctx(&node_ids);
        XmlData {
            summary,
            threads,
            lines,
            node_of_id,
            node_ids,
            trace_ids,
        }
    }

    /// The node of a metric-db row id: the scope with that id, or the root for id 1.
    fn node(&self, id: u32) -> Option<u32> {
        match self.node_of_id.binary_search_by_key(&id, |&(c, _)| c) {
            Ok(i) => Some(self.node_of_id[i].1),
            Err(_) => (id == 1).then_some(0),
        }
    }

    /// The row id of a node (the inverse of [`XmlData::node`]).
    fn id_of(&self, node: u32) -> Option<u32> {
        if node == 0 && self.node(1) == Some(0) {
            return Some(1);
        }
        self.node_ids
            .get(node as usize)
            .copied()
            .filter(|&c| c != 0)
    }

    fn line(&self, line: usize) -> Result<&XmlTraceLine> {
        self.lines
            .get(line)
            .ok_or_else(|| Error::invalid("trace", 0, format!("trace line {line} out of range")))
    }

    /// The node a trace record names; an id no scope carries shows as the root.
    fn trace_node(&self, id: u32) -> u32 {
        match self.trace_ids.binary_search_by_key(&id, |&(t, _)| t) {
            Ok(i) => self.trace_ids[i].1,
            Err(_) => 0,
        }
    }
}

impl LazyData for XmlData {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        Ok(self.profile_values_shared(prof)?.as_ref().clone())
    }

    fn profile_values_shared(&self, prof: usize) -> Result<Arc<SparseValues>> {
        if prof == 0 {
            return Ok(self.summary.clone());
        }
        let Some(db) = self.threads.get(prof - 1).and_then(|t| t.db.as_ref()) else {
            return Ok(Arc::new(SparseValues::default()));
        };
        let mut triples = Vec::new();
        db.for_each(|id, col, v| {
            if let Some(n) = self.node(id) {
                triples.push((n, col, v));
            }
        })?;
        Ok(Arc::new(SparseValues::from_triples(triples)))
    }

    /// Threads known only from their trace file have no values.
    fn profile_has_values(&self, prof: usize) -> bool {
        prof == 0 || self.threads.get(prof - 1).is_some_and(|t| t.db.is_some())
    }

    fn context_values(&self, node: u32) -> Result<Vec<(u32, u16, f64)>> {
        // Thread values only, as cct.db gives them: the summary is profile 0's values.
        let mut out: Vec<(u32, u16, f64)> = Vec::new();
        let Some(id) = self.id_of(node) else {
            return Ok(out);
        };
        for (i, t) in self.threads.iter().enumerate() {
            if let Some(db) = &t.db {
                for (col, v) in db.row(id)? {
                    out.push((i as u32 + 1, col, v));
                }
            }
        }
        Ok(out)
    }

    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        Ok(self
            .line(line)?
            .trace
            .records(start, count)?
            .into_iter()
            .map(|r| TraceSample {
                time: r.time_ns,
                node: self.trace_node(r.ctx_id),
            })
            .collect())
    }

    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        self.line(line)?.trace.find(time)
    }
}
