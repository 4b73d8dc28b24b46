//! Bytes fetched ahead by an asynchronous reader. A dropped File can be read synchronously in a
//! Worker (FileReaderSync), but every such read leaves a new buffer for the garbage collector:
//! scanning GBs of trace.db that way piles up hundreds of MB before a collection.

// While *deferring*, a [`Staged`] source answers a read that is not staged with [`PENDING`] and
// records the range it wants; the caller (the Worker) fetches that range asynchronously into
// one reused buffer, [`Staging::put`]s it and repeats the call, which now finds the bytes here.
// A file read over HTTP from a server without multi-range requests is staged the same way, but
// collects many wants per call ([`Staging::new_many`]): the Worker fetches them concurrently.

use crate::block_cache::Fetch;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

/// The error text of a read deferred while its bytes are fetched.
pub const PENDING: &str = "bytes not fetched yet (the read is repeated once they are)";

/// A wanted range grows to at most this many bytes (from the advised sequential range).
pub const WANT_MAX: u64 = 8 << 20;
/// Staged bytes kept per file: a trace row needing up to this much is read without a
/// synchronous read.
pub const STAGE_BYTES: u64 = 24 << 20;
/// Reads deferred without advice between two advices (see `defer_read`).
pub const UNADVISED_MAX: u32 = 8;
/// Evicted ranges remembered per frame (the guard against fetching the same bytes forever).
const EVICTED_MAX: usize = 4096;
/// Ranges a call of a many-wants staging collects at most (the Worker keeps 6 requests in
/// flight: the others wait their turn rather than a new call), and their bytes at most: half
/// the stage, so what arrives does not evict what the call needs next.
pub const WANTS_MAX: usize = 12;
pub const WANTS_BYTES: u64 = STAGE_BYTES / 2;
/// `UNADVISED_MAX` of a many-wants staging: a repeated step replays only cheap searches of
/// cached blocks, and a synchronous read would cost a whole round trip.
const UNADVISED_MAX_MANY: u32 = 64;

/// A staged range: bytes `start..start + len` of the file at `at` in the arena.
struct Entry {
    start: u64,
    at: usize,
    len: usize,
    /// `Staging::generation` when staged.
    generation: u64,
}

/// The staged ranges of one file and what the current call wants fetched.
pub struct Staging {
    size: u64,
    /// Reads shorter than this (after advice) are done synchronously even while deferring.
    min_defer: u64,
    defer: Cell<bool>,
    /// Ranges deferred reads want fetched (at most one unless `many`), in the order wanted.
    want: RefCell<Vec<(u64, u64)>>,
    /// Whether a call collects every range it wants (up to `WANTS_MAX`), not only the first.
    many: bool,
    advice: Cell<Option<(u64, u64)>>,
    /// Staged bytes: one ring of `STAGE_BYTES` (allocated on the first `put`, so a file never
    /// deferred costs nothing), written in turn from `head`; a fixed buffer, so the wasm memory
    /// does not grow with fragments of varying sizes.
    arena: RefCell<Vec<u8>>,
    head: Cell<usize>,
    /// The ranges in the arena, oldest first.
    entries: RefCell<VecDeque<Entry>>,
    /// Bumped by `forget_evicted` (a new call of the view).
    generation: Cell<u64>,
    /// Ranges staged and evicted since `forget_evicted`: wanted again, they are read
    /// synchronously, so a frame needing more bytes than the stage holds still makes progress.
    evicted: RefCell<VecDeque<(u64, u64)>>,
    stats: Cell<StagingStats>,
    /// Reads deferred without advice since the last advice.
    unadvised: Cell<u32>,
    /// Whether the file's open is still to come (a URL's file until its open, see
    /// `Session::open_prefetch`): what is staged until then is kept in `open_store`, range by
    /// range, and freed by `release` once the file is open; the ring is for trace steps.
    for_open: Cell<bool>,
    /// Ranges staged for the open: (start, bytes), in the order staged.
    open_store: RefCell<Vec<(u64, Vec<u8>)>>,
}

/// Where a staged range lies: at an offset of the ring, or in the open's store.
#[derive(Clone, Copy)]
enum Place {
    Ring(usize),
    Open(usize),
}

/// Reads of one file so far: staged (fetched asynchronously) and synchronous (through).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StagingStats {
    pub staged_reads: u64,
    pub staged_bytes: u64,
    pub sync_reads: u64,
    pub sync_bytes: u64,
    /// Synchronous reads of ranges wanted again after they were evicted within one frame.
    pub reread_reads: u64,
}

impl std::ops::AddAssign for StagingStats {
    fn add_assign(&mut self, o: StagingStats) {
        self.staged_reads += o.staged_reads;
        self.staged_bytes += o.staged_bytes;
        self.sync_reads += o.sync_reads;
        self.sync_bytes += o.sync_bytes;
        self.reread_reads += o.reread_reads;
    }
}

impl Staging {
    /// Staging for a file of `size` bytes; reads (after advice) shorter than `min_defer` bytes
    /// are never deferred.
    pub fn new(size: u64, min_defer: u64) -> Rc<Staging> {
        Staging::make(size, min_defer, false)
    }

    /// Staging for a file of `size` bytes whose every read is deferred, a call collecting all
    /// the ranges it wants (up to `WANTS_MAX`, `WANTS_BYTES`) for concurrent fetches.
    pub fn new_many(size: u64) -> Rc<Staging> {
        Staging::make(size, 1, true)
    }

    fn make(size: u64, min_defer: u64, many: bool) -> Rc<Staging> {
        Rc::new(Staging {
            size,
            min_defer,
            defer: Cell::new(false),
            want: RefCell::new(Vec::new()),
            many,
            advice: Cell::new(None),
            arena: RefCell::new(Vec::new()),
            head: Cell::new(0),
            entries: RefCell::new(VecDeque::new()),
            generation: Cell::new(0),
            evicted: RefCell::new(VecDeque::new()),
            stats: Cell::new(StagingStats::default()),
            unadvised: Cell::new(0),
            for_open: Cell::new(many),
            open_store: RefCell::new(Vec::new()),
        })
    }

    /// Turns deferring on (forgetting a want left by an earlier call) or off (keeping the want
    /// of the call that just ended, for `take_want`).
    pub fn set_defer(&self, on: bool) {
        self.defer.set(on);
        if on {
            self.want.borrow_mut().clear();
        }
    }

    /// Starts deferring for a planned open (see `Session::open_prefetch`): as `set_defer(true)`,
    /// with the count of unadvised reads started again (an open reads many small structures).
    pub fn begin_plan(&self) {
        self.set_defer(true);
        self.unadvised.set(0);
    }

    /// Ranges wanted now.
    pub fn wants_count(&self) -> usize {
        self.want.borrow().len()
    }

    /// The first range deferred reads want fetched (`start..end`), taken.
    pub fn take_want(&self) -> Option<(u64, u64)> {
        let mut w = self.want.borrow_mut();
        (!w.is_empty()).then(|| w.remove(0))
    }

    /// Every range deferred reads want fetched, in the order wanted, taken.
    pub fn take_wants(&self) -> Vec<(u64, u64)> {
        std::mem::take(&mut *self.want.borrow_mut())
    }

    /// Whether a deferred read is waiting for its bytes.
    pub fn wants(&self) -> bool {
        !self.want.borrow().is_empty()
    }

    /// Whether the call wants as much as it may (always, once it wants anything, unless `many`):
    /// a caller looking ahead for more reads to fetch at once stops here.
    pub fn wants_full(&self) -> bool {
        let w = self.want.borrow();
        !w.is_empty() && (!self.many || self.full(&w))
    }

    /// Forgets the evicted ranges (when the view calls a new step: what another step evicted
    /// meanwhile is fetched again, asynchronously).
    pub fn forget_evicted(&self) {
        self.evicted.borrow_mut().clear();
        self.generation.set(self.generation.get() + 1);
    }

    pub fn stats(&self) -> StagingStats {
        self.stats.get()
    }

    /// Whether calls collect many wants (a URL on a single-range server), not one (a Blob).
    pub fn is_many(&self) -> bool {
        self.many
    }

    /// Bytes held.
    pub fn held(&self) -> u64 {
        let ring: u64 = self.entries.borrow().iter().map(|e| e.len as u64).sum();
        ring + self
            .open_store
            .borrow()
            .iter()
            .map(|(_, b)| b.len() as u64)
            .sum::<u64>()
    }

    /// Stages `len` bytes at `start`, written by `fill`: before the file's open into the open's
    /// store, after it into the ring (evicting the oldest ranges it overlaps). Ranges past the
    /// end of the file or larger than the ring are refused.
    pub fn put(&self, start: u64, len: u64, fill: impl FnOnce(&mut [u8])) -> Result<(), String> {
        if len == 0 || len > STAGE_BYTES || start.checked_add(len).is_none_or(|e| e > self.size) {
            return Err(format!(
                "cannot stage {len} bytes at {start} of a {}-byte file",
                self.size
            ));
        }
        let mut st = self.stats.get();
        st.staged_reads += 1;
        st.staged_bytes += len;
        self.stats.set(st);
        // Both fit in memory: at most STAGE_BYTES.
        let (len, cap) = (len as usize, STAGE_BYTES as usize);
        if self.for_open.get() {
            let mut bytes = vec![0u8; len];
            fill(&mut bytes);
            let mut store = self.open_store.borrow_mut();
            // At most a ring's worth: the oldest ranges go first.
            let mut held: usize = store.iter().map(|(_, b)| b.len()).sum::<usize>() + len;
            while held > cap && !store.is_empty() {
                held -= store.remove(0).1.len();
            }
            store.push((start, bytes));
            return Ok(());
        }
        let mut arena = self.arena.borrow_mut();
        if arena.len() < cap {
            arena.resize(cap, 0);
        }
        let mut at = self.head.get();
        if at + len > cap {
            at = 0;
        }
        let generation = self.generation.get();
        let mut entries = self.entries.borrow_mut();
        let mut ev = self.evicted.borrow_mut();
        entries.retain(|e| {
            let keep = e.at + e.len <= at || at + len <= e.at;
            if !keep && e.generation == generation {
                if ev.len() >= EVICTED_MAX {
                    ev.pop_front();
                }
                ev.push_back((e.start, e.start + e.len as u64));
            }
            keep
        });
        fill(&mut arena[at..at + len]);
        entries.push_back(Entry {
            start,
            at,
            len,
            generation,
        });
        self.head.set(at + len);
        Ok(())
    }

    /// The staged range holding byte `pos` (the newest, should several): its start, end and
    /// place.
    fn holding(&self, pos: u64) -> Option<(u64, u64, Place)> {
        let store = self.open_store.borrow();
        if let Some((i, (a, b))) = store
            .iter()
            .enumerate()
            .rev()
            .find(|(_, (a, b))| *a <= pos && pos < a + b.len() as u64)
        {
            return Some((*a, a + b.len() as u64, Place::Open(i)));
        }
        self.entries
            .borrow()
            .iter()
            .rev()
            .find(|e| e.start <= pos && pos < e.start + e.len as u64)
            .map(|e| (e.start, e.start + e.len as u64, Place::Ring(e.at)))
    }

    /// Copies the bytes at `start` into `buf` if staged ranges hold them all (one range, or
    /// neighbours: a block-cache run may cross from one prefetched range into the next).
    fn copy(&self, start: u64, buf: &mut [u8]) -> bool {
        let Some(end) = start.checked_add(buf.len() as u64) else {
            return false;
        };
        let mut parts = Vec::new();
        let mut pos = start;
        while pos < end {
            let Some((a, b, place)) = self.holding(pos) else {
                return false;
            };
            let upto = end.min(b);
            parts.push((pos, (pos - a) as usize, (upto - pos) as usize, place));
            pos = upto;
        }
        let arena = self.arena.borrow();
        let store = self.open_store.borrow();
        for (pos, within, n, place) in parts {
            let to = (pos - start) as usize;
            let src = match place {
                Place::Ring(at) => &arena[at + within..at + within + n],
                Place::Open(i) => &store[i].1[within..within + n],
            };
            buf[to..to + n].copy_from_slice(src);
        }
        true
    }

    /// Where the staged bytes from `start` on end, following neighbouring ranges; None when
    /// `start` is not staged.
    pub fn held_until(&self, start: u64) -> Option<u64> {
        let mut end = None;
        let mut pos = start;
        while let Some((_, b, _)) = self.holding(pos) {
            pos = b;
            end = Some(b);
        }
        end
    }

    /// Names ranges (whole blocks, offset order) a planned open will read (see
    /// `Session::open_prefetch`): while deferring, each not staged and not wanted already
    /// becomes a want, however many (the Worker queues them), up to `WANTS_BYTES` in all and
    /// `WANT_MAX` each (larger ones are read when needed).
    pub fn will_need(&self, ranges: &[(u64, u64)]) {
        if !self.defer.get() || !self.many {
            return;
        }
        let mut wants = self.want.borrow_mut();
        let mut total: u64 = wants.iter().map(|(a, b)| b - a).sum();
        for &(a, b) in ranges {
            let b = b.min(self.size);
            if a >= b || b - a > WANT_MAX || total + (b - a) > WANTS_BYTES {
                continue;
            }
            if self.held_until(a).is_some_and(|e| e >= b) {
                continue;
            }
            if wants.iter().any(|&(x, y)| a < y && x < b) {
                continue;
            }
            wants.push((a, b));
            total += b - a;
        }
    }

    /// Frees what was staged for the file's open, once it is open (what the open read is in the
    /// block cache by then); later puts go to the ring (trace steps).
    pub fn release(&self) {
        self.for_open.set(false);
        *self.open_store.borrow_mut() = Vec::new();
    }

    /// Whether a read of `len` bytes at `start` is deferred (its range, grown along the advised
    /// sequential range, becomes the want).
    fn defer_read(&self, start: u64, len: u64) -> bool {
        if !self.defer.get() || len > WANT_MAX {
            return false;
        }
        let end = start.saturating_add(len);
        if self
            .evicted
            .borrow()
            .iter()
            .any(|&(a, b)| a < end && start < b)
        {
            let mut st = self.stats.get();
            st.reread_reads += 1;
            self.stats.set(st);
            return false;
        }
        let mut want_end = end;
        let advised = self.advice.get().filter(|&(a, b)| a <= start && start < b);
        if let Some((_, b)) = advised {
            want_end = want_end.max(b.min(self.size).min(start.saturating_add(WANT_MAX)));
        }
        let want = want_end.saturating_sub(start);
        if want > WANT_MAX || want < self.min_defer.max(1) {
            return false;
        }
        // A failed read repeats the caller's whole step: fine for a few searches before a scan,
        // quadratic for a reader that reads block after block without advice (uftrace replays
        // a line from a checkpoint). Past a few such reads, read synchronously until advice.
        if advised.is_none() {
            let max = if self.many {
                UNADVISED_MAX_MANY
            } else {
                UNADVISED_MAX
            };
            if self.unadvised.get() >= max {
                return false;
            }
            self.unadvised.set(self.unadvised.get() + 1);
        }
        let mut wants = self.want.borrow_mut();
        let (a, b) = (start, start + want);
        // A range overlapping one already wanted waits for that one (it is read again after).
        if wants.is_empty()
            || (self.many && !self.full(&wants) && wants.iter().all(|&(x, y)| b <= x || y <= a))
        {
            wants.push((a, b));
        }
        true
    }

    fn full(&self, wants: &[(u64, u64)]) -> bool {
        wants.len() >= WANTS_MAX || wants.iter().map(|(a, b)| b - a).sum::<u64>() >= WANTS_BYTES
    }
}

/// A `Fetch` backend whose reads go through a [`Staging`] first.
pub struct Staged<F: Fetch> {
    inner: F,
    staging: Rc<Staging>,
}

impl<F: Fetch> Staged<F> {
    pub fn new(inner: F, staging: Rc<Staging>) -> Staged<F> {
        Staged { inner, staging }
    }
}

impl<F: Fetch> Fetch for Staged<F> {
    fn fetch(&self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        let n = usize::try_from(end.saturating_sub(start)).map_err(|_| "read too large")?;
        let mut v = vec![0u8; n];
        self.fetch_into(start, &mut v)?;
        Ok(v)
    }

    fn fetch_into(&self, start: u64, buf: &mut [u8]) -> Result<(), String> {
        if self.staging.copy(start, buf) {
            return Ok(());
        }
        if self.staging.defer_read(start, buf.len() as u64) {
            return Err(PENDING.to_string());
        }
        let mut st = self.staging.stats.get();
        st.sync_reads += 1;
        st.sync_bytes += buf.len() as u64;
        self.staging.stats.set(st);
        self.inner.fetch_into(start, buf)
    }

    /// Every range not staged is wanted (while deferring), so a batch names all it needs at
    /// once; one that is not deferred is read through.
    fn fetch_many(&self, ranges: &[(u64, u64)]) -> Result<Vec<u8>, String> {
        let total: u64 = ranges.iter().map(|&(a, b)| b.saturating_sub(a)).sum();
        let mut out = vec![0u8; usize::try_from(total).map_err(|_| "batch too large")?];
        let mut at = 0usize;
        let mut pending = false;
        for &(a, b) in ranges {
            let n = b.saturating_sub(a) as usize;
            match self.fetch_into(a, &mut out[at..at + n]) {
                Err(e) if e == PENDING => pending = true,
                r => r?,
            }
            at += n;
        }
        if pending {
            return Err(PENDING.to_string());
        }
        Ok(out)
    }

    fn will_need(&self, ranges: &[(u64, u64)]) {
        self.staging.will_need(ranges);
        self.inner.will_need(ranges);
    }

    fn held_until(&self, start: u64) -> Option<u64> {
        self.staging.held_until(start)
    }

    fn advise(&self, start: u64, end: u64) {
        self.staging.advice.set(Some((start, end)));
        self.staging.unadvised.set(0);
        self.inner.advise(start, end);
    }
}

#[cfg(test)]
mod tests;
