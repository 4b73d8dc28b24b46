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

/// Samples read per call into the lazy data.
const CHUNK: u64 = 1 << 16;

/// Spans of trace line `line`, at most `max_samples` samples read (the rest are left out and
/// `true` is returned with them). Spans come in close order; the last open ones end at the
/// trace's end time.
pub fn line_spans(ds: &Dataset, line: usize, max_samples: u64) -> Result<(Vec<Span>, bool)> {
    let Some(trace) = &ds.trace else {
        return Ok((Vec::new(), false));
    };
    let Some(info) = trace.lines.get(line) else {
        return Ok((Vec::new(), false));
    };
    let total = info.samples.min(max_samples);
    let truncated = info.samples > max_samples;
    let mut out = Vec::new();
    // Open frames, outermost first: (node, start time).
    let mut open: Vec<(u32, u64)> = Vec::new();
    let mut last_time = 0u64;
    let mut path: Vec<u32> = Vec::new();
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
            path.clear();
            path.extend(ds.cct.path(s.node).into_iter().skip(1));
            let common = open
                .iter()
                .zip(path.iter())
                .take_while(|((a, _), b)| a == *b)
                .count();
            while open.len() > common {
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
            for &n in &path[common..] {
                open.push((n, t));
            }
        }
    }
    let end = trace.max_time.unwrap_or(last_time).max(last_time);
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
