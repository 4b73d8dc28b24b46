//! `hpcscope report [--json] [--task] DIR`: the `uftrace report` table of a uftrace recording (Total
//! time, Self time, Calls, Function; by total time, times as uftrace prints them), or JSON; `--task`
//! gives per-task totals; record files are read in windows, not whole. With `--html OUT.html`, any
//! dataset as a self-contained page instead (report_html.rs).

use crate::formats::{self, uftrace};
use std::path::Path;

/// A duration as uftrace (0.13, utils/utils.c print_time_unit) prints it: `%4d.%03d unit` with
/// unit us, ms, s, m or h, blank for 0, and 999.999 for what does not fit (its "error cases").
/// Its quirks are kept: the value is read as signed and printed without its sign (a sum that
/// wrapped below zero, as LOST records can make, shows as its distance to zero), and past 24
/// minutes the "hours" are minutes / 24, with minutes % 24 after the point.
pub fn format_time(ns: u64) -> String {
    const UNITS: [&str; 5] = ["us", "ms", " s", " m", " h"];
    const LIMITS: [u64; 6] = [1000, 1000, 1000, 60, 24, u64::MAX];
    if ns == 0 {
        return " ".repeat(11);
    }
    let mut delta = (ns as i64).unsigned_abs();
    let mut small = 0;
    let mut idx = 0;
    while idx < UNITS.len() {
        small = delta % LIMITS[idx];
        delta /= LIMITS[idx];
        if delta < LIMITS[idx + 1] {
            break;
        }
        idx += 1;
    }
    let idx = idx.min(UNITS.len() - 1);
    if delta > 999 {
        (delta, small) = (999, 999);
    }
    format!("{delta:4}.{small:03} {}", UNITS[idx])
}

/// The function table as `uftrace report` prints it.
pub fn format_table(rows: &[uftrace::ReportRow]) -> String {
    time_table(
        "     Calls  Function",
        "==========  ====================",
        rows.iter().map(|r| {
            let rest = format!("{:>11}  {}", r.calls, r.function);
            (r.total_ns, r.self_ns, rest)
        }),
    )
}

/// The task table as `uftrace report --task` prints it.
pub fn format_task_table(tasks: &[uftrace::TaskReport]) -> String {
    let mut sorted: Vec<&uftrace::TaskReport> = tasks.iter().collect();
    sorted.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.tid.cmp(&b.tid)));
    time_table(
        "   TID   Num funcs  Task name",
        "======  ==========  ====================",
        sorted.into_iter().map(|t| {
            let rest = format!("{:>7} {:>11}  {:<16}", t.tid, t.calls, t.name);
            (t.total_ns, t.self_ns, rest)
        }),
    )
}

/// A table of `uftrace report`: the total and self time columns, then the columns `head` names
/// (underlined by `rule`), one row per (total ns, self ns, the other columns).
fn time_table(head: &str, rule: &str, rows: impl Iterator<Item = (u64, u64, String)>) -> String {
    let mut s = format!("  Total time   Self time  {head}\n  ==========  ==========  {rule}\n");
    for (total_ns, self_ns, rest) in rows {
        s.push_str(&format!(
            " {} {} {rest}\n",
            format_time(total_ns),
            format_time(self_ns)
        ));
    }
    s
}

fn rows_json(rows: &[uftrace::ReportRow]) -> serde_json::Value {
    serde_json::Value::Array(
        rows.iter()
            .map(|r| {
                serde_json::json!({
                    "function": r.function,
                    "total_ns": r.total_ns,
                    "self_ns": r.self_ns,
                    "calls": r.calls,
                })
            })
            .collect(),
    )
}

pub fn run(args: &[String]) -> Result<(), String> {
    #[cfg(not(target_arch = "wasm32"))]
    if args.iter().any(|a| a == "--html") {
        return super::report_html::run(args);
    }
    let mut json = false;
    let mut task = false;
    let mut dir = None;
    for a in args {
        match a.as_str() {
            "--json" => json = true,
            "--task" => task = true,
            _ if dir.is_none() && !a.starts_with("--") => dir = Some(a.clone()),
            _ => return Err("usage: hpcscope report [--json] [--task] DIR".into()),
        }
    }
    let Some(dir) = dir else {
        return Err("usage: hpcscope report [--json] [--task] DIR".into());
    };
    let inputs = super::read_inputs(Path::new(&dir))?;
    let (groups, _) = formats::group(inputs);
    let group = groups
        .into_iter()
        .find(|g| g.format_id() == uftrace::ID)
        .ok_or_else(|| format!("{dir}: no uftrace recording found"))?;
    let (ds, report) = uftrace::open_report(&group).map_err(|e| e.to_string())?;
    for w in &ds.warnings {
        eprintln!("warning: {w}");
    }
    let out = match (json, task) {
        (true, false) => serde_json::to_string_pretty(&rows_json(&report.functions))
            .map_err(|e| e.to_string())?,
        (true, true) => {
            let v: Vec<serde_json::Value> = report
                .tasks
                .iter()
                .map(|t| {
                    serde_json::json!({
                        "tid": t.tid,
                        "name": t.name,
                        "total_ns": t.total_ns,
                        "self_ns": t.self_ns,
                        "calls": t.calls,
                        "functions": rows_json(&t.rows),
                    })
                })
                .collect();
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        }
        (false, false) => format_table(&report.functions),
        (false, true) => format_task_table(&report.tasks),
    };
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = lock.write_all(out.as_bytes());
    if !out.ends_with('\n') {
        let _ = lock.write_all(b"\n");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_like_uftrace() {
        assert_eq!(format_time(44_085), "  44.085 us");
        assert_eq!(format_time(40), "   0.040 us");
        assert_eq!(format_time(6_599_377), "   6.599 ms");
        assert_eq!(format_time(59_760_000_000), "  59.760  s");
        assert_eq!(format_time(90_000_000_000), "   1.030  m");
        // Printed by uftrace 0.13 for calls of these lengths (a synthetic recording).
        assert_eq!(format_time(0), "           ");
        assert_eq!(format_time(3_599_999_999_999), "   2.011  h");
        assert_eq!(format_time(7_200_000_000_000), "   5.000  h");
        assert_eq!(format_time(864_000_000_000_000), " 600.000  h");
        assert_eq!(format_time(1_000_000_000_000_000_000), " 999.999  h");
        // A sum 1,580 ns below zero (uftrace 0.13 printed it for a recording with two LOST
        // records, whose accounting subtracts a later start from an earlier one).
        assert_eq!(format_time(0u64.wrapping_sub(1580)), "   1.580 us");
    }
}
