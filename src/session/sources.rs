//! Files a session reads lazily: through a caller's fetcher (HTTP Range requests) or staged (a
//! dropped Blob, whose large reads trace steps defer: src/session/staging.rs). Each goes through a
//! block cache shaped by a [`ReadPlan`]; staged files keep their read counters for the page.

use super::staging::{Staged, Staging, StagingStats};
use super::{request, Result, Session};
use crate::analysis::timeline::progressive::ReadCost;
use crate::block_cache::{BlockCache, Fetch};
use crate::bytes::Source;
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

    fn cache<F: Fetch>(self, fetch: F, size: u64) -> BlockCache<F> {
        BlockCache::new(fetch, size, self.block, self.cache_blocks).with_read_ahead(self.read_ahead)
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

impl<H> Session<H> {
    /// Queues a file of `size` bytes read on demand through `fetch` (called synchronously), as
    /// `plan` says. The trace view samples datasets opened from such files pixel by pixel.
    pub fn add_remote<F: Fetch + 'static>(
        &mut self,
        path: String,
        size: u64,
        fetch: F,
        plan: ReadPlan,
    ) {
        let source = Source::new(path.as_str(), Arc::new(plan.cache(fetch, size)));
        self.pending.push(InputFile { path, source });
        self.pending_remote = true;
    }

    /// Queues a file of `size` bytes read through `fetch` as `plan` says, except that trace steps
    /// defer its reads of `min_defer` bytes or more: they stop, and the caller reads the range
    /// from `handle` asynchronously ([`Session::take_wanted_read`]) and stages it.
    pub fn add_staged<F: Fetch + 'static>(
        &mut self,
        path: String,
        size: u64,
        fetch: F,
        handle: H,
        plan: ReadPlan,
        min_defer: u64,
    ) {
        let staging = Staging::new(size, min_defer);
        self.stages.retain(|(w, _)| w.strong_count() > 0);
        self.stages.push((Rc::downgrade(&staging), handle));
        let cache = plan.cache(Staged::new(fetch, staging), size);
        let source = Source::new(path.as_str(), Arc::new(cache));
        self.pending.push(InputFile { path, source });
        self.pending_blob = true;
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

    /// Reads of staged files so far, all files together.
    pub fn blob_reads(&self) -> StagingStats {
        let mut total = StagingStats::default();
        for s in self.live_stages() {
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
}
