//! `hpcscope diff [--json | --format folded|csv] [--metric NAME] [--base-metric NAME]
//! [--normalize none|scaled|percent] [--merged] [--timings] BASE NEW`: compares two runs of any
//! formats (`crate::analysis::diff`): per-function values of both (JSON or a text table), a
//! differential folded file, the delta table as CSV, or (`--timings`) the compare view's timings.

use crate::analysis::diff::metrics::{find_metric, no_common_metric};
use crate::analysis::diff::{diff_functions, function_totals, Comparison, MetricPair, Normalize};
use crate::formats;
use crate::model::Dataset;

const USAGE: &str =
    "usage: hpcscope diff [--json | --format json|text|folded|csv] [--metric NAME] \
[--base-metric NAME] [--normalize none|scaled|percent] [--merged] [--timings] BASE NEW";

/// Opens the first dataset found under `dir`.
pub fn open_dataset(dir: &str) -> Result<Dataset, String> {
    let g = super::first_dataset(dir, |n, root| {
        format!("hpcscope: {dir} holds {n} datasets; comparing {root}")
    })?;
    formats::open(&g).map_err(|e| e.to_string())
}

/// The metric of each run: `--metric` names both (or the new run's when `--base-metric` names
/// the base run's); without names, the first time-like metric both runs have.
pub fn choose_metrics(
    base: &Dataset,
    new: &Dataset,
    metric: Option<&str>,
    base_metric: Option<&str>,
) -> Result<MetricPair, String> {
    let find = |ds: &Dataset, name: &str, which: &str| {
        find_metric(ds, name).ok_or_else(|| {
            let names: Vec<&str> = ds.metrics.iter().map(|m| m.name.as_str()).collect();
            format!(
                "the {which} run '{}' has no metric '{name}' (metrics: {})",
                ds.title,
                names.join(", ")
            )
        })
    };
    if metric.is_none() && base_metric.is_none() {
        let pairs = crate::analysis::diff::metrics::matched_metrics(base, new);
        return crate::analysis::diff::metrics::default_pair(base, &pairs)
            .ok_or_else(|| no_common_metric(base, new));
    }
    let n = match metric.or(base_metric) {
        Some(name) => find(new, name, "new")?,
        None => unreachable!("one of them is given"),
    };
    let b = find(base, base_metric.or(metric).unwrap_or_default(), "base")?;
    Ok(MetricPair {
        base: b as u32,
        new: n as u32,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Output {
    Text,
    Json,
    Folded,
    Csv,
}

pub fn run(args: &[String]) -> Result<(), String> {
    let mut output = Output::Text;
    let (mut metric, mut base_metric) = (None, None);
    let mut normalize = Normalize::None;
    let mut merged = false;
    let mut timings = false;
    let mut dirs = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => output = Output::Json,
            "--format" | "-f" => {
                output = match it.next().map(String::as_str) {
                    Some("json") => Output::Json,
                    Some("text") => Output::Text,
                    Some("folded") | Some("collapsed") => Output::Folded,
                    Some("csv") => Output::Csv,
                    _ => return Err(USAGE.into()),
                }
            }
            "--metric" | "-m" => metric = Some(it.next().ok_or(USAGE)?.clone()),
            "--base-metric" => base_metric = Some(it.next().ok_or(USAGE)?.clone()),
            "--normalize" | "--normalise" => {
                let v = it.next().ok_or(USAGE)?;
                normalize = Normalize::parse(v)
                    .ok_or_else(|| format!("unknown normalisation '{v}'\n{USAGE}"))?;
            }
            "--merged" => merged = true,
            "--timings" => timings = true,
            _ if !a.starts_with('-') => dirs.push(a.clone()),
            _ => return Err(USAGE.into()),
        }
    }
    let [base_dir, new_dir] = dirs.as_slice() else {
        return Err(USAGE.into());
    };
    if timings {
        return bench(base_dir, new_dir, merged);
    }
    let base = open_dataset(base_dir)?;
    let new = open_dataset(new_dir)?;
    let text = diff_text(
        &base,
        &new,
        output,
        metric.as_deref(),
        base_metric.as_deref(),
        normalize,
        merged,
    )?;
    use std::io::Write;
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| e.to_string())
}

/// `--timings`: opens both runs, then times what the compare view does (match the trees, sum the
/// default metric into the union, order and lay out the flame graph), then the top-down delta
/// table and the per-function table, with this process's resident memory after opening and at
/// its peak before and after the delta table (Linux /proc).
fn bench(base_dir: &str, new_dir: &str, merged: bool) -> Result<(), String> {
    use crate::analysis::diff::functions::summary_columns;
    use crate::analysis::flame::Viewport;
    use std::time::Instant;
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let cpu0 = cpu_ms();
    let t = Instant::now();
    let base = open_dataset(base_dir)?;
    let new = open_dataset(new_dir)?;
    let open_ms = ms(t);
    // What a viewer holds for two opened runs: their trees and their default metric's columns.
    let pair = choose_metrics(&base, &new, None, None)?;
    let t = Instant::now();
    let cb = summary_columns(&base, pair.base as usize).map_err(|e| e.to_string())?;
    let cn = summary_columns(&new, pair.new as usize).map_err(|e| e.to_string())?;
    let columns_ms = ms(t);
    let (rss_open, _) = memory_kib();
    drop((cb, cn));
    let t0 = Instant::now();
    let cpu_compare = cpu_ms();
    let mut c = Comparison::new(&base, &new, merged).map_err(|e| e.to_string())?;
    let match_ms = ms(t0);
    let t = Instant::now();
    c.set_metric(&base, &new, Some(pair), Normalize::None)
        .map_err(|e| e.to_string())?;
    let metric_ms = ms(t);
    let t = Instant::now();
    c.flame_config(&new, true, true)
        .map_err(|e| e.to_string())?;
    let vp = Viewport {
        x0: 0.0,
        x1: 1.0,
        depth0: 0,
        depth1: 60,
        width_px: 1600.0,
        min_width_px: 1.0,
    };
    let w = c
        .flame_layout(&base, &new, 0, &vp)
        .map_err(|e| e.to_string())?;
    let flame_ms = ms(t);
    let compare_ms = ms(t0);
    let compare_cpu_ms = cpu_ms() - cpu_compare;
    let (_, peak) = memory_kib();
    // The compare view's top-down delta table: the union tree as a dataset, its view state,
    // sorted by inclusive delta, and the first rows.
    let cpu_table = cpu_ms();
    let t = Instant::now();
    let table_rows = {
        use crate::analysis::diff::union_ds::DELTA;
        use crate::analysis::profile::{ProfileView, TableKind};
        let ds = c.union_dataset(&base, &new).map_err(|e| e.to_string())?;
        let mut pv = ProfileView::new(&ds);
        let meta = pv.meta(&ds);
        pv.table_sort(&ds, TableKind::TopDown, DELTA, false, true)
            .map_err(|e| e.to_string())?;
        pv.table_expand(&ds, TableKind::TopDown, 0)
            .map_err(|e| e.to_string())?;
        let w = pv
            .table_window(&ds, TableKind::TopDown, 0, 40)
            .map_err(|e| e.to_string())?;
        drop(meta);
        w.rows.node.len()
    };
    let table_ms = ms(t);
    let table_cpu_ms = cpu_ms() - cpu_table;
    let (_, peak_table) = memory_kib();
    let cpu_functions = cpu_ms();
    let t = Instant::now();
    let (rb, _) = function_totals(&base, pair.base as usize).map_err(|e| e.to_string())?;
    let (rn, _) = function_totals(&new, pair.new as usize).map_err(|e| e.to_string())?;
    let rows = diff_functions(&rb, &rn, (1.0, 1.0));
    let functions_ms = ms(t);
    let functions_cpu_ms = cpu_ms() - cpu_functions;
    let total_cpu_ms = cpu_ms() - cpu0;
    let meta = c.meta(&base, &new);
    println!(
        "diff_timings contexts {} + {} -> union {} (matched {}, removed {}, added {}) merged {merged}\n\
         open_ms {open_ms:.1} columns_ms {columns_ms:.1}\n\
         compare_ms {compare_ms:.1} cpu {compare_cpu_ms:.0} (match {match_ms:.1}, metric {metric_ms:.1}, flame order + layout {flame_ms:.1}; {} rectangles)\n\
         table_ms {table_ms:.1} cpu {table_cpu_ms:.0} (top-down delta table: union dataset, sort, {table_rows} rows)\n\
         functions_ms {functions_ms:.1} cpu {functions_cpu_ms:.0} ({} functions)\n\
         process_cpu_ms {total_cpu_ms:.0} (/proc ticks of 10 ms)\n\
         peak_rss_with_table_mib {:.1}\n\
         rss_after_open_mib {:.1} peak_rss_mib {:.1} ratio {:.2}",
        base.cct.tree.len(),
        new.cct.tree.len(),
        meta.counts.contexts,
        meta.counts.matched,
        meta.counts.removed,
        meta.counts.added,
        w.frames.rects.len(),
        rows.len(),
        peak_table as f64 / 1024.0,
        rss_open as f64 / 1024.0,
        peak as f64 / 1024.0,
        peak as f64 / rss_open.max(1) as f64,
    );
    Ok(())
}

/// CPU time (user + system) of this process in ms, from /proc/self/stat (0 elsewhere): what a
/// loaded shared machine does not inflate.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |k: usize| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command name).
    (tick(11) + tick(12)) * 10.0
}

/// (resident, peak resident) memory of this process in KiB from /proc/self/status (0 elsewhere).
fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// What `run` prints for two opened runs.
fn diff_text(
    base: &Dataset,
    new: &Dataset,
    output: Output,
    metric: Option<&str>,
    base_metric: Option<&str>,
    normalize: Normalize,
    merged: bool,
) -> Result<String, String> {
    for ds in [base, new] {
        if ds.metrics.is_empty() {
            return Err(format!(
                "'{}' has no metrics to compare (a trace-only database?)",
                ds.title
            ));
        }
    }
    let pair = choose_metrics(base, new, metric, base_metric)?;
    if matches!(output, Output::Folded | Output::Csv) {
        let mut c = Comparison::new(base, new, merged).map_err(|e| e.to_string())?;
        c.set_metric(base, new, Some(pair), normalize)
            .map_err(|e| e.to_string())?;
        let r = if output == Output::Folded {
            crate::export::diff::write_folded(&c, base, new)
        } else {
            crate::export::diff::write_csv(&c, base, new)
        };
        return r.map_err(|e| e.to_string());
    }
    let (rb, tb) = function_totals(base, pair.base as usize).map_err(|e| e.to_string())?;
    let (rn, tn) = function_totals(new, pair.new as usize).map_err(|e| e.to_string())?;
    let (bf, nf) = normalize.factors(tb, tn);
    let rows = diff_functions(&rb, &rn, (bf, nf));
    let name = |ds: &Dataset, m: u32| ds.metrics[m as usize].name.clone();
    let (bn, nn) = (name(base, pair.base), name(new, pair.new));
    if output == Output::Json {
        let mut v = serde_json::json!({
            "metric": nn,
            "base_total": tb * bf,
            "new_total": tn * nf,
            "functions": rows,
        });
        if bn != nn {
            v["base_metric"] = serde_json::Value::from(bn);
        }
        if normalize != Normalize::None {
            v["normalize"] = serde_json::Value::from(normalize.name());
        }
        let mut s = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        s.push('\n');
        return Ok(s);
    }
    let mut s = format!(
        "{} ({}) -> {} ({})\nmetric: {nn}{}\ntotal: {} -> {} ({:+})\n\n{:>14} {:>14} {:>14}  function\n",
        base.title,
        base.format,
        new.title,
        new.format,
        if bn != nn { format!(" (base: {bn})") } else { String::new() },
        tb * bf,
        tn * nf,
        tn * nf - tb * bf,
        "base self",
        "new self",
        "delta",
    );
    for r in rows.iter().take(40) {
        s.push_str(&format!(
            "{:>14.6} {:>14.6} {:>+14.6}  {}{}\n",
            r.base_self,
            r.new_self,
            r.new_self - r.base_self,
            r.function,
            r.module
                .as_ref()
                .map(|m| format!(" [{m}]"))
                .unwrap_or_default()
        ));
    }
    if rows.len() > 40 {
        s.push_str(&format!("... {} more (--json for all)\n", rows.len() - 40));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::folded::{from_folded, FoldedScopes};

    #[test]
    fn json_folded_and_csv() {
        let b = from_folded(
            "main[app];f[app] 3\nmain[app];g[lib.so] 1\n",
            FoldedScopes::Point,
        )
        .unwrap();
        let n = from_folded("main[app];f[app] 5\nmain[app] 1\n", FoldedScopes::Point).unwrap();
        let j = diff_text(&b, &n, Output::Json, None, None, Normalize::None, false).unwrap();
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["metric"], "time");
        assert_eq!(
            (v["base_total"].as_f64(), v["new_total"].as_f64()),
            (Some(4.0), Some(6.0))
        );
        let f = &v["functions"][0];
        assert_eq!(f["function"], "f");
        assert_eq!(f["module"], "app");
        assert_eq!(
            (f["base_self"].as_f64(), f["new_self"].as_f64()),
            (Some(3.0), Some(5.0))
        );
        let g = v["functions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["function"] == "g")
            .unwrap();
        assert_eq!(
            (g["base_total"].as_f64(), g["new_total"].as_f64()),
            (Some(1.0), Some(0.0))
        );
        let folded = diff_text(&b, &n, Output::Folded, None, None, Normalize::None, false).unwrap();
        assert_eq!(folded, "main 0 1\nmain;f 3 5\nmain;g 1 0\n");
        let pct = diff_text(
            &b,
            &n,
            Output::Folded,
            None,
            None,
            Normalize::Percent,
            false,
        )
        .unwrap();
        assert_eq!(pct.lines().nth(1), Some("main;f 75 83.33333333333334"));
        let csv = diff_text(&b, &n, Output::Csv, None, None, Normalize::None, false).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(
            lines[2],
            "2,1,2,f,app,both,3,5,2,1.6666666666666667,3,5,2,1.6666666666666667"
        );
        assert_eq!(lines[3], "3,1,2,g,lib.so,removed,1,0,-1,0,1,0,-1,0");
    }

    #[test]
    fn metrics_by_name_and_clear_errors() {
        let b = from_folded("a 1\n", FoldedScopes::Point).unwrap();
        let mut n = from_folded("a 1\n", FoldedScopes::Point).unwrap();
        n.metrics[0].name = "cycles".into();
        let e = diff_text(&b, &n, Output::Json, None, None, Normalize::None, false).unwrap_err();
        assert!(e.contains("no metric in common"), "{e}");
        let e = choose_metrics(&b, &n, Some("time"), None).unwrap_err();
        assert!(e.contains("new run") && e.contains("cycles"), "{e}");
        let p = choose_metrics(&b, &n, Some("cycles"), Some("time")).unwrap();
        assert_eq!(p, MetricPair { base: 0, new: 0 });
        n.metrics.clear();
        let e = diff_text(&b, &n, Output::Json, None, None, Normalize::None, false).unwrap_err();
        assert!(e.contains("trace-only"), "{e}");
    }
}
