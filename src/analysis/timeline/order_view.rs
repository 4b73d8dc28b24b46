//! What the time-order view asks of a dataset ([`super::calls`]), in shapes that cross to
//! JavaScript as they are: box times as f64 ns offsets from the run start, the rest as u32 columns,
//! and one call's details (bounds, arguments, return value) as `uftrace replay` prints them.

use super::calls::{self, Call, Layout, CLIPPED_START, MERGED, NO_RETURN, OPEN_END, SAMPLED};
use super::view::{start, LineWindow, TimelineCache};
use super::Window;
use crate::error::Result;
use crate::model::{CallPayload, Dataset};

/// u32 columns per box in [`TimeOrder::cells`]: depth, colour key, flags, count, node.
pub const CELLS: usize = 5;

/// Samples a bounds search reads at most each way (a hover never scans a whole huge line).
const BOUNDS_CAP: u64 = 1 << 22;
/// Bounds searches remembered per dataset.
const BOUNDS_KEPT: usize = 64;

/// The boxes of a window, packed for the view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeOrder {
    /// `[start, end]` per box: ns offsets from the run start.
    pub times: Vec<f64>,
    /// [`CELLS`] per box: depth, colour key (as the trace view's), flags, count, node.
    pub cells: Vec<u32>,
    pub info: TimeOrderInfo,
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TimeOrderInfo {
    pub line: u32,
    /// False when the window held more than [`calls::EXACT_LIMIT`] samples and was sampled
    /// once per pixel column.
    pub exact: bool,
    /// Samples in the window.
    pub samples: f64,
    pub boxes: u32,
    /// Deepest depth + 1.
    pub max_depth: u32,
    /// Samples of the whole line, and its first and last sample as offsets from the run start.
    pub line_samples: f64,
    pub line_start_ns: Option<f64>,
    pub line_end_ns: Option<f64>,
}

fn offset(ds: &Dataset, t: u64) -> f64 {
    t.saturating_sub(start(ds)) as f64
}

/// Lays out the line of `w` over its offsets, keeps the layout for [`call_detail`], and packs
/// it. A line of at most [`calls::EXACT_LIMIT`] samples is read once and its windows cut from
/// its calls ([`calls::LineCalls`]).
pub fn time_order(ds: &Dataset, cache: &mut TimelineCache, w: &LineWindow) -> Result<TimeOrder> {
    time_order_with(ds, cache, w, calls::EXACT_LIMIT)
}

/// [`time_order`], keeping the calls of lines of at most `keep_limit` samples.
pub fn time_order_with(
    ds: &Dataset,
    cache: &mut TimelineCache,
    w: &LineWindow,
    keep_limit: u64,
) -> Result<TimeOrder> {
    let (line, win) = (w.line, w.window(ds));
    let l = if ds.trace_line_samples(line as usize) <= keep_limit {
        if cache.line_calls.as_ref().is_none_or(|lc| lc.line != line) {
            cache.line_calls = None;
            let lc = calls::LineCalls::read(ds, cache.index(ds), line as usize)?;
            cache.line_calls = Some(lc);
        }
        match cache.line_calls.as_ref() {
            Some(lc) if lc.kept => calls::layout_of(ds, lc, win)?,
            _ => calls::layout(ds, cache.index(ds), line as usize, win, calls::EXACT_LIMIT)?,
        }
    } else {
        calls::layout(ds, cache.index(ds), line as usize, win, calls::EXACT_LIMIT)?
    };
    let ix = cache.index(ds);
    let mut out = TimeOrder::default();
    out.times.reserve(2 * l.calls.len());
    out.cells.reserve(CELLS * l.calls.len());
    for c in &l.calls {
        out.times.push(offset(ds, c.start));
        out.times.push(offset(ds, c.end));
        out.cells
            .extend([c.depth, ix.key_of(c.node), c.flags, c.count, c.node]);
    }
    let samples = ds.trace_line_samples(line as usize);
    let ends = line_ends(ds, line as usize, samples)?;
    out.info = TimeOrderInfo {
        line,
        exact: l.exact,
        samples: l.samples as f64,
        boxes: l.calls.len() as u32,
        max_depth: l.max_depth,
        line_samples: samples as f64,
        line_start_ns: ends.map(|e| offset(ds, e.0)),
        line_end_ns: ends.map(|e| offset(ds, e.1)),
    };
    cache.calls = Some(l);
    Ok(out)
}

/// Times of the first and last sample of a line.
fn line_ends(ds: &Dataset, line: usize, samples: u64) -> Result<Option<(u64, u64)>> {
    if samples == 0 {
        return Ok(None);
    }
    let first = ds.data.trace_samples(line, 0, 1)?;
    let last = ds.data.trace_samples(line, samples - 1, 1)?;
    Ok(match (first.first(), last.first()) {
        (Some(a), Some(b)) => Some((a.time, b.time.max(a.time))),
        _ => None,
    })
}

/// One box of the last layout, as the tooltip and the profile link show it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CallInfo {
    pub index: u32,
    pub line: u32,
    pub node: u32,
    pub name: String,
    pub depth: u32,
    /// Calls the box stands for (more than one for merged boxes).
    pub count: u32,
    pub merged: bool,
    pub sampled: bool,
    #[serde(flatten)]
    pub span: CallSpan,
    /// False when the call had not returned by the end of the recording.
    pub returned: bool,
    /// Recorded arguments and return value as values (`10`, `"hello"`), empty when none.
    #[serde(flatten)]
    pub payload: CallPayload,
    /// The call as `uftrace replay` prints it: `fib(10) = 55;`, `main(1, 0x7ffe41a0fc38) {`
    /// for one that never returned.
    pub text: String,
    /// The duration as replay prints it (`1.234 us`).
    pub duration: String,
}

/// Where a box's call begins and ends, and whether those are the call's real bounds.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CallSpan {
    /// Offsets from the run start (ns); for a merged box, of the first call's start and the
    /// last one's end.
    pub start_ns: f64,
    pub end_ns: f64,
    /// False when the real start (end) lies beyond what a bounds search reads.
    pub start_exact: bool,
    pub end_exact: bool,
}

/// `arg1=10` -> `10`.
fn value(s: &str) -> String {
    s.split_once('=').map_or(s, |(_, v)| v).to_string()
}

/// A duration as `uftrace replay` prints it: three decimals of us, ms or s.
pub fn replay_duration(ns: u64) -> String {
    let (unit, div) = match ns {
        0..=999_999 => ("us", 1_000),
        1_000_000..=999_999_999 => ("ms", 1_000_000),
        _ => (" s", 1_000_000_000),
    };
    format!("{}.{:03} {unit}", ns / div, (ns % div) / (div / 1000))
}

/// The call line of `uftrace replay`: `name(args)` (a name ending in ")" without arguments
/// alone), ` = retval` and `;` when it returned, ` {` when it did not.
pub fn replay_text(name: &str, args: &[String], retval: Option<&str>, returned: bool) -> String {
    let mut s = if args.is_empty() && name.ends_with(')') {
        name.to_string()
    } else {
        format!("{name}({})", args.join(", "))
    };
    if !returned {
        s.push_str(" {");
        return s;
    }
    if let Some(r) = retval {
        s.push_str(" = ");
        s.push_str(r);
    }
    s.push(';');
    s
}

/// Details of box `index` of the last layout: its real bounds (searched for when the box was
/// clipped to the window or sampled) and, for uftrace, its arguments and return value.
pub fn call_detail(
    ds: &Dataset,
    cache: &mut TimelineCache,
    index: u32,
) -> Result<Option<CallInfo>> {
    let Some(l) = cache.calls.as_ref() else {
        return Ok(None);
    };
    let Some(&c) = l.calls.get(index as usize) else {
        return Ok(None);
    };
    let (line, win) = (l.line, l.win);
    detail_of(ds, cache, line, win, index, c)
}

fn detail_of(
    ds: &Dataset,
    cache: &mut TimelineCache,
    line: u32,
    win: Option<Window>,
    index: u32,
    c: Call,
) -> Result<Option<CallInfo>> {
    let name = ds.frame_name(c.node);
    let mut info = CallInfo {
        index,
        line,
        node: c.node,
        name,
        depth: c.depth,
        count: c.count,
        merged: c.flags & MERGED != 0,
        sampled: c.flags & SAMPLED != 0,
        span: CallSpan {
            start_ns: offset(ds, c.start),
            end_ns: offset(ds, c.end),
            start_exact: c.flags & (CLIPPED_START | SAMPLED) == 0,
            end_exact: c.flags & (OPEN_END | SAMPLED) == 0,
        },
        returned: c.flags & NO_RETURN == 0,
        payload: CallPayload::default(),
        text: String::new(),
        duration: String::new(),
    };
    if info.merged {
        info.text = format!("{} calls, each narrower than a pixel", c.count);
        info.duration = replay_duration(c.end - c.start);
        return Ok(Some(info));
    }
    let (mut start, mut end) = (c.start, Some(c.end).filter(|_| info.returned));
    if !info.span.start_exact || !info.span.end_exact {
        // A time the call is in force at: the window's start for a clipped call.
        let probe = match win {
            Some(w) if c.flags & CLIPPED_START != 0 => w.t0.max(c.start),
            _ => c.start,
        };
        let known = cache.call_bounds.iter().find(|(l, d, b)| {
            *l == line
                && *d == c.depth
                && b.node == c.node
                && b.start <= probe
                && b.end.is_none_or(|e| probe < e)
        });
        let found = match known {
            Some(&(_, _, b)) => Some(b),
            None => {
                let ix = cache.index(ds);
                let b = calls::call_bounds(ds, ix, line as usize, probe, c.depth, BOUNDS_CAP)?;
                if let Some(b) = b {
                    if cache.call_bounds.len() >= BOUNDS_KEPT {
                        cache.call_bounds.remove(0);
                    }
                    cache.call_bounds.push((line, c.depth, b));
                }
                b
            }
        };
        if let Some(b) = found {
            if b.node == c.node {
                start = b.start;
                end = b.end;
                info.returned = b.end.is_some() || !b.end_exact;
                info.span = CallSpan {
                    start_ns: offset(ds, b.start),
                    end_ns: b.end.map_or(info.span.end_ns, |e| offset(ds, e)),
                    start_exact: b.start_exact,
                    end_exact: b.end_exact,
                };
            }
        }
    }
    if info.span.start_exact {
        let ret_at = end.filter(|_| info.span.end_exact);
        let p = ds
            .data
            .call_payloads(line as usize, c.node, start, ret_at)?;
        info.payload = CallPayload {
            args: p.args.iter().map(|a| value(a)).collect(),
            retval: p.retval.as_deref().map(value),
        };
    }
    let dur = end.unwrap_or(c.end).saturating_sub(start);
    info.duration = replay_duration(dur);
    info.text = replay_text(
        &info.name,
        &info.payload.args,
        info.payload.retval.as_deref(),
        info.returned && info.span.end_exact,
    );
    Ok(Some(info))
}

/// The layout kept by the last [`time_order`], for tests.
pub fn last_layout(cache: &TimelineCache) -> Option<&Layout> {
    cache.calls.as_ref()
}
