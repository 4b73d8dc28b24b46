//! Replays one task's records the way `uftrace report` accounts them (uftrace `utils/fstack.c`,
//! `cmds/report.c`): a stack of frames with start time and child time; an EXIT closes the top
//! frame; a frame's self time is its total minus its children's totals; a function's total counts
//! only calls that are not inside another call of the same address (recursion). Scheduler
//! switches while inside a function become `linux:schedule` frames. Quirks kept on purpose: a
//! forked child starts with an EXIT of `fork` that counts a call of zero time; an exec resets the
//! stack; frames left open at the end are closed at the task's last time. Known difference: after
//! a LOST record uftrace 0.13 also reports scheduler switches that happen outside any function
//! (its display depth drifts); here they stay unreported, as without LOST.

use super::dat::{RecordKind, UftraceRecord};
use std::collections::HashMap;

/// Per-function totals of one task (the `uftrace report` columns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuncStat {
    /// Sum of the durations of non-recursive calls.
    pub total_ns: u64,
    pub self_ns: u64,
    pub calls: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// Start time while open; the duration once closed (as uftrace reuses the field).
    total: u64,
    child: u64,
    valid: bool,
    node: u32,
    func: u32,
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
    pub children: HashMap<u64, u32, BuildFx>,
    /// Per node, its last (function, child) looked up.
    last_child: Vec<(u32, u32)>,
}

impl TreeBuilder {
    pub fn new() -> TreeBuilder {
        TreeBuilder {
            parent: vec![u32::MAX],
            func: vec![u32::MAX],
            children: HashMap::default(),
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

/// A fast hasher for small integer keys (the std SipHash costs more than the work per record).
#[derive(Clone, Copy, Default)]
pub struct BuildFx;
impl std::hash::BuildHasher for BuildFx {
    type Hasher = Fx;
    fn build_hasher(&self) -> Fx {
        Fx(0)
    }
}
pub struct Fx(u64);
impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        // The multiply leaves the low bits depending only on the key's low bits, and the table
        // picks buckets by the low bits: keys `parent << 32 | func` of one function (a deep
        // recursion) all landed in one probe chain, quadratic. Rotating brings the well-mixed
        // high bits down (as rustc-hash 2 does).
        self.0.rotate_left(26)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
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
}

impl TaskAccum {
    #[inline]
    fn stat(&mut self, func: u32) -> &mut FuncStat {
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
}

impl TaskStack {
    pub fn depth(&self) -> usize {
        self.sc
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
        let i = func as usize;
        if self.on_stack.len() <= i {
            grow(&mut self.on_stack, i);
        }
        self.on_stack[i] += 1;
    }
    fn pop_func(&mut self, func: u32) {
        if let Some(c) = self.on_stack.get_mut(func as usize) {
            *c = c.saturating_sub(1);
        }
    }
    fn is_open(&self, func: u32) -> bool {
        self.on_stack.get(func as usize).is_some_and(|&c| c > 0)
    }
    fn truncate(&mut self, n: usize) {
        while self.sc > n {
            self.sc -= 1;
            let f = self.slots[self.sc].func;
            self.pop_func(f);
        }
    }

    /// After a LOST record uftrace rebuilds the stack from the next record's depth, keeping the
    /// frames below it as they were.
    #[cold]
    fn recover_after_lost(&mut self, rec: &UftraceRecord) {
        if !self.lost_seen {
            return;
        }
        self.lost_seen = false;
        let mut n = rec.depth as usize;
        if rec.kind == RecordKind::Exit {
            n += 1;
        }
        if n > 0 {
            self.slot(n - 1);
        }
        self.sc = n;
        self.on_stack.iter_mut().for_each(|c| *c = 0);
        for i in 0..n {
            let f = self.slots[i].func;
            self.push_func(f);
        }
    }

    /// A function (or scheduler pseudo-function) entered at `time`; `node` is its tree node.
    #[inline(always)]
    pub fn entry(&mut self, time: u64, func: u32, node: u32, fixup: Fixup) {
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
        match fixup {
            Fixup::Exec => self.truncate(0),
            Fixup::Setjmp => self.setjmp_count = Some(self.sc),
            Fixup::Longjmp => {
                if let Some(n) = self.setjmp_count {
                    self.truncate(n);
                }
            }
            Fixup::None => {}
        }
    }

    /// A function returned at `time`; `func` is what the EXIT record names. Accounts it.
    #[inline(always)]
    pub fn exit(&mut self, time: u64, func: u32, acc: &mut TaskAccum) {
        self.exit_reported(time, func, acc, true)
    }

    /// Function of the top frame, if any.
    pub fn top_func(&self) -> Option<u32> {
        self.sc
            .checked_sub(1)
            .and_then(|i| self.slots.get(i))
            .map(|s| s.func)
    }

    /// Like [`exit`](Self::exit); `report` false closes the frame without counting it (uftrace
    /// accounts a scheduler switch outside any function but does not report it).
    #[inline(always)]
    pub fn exit_reported(&mut self, time: u64, func: u32, acc: &mut TaskAccum, report: bool) {
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
        let st = acc.stat(func);
        if !recursive {
            st.total_ns = st.total_ns.wrapping_add(s.total);
        }
        st.self_ns = st.self_ns.wrapping_add(s.total - s.child.min(s.total));
        st.calls += 1;
        if had {
            let v = acc.node(s.node);
            v[0] = v[0].wrapping_add(s.total);
            v[1] = v[1].wrapping_add(s.total - s.child.min(s.total));
            v[2] += 1;
            v[3] = v[3].wrapping_add(s.total / 1000 * 1000);
        }
    }

    /// A LOST record: the stack is unknown until the next record, whose depth rebuilds it.
    pub fn lost(&mut self, _acc: &mut TaskAccum) {
        self.lost_seen = true;
    }

    /// Called before every ENTRY/EXIT record.
    #[inline(always)]
    pub fn before_record(&mut self, rec: &UftraceRecord) {
        if self.lost_seen {
            self.recover_after_lost(rec);
        }
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
            let st = acc.stat(s.func);
            if !recursive {
                st.total_ns = st.total_ns.wrapping_add(total);
            }
            st.self_ns = st.self_ns.wrapping_add(total - s.child.min(total));
            st.calls += 1;
            let v = acc.node(s.node);
            v[0] = v[0].wrapping_add(total);
            v[1] = v[1].wrapping_add(total - s.child.min(total));
            v[2] += 1;
            v[3] = v[3].wrapping_add(total / 1000 * 1000);
        }
    }
}
