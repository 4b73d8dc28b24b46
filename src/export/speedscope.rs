//! speedscope JSON (jlfwong/speedscope src/lib/file-format-spec.ts, schema
//! <https://www.speedscope.app/file-format-schema.json>): the summary profile of one metric as a
//! "sampled" profile (one weighted stack per context with a self value), and for traced datasets
//! one "evented" profile per trace line (open/close events from the trace samples, in ns).

use super::spans::{bounds_text, each_line_spans, line_label, Span};
use super::{clean_name, num, Flame};
use crate::error::{Error, Result};
use crate::model::Dataset;
use std::collections::HashMap;
use std::fmt::Write;

/// Trace lines exported as evented profiles, a bound on file size (speedscope keeps everything in
/// memory; samples and spans: [`super::spans::each_line_spans`]); the exporter string says when
/// it was reached.
pub const MAX_LINES: usize = 64;
/// Total frame references in the sampled stacks (paths can be very deep).
const MAX_STACK_ENTRIES: usize = 50_000_000;

/// speedscope's unit of a metric's display unit.
pub fn unit_of(unit: &str) -> &'static str {
    match unit.trim().to_lowercase().as_str() {
        "s" | "sec" | "seconds" => "seconds",
        "ms" | "milliseconds" => "milliseconds",
        "us" | "µs" | "microseconds" => "microseconds",
        "ns" | "nanoseconds" => "nanoseconds",
        "b" | "bytes" => "bytes",
        _ => "none",
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Shared frame table: one frame per distinct name (the views' notion of "same function").
struct Frames {
    index: HashMap<u32, u32>,
    json: Vec<String>,
}

impl Frames {
    fn of(&mut self, ds: &Dataset, f: &Flame, node: u32) -> u32 {
        let name_id = f.names.node_name.get(node as usize).copied().unwrap_or(0);
        if let Some(&i) = self.index.get(&name_id) {
            return i;
        }
        let i = self.json.len() as u32;
        let mut j = format!("{{\"name\":{}", json_str(&clean_name(f.names.of(node))));
        let func = ds
            .cct
            .frame
            .get(node as usize)
            .and_then(|fr| fr.code.function)
            .and_then(|fi| ds.functions.get(fi as usize));
        if let Some(func) = func {
            if let Some(file) = func.file.and_then(|x| ds.source_files.get(x as usize)) {
                let _ = write!(j, ",\"file\":{}", json_str(&file.path));
                if let Some(line) = func.line {
                    let _ = write!(j, ",\"line\":{line}");
                }
            }
        }
        j.push('}');
        self.json.push(j);
        self.index.insert(name_id, i);
        i
    }
}

/// The speedscope file of metric `metric` of `ds`.
pub fn write(ds: &Dataset, metric: usize) -> Result<String> {
    let f = Flame::new(ds, metric)?;
    let Some(m) = ds.metrics.get(metric) else {
        return Err(Error::invalid(&ds.title, 0, "no such metric"));
    };
    let mut frames = Frames {
        index: HashMap::new(),
        json: Vec::new(),
    };
    let title = if ds.title.is_empty() {
        ds.format.clone()
    } else {
        ds.title.clone()
    };

    // Every valued context lists its whole path: count the entries first (a 100,000-deep
    // recursion with a value at each level would take minutes to reach the cap otherwise).
    let entries_needed = (1..ds.cct.tree.len())
        .filter(|&i| f.point[i] != 0.0)
        .map(|i| ds.cct.tree.depth.get(i).copied().unwrap_or(0) as usize)
        .fold(0usize, usize::saturating_add);
    if entries_needed > MAX_STACK_ENTRIES {
        return Err(Error::invalid(
            &ds.title,
            0,
            "calling contexts too deep for a speedscope export; use folded stacks",
        ));
    }

    // Sampled profile: walk the preorder keeping the current path of frame indices.
    let mut samples = String::new();
    let mut weights = String::new();
    let mut total = 0.0;
    let mut path: Vec<(u32, u32)> = Vec::new(); // (node, frame)
    let mut entries = 0usize;
    for i in 1..ds.cct.tree.len() {
        let parent = ds.cct.tree.parent[i];
        super::pop_to(&mut path, parent);
        let fr = frames.of(ds, &f, i as u32);
        path.push((i as u32, fr));
        let v = f.point[i];
        if v == 0.0 {
            continue;
        }
        entries += path.len();
        if entries > MAX_STACK_ENTRIES {
            return Err(Error::invalid(
                &ds.title,
                0,
                "calling contexts too deep for a speedscope export; use folded stacks",
            ));
        }
        if !samples.is_empty() {
            samples.push(',');
            weights.push(',');
        }
        samples.push('[');
        for (k, (_, fr)) in path.iter().enumerate() {
            if k > 0 {
                samples.push(',');
            }
            let _ = write!(samples, "{fr}");
        }
        samples.push(']');
        weights.push_str(&num(v));
        total += v;
    }
    let mut profiles = vec![format!(
        "{{\"type\":\"sampled\",\"name\":{},\"unit\":\"{}\",\"startValue\":0,\"endValue\":{},\"samples\":[{samples}],\"weights\":[{weights}]}}",
        json_str(&format!("{title}: {}", m.name)),
        unit_of(&m.unit),
        num(total.max(0.0)),
    )];

    // Evented profiles from the trace, times relative to the trace's start, in ns.
    let t0 = ds.trace.as_ref().and_then(|t| t.min_time).unwrap_or(0);
    let truncated = each_line_spans(ds, MAX_LINES, |line, spans| {
        let events = events_of(&spans);
        if events.is_empty() {
            return Ok(());
        }
        let end = spans.iter().map(|s| s.end).max().unwrap_or(t0);
        let mut ev = String::new();
        for (k, (at, open, node)) in events.iter().enumerate() {
            if k > 0 {
                ev.push(',');
            }
            let fr = frames.of(ds, &f, *node);
            let _ = write!(
                ev,
                "{{\"type\":\"{}\",\"frame\":{fr},\"at\":{}}}",
                if *open { "O" } else { "C" },
                at.saturating_sub(t0)
            );
        }
        profiles.push(format!(
            "{{\"type\":\"evented\",\"name\":{},\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":{},\"events\":[{ev}]}}",
            json_str(&format!("trace {}", line_label(ds, line))),
            end.saturating_sub(t0)
        ));
        Ok(())
    })?;
    let exporter = if truncated {
        format!(
            "hpcscope {} (trace: {})",
            env!("CARGO_PKG_VERSION"),
            bounds_text(MAX_LINES)
        )
    } else {
        format!("hpcscope {}", env!("CARGO_PKG_VERSION"))
    };
    Ok(format!(
        "{{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":{},\"exporter\":{},\"activeProfileIndex\":0,\"shared\":{{\"frames\":[{}]}},\"profiles\":[{}]}}\n",
        json_str(&title),
        json_str(&exporter),
        frames.json.join(","),
        profiles.join(",")
    ))
}

/// Open/close events of nested spans, ordered by time; at one instant closes come first
/// (deepest first), then opens (outermost first), so the sequence is balanced. Empty spans
/// (two samples at one instant) are left out with everything inside them.
pub fn events_of(spans: &[Span]) -> Vec<(u64, bool, u32)> {
    let mut ev: Vec<(u64, u8, i64, u32)> = Vec::with_capacity(spans.len() * 2);
    for s in spans.iter().filter(|s| s.end > s.start) {
        ev.push((s.start, 1, s.depth as i64, s.node));
        ev.push((s.end, 0, -(s.depth as i64), s.node));
    }
    ev.sort_unstable();
    ev.into_iter().map(|(t, o, _, n)| (t, o == 1, n)).collect()
}
