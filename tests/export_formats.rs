//! Exports checked against their formats' documented schemas (written here from the spec texts:
//! speedscope's file-format-spec.ts, the Trace Event Format document), and folded stacks against
//! the root value, on hand-made datasets and on the HPCToolkit corpus.

use hpcscope::analysis::folded::{from_folded, FoldedScopes};
use hpcscope::analysis::values::{metric_columns, Selection};
use hpcscope::export::{chrome, csv, folded, pick_metric, speedscope};
use hpcscope::model::Dataset;
use serde_json::Value;
use std::collections::HashMap;

mod common;

/// Field `k` of the object `v` read by `as_t` (`Value::as_f64`, ...); `err` when it is missing
/// or of another type.
fn field<'a, T>(
    v: &'a Value,
    k: &str,
    as_t: fn(&'a Value) -> Option<T>,
    err: impl Into<String>,
) -> std::result::Result<T, String> {
    v.get(k).and_then(as_t).ok_or_else(|| err.into())
}

/// speedscope file: required `$schema`, `shared.frames`, `profiles`; frames `{name, file?, line?,
/// col?}`; sampled profiles' stacks index frames and have one weight each; evented profiles'
/// events are in non-decreasing `at`, inside [startValue, endValue], and open/close balanced.
fn check_speedscope(v: &Value) -> std::result::Result<(), String> {
    let o = v.as_object().ok_or("file is not an object")?;
    if o.get("$schema").and_then(Value::as_str)
        != Some("https://www.speedscope.app/file-format-schema.json")
    {
        return Err("$schema missing or wrong".into());
    }
    for k in ["name", "exporter"] {
        if let Some(x) = o.get(k) {
            x.as_str().ok_or(format!("{k} not a string"))?;
        }
    }
    let frames = o
        .get("shared")
        .and_then(|s| s.get("frames"))
        .and_then(Value::as_array)
        .ok_or("shared.frames missing")?;
    for (i, frame) in frames.iter().enumerate() {
        let f = frame
            .as_object()
            .ok_or(format!("frame {i} not an object"))?;
        field(
            frame,
            "name",
            Value::as_str,
            format!("frame {i} has no name"),
        )?;
        if let Some(x) = f.get("file") {
            x.as_str().ok_or(format!("frame {i} file not a string"))?;
        }
        for k in ["line", "col"] {
            if let Some(x) = f.get(k) {
                x.as_f64().ok_or(format!("frame {i} {k} not a number"))?;
            }
        }
        if let Some(k) = f
            .keys()
            .find(|k| !["name", "file", "line", "col"].contains(&k.as_str()))
        {
            return Err(format!("frame {i}: unknown field {k}"));
        }
    }
    let nf = frames.len() as u64;
    let profiles = field(v, "profiles", Value::as_array, "profiles missing")?;
    if let Some(a) = o.get("activeProfileIndex") {
        let a = a.as_u64().ok_or("activeProfileIndex not an index")?;
        if a as usize >= profiles.len() {
            return Err("activeProfileIndex out of range".into());
        }
    }
    let frame_ix = |x: Option<&Value>, what: &str| -> std::result::Result<u64, String> {
        let i = x
            .and_then(Value::as_u64)
            .ok_or(format!("{what}: frame not an index"))?;
        if i >= nf {
            return Err(format!("{what}: frame {i} out of range ({nf} frames)"));
        }
        Ok(i)
    };
    for (pi, p) in profiles.iter().enumerate() {
        let what = format!("profile {pi}");
        field(p, "name", Value::as_str, format!("{what}: no name"))?;
        let unit = p.get("unit").and_then(Value::as_str).unwrap_or("?");
        if ![
            "none",
            "nanoseconds",
            "microseconds",
            "milliseconds",
            "seconds",
            "bytes",
        ]
        .contains(&unit)
        {
            return Err(format!("{what}: bad unit {unit}"));
        }
        let start = field(
            p,
            "startValue",
            Value::as_f64,
            format!("{what}: no startValue"),
        )?;
        let end = field(p, "endValue", Value::as_f64, format!("{what}: no endValue"))?;
        if end < start {
            return Err(format!("{what}: endValue < startValue"));
        }
        match p.get("type").and_then(Value::as_str) {
            Some("sampled") => {
                let s = field(p, "samples", Value::as_array, format!("{what}: no samples"))?;
                let w = field(p, "weights", Value::as_array, format!("{what}: no weights"))?;
                if s.len() != w.len() {
                    return Err(format!("{what}: {} samples, {} weights", s.len(), w.len()));
                }
                for st in s {
                    for f in st.as_array().ok_or(format!("{what}: stack not an array"))? {
                        frame_ix(Some(f), &what)?;
                    }
                }
                for x in w {
                    x.as_f64().ok_or(format!("{what}: weight not a number"))?;
                }
            }
            Some("evented") => {
                let ev = field(p, "events", Value::as_array, format!("{what}: no events"))?;
                let mut stack = Vec::new();
                let mut last = f64::NEG_INFINITY;
                for e in ev {
                    let at = field(e, "at", Value::as_f64, format!("{what}: event without at"))?;
                    if at < last || at < start || at > end {
                        return Err(format!("{what}: event at {at} out of order or range"));
                    }
                    last = at;
                    let f = frame_ix(e.get("frame"), &what)?;
                    match e.get("type").and_then(Value::as_str) {
                        Some("O") => stack.push(f),
                        Some("C") => {
                            if stack.pop() != Some(f) {
                                return Err(format!("{what}: close of frame {f} not open on top"));
                            }
                        }
                        _ => return Err(format!("{what}: bad event type")),
                    }
                }
                if !stack.is_empty() {
                    return Err(format!("{what}: {} frames never closed", stack.len()));
                }
            }
            _ => return Err(format!("{what}: bad type")),
        }
    }
    Ok(())
}

/// Chrome trace (Trace Event Format, JSON object form): `traceEvents` array of events with a
/// string `name` and `ph`; "X" events have numeric ts >= 0 and dur >= 0 and integer pid/tid;
/// "B"/"E" balance per thread; "M" metadata events carry `args.name`; events of one thread nest.
fn check_chrome(v: &Value) -> std::result::Result<(), String> {
    let o = v.as_object().ok_or("not an object")?;
    let evs = field(v, "traceEvents", Value::as_array, "traceEvents missing")?;
    if let Some(u) = o.get("displayTimeUnit") {
        if !matches!(u.as_str(), Some("ms") | Some("ns")) {
            return Err("displayTimeUnit must be ms or ns".into());
        }
    }
    let mut open: HashMap<(i64, i64), Vec<String>> = HashMap::new();
    let mut spans: HashMap<(i64, i64), Vec<(f64, f64)>> = HashMap::new();
    for (i, e) in evs.iter().enumerate() {
        let what = format!("event {i}");
        let name = field(e, "name", Value::as_str, format!("{what}: no name"))?;
        let ph = field(e, "ph", Value::as_str, format!("{what}: no ph"))?;
        let pid = field(
            e,
            "pid",
            Value::as_i64,
            format!("{what}: pid not an integer"),
        )?;
        let tid = field(
            e,
            "tid",
            Value::as_i64,
            format!("{what}: tid not an integer"),
        )?;
        let num = |k: &str| -> std::result::Result<f64, String> {
            let x = field(e, k, Value::as_f64, format!("{what}: {k} not a number"))?;
            if x < 0.0 || !x.is_finite() {
                return Err(format!("{what}: {k} = {x}"));
            }
            Ok(x)
        };
        match ph {
            "X" => {
                let ts = num("ts")?;
                let dur = num("dur")?;
                spans.entry((pid, tid)).or_default().push((ts, ts + dur));
            }
            "B" => {
                num("ts")?;
                open.entry((pid, tid)).or_default().push(name.to_string());
            }
            "E" => {
                num("ts")?;
                if open.entry((pid, tid)).or_default().pop().is_none() {
                    return Err(format!("{what}: E without B"));
                }
            }
            "M" => {
                if ![
                    "process_name",
                    "thread_name",
                    "process_sort_index",
                    "thread_sort_index",
                ]
                .contains(&name)
                {
                    return Err(format!("{what}: unknown metadata {name}"));
                }
                field(
                    e,
                    "args",
                    Value::as_object,
                    format!("{what}: metadata without args"),
                )?;
            }
            _ => return Err(format!("{what}: unexpected ph {ph}")),
        }
        if let Some(a) = e.get("args") {
            a.as_object().ok_or(format!("{what}: args not an object"))?;
        }
    }
    if let Some((k, s)) = open.iter().find(|(_, s)| !s.is_empty()) {
        return Err(format!("thread {k:?}: {} B events never ended", s.len()));
    }
    // Complete events of one thread must nest (a slice ends inside its parent).
    for (k, mut s) in spans {
        s.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut stack: Vec<f64> = Vec::new();
        for (a, b) in s {
            while stack.last().is_some_and(|&end| end <= a + 1e-6) {
                stack.pop();
            }
            if let Some(&end) = stack.last() {
                if b > end + 1e-6 * end.abs().max(1.0) {
                    return Err(format!(
                        "thread {k:?}: slice {a}..{b} crosses its parent's end {end}"
                    ));
                }
            }
            stack.push(b);
        }
    }
    Ok(())
}

/// `text` parsed as JSON, which must pass `check` (a failure names `what`).
fn parse_checked(
    text: &str,
    check: fn(&Value) -> std::result::Result<(), String>,
    what: &str,
) -> Value {
    let v = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    check(&v).unwrap_or_else(|e| panic!("{what}: {e}"));
    v
}

/// The elements of the JSON array `v`.
fn items(v: &Value) -> std::slice::Iter<'_, Value> {
    v.as_array().expect("an array").iter()
}

/// Sum of a folded file's values, checking every line's shape.
fn folded_sum(text: &str) -> f64 {
    let mut sum = 0.0;
    for line in text.lines() {
        let (stack, v) = line.rsplit_once(' ').expect("line has a value");
        assert!(!stack.is_empty(), "{line}");
        sum += v.parse::<f64>().expect("value is a number");
    }
    sum
}

const TEXT: &str = "main;solve;mpi_wait 30\nmain;solve 12\nmain;io 5\nother 3\n";

#[test]
fn folded_round_trip() {
    for scopes in [
        FoldedScopes::Point,
        FoldedScopes::Inclusive,
        FoldedScopes::Both,
    ] {
        let ds = from_folded(TEXT, scopes).unwrap();
        let out = folded::write(&ds, 0).unwrap();
        let mut got: Vec<&str> = out.lines().collect();
        got.sort();
        let mut want: Vec<&str> = TEXT.lines().collect();
        want.sort();
        assert_eq!(got, want, "{scopes:?}");
        assert_eq!(folded_sum(&out), 50.0);
    }
}

#[test]
fn speedscope_small() {
    let ds = from_folded(TEXT, FoldedScopes::Point).unwrap();
    let v = parse_checked(
        &speedscope::write(&ds, 0).unwrap(),
        check_speedscope,
        "speedscope",
    );
    let p = &v["profiles"][0];
    assert_eq!(p["type"], "sampled");
    let w: f64 = items(&p["weights"]).map(|x| x.as_f64().unwrap()).sum();
    assert_eq!(w, 50.0);
    assert_eq!(p["endValue"].as_f64(), Some(50.0));
    // Stacks name their frames root first: main;solve;mpi_wait weighs 30.
    let frames = v["shared"]["frames"].as_array().unwrap();
    let names: Vec<Vec<&str>> = items(&p["samples"])
        .map(|s| {
            items(s)
                .map(|f| {
                    frames[f.as_u64().unwrap() as usize]["name"]
                        .as_str()
                        .unwrap()
                })
                .collect()
        })
        .collect();
    let i = names
        .iter()
        .position(|n| n == &["main", "solve", "mpi_wait"])
        .unwrap();
    assert_eq!(p["weights"][i].as_f64(), Some(30.0));
}

#[test]
fn chrome_small_profile_as_flame() {
    let ds = from_folded(TEXT, FoldedScopes::Both).unwrap();
    let v = parse_checked(&chrome::write(&ds, 0).unwrap(), check_chrome, "chrome");
    let x: Vec<&Value> = items(&v["traceEvents"])
        .filter(|e| e["ph"] == "X")
        .collect();
    // The metric is in seconds, drawn in µs: main (47 s) starts at 0, other (3 s) after it;
    // solve (42 s) at 0 inside main, io (5 s) at 42 s.
    assert_eq!(ds.metrics[0].unit, "s");
    let find = |n: &str| x.iter().find(|e| e["name"] == n).unwrap();
    assert_eq!(find("main")["dur"].as_f64(), Some(47e6));
    assert_eq!(find("other")["ts"].as_f64(), Some(47e6));
    assert_eq!(find("io")["ts"].as_f64(), Some(42e6));
    assert_eq!(find("mpi_wait")["dur"].as_f64(), Some(30e6));
    assert_eq!(find("io")["args"]["self"].as_f64(), Some(5.0));
}

#[test]
fn csv_small() {
    let ds = from_folded(TEXT, FoldedScopes::Both).unwrap();
    let out = csv::write(&ds).unwrap();
    let lines: Vec<&str> = out.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 1 + ds.cct.tree.len() - 1);
    assert!(lines[0].starts_with("node,parent,depth,name,file,line,module,"));
    let main = lines
        .iter()
        .find(|l| l.split(',').nth(3) == Some("main"))
        .unwrap();
    let f: Vec<&str> = main.split(',').collect();
    // inclusive 47, exclusive 0 (main has no value of its own).
    assert_eq!(&f[f.len() - 2..], &["47", "0"]);
    assert_eq!(csv::field("a,\"b\""), "\"a,\"\"b\"\"\"");
}

#[test]
fn events_balance_with_equal_times() {
    use hpcscope::export::spans::Span;
    let s = |node, depth, start, end| Span {
        node,
        depth,
        start,
        end,
    };
    // A frame closing and its sibling opening at the same instant; an empty span dropped.
    let spans = [
        s(2, 2, 0, 10),
        s(3, 2, 10, 20),
        s(1, 1, 0, 20),
        s(4, 1, 20, 20),
    ];
    let ev = speedscope::events_of(&spans);
    assert_eq!(
        ev,
        vec![
            (0, true, 1),
            (0, true, 2),
            (10, false, 2),
            (10, true, 3),
            (20, false, 3),
            (20, false, 1)
        ]
    );
}

fn corpus_dbs() -> Vec<std::path::PathBuf> {
    common::corpus_subdirs("hpctoolkit/v4").unwrap_or_default()
}

fn open_corpus(dir: &std::path::Path) -> Option<Dataset> {
    let inputs = hpcscope::cli::read_inputs(dir).ok()?;
    let (groups, _) = hpcscope::formats::group(inputs);
    hpcscope::formats::open(groups.first()?).ok()
}

/// Every corpus database: folded stacks of every metric sum to the summary profile's root
/// (execution scope) value, and the speedscope and Chrome files pass their schema checks.
#[test]
fn corpus_exports() {
    let mut checked = 0;
    let mut traced = 0;
    for dir in corpus_dbs() {
        let Some(ds) = open_corpus(&dir) else {
            continue;
        };
        for m in 0..ds.metrics.len() {
            let cols = metric_columns(&ds, m, &Selection::Summary).unwrap();
            let root = cols.inclusive[0];
            let sum = folded_sum(&folded::write(&ds, m).unwrap());
            assert!(
                (sum - root).abs() <= root.abs() * 1e-12 + 1e-300,
                "{} metric {}: folded sum {sum} != root {root}",
                dir.display(),
                ds.metrics[m].name
            );
        }
        let m = pick_metric(&ds, None).unwrap();
        let what = dir.display().to_string();
        let s = parse_checked(&speedscope::write(&ds, m).unwrap(), check_speedscope, &what);
        let c = parse_checked(&chrome::write(&ds, m).unwrap(), check_chrome, &what);
        let evented = items(&s["profiles"])
            .filter(|p| p["type"] == "evented")
            .count();
        if evented > 0 {
            traced += 1;
            let slices = items(&c["traceEvents"])
                .filter(|e| e["cat"] == "trace")
                .count();
            assert!(slices > 0, "{}", dir.display());
        }
        csv::write(&ds).unwrap();
        checked += 1;
    }
    if checked > 0 {
        assert!(checked >= 10, "only {checked} corpus databases opened");
        assert!(traced > 0);
    }
}

/// The golden numbers of one database: loops-cputime-t.d's summary cputime root value, from the
/// corpus reference transcript, is what the folded lines sum to.
#[test]
fn corpus_metric_by_name() {
    let Some(dir) = corpus_dbs()
        .into_iter()
        .find(|d| d.ends_with("hpctoolkit-tests-loops-cputime-t.d"))
    else {
        return;
    };
    let ds = open_corpus(&dir).unwrap();
    let m = pick_metric(&ds, Some("cputime")).unwrap();
    assert!(ds.metrics[m].name.to_lowercase().starts_with("cputime"));
    assert!(pick_metric(&ds, Some("no-such-metric")).is_err());
}
