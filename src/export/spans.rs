//! Trace samples as nested spans, for the evented exports: a sample says "from this time on the
//! thread is in this context", so consecutive samples' call paths are diffed into open/close
//! events of every frame on them (HPCToolkit trace.db semantics, doc/FORMATS.md "trace.db").

use crate::error::Result;
use crate::model::Dataset;

/// One frame's stay on the stack: model node, depth below the root (1 = outermost), times in the
/// trace's unit (HPCToolkit: ns since the epoch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub node: u32,
    pub depth: u32,
    pub start: u64,
    pub end: u64,
}

/// Samples an evented export reads per trace line.
pub const MAX_SAMPLES_PER_LINE: u64 = 200_000;
/// Most spans an evented export makes in all lines: a sample can enter a whole 100,000-deep call
/// path, so the samples alone do not bound the output (about 100 bytes a span).
pub const MAX_SPANS: usize = 1_000_000;

/// What an export that stopped at the bounds says it kept.
pub fn bounds_text(max_lines: usize) -> String {
    format!(
        "first {max_lines} lines, {MAX_SAMPLES_PER_LINE} samples each, {MAX_SPANS} spans in all"
    )
}

/// The spans of each of the first `max_lines` trace lines of `ds` in turn, handed to
/// `each(line, spans)`, within [`MAX_SAMPLES_PER_LINE`] and [`MAX_SPANS`]. Returns whether anything
/// was left out (lines, samples or spans past the bounds).
pub fn each_line_spans(
    ds: &Dataset,
    max_lines: usize,
    mut each: impl FnMut(usize, Vec<Span>) -> Result<()>,
) -> Result<bool> {
    let lines = ds.trace.as_ref().map_or(0, |t| t.lines.len());
    let mut truncated = lines > max_lines;
    let mut spans_made = 0usize;
    for line in 0..lines.min(max_lines) {
        let (spans, cut) = line_spans_bounded(
            ds,
            line,
            MAX_SAMPLES_PER_LINE,
            MAX_SPANS.saturating_sub(spans_made),
        )?;
        spans_made += spans.len();
        truncated |= cut;
        each(line, spans)?;
    }
    Ok(truncated)
}

/// The name of trace line `line`: its profile's label (`line N` when it has none).
pub fn line_label(ds: &Dataset, line: usize) -> String {
    ds.trace
        .as_ref()
        .and_then(|t| t.lines.get(line))
        .and_then(|l| ds.profiles.get(l.prof_index as usize))
        .map(|p| p.label(&ds.id_names))
        .unwrap_or_else(|| format!("line {line}"))
}

/// Samples read per call into the lazy data.
const CHUNK: u64 = 1 << 16;

/// Spans of trace line `line`, at most `max_samples` samples read (the rest are left out and
/// `true` is returned with them). Spans come in close order; the last open ones end at the
/// trace's end time.
pub fn line_spans(ds: &Dataset, line: usize, max_samples: u64) -> Result<(Vec<Span>, bool)> {
    line_spans_bounded(ds, line, max_samples, usize::MAX)
}

/// [`line_spans`] that also stops reading once about `max_spans` spans are made (a sample can
/// enter a whole 100,000-deep path, so samples alone do not bound the output); the spans still
/// open then end at the last sample read, and `true` is returned.
pub fn line_spans_bounded(
    ds: &Dataset,
    line: usize,
    max_samples: u64,
    max_spans: usize,
) -> Result<(Vec<Span>, bool)> {
    let Some(trace) = &ds.trace else {
        return Ok((Vec::new(), false));
    };
    let Some(info) = trace.lines.get(line) else {
        return Ok((Vec::new(), false));
    };
    if max_spans == 0 {
        return Ok((Vec::new(), info.samples > 0));
    }
    let total = info.samples.min(max_samples);
    let mut truncated = info.samples > max_samples;
    let mut out = Vec::new();
    // Open frames, outermost first: (node, start time).
    let mut open: Vec<(u32, u64)> = Vec::new();
    let mut last_time = 0u64;
    // Frames newly entered by a sample, innermost first.
    let mut entered: Vec<u32> = Vec::new();
    let depth_of = |n: u32| ds.cct.tree.depth.get(n as usize).copied().unwrap_or(0) as usize;
    let parent_of = |n: u32| ds.cct.tree.parent.get(n as usize).copied().unwrap_or(0);
    let mut start = 0u64;
    while start < total {
        let count = CHUNK.min(total - start);
        let samples = ds.data.trace_samples(line, start, count)?;
        if samples.is_empty() {
            break;
        }
        start += samples.len() as u64;
        for s in samples {
            // Times must not run backwards for nesting to hold; a late sample is clamped.
            let t = s.time.max(last_time);
            last_time = t;
            // Climb from the sample's node to the deepest frame still open, instead of
            // building its whole path: a sample then costs the frames it enters and leaves,
            // not its depth (a 100,000-deep recursion sampled at every level stays linear).
            entered.clear();
            let mut x = s.node;
            while x != 0 && depth_of(x) > open.len() {
                entered.push(x);
                x = parent_of(x);
            }
            let close_to = |open: &mut Vec<(u32, u64)>, keep: usize, out: &mut Vec<Span>| {
                while open.len() > keep {
                    let depth = open.len() as u32;
                    if let Some((node, st)) = open.pop() {
                        out.push(Span {
                            node,
                            depth,
                            start: st,
                            end: t,
                        });
                    }
                }
            };
            let keep = if x == 0 { 0 } else { depth_of(x) };
            close_to(&mut open, keep, &mut out);
            while x != 0 && open.last().map(|o| o.0) != Some(x) {
                let keep = open.len().saturating_sub(1);
                close_to(&mut open, keep, &mut out);
                entered.push(x);
                x = parent_of(x);
            }
            if x == 0 {
                close_to(&mut open, 0, &mut out);
            }
            for &n in entered.iter().rev() {
                open.push((n, t));
            }
            if out.len().saturating_add(open.len()) >= max_spans {
                truncated = true;
                break;
            }
        }
        if truncated && out.len().saturating_add(open.len()) >= max_spans {
            break;
        }
    }
    let end = if out.len().saturating_add(open.len()) >= max_spans {
        last_time
    } else {
        trace.max_time.unwrap_or(last_time).max(last_time)
    };
    while let Some((node, st)) = open.pop() {
        out.push(Span {
            node,
            depth: open.len() as u32 + 1,
            start: st,
            end,
        });
    }
    Ok((out, truncated))
}
