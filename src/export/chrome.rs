//! Chrome trace event JSON (the "Trace Event Format" document; loads in Perfetto and
//! chrome://tracing): object form `{traceEvents, displayTimeUnit, otherData}` with complete ("X")
//! events, ts/dur in µs. A traced dataset gives one thread per trace line, spans from the samples;
//! otherwise the summary profile is laid out as a flame chart (each context as long as its value).

use super::spans::{bounds_text, each_line_spans, line_label};
use super::{clean_name, num, Flame};
use crate::error::Result;
use crate::model::Dataset;

/// Trace lines exported (samples and spans: [`super::spans::each_line_spans`]).
pub const MAX_LINES: usize = 256;

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Microseconds as JSON (fractional, ns precision).
fn us(ns: u64) -> String {
    num(ns as f64 / 1000.0)
}

/// The Chrome trace of `ds`; `metric` names the profile metric drawn when there is no trace.
pub fn write(ds: &Dataset, metric: usize) -> Result<String> {
    let mut ev: Vec<String> = Vec::new();
    let title = if ds.title.is_empty() {
        ds.format.clone()
    } else {
        ds.title.clone()
    };
    ev.push(format!(
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{{\"name\":{}}}}}",
        json_str(&title)
    ));
    let traced = ds
        .trace
        .as_ref()
        .filter(|t| t.lines.iter().any(|l| l.samples > 0));
    let mut note = String::new();
    if let Some(trace) = traced {
        let t0 = trace.min_time.unwrap_or(0);
        let names = crate::analysis::frames::Names::new(ds);
        let truncated = each_line_spans(ds, MAX_LINES, |line, mut spans| {
            let tid = line + 1;
            ev.push(format!(
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{tid},\"args\":{{\"name\":{}}}}}",
                json_str(&line_label(ds, line))
            ));
            // Parents before children at equal start, so viewers nest them in file order.
            spans.retain(|s| s.end > s.start);
            spans.sort_by_key(|s| (s.start, s.depth));
            for s in spans {
                ev.push(format!(
                    "{{\"name\":{},\"cat\":\"trace\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":1,\"tid\":{tid}}}",
                    json_str(&clean_name(names.of(s.node))),
                    us(s.start.saturating_sub(t0)),
                    us(s.end - s.start)
                ));
            }
            Ok(())
        })?;
        note = format!(
            "trace samples as spans, ts in µs from the trace start{}",
            if truncated {
                format!(" ({})", bounds_text(MAX_LINES))
            } else {
                String::new()
            }
        );
    } else if !ds.metrics.is_empty() {
        let f = Flame::new(ds, metric)?;
        let Some(m) = ds.metrics.get(metric) else {
            return Err(crate::error::Error::invalid(&ds.title, 0, "no such metric"));
        };
        // Values become µs: seconds scale by 1e6, other units are drawn 1 unit = 1 µs.
        let scale = match super::speedscope::unit_of(&m.unit) {
            "seconds" => 1e6,
            "milliseconds" => 1e3,
            "nanoseconds" => 1e-3,
            _ => 1.0,
        };
        ev.push(
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"summary profile\"}}"
                .into(),
        );
        // next[i]: where node i's next child starts; children laid out in file order.
        let n = ds.cct.tree.len();
        let mut next = vec![0.0f64; n];
        for i in 1..n {
            let p = ds.cct.tree.parent[i] as usize;
            let incl = f.columns.inclusive[i];
            if p >= i || incl.is_nan() || incl <= 0.0 {
                continue;
            }
            let x = next[p];
            next[p] += incl;
            next[i] = x;
            ev.push(format!(
                "{{\"name\":{},\"cat\":\"profile\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":1,\"tid\":1,\"args\":{{\"inclusive\":{},\"self\":{}}}}}",
                json_str(&clean_name(f.names.of(i as u32))),
                num(x * scale),
                num(incl * scale),
                num(incl),
                num(f.point[i])
            ));
        }
        note = format!(
            "summary profile of metric {} drawn as a flame chart: each context lasts its inclusive value{}",
            m.name,
            if scale == 1.0 { " (1 unit = 1 µs)" } else { "" }
        );
    }
    Ok(format!(
        "{{\"traceEvents\":[\n{}\n],\"displayTimeUnit\":\"ns\",\"otherData\":{{\"exporter\":{},\"note\":{}}}}}\n",
        ev.join(",\n"),
        json_str(&format!("hpcscope {}", env!("CARGO_PKG_VERSION"))),
        json_str(&note)
    ))
}
