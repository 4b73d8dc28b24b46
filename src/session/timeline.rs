//! Trace-view state of a session's datasets (src/analysis/timeline/view.rs) and the defer/stage
//! read protocol of its progressive frames: a step over a staged file stops at a read it wants,
//! the caller reads and stages the range, then continues the step (see `Session::timeline_begin`).

use super::{request, Result, Session, SessionError};
use crate::analysis::timeline::progressive::ReadCost;
use crate::analysis::timeline::view::{self, Progress, TimelineCache};
pub use crate::analysis::timeline::view::{FrameRequest, LineWindow};
use crate::model::Dataset;

/// What a progressive step answers.
#[derive(Debug)]
pub enum Step {
    /// The frame to show, packed as `view::frame_packed`, and how far it is.
    Frame(Vec<u32>, Progress),
    /// Stopped at a deferred read (the error is the one the read gave): the frame job is kept as
    /// it was before the row that wanted it, and [`Session::take_wanted_read`] names the range.
    Wants(SessionError),
}

impl<H> Session<H> {
    /// Dataset `id` and its trace-view state, made on first use with the read cost of its source.
    pub fn timeline(&mut self, id: u32) -> Result<(&Dataset, &mut TimelineCache)> {
        let ds = self
            .ws
            .dataset(id)
            .ok_or_else(|| request(format!("no dataset {id}")))?;
        let cost = self.costs.get(&id).copied().unwrap_or(ReadCost::MEMORY);
        let cache = self
            .timelines
            .entry(id)
            .or_insert_with(|| TimelineCache::with_cost(cost));
        Ok((ds, cache))
    }

    /// The exact frame `req`, packed as `view::frame_packed`. `keep` makes it the frame the
    /// summary describes (the minimap passes false).
    pub fn timeline_frame(&mut self, id: u32, req: &FrameRequest, keep: bool) -> Result<Vec<u32>> {
        let (ds, cache) = self.timeline(id)?;
        let last = cache.last.take();
        let out = view::frame_packed(ds, cache, req)?;
        if !keep {
            cache.last = last;
        }
        Ok(out)
    }

    /// Starts a progressive frame in `slot` (0: main view, 1: minimap) and works on it until
    /// `stop()`. Until the progress says `exact`, rows not refined yet show a refined neighbour;
    /// `timeline_refine` continues.
    ///
    /// Staged files are not read synchronously in a step (in the Worker each FileReaderSync read
    /// leaves a buffer for the garbage collector, and zoomed out a frame reads GBs): a read that is
    /// not staged stops the step with [`Step::Wants`]. The caller then reads
    /// [`Session::take_wanted_read`] asynchronously, [`Session::stage_bytes`] it and calls
    /// `timeline_refine` resumed (or `timeline_progress` when its time is up).
    pub fn timeline_begin(
        &mut self,
        id: u32,
        slot: u32,
        req: &FrameRequest,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Step> {
        self.deferred_step(id, true, stop, |ds, cache, stop, ahead| {
            view::frame_begin(ds, cache, slot as usize, req, stop, ahead)
        })
    }

    /// Works on the progressive frame of `slot` until `stop()`; same answer as `timeline_begin`.
    /// `resumed`: repeated once the read the last step wanted is staged. Ranges evicted from the
    /// stage since the view's call began are then read synchronously, so a row needing more than
    /// the stage holds still progresses. (Between the view's calls the stage is shared with the
    /// other slot's steps, whose reads may evict what this one staged: those ranges are fetched
    /// again asynchronously.)
    pub fn timeline_refine(
        &mut self,
        id: u32,
        slot: u32,
        resumed: bool,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Step> {
        self.deferred_step(id, !resumed, stop, |ds, cache, stop, ahead| {
            view::frame_refine(ds, cache, slot as usize, stop, ahead)
        })
    }

    /// The progressive frame of `slot` as it stands, without working on it.
    pub fn timeline_progress(&mut self, id: u32, slot: u32) -> Result<(Vec<u32>, Progress)> {
        let (_, cache) = self.timeline(id)?;
        Ok(view::frame_shown(cache, slot as usize))
    }

    /// Runs trace step `f` on dataset `id` with reads of staged files deferred (`fresh`: a step
    /// the view called, see `defer_reads`), then turns deferring off again. `f` gets the stop
    /// test and the look-ahead test (rows after one waiting for its bytes ask for theirs too
    /// while the staged files take more wants).
    fn deferred_step(
        &mut self,
        id: u32,
        fresh: bool,
        stop: &mut dyn FnMut() -> bool,
        f: impl FnOnce(
            &Dataset,
            &mut TimelineCache,
            &mut dyn FnMut() -> bool,
            &mut dyn FnMut() -> bool,
        ) -> crate::Result<(Vec<u32>, Progress)>,
    ) -> Result<Step> {
        self.defer_reads(true, fresh);
        let mut ahead = self.look_ahead_test();
        let r = self
            .timeline(id)
            .and_then(|(ds, cache)| Ok(f(ds, cache, stop, &mut ahead)?));
        self.defer_reads(false, false);
        let wanted = self.wants_read();
        match r {
            Err(e) if wanted => Ok(Step::Wants(e)),
            Err(e) => Err(e),
            Ok((packed, p)) => {
                if wanted {
                    // A reader swallowed the failed read (none should): drop the want.
                    self.take_wanted_reads();
                }
                Ok(Step::Frame(packed, p))
            }
        }
    }
}
