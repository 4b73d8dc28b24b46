//! The time-order call chart of one trace line (speedscope's "Time Order", Perfetto's slices): the
//! line's samples become calls, each a box at its real start and duration nested by call depth;
//! for uftrace exactly the recorded calls, for a sampled trace the runs the samples show.
//! Exact up to `limit` samples per window (O(width * depth) boxes); sampled per pixel beyond.

use super::{FrameIndex, LineCursor, Window};
use crate::error::Result;
use crate::model::{Dataset, NONE};

// A call of frame `f` at depth `d` is a maximal run of samples whose paths hold `f` at depth `d`.
// For uftrace every ENTRY and EXIT is a sample, so the calls are exactly the recorded ones; for a
// sampled trace (HPCToolkit) they are the runs the samples show, as hpctraceviewer draws them.
// Cost: a window with at most `limit` samples is scanned whole (exact); calls narrower than a
// pixel are merged per depth into boxes of at most a pixel, so the answer is O(width * depth).
// A larger window is sampled once per pixel column instead (flag [`SAMPLED`]).

/// The call opened before the first sample read: its start is not known (the window's start or
/// the first column is given instead).
pub const CLIPPED_START: u32 = 1;
/// The call was still open at the end of the window: its end is the window's end.
pub const OPEN_END: u32 = 2;
/// The call had not returned by the line's last sample: its end is that sample's time.
pub const NO_RETURN: u32 = 4;
/// The box stands for `count` consecutive calls at its depth, together narrower than a pixel.
pub const MERGED: u32 = 8;
/// The window held more samples than the exact limit: bounds are pixel-column times.
pub const SAMPLED: u32 = 16;

/// Samples an exact layout scans at most: above this a window is sampled per column.
pub const EXACT_LIMIT: u64 = 1 << 20;

/// One call (or, with [`MERGED`], a run of calls) of a line, times in the trace's unit (ns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Call {
    pub start: u64,
    pub end: u64,
    /// Call depth: 0 is the outermost frame.
    pub depth: u32,
    /// The frame's model node (a context).
    pub node: u32,
    pub flags: u32,
    /// Calls the box stands for (1 unless [`MERGED`]).
    pub count: u32,
}

struct Open {
    node: u32,
    start: u64,
    flags: u32,
}

/// Turns a line's samples, in order, into calls: keeps the open frames as a stack and, at each
/// sample, closes the frames its path no longer holds and opens the new ones. Work per sample is
/// the number of frames that change, not the path's depth.
pub struct CallScanner<'a> {
    ix: &'a FrameIndex,
    stack: Vec<Open>,
    fresh: Vec<u32>,
}

impl<'a> CallScanner<'a> {
    pub fn new(ix: &'a FrameIndex) -> CallScanner<'a> {
        CallScanner {
            ix,
            stack: Vec::new(),
            fresh: Vec::new(),
        }
    }

    /// Depth of the open frames.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// The sample `node` at `time`: frames it no longer holds end at `time`, new ones open with
    /// `flags`; `emit` gets each call that ended.
    pub fn step(&mut self, time: u64, node: u32, flags: u32, emit: &mut dyn FnMut(Call)) {
        let ix = self.ix;
        let deepest = ix.frame_of.get(node as usize).copied().unwrap_or(NONE);
        // `g` is the frame at depth `k - 1` of the new path.
        let mut k = match deepest {
            NONE => 0,
            f => ix.call_depth[f as usize] as usize + 1,
        };
        let mut g = deepest;
        self.fresh.clear();
        while k > 0 && (k > self.stack.len() || self.stack[k - 1].node != g) {
            self.fresh.push(g);
            g = ix.up[g as usize];
            k -= 1;
        }
        self.close_to(k, time, 0, emit);
        for &f in self.fresh.iter().rev() {
            self.stack.push(Open {
                node: f,
                start: time,
                flags,
            });
        }
    }

    /// Ends every open frame at `time`, adding `flags` to them.
    pub fn finish(&mut self, time: u64, flags: u32, emit: &mut dyn FnMut(Call)) {
        self.close_to(0, time, flags, emit);
    }

    fn close_to(&mut self, depth: usize, time: u64, flags: u32, emit: &mut dyn FnMut(Call)) {
        while self.stack.len() > depth {
            let Some(o) = self.stack.pop() else { break };
            emit(Call {
                start: o.start,
                end: time.max(o.start),
                depth: self.stack.len() as u32,
                node: o.node,
                flags: o.flags | flags,
                count: 1,
            });
        }
    }
}

/// Every call of samples `first..first + count` of `line`, in the order they end. Calls open at
/// the first sample are [`CLIPPED_START`] unless it is the line's first; calls open after the last
/// end there, [`NO_RETURN`] when it is the line's last sample, else [`OPEN_END`].
pub fn line_calls(
    ds: &Dataset,
    ix: &FrameIndex,
    line: usize,
    first: u64,
    count: u64,
) -> Result<Vec<Call>> {
    let mut out = Vec::new();
    scan(ds, ix, line, first, count, None, &mut |c| out.push(c))?;
    Ok(out)
}

/// Scans samples `first..first + count` of `line` into `emit`; calls still open at the end close
/// at `end_time` when given (the window's end), else at the last sample.
fn scan(
    ds: &Dataset,
    ix: &FrameIndex,
    line: usize,
    first: u64,
    count: u64,
    end_time: Option<u64>,
    emit: &mut dyn FnMut(Call),
) -> Result<u64> {
    let samples = ds.trace_line_samples(line);
    let count = count.min(samples.saturating_sub(first));
    let mut sc = CallScanner::new(ix);
    let mut last = None;
    let mut flags = if first > 0 { CLIPPED_START } else { 0 };
    let read = ds.data.trace_scan(line, first, count, &mut |s| {
        sc.step(s.time, s.node, flags, emit);
        flags = 0;
        last = Some(s.time);
        true
    })?;
    let at_line_end = first + read >= samples;
    let (time, f) = match (end_time, last) {
        (_, None) => return Ok(read),
        (Some(t), Some(l)) if !at_line_end => (t.max(l), OPEN_END),
        (_, Some(l)) => (l, if at_line_end { NO_RETURN } else { OPEN_END }),
    };
    sc.finish(time, f, emit);
    Ok(read)
}

/// Collects calls for a window, merging those narrower than a pixel per depth.
struct Sink {
    t0: f64,
    px_per_ns: f64,
    calls: Vec<Call>,
    /// Index in `calls` of the last box at each depth.
    last: Vec<usize>,
    max_depth: u32,
}

impl Sink {
    fn new(win: Window) -> Sink {
        Sink {
            t0: win.t0 as f64,
            px_per_ns: win.width as f64 / win.t1.saturating_sub(win.t0).max(1) as f64,
            calls: Vec::new(),
            last: Vec::new(),
            max_depth: 0,
        }
    }
    fn px(&self, t: u64) -> f64 {
        (t as f64 - self.t0) * self.px_per_ns
    }
    fn add(&mut self, c: Call) {
        let d = c.depth as usize;
        self.max_depth = self.max_depth.max(c.depth + 1);
        if self.last.len() <= d {
            self.last.resize(d + 1, usize::MAX);
        }
        // Calls at one depth end in time order, so the previous box is the one to grow.
        let end_px = self.px(c.end);
        let (t0, px_per_ns) = (self.t0, self.px_per_ns);
        if let Some(l) = self.calls.get_mut(self.last[d]) {
            let fits = end_px - (l.start as f64 - t0) * px_per_ns < 1.0;
            if fits && l.end <= c.start && (l.flags | c.flags) & (CLIPPED_START | OPEN_END) == 0 {
                l.end = c.end;
                l.count = l.count.saturating_add(c.count);
                l.flags |= MERGED | c.flags;
                return;
            }
        }
        self.last[d] = self.calls.len();
        self.calls.push(c);
    }
}

/// The calls of a window, as the view draws them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub line: u32,
    pub win: Option<Window>,
    pub calls: Vec<Call>,
    /// False when the window was sampled per column ([`SAMPLED`]).
    pub exact: bool,
    /// Samples in the window (those read when exact).
    pub samples: u64,
    /// Deepest depth + 1 over the boxes.
    pub max_depth: u32,
}

/// The time-order chart of `line` over `win`: exact when the window holds at most `limit`
/// samples, else one sample per pixel column.
pub fn layout(
    ds: &Dataset,
    ix: &FrameIndex,
    line: usize,
    win: Window,
    limit: u64,
) -> Result<Layout> {
    let (mut out, span) = window_start(ds, line, win)?;
    let Some((first, count)) = span.filter(|&(_, count)| count > 0) else {
        return Ok(out); // no samples, or the window ends before the first sample
    };
    out.samples = count;
    let samples = ds.trace_line_samples(line);
    let data = ds.data.as_ref();
    let mut sink = Sink::new(win);
    if count <= limit {
        scan(ds, ix, line, first, count, Some(win.t1), &mut |c| {
            sink.add(c)
        })?;
    } else {
        out.exact = false;
        let mut sc = CallScanner::new(ix);
        let mut cur = LineCursor::new(data, line, samples);
        let mut emit = |c: Call| sink.add(c);
        for col in 0..win.width {
            let t = win.time(col);
            let node = cur.seek(t)?.map_or(NONE, |s| s.node);
            let f = if col == 0 { CLIPPED_START } else { 0 };
            sc.step(t, node, SAMPLED | f, &mut emit);
        }
        sc.finish(win.t1, OPEN_END, &mut emit);
    }
    out.max_depth = sink.max_depth;
    out.calls = sink.calls;
    // Outer calls first, then by start: the order the view draws and navigates in.
    out.calls.sort_by_key(|c| (c.depth, c.start));
    Ok(out)
}

/// Every call of a line, sorted by (depth, start), and where each depth begins: the windows of a
/// line of at most [`EXACT_LIMIT`] samples are cut from it, with the calls' real bounds, without
/// reading the trace again (zooming and panning over a whole task).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineCalls {
    pub line: u32,
    /// False when the line has more than [`KEPT_CALLS`] calls (a sampled trace whose samples
    /// jump between deep paths): nothing is kept and windows are scanned.
    pub kept: bool,
    pub calls: Vec<Call>,
    /// Calls at depth `d` are `calls[first[d]..first[d + 1]]`.
    pub first: Vec<usize>,
}

/// Calls a [`LineCalls`] keeps at most (32 bytes each: 64 MiB).
pub const KEPT_CALLS: usize = 1 << 21;

impl LineCalls {
    pub fn read(ds: &Dataset, ix: &FrameIndex, line: usize) -> Result<LineCalls> {
        LineCalls::read_at_most(ds, ix, line, KEPT_CALLS)
    }

    /// [`LineCalls::read`], keeping at most `cap` calls.
    pub fn read_at_most(
        ds: &Dataset,
        ix: &FrameIndex,
        line: usize,
        cap: usize,
    ) -> Result<LineCalls> {
        let mut calls = Vec::new();
        let mut kept = true;
        let n = ds.trace_line_samples(line);
        scan(ds, ix, line, 0, n, None, &mut |c| {
            if calls.len() < cap {
                calls.push(c);
            } else {
                kept = false;
            }
        })?;
        if !kept {
            return Ok(LineCalls {
                line: line as u32,
                ..LineCalls::default()
            });
        }
        // Calls of one depth are disjoint, so they end (and are emitted) in start order: placing
        // them by depth, in emission order, sorts them by (depth, start) in O(n).
        let depths = calls
            .iter()
            .map(|c| c.depth as usize + 1)
            .max()
            .unwrap_or(0);
        let mut first = vec![0usize; depths + 1];
        for c in &calls {
            first[c.depth as usize + 1] += 1;
        }
        for d in 0..depths {
            first[d + 1] += first[d];
        }
        let mut at = first.clone();
        let mut sorted = vec![Call::default(); calls.len()];
        for c in calls {
            let slot = &mut at[c.depth as usize];
            sorted[*slot] = c;
            *slot += 1;
        }
        Ok(LineCalls {
            line: line as u32,
            kept: true,
            calls: sorted,
            first,
        })
    }
}

/// An exact layout of `win` on `line` with no calls yet, and the window's first sample and sample
/// count (0 when the window ends before the line's first sample); `None` when the line has no
/// samples or the window is empty. What [`layout`] and [`layout_of`] both start from.
fn window_start(ds: &Dataset, line: usize, win: Window) -> Result<(Layout, Option<(u64, u64)>)> {
    let out = Layout {
        line: line as u32,
        win: Some(win),
        exact: true,
        ..Layout::default()
    };
    let samples = ds.trace_line_samples(line);
    if samples == 0 || win.is_empty() {
        return Ok((out, None));
    }
    let data = ds.data.as_ref();
    let first = data.trace_find(line, win.t0)?.unwrap_or(0).min(samples - 1);
    let count = match data.trace_find(line, win.t1 - 1)? {
        Some(last) => last.min(samples - 1).saturating_sub(first) + 1,
        None => 0,
    };
    Ok((out, Some((first, count))))
}

/// [`layout`] of a window of `lc`'s line, cut from its calls: every call that meets the window
/// (a call of no length at its start included), merged as `layout` merges them, none clipped.
pub fn layout_of(ds: &Dataset, lc: &LineCalls, win: Window) -> Result<Layout> {
    let (mut out, span) = window_start(ds, lc.line as usize, win)?;
    let Some((_, count)) = span else {
        return Ok(out);
    };
    out.samples = count;
    let mut sink = Sink::new(win);
    for d in lc.first.windows(2) {
        let Some(at) = lc.calls.get(d[0]..d[1]) else {
            continue;
        };
        // Calls of one depth are disjoint and in order: starts and ends both ascend.
        let lo = at.partition_point(|c| c.end < win.t0 || (c.end == win.t0 && c.start < win.t0));
        let hi = at.partition_point(|c| c.start < win.t1);
        for &c in at.get(lo..hi).unwrap_or(&[]) {
            sink.add(c);
        }
    }
    out.max_depth = sink.max_depth;
    out.calls = sink.calls;
    Ok(out)
}

/// The real bounds of the call of depth `depth` open on `line` at `time`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub node: u32,
    pub start: u64,
    /// `None` when the call had not returned by the line's last sample.
    pub end: Option<u64>,
    /// False when the search stopped after `cap` samples before finding the start (or end).
    pub start_exact: bool,
    pub end_exact: bool,
}

/// Samples read per step of a bounds search.
const CHUNK: u64 = 4096;

/// Finds where the call at `depth` on the path in force at `time` begins and ends, reading at
/// most `cap` samples each way.
pub fn call_bounds(
    ds: &Dataset,
    ix: &FrameIndex,
    line: usize,
    time: u64,
    depth: u32,
    cap: u64,
) -> Result<Option<Bounds>> {
    let samples = ds.trace_line_samples(line);
    let data = ds.data.as_ref();
    let Some(at) = data.trace_find(line, time)?.filter(|&i| i < samples) else {
        return Ok(None);
    };
    let Some(s) = data.trace_samples(line, at, 1)?.first().copied() else {
        return Ok(None);
    };
    if ix.path_depth(s.node) <= depth {
        return Ok(None);
    }
    let frame = ix.frame_at(s.node, depth);
    let holds = |node: u32| ix.path_depth(node) > depth && ix.frame_at(node, depth) == frame;
    // Backwards: the first sample of the run.
    let mut start = s.time;
    let mut start_exact = false;
    let mut i = at;
    'back: loop {
        if i == 0 {
            start_exact = true;
            break;
        }
        if at - i >= cap {
            break;
        }
        let from = i.saturating_sub(CHUNK.min(cap - (at - i)));
        let got = data.trace_samples(line, from, i - from)?;
        if got.is_empty() {
            break;
        }
        for (k, p) in got.iter().enumerate().rev() {
            if !holds(p.node) {
                start_exact = true;
                break 'back;
            }
            start = p.time;
            i = from + k as u64;
        }
    }
    // Forwards: the first sample after the run ends the call.
    let mut end = None;
    let mut end_exact = false;
    let mut j = at + 1;
    let mut last = s.time;
    'fwd: loop {
        if j >= samples {
            end_exact = true;
            break;
        }
        if j - at > cap {
            break;
        }
        let n = CHUNK.min(samples - j).min(cap - (j - at) + 1);
        let got = data.trace_samples(line, j, n)?;
        if got.is_empty() {
            end_exact = true;
            break;
        }
        for p in &got {
            if !holds(p.node) {
                end = Some(p.time);
                end_exact = true;
                break 'fwd;
            }
            last = p.time;
            j += 1;
        }
    }
    if !end_exact {
        end = Some(last);
    }
    Ok(Some(Bounds {
        node: frame,
        start,
        end,
        start_exact,
        end_exact,
    }))
}
