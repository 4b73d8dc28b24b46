//! Replays one task's records the way `uftrace report` accounts them (uftrace `utils/fstack.c`,
//! `cmds/report.c`): a stack of frames with start and child time; an EXIT closes the top frame;
//! self time is total minus the children's totals; a function's total counts only calls not inside
//! another call of the same address (recursion).

// Scheduler switches while inside a function become `linux:schedule` frames. Quirks kept on
// purpose: a forked child starts with an EXIT of `fork` that counts a call of zero time; an exec
// resets the stack; frames left open at the end are closed at the task's last time. Known
// difference: after a LOST record uftrace 0.13 also reports scheduler switches that happen outside
// any function (its display depth drifts); here they stay unreported, as without LOST.

use super::dat::{RecordKind, UftraceRecord};
use crate::model::IdMap;

/// Per-function totals of one task (the `uftrace report` columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuncStat {
    /// Sum of the durations of non-recursive calls.
    pub total_ns: u64,
    pub self_ns: u64,
    pub calls: u64,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    /// Start time while open; the duration once closed (as uftrace reuses the field).
    total: u64,
    child: u64,
    valid: bool,
    /// Tree node, [`NO_NODE`] for a frame whose entry is not in the task's records.
    node: u32,
    /// [`NO_FUNC`] until a function is entered in the slot (uftrace's address 0).
    func: u32,
}

/// The function of a slot no record entered (uftrace's zeroed frame, address 0, reported as
/// `<0>`: see [`TaskAccum::zero`]).
pub const NO_FUNC: u32 = u32::MAX;
/// The tree node of a frame whose entry is not in the task's records.
const NO_NODE: u32 = u32::MAX;

impl Default for Slot {
    fn default() -> Self {
        Slot {
            total: 0,
            child: 0,
            valid: false,
            node: NO_NODE,
            func: NO_FUNC,
        }
    }
}

/// How a function behaves specially (uftrace's "fixup" list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixup {
    None,
    Exec,
    Setjmp,
    Longjmp,
}

pub fn fixup_of(name: &str) -> Fixup {
    match name {
        "execl" | "execlp" | "execle" | "execv" | "execve" | "execvp" | "execvpe" => Fixup::Exec,
        "setjmp" | "_setjmp" | "sigsetjmp" | "__sigsetjmp" => Fixup::Setjmp,
        "longjmp" | "siglongjmp" | "__longjmp_chk" => Fixup::Longjmp,
        _ => Fixup::None,
    }
}

/// The calling-context tree being built: nodes by (parent, function), builder ids.
#[derive(Default)]
pub struct TreeBuilder {
    pub parent: Vec<u32>,
    pub func: Vec<u32>,
    pub children: IdMap<u64, u32>,
    /// Per node, its last (function, child) looked up.
    last_child: Vec<(u32, u32)>,
}

impl TreeBuilder {
    pub fn new() -> TreeBuilder {
        TreeBuilder {
            parent: vec![u32::MAX],
            func: vec![u32::MAX],
            children: IdMap::default(),
            last_child: vec![(u32::MAX, 0)],
        }
    }
    #[inline(always)]
    pub fn child(&mut self, parent: u32, func: u32) -> u32 {
        // Most calls repeat the previous callee of the same caller.
        if let Some(&(f, c)) = self.last_child.get(parent as usize) {
            if f == func {
                return c;
            }
        }
        let n = self.parent.len() as u32;
        let e = *self.children.entry(tree_key(parent, func)).or_insert(n);
        if e == n {
            self.parent.push(parent);
            self.func.push(func);
            self.last_child.push((u32::MAX, 0));
        }
        if let Some(l) = self.last_child.get_mut(parent as usize) {
            *l = (func, e);
        }
        e
    }
}

/// Key of a child in [`TreeBuilder::children`].
pub fn tree_key(parent: u32, func: u32) -> u64 {
    (parent as u64) << 32 | func as u64
}

/// Grows `v` to hold index `i` (cold: the hot loop indexes existing slots).
#[cold]
#[inline(never)]
fn grow<T: Default + Clone>(v: &mut Vec<T>, i: usize) {
    v.resize(i + 1, T::default());
}

/// A vector indexed by dense ids that allocates only the 256-entry chunks it touches: many
/// threads each calling their own functions must not each hold a row over all functions.
pub struct ChunkVec<T: Copy + Default> {
    chunks: Vec<Option<Box<[T; 256]>>>,
}

impl<T: Copy + Default> Default for ChunkVec<T> {
    fn default() -> Self {
        ChunkVec { chunks: Vec::new() }
    }
}

impl<T: Copy + Default> ChunkVec<T> {
    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        let (c, o) = ((i >> 8) as usize, (i & 255) as usize);
        if self.chunks.len() <= c {
            self.chunks.resize_with(c + 1, || None);
        }
        let chunk = self.chunks[c].get_or_insert_with(|| Box::new([T::default(); 256]));
        &mut chunk[o]
    }
    /// Every (index, value) of the allocated chunks.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> + '_ {
        self.chunks.iter().enumerate().flat_map(|(c, ch)| {
            ch.iter().flat_map(move |b| {
                b.iter()
                    .enumerate()
                    .map(move |(o, v)| ((c * 256 + o) as u32, v))
            })
        })
    }
}

/// Values of one task: report stats per function, tree values per builder node.
#[derive(Default)]
pub struct TaskAccum {
    pub stats: ChunkVec<FuncStat>,
    /// Per builder node: inclusive time, exclusive time, calls, and the inclusive time with each
    /// call truncated to whole microseconds (what `uftrace dump --flame-graph` accounts).
    pub node_vals: ChunkVec<[u64; 4]>,
    /// Report stats of frames no record of the task entered (uftrace's address 0, `<0>`): the
    /// callers a forked child inherits, counted when they return or at the end.
    pub zero: FuncStat,
}

impl TaskAccum {
    #[inline]
    fn stat(&mut self, func: u32) -> &mut FuncStat {
        if func == NO_FUNC {
            return &mut self.zero;
        }
        self.stats.get_mut(func)
    }
    #[inline]
    fn node(&mut self, node: u32) -> &mut [u64; 4] {
        self.node_vals.get_mut(node)
    }
}

/// The frame stack of one task.
#[derive(Default)]
pub struct TaskStack {
    slots: Vec<Slot>,
    sc: usize,
    /// Open frames per function id (uftrace compares addresses; one function, one address).
    on_stack: Vec<u32>,
    pub node: u32,
    setjmp_count: Option<usize>,
    lost_seen: bool,
    /// Time of the last record that was not LOST.
    pub timestamp_last: u64,
    /// uftrace's `user_stack_count`: moves with `sc` on function records (not on scheduler
    /// switches), but a LOST recovery resets only `sc`, so afterwards the two differ.
    usc: usize,
    /// Open frames of slots no record entered ([`NO_FUNC`]).
    open_unknown: u32,
    /// The first record was seen (uftrace's `fstack_set`).
    started: bool,
    /// The pseudo-function of LOST regions in the tree (set by the first LOST record).
    lost_func: u32,
}

impl TaskStack {
    /// A LOST record came last: the next record rebuilds the stack.
    pub fn lost_pending(&self) -> bool {
        self.lost_seen
    }
    #[inline]
    fn slot(&mut self, i: usize) -> &mut Slot {
        if self.slots.len() <= i {
            grow(&mut self.slots, i);
        }
        &mut self.slots[i]
    }
    #[inline]
    fn push_func(&mut self, func: u32) {
        if func == NO_FUNC {
            self.open_unknown += 1;
            return;
        }
        let i = func as usize;
        if self.on_stack.len() <= i {
            grow(&mut self.on_stack, i);
        }
        self.on_stack[i] += 1;
    }
    fn pop_func(&mut self, func: u32) {
        if func == NO_FUNC {
            self.open_unknown = self.open_unknown.saturating_sub(1);
        } else if let Some(c) = self.on_stack.get_mut(func as usize) {
            *c = c.saturating_sub(1);
        }
    }
    /// Whether a frame of `func` is open (uftrace compares addresses; one function, one address).
    fn is_open(&self, func: u32) -> bool {
        if func == NO_FUNC {
            return self.open_unknown > 0;
        }
        self.on_stack.get(func as usize).is_some_and(|&c| c > 0)
    }
    fn truncate(&mut self, n: usize) {
        while self.sc > n {
            self.sc -= 1;
            let f = self.slots[self.sc].func;
            self.pop_func(f);
        }
    }

    /// The task's first record (a scheduler switch counts, at depth 0): uftrace (0.13,
    /// utils/fstack.c) takes its depth as the number of frames already open (one more before an
    /// EXIT) and starts them at its time: the callers a forked child returns through. Those
    /// frames have no function (address 0, reported as `<0>`) and no tree node.
    #[inline(always)]
    fn start(&mut self, time: u64, depth: usize, exit: bool) {
        if self.started {
            return;
        }
        self.started = true;
        let n = depth + exit as usize;
        for i in 0..n {
            let s = self.slot(i);
            s.total = time;
            s.child = 0;
            s.valid = true;
        }
        self.sc = n;
        self.recount_open();
    }

    /// Rebuilds the open-frame counts from the slots below `sc`.
    fn recount_open(&mut self) {
        self.on_stack.iter_mut().for_each(|c| *c = 0);
        self.open_unknown = 0;
        if self.sc > 0 {
            self.slot(self.sc - 1);
        }
        for i in 0..self.sc {
            let f = self.slots[i].func;
            self.push_func(f);
        }
    }

    /// After a LOST record uftrace (0.13, utils/fstack.c) rebuilds the stack from the next
    /// record (a scheduler switch counts, at depth 0): `depth` frames are open (one more before
    /// an EXIT), and the start times of the slots from `usc` to `usc + depth` become the record's
    /// time less 1 ns. The other slots keep what they held, stale or not.
    #[cold]
    fn recover(&mut self, time: u64, depth: usize, exit: bool, tree: &mut TreeBuilder) {
        self.lost_seen = false;
        let n = depth + exit as usize;
        let after = time.wrapping_sub(1);
        for i in self.usc..=self.usc + depth {
            let s = self.slot(i);
            s.total = after;
            s.child = 0;
        }
        // In the tree the frames open after the gap are a chain of LOST frames from the root,
        // so what follows sits at its recorded depth; they keep their slots' functions, which
        // is what uftrace reports them as.
        let mut node = 0;
        for i in 0..n {
            node = tree.child(node, self.lost_func);
            self.slot(i).node = node;
        }
        self.node = node;
        self.sc = n;
        self.recount_open();
    }

    /// Called before each record and scheduler switch: the task's first one opens the frames
    /// below it ([`start`](Self::start)), the first one after a LOST rebuilds the stack.
    #[inline(always)]
    fn resume(&mut self, time: u64, depth: usize, exit: bool, tree: &mut TreeBuilder) {
        self.start(time, depth, exit);
        if self.lost_seen {
            self.recover(time, depth, exit, tree);
        }
    }

    /// Called before a scheduler switch (uftrace replays it as a record at depth 0).
    #[inline(always)]
    pub fn before_sched(&mut self, time: u64, switch_in: bool, tree: &mut TreeBuilder) {
        self.resume(time, 0, switch_in, tree);
    }

    /// A function entered at `time`; `node` is its tree node.
    #[inline(always)]
    pub fn entry(&mut self, time: u64, func: u32, node: u32, fixup: Fixup) {
        self.push_frame(time, func, node);
        self.usc += 1;
        // uftrace's fstack_update: an exec or a longjmp sets both counts.
        match fixup {
            Fixup::Exec => {
                self.truncate(0);
                self.usc = 0;
            }
            Fixup::Setjmp => self.setjmp_count = Some(self.sc),
            Fixup::Longjmp => {
                if let Some(n) = self.setjmp_count {
                    self.truncate(n);
                    self.usc = n;
                }
            }
            Fixup::None => {}
        }
    }

    /// A scheduler switch out at `time`, replayed as a call of `func` (not a user frame: it
    /// leaves `usc` alone).
    pub fn entry_sched(&mut self, time: u64, func: u32, node: u32) {
        self.push_frame(time, func, node);
    }

    #[inline(always)]
    fn push_frame(&mut self, time: u64, func: u32, node: u32) {
        let i = self.sc;
        *self.slot(i) = Slot {
            total: time,
            child: 0,
            valid: true,
            node,
            func,
        };
        self.sc += 1;
        self.push_func(func);
    }

    /// A function returned at `time`; `func` is what the EXIT record names. Accounts it.
    #[inline(always)]
    pub fn exit(&mut self, time: u64, func: u32, acc: &mut TaskAccum) {
        self.exit_reported(time, func, acc, true);
        self.usc = self.usc.saturating_sub(1);
    }

    /// A scheduler switch back in at `time`: closes the switch's frame. uftrace replays every
    /// switch as a call (even outside any function, where it leaves only a stale frame behind)
    /// but skips events outside user functions (`event_skip_out`: `user_stack_count` is 0), so
    /// it reports a switch only inside a function, or after a LOST record, which leaves
    /// `usc` as it was.
    pub fn exit_sched(&mut self, time: u64, func: u32, acc: &mut TaskAccum) {
        let report = self.usc > 0;
        self.exit_reported(time, func, acc, report);
    }

    /// Function of the top frame, if any.
    pub fn top_func(&self) -> Option<u32> {
        self.sc
            .checked_sub(1)
            .and_then(|i| self.slots.get(i))
            .map(|s| s.func)
    }

    /// Closes the top frame; `report` false closes it without counting it (uftrace accounts a
    /// scheduler switch outside any function but does not report it).
    #[inline(always)]
    fn exit_reported(&mut self, time: u64, func: u32, acc: &mut TaskAccum, report: bool) {
        let had = self.sc > 0;
        if had {
            let idx = self.sc - 1;
            let s = self.slot(idx);
            let mut delta = time.saturating_sub(s.total);
            if !s.valid {
                delta = 0;
            }
            s.valid = false;
            s.total = delta;
            if s.child > delta {
                s.child = delta;
            }
            if idx > 0 {
                self.slots[idx - 1].child = self.slots[idx - 1].child.wrapping_add(delta);
            }
            self.sc -= 1;
            let f = self.slots[self.sc].func;
            self.pop_func(f);
        }
        if !report {
            return;
        }
        // Like uftrace, a return with nothing open is still counted, with the stale slot's values.
        // Sums wrap as uftrace's u64 arithmetic does (file timestamps can be anything; a plain
        // `+=` panicked in debug builds on a fuzzed recording).
        let s = *self.slot(self.sc);
        let recursive = self.is_open(s.func);
        let node = if had { s.node } else { NO_NODE };
        count(acc, func, node, s.total, s.child, recursive);
    }

    /// A LOST record, as uftrace 0.13 accounts it (fstack_account_time, then report's
    /// add_lost_fstack): each slot from `sc` down to `usc`, open or not, ends 1 ns after the
    /// start held by the first of them, then those slots are popped and the open ones counted.
    /// While `usc` equals `sc` (a recording of user functions, before any LOST) that is only the
    /// slot above the open frames: its parent, the innermost open frame, gains 1 ns of child
    /// time. The stack is unknown until the next record.
    /// In the tree the gap is a frame of `lost_func` under the root, from the last record before
    /// it to the first after it.
    pub fn lost(&mut self, rec: &UftraceRecord, acc: &mut TaskAccum, lost_func: u32) {
        self.start(rec.time, rec.depth as usize, false);
        self.lost_func = lost_func;
        if self.lost_seen {
            return;
        }
        self.lost_seen = true;
        let mut lost_time = 0u64;
        for i in (self.usc..=self.sc).rev() {
            // Closed slots too: uftrace (0.13) does not look at `valid` here.
            let s = *self.slot(i);
            if lost_time == 0 {
                lost_time = s.total.wrapping_add(1);
            }
            let delta = lost_time.wrapping_sub(s.total);
            let s = &mut self.slots[i];
            s.total = delta;
            s.child = s.child.min(delta);
            if i > 0 {
                self.slots[i - 1].child = self.slots[i - 1].child.wrapping_add(delta);
            }
        }
        if self.sc < self.usc {
            return;
        }
        loop {
            let s = *self.slot(self.sc);
            if s.valid {
                let recursive = self.is_open(s.func);
                count(acc, s.func, s.node, s.total, s.child, recursive);
            }
            if self.sc == 0 {
                break;
            }
            self.sc -= 1;
            let f = self.slots[self.sc].func;
            self.pop_func(f);
            if self.sc < self.usc {
                break;
            }
        }
    }

    /// Called before every ENTRY/EXIT record.
    #[inline(always)]
    pub fn before_record(&mut self, rec: &UftraceRecord, tree: &mut TreeBuilder) {
        self.resume(
            rec.time,
            rec.depth as usize,
            rec.kind == RecordKind::Exit,
            tree,
        );
    }

    /// Closes the frames still open at the end at `last_time` (cmds/report.c add_remaining_fstack).
    pub fn finish(&mut self, last_time: u64, acc: &mut TaskAccum) {
        while self.sc > 0 {
            self.sc -= 1;
            let i = self.sc;
            let f = self.slots[i].func;
            self.pop_func(f);
            let s = self.slots[i];
            if s.total > last_time {
                continue;
            }
            let mut total = last_time - s.total;
            if s.child > total {
                total = s.child;
            }
            self.slots[i].total = total;
            if i > 0 {
                self.slots[i - 1].child = self.slots[i - 1].child.wrapping_add(total);
            }
            let recursive = self.is_open(s.func);
            count(acc, s.func, s.node, total, s.child, recursive);
        }
    }
}

/// Counts one call of `func` lasting `total` with `child` in callees: the report row (its total
/// only when not `recursive`) and its tree node unless [`NO_NODE`].
#[inline(always)]
fn count(acc: &mut TaskAccum, func: u32, node: u32, total: u64, child: u64, recursive: bool) {
    let self_ns = total - child.min(total);
    let st = acc.stat(func);
    if !recursive {
        st.total_ns = st.total_ns.wrapping_add(total);
    }
    st.self_ns = st.self_ns.wrapping_add(self_ns);
    st.calls += 1;
    if node != NO_NODE {
        let v = acc.node(node);
        v[0] = v[0].wrapping_add(total);
        v[1] = v[1].wrapping_add(self_ns);
        v[2] += 1;
        v[3] = v[3].wrapping_add(total / 1000 * 1000);
    }
}
