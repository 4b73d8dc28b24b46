//! The on-demand half of an opened v4.0 database: the model's [`LazyData`] over [`Database`]:
//! profiles from profile.db, context values from cct.db, trace samples from trace.db, each read
//! when asked (FORMATS.md "profile.db", "cct.db", "trace.db" version 4.0).

use super::database::Database;
use super::trace;
use crate::bytes::Source;
use crate::error::Result;
use crate::model::{LazyData, SparseValues, TraceSample};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// The database and, per trace line searched so far, its first and last timestamps (two reads
/// once, then every search of the line starts with an interpolated guess).
pub(super) struct HpcData(Rc<Database>, RefCell<HashMap<usize, (u64, u64)>>);

impl HpcData {
    /// The trace line of each (line, time or sample index) query, with its time or index;
    /// `None` when the database has no trace.db.
    #[allow(clippy::type_complexity)]
    fn line_queries(
        &self,
        queries: &[(usize, u64)],
    ) -> Result<Option<(&Source, Vec<(&trace::TraceLine, u64)>)>> {
        let Some((src, _)) = self.0.trace.as_ref() else {
            return Ok(None);
        };
        let q = queries
            .iter()
            .map(|&(l, x)| Ok((self.0.trace_line(l)?.1, x)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Some((src, q)))
    }

    pub(super) fn new(db: Rc<Database>) -> HpcData {
        HpcData(db, RefCell::default())
    }
}

impl LazyData for HpcData {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        Ok(Arc::unwrap_or_clone(self.profile_values_shared(prof)?))
    }

    fn profile_values_shared(&self, prof: usize) -> Result<Arc<SparseValues>> {
        if Some(prof) == self.0.summary_index {
            return Ok(self.0.summary.clone());
        }
        Ok(Arc::new(self.0.sparse_of(prof)?))
    }

    fn context_values(&self, node: u32) -> Result<Vec<(u32, u16, f64)>> {
        let Some(&ctx) = self.0.ctx_of_node.get(node as usize) else {
            return Ok(Vec::new());
        };
        // A cct.db that lacks values (see `check::CctValues`) is not asked: profile.db has them.
        // The open-time check samples contexts, so a context cct.db has no values for while the
        // summary profile has some is read from profile.db too.
        let stored = if self.0.cct_complete {
            let v = self.0.context_raw(ctx)?;
            let in_summary = self.0.summary.nodes.binary_search(&node).is_ok();
            if v.is_empty() && in_summary && self.0.summary_index.is_some() {
                self.0.context_from_profiles(ctx)?
            } else {
                v
            }
        } else {
            self.0.context_from_profiles(ctx)?
        };
        Ok(stored.into_iter().map(|(m, p, v)| (p, m, v)).collect())
    }

    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        Ok(self
            .0
            .trace_raw(line, start, count)?
            .into_iter()
            // ctxId 0 ("not running") is the root; a ctxId the tree does not list also shows
            // as the root rather than as a dangling node.
            .map(|(time, ctx)| TraceSample {
                time,
                node: self.0.node_of_ctx(ctx).unwrap_or(0),
            })
            .collect())
    }

    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        let (src, l) = self.0.trace_line(line)?;
        let n = l.samples();
        if n == 0 {
            return Ok(None);
        }
        let known = self.1.borrow().get(&line).copied();
        let ends = match known {
            Some(e) => e,
            None => {
                let at = |i: u64| {
                    src.u64_le_at(l.p_start + i * trace::SZ_ELEM, "trace sample timestamp")
                };
                let e = (at(0)?, at(n - 1)?);
                self.1.borrow_mut().insert(line, e);
                e
            }
        };
        trace::find_guided(src, l, time, ends)
    }

    fn trace_scan(
        &self,
        line: usize,
        start: u64,
        count: u64,
        f: &mut dyn FnMut(TraceSample) -> bool,
    ) -> Result<u64> {
        let (src, l) = self.0.trace_line(line)?;
        let n = l.samples();
        let start = start.min(n);
        let end = start.saturating_add(count).min(n);
        // 4 MiB of samples per streamed read, decoded in place (one buffer, reused).
        const CHUNK: u64 = (4 << 20) / trace::SZ_ELEM;
        let mut buf = vec![0u8; (CHUNK.min(end - start) * trace::SZ_ELEM) as usize];
        src.advise_sequential(
            l.p_start + start * trace::SZ_ELEM,
            (end - start) * trace::SZ_ELEM,
        );
        let mut i = start;
        while i < end {
            let k = CHUNK.min(end - i);
            let bytes = &mut buf[..(k * trace::SZ_ELEM) as usize];
            src.read_streamed(l.p_start + i * trace::SZ_ELEM, bytes, "trace samples")?;
            for e in bytes.as_chunks().0 {
                let (time, ctx) = trace::sample(e);
                i += 1;
                let s = TraceSample {
                    time,
                    // As trace_samples: ctxId 0 and unknown ids show as the root.
                    node: self.0.node_of_ctx(ctx).unwrap_or(0),
                };
                if !f(s) {
                    return Ok(i - start);
                }
            }
        }
        Ok(i - start)
    }

    fn trace_find_many(&self, queries: &[(usize, u64)]) -> Result<Vec<Option<u64>>> {
        let Some((src, q)) = self.line_queries(queries)? else {
            return Ok(vec![None; queries.len()]);
        };
        trace::find_many(src, &q)
    }

    fn trace_sample_many(&self, queries: &[(usize, u64)]) -> Result<Vec<Option<TraceSample>>> {
        let Some((src, q)) = self.line_queries(queries)? else {
            return Ok(vec![None; queries.len()]);
        };
        Ok(trace::samples_at(src, &q)?
            .into_iter()
            .map(|s| {
                s.map(|(time, ctx)| TraceSample {
                    time,
                    node: self.0.node_of_ctx(ctx).unwrap_or(0),
                })
            })
            .collect())
    }
}
