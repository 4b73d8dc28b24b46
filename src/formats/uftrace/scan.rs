//! The one streaming pass over each task's records (seed 004 `<tid>.dat`), merged by time with the
//! task's scheduler switches from `perf-cpu*.dat`: grows the calling-context tree, accounts the
//! `uftrace report` values ([`super::fstack`]) and saves the checkpoints the timeline re-reads from.

use super::dat::{event_payload_len, DatReader, Payload, RecordKind, UftraceRecord};
use super::dbg;
use super::fstack::{fixup_of, Fixup, TaskAccum, TaskStack, TreeBuilder};
use super::perf::{PerfEvent, PerfKind};
use super::report::RecordCounts;
use super::resolve::{FuncKey, Resolver};
use super::timeline::{
    cache_key, session_at, step_node, Checkpoint, SchedStep, TaskLine, CHECKPOINT_EVERY,
};
use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::formats::base_name;
use crate::model::IdMap;

/// Entries of the direct-mapped address cache.
const MEMO: usize = 1024;

/// A record read by the pass: its offset, the record, and its function id (`u32::MAX` for EVENT
/// and LOST records).
type Pending = Option<(u64, UftraceRecord, u32)>;

/// Function ids of one task's addresses: a direct-mapped cache in front of a map, because hot
/// loops hit few addresses; both keyed by (session, address).
struct AddrMap {
    /// The task's session breakpoints, and its one session when it never changes.
    breaks: Vec<(u64, Option<u32>)>,
    single_session: Option<Option<u32>>,
    cache: IdMap<u64, u32>,
    memo: [(u64, u32); MEMO],
}

impl AddrMap {
    /// Function id of `addr` at time `t`; new functions are made in `res`.
    #[inline(always)]
    fn func(&mut self, res: &mut Resolver, t: u64, addr: u64) -> u32 {
        let sess = match self.single_session {
            Some(s) => s,
            None => session_at(&self.breaks, t),
        };
        let key = cache_key(sess, addr);
        let slot = &mut self.memo[(addr as usize ^ (addr >> 12) as usize) & (MEMO - 1)];
        if slot.0 == key {
            return slot.1;
        }
        let f = match self.cache.get(&key) {
            Some(&f) => f,
            None => {
                let k = res.key_of(sess, addr);
                let f = res.func(k);
                self.cache.insert(key, f);
                f
            }
        };
        *slot = (key, f);
        f
    }
}

/// The next record by the general reader, counted; a read error ends the task's records (kept
/// in `read_err`).
fn read_next(
    reader: &mut DatReader,
    res: &mut Resolver,
    addrs: &mut AddrMap,
    counts: &mut RecordCounts,
    read_err: &mut Option<Error>,
) -> Pending {
    match try_read_next(reader, res, addrs, counts) {
        Ok(p) => p,
        Err(e) => {
            *read_err = Some(e);
            None
        }
    }
}

/// Reads the next record, sizing argument and return-value payloads from the function's specs.
fn try_read_next(
    reader: &mut DatReader,
    res: &mut Resolver,
    addrs: &mut AddrMap,
    counts: &mut RecordCounts,
) -> Result<Pending> {
    let mut fid = u32::MAX;
    let r = reader.next(&mut |rec, data| match rec.kind {
        RecordKind::Event => event_payload_len(data),
        RecordKind::Entry | RecordKind::Exit => {
            fid = addrs.func(res, rec.time, rec.addr);
            let s = res.spec_cached(fid);
            let exit = rec.kind == RecordKind::Exit;
            dbg::record_payload(s.of(exit), exit, data)
        }
        RecordKind::Lost => Payload::Len(0),
    })?;
    Ok(match r {
        Some((off, rec)) => {
            counts.count(&rec);
            let f = match rec.kind {
                RecordKind::Entry | RecordKind::Exit if rec.more => fid,
                RecordKind::Entry | RecordKind::Exit => addrs.func(res, rec.time, rec.addr),
                _ => u32::MAX,
            };
            Some((off, rec, f))
        }
        None => None,
    })
}

/// What the pass over all tasks shares: the resolver, the tree, and the recording's time range.
pub(super) struct Scan {
    pub res: Resolver,
    pub tree: TreeBuilder,
    /// Per function id, how it behaves specially; grows as functions appear.
    fixups: Vec<Fixup>,
    /// Earliest and latest time of a user record over all tasks (`u64::MAX` and 0 when none).
    pub min_time: u64,
    pub max_time: u64,
    pub little: bool,
    /// The `linux:schedule` pseudo-functions of a switch and of a preemption.
    sched_f: u32,
    sched_p: u32,
    /// The LOST pseudo-function, made at the first LOST record.
    lost_f: Option<u32>,
    /// Time of the last scheduler event of the recording.
    global_last_perf: Option<u64>,
    /// Where a task's session can change: session starts, forks, and 0.
    break_times: Vec<u64>,
}

/// What the pass found in one task.
pub(super) struct TaskScan {
    pub line: TaskLine,
    /// Task name (see [`super::TaskReport::name`]).
    pub comm: String,
    /// Time the task was switched out.
    pub idle_ns: u64,
    pub counts: RecordCounts,
    pub acc: TaskAccum,
}

impl Scan {
    /// A pass over a recording whose scheduler events (sorted by time) are `perf_events`.
    pub fn new(mut res: Resolver, little: bool, perf_events: &[PerfEvent]) -> Scan {
        let global_last_perf = perf_events.last().map(|e| e.time);
        let sched_f = res.func(FuncKey::Sched);
        let sched_p = res.func(FuncKey::SchedPreempt);
        let mut break_times: Vec<u64> = res.sessions.iter().map(|s| s.time_ns).collect();
        break_times.extend(res.tasks.forks.iter().map(|f| f.time_ns));
        break_times.push(0);
        crate::sort::sort_by(&mut break_times, |a, b| a.cmp(b));
        break_times.dedup();
        Scan {
            res,
            tree: TreeBuilder::new(),
            fixups: Vec::new(),
            min_time: u64::MAX,
            max_time: 0,
            little,
            sched_f,
            sched_p,
            lost_f: None,
            global_last_perf,
            break_times,
        }
    }

    /// The pass over task `tid`'s records, before its first record.
    pub fn task_pass(&self, tid: u32) -> TaskPass {
        let breaks: Vec<(u64, Option<u32>)> = self
            .break_times
            .iter()
            .map(|&t| (t, self.res.session_for(tid, t.max(1))))
            .collect();
        // Most tasks live in one session: skip the lookup by time.
        let single_session = breaks
            .iter()
            .all(|b| b.1 == breaks[0].1)
            .then(|| breaks[0].1);
        TaskPass {
            addrs: AddrMap {
                breaks,
                single_session,
                cache: IdMap::default(),
                memo: [(u64::MAX, 0u32); MEMO],
            },
            min_time: u64::MAX,
            max_time: 0,
            counts: RecordCounts::default(),
            acc: TaskAccum::default(),
            stack: TaskStack::default(),
            checkpoints: Vec::new(),
            sched_steps: Vec::new(),
            samples: 0,
            last_user_time: 0,
            last_is_perf: false,
            idle_ns: 0,
            sched_out_at: None,
            comm: String::new(),
            read_err: None,
            resynced: 0,
            pending: None,
            records_done: false,
            ev_i: 0,
        }
    }

    /// The LOST pseudo-function (made at the first LOST record, so a recording without LOST
    /// records has no such function).
    fn lost_func(&mut self) -> u32 {
        let res = &mut self.res;
        *self.lost_f.get_or_insert_with(|| res.func(FuncKey::Lost))
    }

    /// How function `func` behaves specially (exec, setjmp, longjmp).
    fn fixup(&mut self, func: u32) -> Fixup {
        while self.fixups.len() < self.res.funcs.len() {
            let f = &self.res.funcs[self.fixups.len()];
            self.fixups.push(fixup_of(&f.function.name));
        }
        self.fixups
            .get(func as usize)
            .copied()
            .unwrap_or(Fixup::None)
    }
}

/// The state of one task's pass.
pub(super) struct TaskPass {
    addrs: AddrMap,
    /// Earliest and latest time of a user record of the task.
    min_time: u64,
    max_time: u64,
    counts: RecordCounts,
    acc: TaskAccum,
    stack: TaskStack,
    checkpoints: Vec<Checkpoint>,
    sched_steps: Vec<SchedStep>,
    samples: u64,
    /// Time of the last user record (0 after a LOST one).
    last_user_time: u64,
    /// Whether the last thing read was a scheduler event.
    last_is_perf: bool,
    idle_ns: u64,
    sched_out_at: Option<u64>,
    comm: String,
    /// The read error that ended the task's records early.
    read_err: Option<Error>,
    /// Records the reader skipped over for lack of a payload size.
    resynced: u64,
    /// The next record, read and not yet merged with the events; `records_done` once the
    /// reader has no more.
    pending: Pending,
    records_done: bool,
    /// Scheduler events merged so far.
    ev_i: usize,
}

impl TaskPass {
    /// Reads every record of `reader` and every event, in time order (a record first on a tie).
    /// False when a fed reader ran out of bytes first (feed it and call again).
    pub fn run(&mut self, sh: &mut Scan, reader: &mut DatReader, events: &[&PerfEvent]) -> bool {
        loop {
            if self.pending.is_none() && !self.records_done {
                self.pending = read_next(
                    reader,
                    &mut sh.res,
                    &mut self.addrs,
                    &mut self.counts,
                    &mut self.read_err,
                );
                if reader.starved {
                    self.read_err = None;
                    return false;
                }
                self.records_done = self.pending.is_none();
            }
            let take_user = match (&self.pending, events.get(self.ev_i)) {
                (Some((_, r, _)), Some(e)) => r.time <= e.time,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_user {
                let Some((off, rec, func)) = self.pending.take() else {
                    break;
                };
                self.user_record(sh, off, &rec, func);
                // Fast path: a plain ENTRY/EXIT wholly inside the reader's current window (nearly
                // all of them); anything else takes the general reader.
                if let Some((off, rec)) = reader.next_plain() {
                    self.counts.count(&rec);
                    let f = self.addrs.func(&mut sh.res, rec.time, rec.addr);
                    self.pending = Some((off, rec, f));
                }
            } else {
                let e = events[self.ev_i];
                self.ev_i += 1;
                let next_pos = match &self.pending {
                    Some(p) => p.0,
                    None => reader.src_len(),
                };
                self.perf_event(sh, e, next_pos);
            }
        }
        self.resynced = reader.resynced;
        true
    }

    /// A user record at `off` whose function is `func`: one timeline sample (except EVENT), and
    /// a step of the frame stack and of the tree.
    #[inline(always)]
    fn user_record(&mut self, sh: &mut Scan, off: u64, rec: &UftraceRecord, func: u32) {
        self.last_is_perf = false;
        if rec.kind != RecordKind::Lost {
            self.stack.timestamp_last = rec.time;
            self.last_user_time = rec.time;
            self.min_time = self.min_time.min(rec.time);
            self.max_time = self.max_time.max(rec.time);
        } else {
            self.last_user_time = 0;
        }
        if rec.kind != RecordKind::Event {
            if self.samples.is_multiple_of(CHECKPOINT_EVERY) {
                self.checkpoints.push(Checkpoint {
                    sample: self.samples,
                    time: if rec.kind == RecordKind::Lost {
                        self.stack.timestamp_last
                    } else {
                        rec.time
                    },
                    pos: off,
                    sched: self.sched_steps.len() as u32,
                    node: self.stack.node,
                    lost: self.stack.lost_pending(),
                });
            }
            self.samples += 1;
        }
        match rec.kind {
            RecordKind::Entry => {
                self.stack.before_record(rec, &mut sh.tree);
                let node = sh.tree.child(self.stack.node, func);
                let fix = sh.fixup(func);
                self.stack.entry(rec.time, func, node, fix);
                self.stack.node = node;
            }
            RecordKind::Exit => {
                self.stack.before_record(rec, &mut sh.tree);
                self.stack.exit(rec.time, func, &mut self.acc);
                self.stack.node = step_node(&sh.tree.parent, self.stack.node, rec.kind, 0);
            }
            RecordKind::Lost => {
                let lf = sh.lost_func();
                self.stack.lost(rec, &mut self.acc, lf);
                self.stack.node = sh.tree.child(0, lf);
            }
            RecordKind::Event => {}
        }
    }

    /// A scheduler event; `next_pos` is the offset of the next unread user record. uftrace replays
    /// every switch as a call of a pseudo-function (even outside any function, where it leaves
    /// only a stale frame behind) but reports a switch only when it happened inside a function
    /// or after a LOST record ([`TaskStack::exit_sched`]).
    fn perf_event(&mut self, sh: &mut Scan, e: &PerfEvent, next_pos: u64) {
        self.last_is_perf = true;
        self.stack.timestamp_last = e.time;
        let step = match &e.kind {
            PerfKind::SchedOut | PerfKind::SchedOutPreempt => {
                let f = if e.kind == PerfKind::SchedOut {
                    sh.sched_f
                } else {
                    sh.sched_p
                };
                Some((true, f))
            }
            PerfKind::SchedIn => {
                let f = match self.stack.top_func() {
                    Some(f) if f == sh.sched_p => sh.sched_p,
                    _ => sh.sched_f,
                };
                Some((false, f))
            }
            PerfKind::Comm(name) => {
                self.comm = name.clone();
                None
            }
            _ => None,
        };
        match &e.kind {
            PerfKind::SchedOut => self.sched_out_at = Some(e.time),
            PerfKind::SchedIn => {
                if let Some(t) = self.sched_out_at.take() {
                    self.idle_ns = self.idle_ns.saturating_add(e.time.saturating_sub(t));
                }
            }
            _ => {}
        }
        let Some((out, f)) = step else {
            return;
        };
        if self.samples.is_multiple_of(CHECKPOINT_EVERY) {
            self.checkpoints.push(Checkpoint {
                sample: self.samples,
                time: e.time,
                pos: next_pos,
                sched: self.sched_steps.len() as u32,
                node: self.stack.node,
                lost: self.stack.lost_pending(),
            });
        }
        self.samples += 1;
        self.sched_steps.push((e.time, out, f));
        self.stack.before_sched(e.time, !out, &mut sh.tree);
        if out {
            let node = sh.tree.child(self.stack.node, f);
            self.stack.entry_sched(e.time, f, node);
            self.stack.node = node;
        } else {
            self.stack.exit_sched(e.time, f, &mut self.acc);
            self.stack.node = step_node(&sh.tree.parent, self.stack.node, RecordKind::Exit, 0);
        }
    }

    /// Warnings about the task's records, frames still open closed at the task's end, and the
    /// task's name.
    pub fn finish(
        mut self,
        sh: &mut Scan,
        tid: u32,
        src: Source,
        warnings: &mut Vec<Warning>,
    ) -> TaskScan {
        if let Some(e) = self.read_err.take() {
            warnings.push(e.context(format!("task {tid}: records after this point are ignored")));
        }
        if self.resynced > 0 {
            warnings.push(Error::invalid(
                src.name(),
                0,
                format!(
                    "{} record payloads had no known size; skipped to the next record",
                    self.resynced
                ),
            ));
        }
        if self.counts.lost_records > 0 {
            warnings.push(Error::new(
                crate::ErrorKind::Invalid,
                src.name(),
                None,
                format!(
                    "{} LOST records: {} records of task {tid} were lost while recording; call times around them are partial",
                    self.counts.lost_records, self.counts.lost
                ),
            ));
        }
        // uftrace closes open frames at the task's last record time; when that record was a
        // perf event, uftrace's shared record buffer holds the globally last perf event's time.
        let last_time = if self.last_is_perf {
            sh.global_last_perf.unwrap_or(self.stack.timestamp_last)
        } else {
            self.last_user_time
        };
        self.stack.finish(last_time, &mut self.acc);
        if self.acc.zero.calls > 0 {
            // Frames no record entered: uftrace names address 0 `<0>`.
            let f = sh.res.func(FuncKey::Addr(0));
            let z = std::mem::take(&mut self.acc.zero);
            let e = self.acc.stats.get_mut(f);
            e.total_ns = e.total_ns.wrapping_add(z.total_ns);
            e.self_ns = e.self_ns.wrapping_add(z.self_ns);
            e.calls += z.calls;
        }
        sh.min_time = sh.min_time.min(self.min_time);
        sh.max_time = sh.max_time.max(self.max_time);
        if self.comm.is_empty() {
            self.comm = sh
                .res
                .session_for(tid, u64::MAX)
                .and_then(|s| sh.res.tasks.sessions.get(s as usize))
                .map(|s| base_name(&s.exename).to_string())
                .unwrap_or_default();
        }
        TaskScan {
            line: TaskLine {
                tid,
                src,
                checkpoints: self.checkpoints,
                sched: self.sched_steps,
                samples: self.samples,
                sessions: self.addrs.breaks,
            },
            comm: self.comm,
            idle_ns: self.idle_ns,
            counts: self.counts,
            acc: self.acc,
        }
    }
}
