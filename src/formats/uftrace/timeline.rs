//! The lazily read timeline of a uftrace dataset: each task's records are re-read on demand from a
//! sparse index of checkpoints the streaming pass saved ([`super::scan`]), merged with the task's
//! scheduler switches, and every ENTRY, EXIT, LOST and switch becomes one sample (seed 004 records).

use super::dat::{event_payload_len, DatReader, Payload, RecordKind, UftraceRecord};
use super::dbg;
use super::fstack::tree_key;
use super::resolve::{FuncKey, Resolver};
use crate::bytes::Source;
use crate::error::Result;
use crate::model::{CallPayload, IdMap, LazyData, SpanDetail, SparseValues, TraceSample};

/// Timeline samples between two checkpoints of the sparse index.
pub const CHECKPOINT_EVERY: u64 = 4096;

/// A saved reader position every [`CHECKPOINT_EVERY`] timeline samples.
#[derive(Clone, Copy, Debug)]
pub(super) struct Checkpoint {
    pub sample: u64,
    pub time: u64,
    /// Offset of the next user record to read.
    pub pos: u64,
    /// Accepted scheduler events consumed so far.
    pub sched: u32,
    /// Builder node before the sample.
    pub node: u32,
    /// A LOST record came last: the next record rebuilds the stack (fstack::TaskStack::lost).
    pub lost: bool,
}

/// A scheduler switch that became a pseudo-function call: (time, out?, function).
pub(super) type SchedStep = (u64, bool, u32);

/// The timeline of one task: its records, checkpoints and scheduler switches.
pub(super) struct TaskLine {
    pub tid: u32,
    pub src: Source,
    pub checkpoints: Vec<Checkpoint>,
    pub sched: Vec<SchedStep>,
    pub samples: u64,
    /// Per timeline point: the builder session breakpoints for address resolution.
    pub sessions: Vec<(u64, Option<u32>)>,
}

/// The lazily read parts of a uftrace dataset.
pub struct UftraceData {
    pub(super) res: Resolver,
    pub(super) little: bool,
    pub(super) lines: Vec<TaskLine>,
    pub(super) tree_parent: Vec<u32>,
    pub(super) tree_children: IdMap<u64, u32>,
    pub(super) builder_to_node: Vec<u32>,
    pub(super) profiles: Vec<SparseValues>,
}

/// Key of the (session, address) -> function cache: addresses have 48 bits.
pub(super) fn cache_key(sess: Option<u32>, addr: u64) -> u64 {
    (sess.map(|s| s as u64 + 1).unwrap_or(0) << 48) ^ addr
}

/// The session of a task at time `t`, from its session breakpoints.
pub(super) fn session_at(breaks: &[(u64, Option<u32>)], t: u64) -> Option<u32> {
    let i = breaks.partition_point(|b| b.0 <= t);
    breaks.get(i.saturating_sub(1)).and_then(|b| b.1)
}

/// Node after a record: ENTRY goes to the callee's node, EXIT back to the parent, LOST to the root.
pub(super) fn step_node(parent: &[u32], node: u32, kind: RecordKind, child: u32) -> u32 {
    match kind {
        RecordKind::Entry => child,
        RecordKind::Exit => {
            if node == 0 {
                0
            } else {
                parent.get(node as usize).copied().unwrap_or(0)
            }
        }
        RecordKind::Lost => 0,
        RecordKind::Event => node,
    }
}

/// Function ids of a task's addresses during a re-read, cached by (session, address). Functions
/// the pass did not see are `u32::MAX` (a replay makes no new ones).
pub(super) fn func_lookup<'a>(
    res: &'a Resolver,
    sessions: &'a [(u64, Option<u32>)],
) -> impl FnMut(u64, u64) -> u32 + 'a {
    let mut cache: IdMap<u64, u32> = IdMap::default();
    move |t: u64, addr: u64| -> u32 {
        let sess = session_at(sessions, t);
        *cache.entry(cache_key(sess, addr)).or_insert_with(|| {
            res.func_index
                .get(&res.key_of(sess, addr))
                .copied()
                .unwrap_or(u32::MAX)
        })
    }
}

/// Reads the next record of a replay, sizing payloads from the function's specs.
pub(super) fn next_record(
    reader: &mut DatReader,
    res: &Resolver,
    func_of: &mut impl FnMut(u64, u64) -> u32,
) -> Result<Option<(u64, UftraceRecord, u32)>> {
    let mut fid = u32::MAX;
    let r = reader.next(&mut |rec, data| match rec.kind {
        RecordKind::Event => event_payload_len(data),
        RecordKind::Entry | RecordKind::Exit => {
            fid = func_of(rec.time, rec.addr);
            let exit = rec.kind == RecordKind::Exit;
            match res.specs.get(fid as usize).and_then(|s| s.as_ref()) {
                Some(s) => dbg::record_payload(s.of(exit), exit, data),
                None => Payload::Unknown,
            }
        }
        RecordKind::Lost => Payload::Len(0),
    })?;
    Ok(r.map(|(off, rec)| {
        let f = if matches!(rec.kind, RecordKind::Entry | RecordKind::Exit) {
            if rec.more {
                fid
            } else {
                func_of(rec.time, rec.addr)
            }
        } else {
            u32::MAX
        };
        (off, rec, f)
    }))
}

impl UftraceData {
    /// Replays line `line` from checkpoint `cp`, calling `f(index, time, builder node)` for each
    /// sample until it returns false. A LOST record is a LOST frame under the root, and the
    /// record after it opens a chain of LOST frames as deep as its depth, as the pass built them
    /// ([`super::fstack::TaskStack::lost`]).
    fn replay(
        &self,
        line: usize,
        cp: Checkpoint,
        mut f: impl FnMut(u64, u64, u32) -> bool,
    ) -> Result<()> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(());
        };
        let res = &self.res;
        let mut reader = DatReader::new(&tl.src, self.little, cp.pos);
        let mut node = cp.node;
        let mut sample = cp.sample;
        let mut sched_i = cp.sched as usize;
        let mut last_time = cp.time;
        let mut func_of = func_lookup(res, &tl.sessions);
        let mut pending = next_record(&mut reader, res, &mut func_of)?;
        let mut lost = cp.lost;
        loop {
            let take_user = match (&pending, tl.sched.get(sched_i)) {
                (Some((_, r, _)), Some(s)) => r.time <= s.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_user {
                let Some((_, rec, func)) = pending.take() else {
                    break;
                };
                if rec.kind != RecordKind::Event {
                    if std::mem::take(&mut lost) {
                        node = self.lost_chain(
                            rec.depth as usize + (rec.kind == RecordKind::Exit) as usize,
                        );
                    }
                    let child = if rec.kind == RecordKind::Entry {
                        self.child_node(node, func)
                    } else {
                        node
                    };
                    node = step_node(&self.tree_parent, node, rec.kind, child);
                    if rec.kind == RecordKind::Lost {
                        node = self.lost_chain(1);
                        lost = true;
                    } else {
                        last_time = rec.time;
                    }
                    if !f(sample, last_time, node) {
                        return Ok(());
                    }
                    sample += 1;
                }
                pending = next_record(&mut reader, res, &mut func_of)?;
            } else {
                let (t, out, func) = tl.sched[sched_i];
                sched_i += 1;
                if std::mem::take(&mut lost) {
                    node = self.lost_chain(!out as usize);
                }
                node = if out {
                    self.child_node(node, func)
                } else {
                    step_node(&self.tree_parent, node, RecordKind::Exit, node)
                };
                last_time = t;
                if !f(sample, t, node) {
                    return Ok(());
                }
                sample += 1;
            }
        }
        Ok(())
    }

    /// Builder node of `func` called from `parent`; `parent` itself when the pass never saw that
    /// call.
    pub(super) fn child_node(&self, parent: u32, func: u32) -> u32 {
        self.tree_children
            .get(&tree_key(parent, func))
            .copied()
            .unwrap_or(parent)
    }

    /// The tail of the chain of `n` LOST frames from the root (the root for 0).
    fn lost_chain(&self, n: usize) -> u32 {
        let Some(&lf) = self.res.func_index.get(&FuncKey::Lost) else {
            return 0;
        };
        (0..n).fold(0, |node, _| self.child_node(node, lf))
    }

    fn checkpoint_for_sample(&self, line: usize, sample: u64) -> Option<Checkpoint> {
        let tl = self.lines.get(line)?;
        let i = tl.checkpoints.partition_point(|c| c.sample <= sample);
        tl.checkpoints.get(i.checked_sub(1)?).copied()
    }

    pub(super) fn node_of(&self, b: u32) -> u32 {
        self.builder_to_node.get(b as usize).copied().unwrap_or(0)
    }
}

impl LazyData for UftraceData {
    fn span_at(&self, line: usize, time: u64) -> Result<Option<SpanDetail>> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(None);
        };
        let i = tl.checkpoints.partition_point(|c| c.time <= time);
        // Calls that opened up to 8 checkpoints earlier are found; older ones (main of a huge
        // recording) would need a scan from the start.
        for back in 0..8 {
            let Some(ci) = i.checked_sub(1 + back) else {
                break;
            };
            if let Some(d) = self.span_from(line, tl.checkpoints[ci], time)? {
                return Ok(Some(d));
            }
        }
        Ok(None)
    }

    fn call_payloads(
        &self,
        line: usize,
        node: u32,
        start: u64,
        end: Option<u64>,
    ) -> Result<CallPayload> {
        let args = self.call_payload(line, node, start, false)?;
        let ret = match end {
            Some(e) => self.call_payload(line, node, e, true)?,
            None => None,
        };
        Ok(CallPayload {
            args: args.unwrap_or_default(),
            retval: ret.and_then(|r| r.into_iter().next()),
        })
    }

    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        Ok(self.profiles.get(prof).cloned().unwrap_or_default())
    }

    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        let Some(cp) = self.checkpoint_for_sample(line, start) else {
            return Ok(Vec::new());
        };
        // Bounded: a view asks for a window, never a whole 100-million-sample line.
        let count = count.min(1 << 22);
        let mut out = Vec::with_capacity(count.min(1 << 16) as usize);
        self.replay(line, cp, |i, t, n| {
            if i >= start {
                out.push(TraceSample {
                    time: t,
                    node: self.node_of(n),
                });
            }
            (out.len() as u64) < count
        })?;
        Ok(out)
    }

    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(None);
        };
        let i = tl.checkpoints.partition_point(|c| c.time <= time);
        if i == 0 {
            return Ok(None);
        }
        let cp = tl.checkpoints[i - 1];
        let mut found = None;
        self.replay(line, cp, |idx, t, _| {
            if t <= time {
                found = Some(idx);
                true
            } else {
                false
            }
        })?;
        Ok(found)
    }
}
