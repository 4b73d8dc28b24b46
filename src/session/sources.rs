//! Files a session reads lazily: through a caller's fetcher (HTTP Range requests) or staged (a
//! dropped Blob, or a URL on a server without multi-range requests, whose reads trace steps defer:
//! src/session/staging.rs). Each goes through a block cache shaped by a [`ReadPlan`]; staged files
//! keep their read counters for the page.

use super::staging::{Staged, Staging, StagingStats};
use super::{request, Result, Session};
use crate::analysis::timeline::progressive::ReadCost;
use crate::block_cache::{BlockCache, Fetch};
use crate::bytes::{ReadAt, Source};
use crate::formats::InputFile;
use std::rc::Rc;
use std::sync::Arc;

/// How a lazily read file is cached: blocks of `block` bytes, `cache_blocks` of them kept, and
/// sequential reads fetching up to `read_ahead` blocks per backend call. The trace view's
/// `ReadCost` of each kind of file assumes its block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadPlan {
    pub block: u64,
    pub cache_blocks: usize,
    pub read_ahead: u64,
}

impl ReadPlan {
    /// A dropped `File` read with FileReaderSync, in 64 KiB blocks. A read costs ~0.35 ms
    /// whatever its size up to hundreds of KiB, then ~2 ns per byte: small blocks keep scattered
    /// probes (binary searches in trace.db, one per zoomed row) cheap, and sequential parsing
    /// reads ahead up to 64 blocks (4 MiB) per call. 256 blocks kept: 16 MiB per file.
    pub const BLOB: ReadPlan = ReadPlan {
        block: ReadCost::BLOB.block,
        cache_blocks: 256,
        read_ahead: 64,
    };
    /// A file read through HTTP Range requests, in 16 KiB blocks: small, because every block
    /// costs transfer and binary searches in trace.db touch one block per probe; sequential
    /// parsing reads ahead up to 16 blocks (256 KiB) per request instead: more would overshoot
    /// the end of a trace line, which the trace view reads whole when zoomed out. 1024 blocks
    /// kept: 16 MiB per file.
    pub const REMOTE: ReadPlan = ReadPlan {
        block: ReadCost::RANGED.block,
        cache_blocks: 1024,
        read_ahead: 16,
    };
    /// A file read through HTTP Range requests from a server that answers one range per request
    /// (object stores, CDNs): `REMOTE`'s blocks and cache, with sequential parsing reading ahead
    /// up to 64 blocks (1 MiB): each request costs a round trip of 20-100 ms, worth more than
    /// the bytes.
    pub const REMOTE_SINGLE: ReadPlan = ReadPlan {
        block: ReadCost::RANGED_SINGLE.block,
        cache_blocks: 1024,
        read_ahead: 64,
    };

    /// The cache over `fetch` boxed: every kind of backend (a Blob, HTTP, staged reads) shares
    /// one compiled block cache (a copy of its read paths is several KB of wasm), and a backend
    /// call costs a read of a file or a request, beside which a dynamic call is nothing.
    fn cache<F: Fetch + 'static>(self, fetch: F, size: u64) -> BlockCache<DynFetch> {
        BlockCache::new(
            DynFetch(Box::new(fetch)),
            size,
            self.block,
            self.cache_blocks,
        )
        .with_read_ahead(self.read_ahead)
    }
}

/// A cache as the session's files hold it (`Source` shares its reader through an `Arc`); a
/// session's caches stay on the session's thread (the engine's worker), so need not be `Sync`.
#[allow(clippy::arc_with_non_send_sync)]
fn shared(cache: BlockCache<DynFetch>) -> Arc<dyn ReadAt> {
    Arc::new(cache)
}

/// A boxed [`Fetch`] backend, every call forwarded (the trait's defaults included, so each
/// backend keeps its own overrides).
pub struct DynFetch(Box<dyn Fetch>);

impl Fetch for DynFetch {
    fn fetch(&self, start: u64, end: u64) -> std::result::Result<Vec<u8>, String> {
        self.0.fetch(start, end)
    }
    fn fetch_into(&self, start: u64, buf: &mut [u8]) -> std::result::Result<(), String> {
        self.0.fetch_into(start, buf)
    }
    fn advise(&self, start: u64, end: u64) {
        self.0.advise(start, end)
    }
    fn will_need(&self, ranges: &[(u64, u64)]) {
        self.0.will_need(ranges)
    }
    fn held_until(&self, start: u64) -> Option<u64> {
        self.0.held_until(start)
    }
    fn fetch_many(&self, ranges: &[(u64, u64)]) -> std::result::Result<Vec<u8>, String> {
        self.0.fetch_many(ranges)
    }
}

/// A range a deferred read is waiting for: read bytes `start..end` of the file `handle` stands
/// for, then [`Session::stage_bytes`] them under `stage`.
#[derive(Debug, PartialEq, Eq)]
pub struct WantedRead<'a, H> {
    pub stage: u32,
    pub start: u64,
    pub end: u64,
    pub handle: &'a H,
}

/// A file queued to be read on demand: `path` in the drop or listing, `size` bytes read through
/// `fetch`, cached as `plan` says.
pub struct LazyFile<F> {
    pub path: String,
    pub size: u64,
    pub fetch: F,
    pub plan: ReadPlan,
}

impl<H> Session<H> {
    /// Queues `file`, read through its fetcher (called synchronously). The trace view samples
    /// datasets opened from such files pixel by pixel.
    pub fn add_remote<F: Fetch + 'static>(&mut self, file: LazyFile<F>) {
        let cache = file.plan.cache(file.fetch, file.size);
        self.queue(file.path, shared(cache), ReadCost::RANGED);
    }

    /// Queues `file`, on a server that answers one range per request, read through its fetcher
    /// (synchronously), except in trace steps: they defer every read that is not staged,
    /// collecting the ranges they want ([`Session::take_wanted_reads`]) for the caller to fetch
    /// concurrently from `handle` and stage; rows after one waiting for its bytes ask for theirs
    /// too. Returns the file's stage (for [`Session::stage_bytes`] of bytes fetched before they
    /// were asked: its first bytes, read while the file was probed).
    pub fn add_remote_deferred<F: Fetch + 'static>(&mut self, file: LazyFile<F>, handle: H) -> u32 {
        let staging = self.new_stage(Staging::new_many(file.size), handle);
        let stage = self.stages.len() as u32 - 1;
        self.pending_stages.push(Rc::downgrade(&staging));
        // Every range costs a request: batches are fetched as whole blocks, none smaller.
        let cache = file
            .plan
            .cache(Staged::new(file.fetch, staging), file.size)
            .with_block_batches();
        self.queue(file.path, shared(cache), ReadCost::RANGED_SINGLE);
        stage
    }

    /// Queues `file`, read through its fetcher, except that trace steps defer its reads of
    /// `min_defer` bytes or more: they stop, and the caller reads the range from `handle`
    /// asynchronously ([`Session::take_wanted_read`]) and stages it.
    pub fn add_staged<F: Fetch + 'static>(&mut self, file: LazyFile<F>, handle: H, min_defer: u64) {
        let staging = self.new_stage(Staging::new(file.size, min_defer), handle);
        let cache = file.plan.cache(Staged::new(file.fetch, staging), file.size);
        self.queue(file.path, shared(cache), ReadCost::BLOB);
    }

    /// Keeps `staging` (weakly: it lives as long as its file's source) with the `handle` its
    /// wanted reads come back with, forgetting the stages of files gone.
    fn new_stage(&mut self, staging: Rc<Staging>, handle: H) -> Rc<Staging> {
        self.stages.retain(|(w, _)| w.strong_count() > 0);
        self.stages.push((Rc::downgrade(&staging), handle));
        staging
    }

    /// Queues file `path` read through `read`, its reads costing `cost`.
    fn queue(&mut self, path: String, read: Arc<dyn ReadAt>, cost: ReadCost) {
        let source = Source::new(path.as_str(), read);
        self.pending.push(InputFile { path, source });
        self.note_cost(cost);
    }

    /// Notes that a queued file's reads cost `c`: the datasets of the next open are sampled for
    /// the costliest of their files' sources.
    fn note_cost(&mut self, c: ReadCost) {
        if self
            .pending_cost
            .is_none_or(|p| p.per_read_ns < c.per_read_ns)
        {
            self.pending_cost = Some(c);
        }
    }

    /// Plans the open of the queued files over single-range servers: opens them as
    /// `open_pending` would, keeping nothing, while reads of their staged files name the ranges
    /// they want instead of fetching them one round trip after another (readers also name what
    /// they will read next: `Source::will_need`). Returns how many ranges are wanted now (take
    /// them with `take_wanted_reads`, fetch them concurrently, `stage_bytes` them and call again:
    /// each call gets one level of the open's chain of reads further); 0 when the open needs
    /// nothing more, or its files are read otherwise.
    pub fn open_prefetch(&mut self) -> usize {
        let many: Vec<Rc<Staging>> = self
            .pending_stages
            .iter()
            .filter_map(|w| w.upgrade())
            .collect();
        if many.is_empty() || self.pending.is_empty() {
            return 0;
        }
        for s in &many {
            s.begin_plan();
        }
        self.ws.rehearse_open(self.pending.clone());
        for s in &many {
            s.set_defer(false);
        }
        many.iter().map(|s| s.wants_count()).sum()
    }

    /// Frees the bytes staged for the open of the files queued (see [`Staging::release`]).
    pub(super) fn release_opened_stages(&mut self) {
        for s in self.pending_stages.drain(..).filter_map(|w| w.upgrade()) {
            s.release();
        }
    }

    /// Every range deferred reads are waiting for, taken, file by file.
    pub fn take_wanted_reads(&self) -> Vec<WantedRead<'_, H>> {
        let mut out = Vec::new();
        for (i, (w, handle)) in self.stages.iter().enumerate() {
            let Some(s) = w.upgrade() else { continue };
            out.extend(s.take_wants().into_iter().map(|(start, end)| WantedRead {
                stage: i as u32,
                start,
                end,
                handle,
            }));
        }
        out
    }

    /// The range a deferred read is waiting for, taken (None when no read waits).
    pub fn take_wanted_read(&self) -> Option<WantedRead<'_, H>> {
        self.stages.iter().enumerate().find_map(|(i, (w, handle))| {
            let (start, end) = w.upgrade().and_then(|s| s.take_want())?;
            Some(WantedRead {
                stage: i as u32,
                start,
                end,
                handle,
            })
        })
    }

    /// Stages `len` bytes read from the file of `stage` at `start`, written by `fill`, for the
    /// next trace step.
    pub fn stage_bytes(
        &self,
        stage: u32,
        start: u64,
        len: u64,
        fill: impl FnOnce(&mut [u8]),
    ) -> Result<()> {
        let s = self
            .stages
            .get(stage as usize)
            .and_then(|(w, _)| w.upgrade())
            .ok_or_else(|| request(format!("no staged file {stage}")))?;
        s.put(start, len, fill).map_err(request)
    }

    /// Reads of staged Blobs (dropped files) so far, all files together.
    pub fn blob_reads(&self) -> StagingStats {
        self.staged_reads(false)
    }

    /// Reads of staged URLs (single-range servers) so far, all files together.
    pub fn remote_staged_reads(&self) -> StagingStats {
        self.staged_reads(true)
    }

    fn staged_reads(&self, many: bool) -> StagingStats {
        let mut total = StagingStats::default();
        for s in self.live_stages().filter(|s| s.is_many() == many) {
            total += s.stats();
        }
        total
    }

    fn live_stages(&self) -> impl Iterator<Item = Rc<Staging>> + '_ {
        self.stages.iter().filter_map(|(w, _)| w.upgrade())
    }

    /// Turns deferred reads of staged files on or off for a trace step (`fresh`: a step the view
    /// called, not one repeated after a read: it may fetch again what was evicted before).
    pub(super) fn defer_reads(&self, on: bool, fresh: bool) {
        for s in self.live_stages() {
            s.set_defer(on);
            if fresh {
                s.forget_evicted();
            }
        }
    }

    /// Whether a deferred read is waiting for its bytes.
    pub(super) fn wants_read(&self) -> bool {
        self.live_stages().any(|s| s.wants())
    }

    /// Whether a trace step whose row waits for its bytes should try the next rows too: some
    /// read is deferred and no staged file wants as much as it may.
    pub(super) fn look_ahead_test(&self) -> impl FnMut() -> bool {
        let stages: Vec<Rc<Staging>> = self.live_stages().collect();
        move || stages.iter().any(|s| s.wants()) && !stages.iter().any(|s| s.wants_full())
    }
}
