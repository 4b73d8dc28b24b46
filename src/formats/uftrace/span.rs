//! The call under a point of a uftrace timeline (its tooltip): re-reads a task's records from a
//! checkpoint until the innermost call open at that time returns, and formats its arguments and
//! return value from the function's argument specs (seed 004 payloads, `<module>.dbg`).

use super::dat::{self, DatReader, RecordKind, UftraceRecord};
use super::dbg;
use super::timeline::{func_lookup, next_record, Checkpoint, TaskLine, UftraceData};
use crate::error::Result;
use crate::model::{CallPayload, SpanDetail};

/// A call opened during a replay: builder node, start time, arguments.
struct OpenCall {
    node: u32,
    start: u64,
    args: Vec<String>,
}

/// Records a span search reads at most: a tooltip never scans more than a few million.
const MAX_STEPS: u64 = 4_000_000;

impl UftraceData {
    /// Payload of the record at `off` of line `tl` (its bytes up to `next`) as text.
    fn payload_text(
        &self,
        tl: &TaskLine,
        off: u64,
        next: u64,
        rec: &UftraceRecord,
        func: u32,
    ) -> Vec<String> {
        let len = next.saturating_sub(off + dat::RECORD_SIZE);
        if !rec.more || len == 0 || len > 1 << 20 {
            return Vec::new();
        }
        let Some(specs) = self.res.specs.get(func as usize).and_then(|s| s.as_ref()) else {
            return Vec::new();
        };
        let exit = rec.kind == RecordKind::Exit;
        match tl.src.bytes(off + dat::RECORD_SIZE, len, "record payload") {
            Ok(b) => dbg::format_payload(specs.of(exit), exit, &b),
            Err(_) => Vec::new(),
        }
    }

    /// The innermost call open at `time` when it opened after checkpoint `cp`: replays from
    /// there until the call returns. `Ok(None)` when it opened before the checkpoint.
    pub(super) fn span_from(
        &self,
        line: usize,
        cp: Checkpoint,
        time: u64,
    ) -> Result<Option<SpanDetail>> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(None);
        };
        let res = &self.res;
        let mut reader = DatReader::new(&tl.src, self.little, cp.pos);
        let mut func_of = func_lookup(res, &tl.sessions);
        let mut stack: Vec<OpenCall> = Vec::new();
        let mut sched_i = cp.sched as usize;
        // Once past `time`: the depth of the call we report, and the call itself.
        let mut target: Option<(usize, OpenCall)> = None;
        let mut pending = next_record(&mut reader, res, &mut func_of)?;
        let mut steps = 0u64;
        loop {
            steps += 1;
            if steps > MAX_STEPS {
                return Ok(None);
            }
            let (t, is_user) = match (&pending, tl.sched.get(sched_i)) {
                (Some((_, r, _)), Some(s)) => {
                    if r.time <= s.0 {
                        (r.time, true)
                    } else {
                        (s.0, false)
                    }
                }
                (Some((_, r, _)), None) => (r.time, true),
                (None, Some(s)) => (s.0, false),
                (None, None) => break,
            };
            if target.is_none() && t > time {
                match stack.pop() {
                    Some(call) => target = Some((stack.len(), call)),
                    None => return Ok(None),
                }
            }
            // Nothing above the target: a return now is the target's own.
            let at_target = matches!(&target, Some((depth, _)) if stack.len() == *depth);
            // The target's end time and return value, when this step is its return.
            let mut popped_end = None;
            if is_user {
                let Some((off, rec, func)) = pending.take() else {
                    break;
                };
                pending = next_record(&mut reader, res, &mut func_of)?;
                let next_off = pending.as_ref().map(|p| p.0).unwrap_or(reader.pos());
                match rec.kind {
                    RecordKind::Entry => {
                        let parent = stack.last().map(|c| c.node).unwrap_or(cp.node);
                        stack.push(OpenCall {
                            node: self.child_node(parent, func),
                            start: rec.time,
                            args: self.payload_text(tl, off, next_off, &rec, func),
                        });
                    }
                    RecordKind::Exit if at_target => {
                        popped_end =
                            Some((rec.time, self.payload_text(tl, off, next_off, &rec, func)));
                    }
                    RecordKind::Exit => {
                        stack.pop();
                    }
                    RecordKind::Lost => {
                        if target.is_some() {
                            break;
                        }
                        return Ok(None);
                    }
                    RecordKind::Event => {}
                }
            } else {
                let (st, out, func) = tl.sched[sched_i];
                sched_i += 1;
                if out {
                    let parent = stack.last().map(|c| c.node).unwrap_or(cp.node);
                    stack.push(OpenCall {
                        node: self.child_node(parent, func),
                        start: st,
                        args: Vec::new(),
                    });
                } else if at_target {
                    popped_end = Some((st, Vec::new()));
                } else {
                    stack.pop();
                }
            }
            if let (Some((_, call)), Some((end, ret))) = (&target, popped_end) {
                return Ok(Some(SpanDetail {
                    node: self.node_of(call.node),
                    start: call.start,
                    end: Some(end),
                    payload: CallPayload {
                        args: call.args.clone(),
                        retval: ret.into_iter().next(),
                    },
                }));
            }
        }
        Ok(target.map(|(_, call)| SpanDetail {
            node: self.node_of(call.node),
            start: call.start,
            end: None,
            payload: CallPayload {
                args: call.args,
                retval: None,
            },
        }))
    }
}

impl UftraceData {
    /// The payload of the record of `line` at `time` that enters (or, `exit`, returns from) a
    /// call of model node `node`: replays from the last checkpoint before `time`, tracking the
    /// call path as [`UftraceData::replay`] does, so calls opened before the checkpoint count.
    pub(super) fn call_payload(
        &self,
        line: usize,
        node: u32,
        time: u64,
        exit: bool,
    ) -> Result<Option<Vec<String>>> {
        let Some(tl) = self.lines.get(line) else {
            return Ok(None);
        };
        let ci = tl.checkpoints.partition_point(|c| c.time < time);
        let Some(&cp) = tl.checkpoints.get(ci.saturating_sub(1)) else {
            return Ok(None);
        };
        let res = &self.res;
        let mut reader = DatReader::new(&tl.src, self.little, cp.pos);
        let mut func_of = func_lookup(res, &tl.sessions);
        let mut cur = cp.node;
        let mut sched_i = cp.sched as usize;
        let mut pending = next_record(&mut reader, res, &mut func_of)?;
        let mut steps = 0u64;
        while steps < MAX_STEPS {
            steps += 1;
            let take_user = match (&pending, tl.sched.get(sched_i)) {
                (Some((_, r, _)), Some(s)) => r.time <= s.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if !take_user {
                let (t, out, func) = tl.sched[sched_i];
                sched_i += 1;
                if t > time {
                    break;
                }
                cur = if out {
                    self.child_node(cur, func)
                } else {
                    super::timeline::step_node(&self.tree_parent, cur, RecordKind::Exit, cur)
                };
                continue;
            }
            let Some((off, rec, func)) = pending.take() else {
                break;
            };
            pending = next_record(&mut reader, res, &mut func_of)?;
            if rec.time > time && rec.kind != RecordKind::Lost {
                break;
            }
            let next_off = pending.as_ref().map(|p| p.0).unwrap_or(reader.pos());
            match rec.kind {
                RecordKind::Entry => {
                    let child = self.child_node(cur, func);
                    if !exit && rec.time == time && self.node_of(child) == node {
                        return Ok(Some(self.payload_text(tl, off, next_off, &rec, func)));
                    }
                    cur = child;
                }
                RecordKind::Exit => {
                    if exit && rec.time == time && self.node_of(cur) == node {
                        return Ok(Some(self.payload_text(tl, off, next_off, &rec, func)));
                    }
                    cur = super::timeline::step_node(&self.tree_parent, cur, rec.kind, cur);
                }
                // Past a LOST record the path is not known: nothing to report.
                RecordKind::Lost => return Ok(None),
                RecordKind::Event => {}
            }
        }
        Ok(None)
    }
}
