//! The time-order chart (src/analysis/timeline/calls.rs) against the calls uftrace itself shows:
//! every call of every task, in entry order, with its depth, name, duration, arguments and return
//! value as `uftrace replay` prints them (and start times from `uftrace dump` where the corpus has
//! one), on the fixtures recorded with uftrace 0.13, the corpus recordings, and a generated
//! recording whose calls the generator knows exactly.

use hpcscope::analysis::timeline::calls::{self, Call, EXACT_LIMIT, MERGED};
use hpcscope::analysis::timeline::{FrameIndex, Window};
use hpcscope::formats::{self, InputFile};
use hpcscope::model::Dataset;
use hpcscope::synth::uftrace_recording::{ArgValue, Recording, UftraceSpec};
use std::collections::BTreeMap;
use std::path::Path;

mod common;

/// One call as `uftrace replay` prints it.
#[derive(Clone, Debug, PartialEq)]
struct ReplayCall {
    depth: u32,
    name: String,
    /// `name(args)` as printed.
    head: String,
    /// Duration as printed: (value in thousandths of `unit_ns`, unit_ns); `None` when the call
    /// never returned.
    duration: Option<(u64, u64)>,
    retval: Option<String>,
}

/// "1.643 us" -> (1643, 1): thousandths of the unit and the unit in ns.
fn duration(s: &str) -> Option<(u64, u64)> {
    let (num, unit) = s.trim().split_once(' ')?;
    let (int, frac) = num.split_once('.')?;
    let unit_ns = match unit.trim() {
        "us" => 1,
        "ms" => 1_000,
        "s" => 1_000_000,
        _ => return None,
    };
    Some((
        int.parse::<u64>().ok()? * 1000 + frac.parse::<u64>().ok()?,
        unit_ns,
    ))
}

/// The name of `name(args)`: what precedes the last balanced "( ... )" (a name may hold
/// parentheses of its own, `operator()`).
fn split_call(s: &str) -> String {
    let Some(body) = s.strip_suffix(')') else {
        return s.to_string();
    };
    let mut depth = 0i32;
    for (i, ch) in body.char_indices().rev() {
        match ch {
            ')' => depth += 1,
            '(' if depth == 0 => return body[..i].to_string(),
            '(' => depth -= 1,
            _ => {}
        }
    }
    s.to_string()
}

/// Calls per task id, in entry order, from `uftrace replay` output.
fn parse_replay(text: &str) -> BTreeMap<u32, Vec<ReplayCall>> {
    let mut out: BTreeMap<u32, Vec<ReplayCall>> = BTreeMap::new();
    let mut open: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        let (Some(b), Some(bar)) = (l.find('['), l.find("] | ")) else {
            continue;
        };
        let dur = duration(&l[..b]);
        let tid: u32 = l[b + 1..bar].trim().parse().unwrap();
        let rest = &l[bar + 4..];
        let body = rest.trim_start_matches(' ');
        let depth = ((rest.len() - body.len()) / 2) as u32;
        let calls = out.entry(tid).or_default();
        let stack = open.entry(tid).or_default();
        if let Some(tail) = body.strip_prefix('}') {
            // `} /* name */` or `} = ret; /* name */`
            let i = stack.pop().expect("a return without its entry");
            calls[i].duration = dur;
            if let Some(r) = tail.trim().strip_prefix("= ") {
                calls[i].retval = Some(r.split_once(';').unwrap().0.to_string());
            }
        } else if let Some(c) = body.strip_prefix("/* ").and_then(|c| c.strip_suffix(" */")) {
            // Scheduler switches are calls of `linux:schedule` in the model; other events
            // (`read:proc/statm`) are not calls.
            if c == "linux:sched-out" {
                calls.push(ReplayCall {
                    depth,
                    name: "linux:schedule".into(),
                    head: "linux:schedule()".into(),
                    duration: None,
                    retval: None,
                });
                stack.push(calls.len() - 1);
            } else if c == "linux:sched-in" {
                let i = stack.pop().expect("sched-in without sched-out");
                calls[i].duration = dur;
            } else if c.starts_with("linux:schedule") {
                calls.push(ReplayCall {
                    depth,
                    name: c.to_string(),
                    head: c.to_string(),
                    duration: dur,
                    retval: None,
                });
            }
        } else if let Some(head) = body.strip_suffix(" {") {
            calls.push(ReplayCall {
                depth,
                name: split_call(head),
                head: head.to_string(),
                duration: None,
                retval: None,
            });
            stack.push(calls.len() - 1);
        } else if let Some(head) = body.strip_suffix(';') {
            let (head, retval) = match head.rsplit_once(" = ") {
                Some((h, r)) if h.ends_with(')') => (h, Some(r.to_string())),
                _ => (head, None),
            };
            calls.push(ReplayCall {
                depth,
                name: split_call(head),
                head: head.to_string(),
                duration: dur,
                retval,
            });
        }
    }
    out
}

/// Entry times per task from `uftrace dump` (`1940.975357423  17009: [entry] a(...) depth: 1`).
fn parse_dump_entries(text: &str) -> BTreeMap<u32, Vec<u64>> {
    let mut out: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for l in text.lines().filter(|l| l.contains(": [entry] ")) {
        let mut w = l.split_whitespace();
        let (Some(t), Some(tid)) = (w.next(), w.next()) else {
            continue;
        };
        let (s, ns) = t.split_once('.').unwrap();
        let time = s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap();
        let tid: u32 = tid.trim_end_matches(':').parse().unwrap();
        out.entry(tid).or_default().push(time);
    }
    out
}

fn open_dir(dir: &Path) -> Dataset {
    let g = common::uftrace_group(dir);
    formats::open(&g).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// A call of the chart with what the tooltip shows of it.
struct Shown {
    call: Call,
    name: String,
    args: Vec<String>,
    retval: Option<String>,
}

/// Every call of every line, in entry order (start, then depth), by task id.
fn chart(ds: &Dataset) -> BTreeMap<u32, Vec<Shown>> {
    let ix = FrameIndex::new(ds);
    let trace = ds.trace.as_ref().expect("a trace");
    let mut out = BTreeMap::new();
    for (line, l) in trace.lines.iter().enumerate() {
        let tid = ds.profiles[l.prof_index as usize].id_tuple[0].logical_id;
        let mut calls = calls::line_calls(ds, &ix, line, 0, l.samples).unwrap();
        calls.sort_by_key(|c| (c.start, c.depth));
        // Replay prints no scheduler switch before a task's first function record or after its
        // last; the chart shows them (the task was scheduled out before it ran, or after).
        let sched = |c: &Call| ds.frame_name(c.node).starts_with("linux:schedule");
        let first = calls
            .iter()
            .find(|c| !sched(c))
            .map_or(u64::MAX, |c| c.start);
        let last = calls
            .iter()
            .filter(|c| !sched(c))
            .map(|c| c.end)
            .max()
            .unwrap_or(0);
        calls.retain(|c| !sched(c) || (c.start >= first && c.end <= last));
        let shown = calls
            .into_iter()
            .map(|c| {
                let end = (c.flags & calls::NO_RETURN == 0).then_some(c.end);
                let p = ds.data.call_payloads(line, c.node, c.start, end).unwrap();
                Shown {
                    call: c,
                    name: ds.frame_name(c.node),
                    args: p.args,
                    retval: p.retval,
                }
            })
            .collect();
        out.insert(tid, shown);
    }
    out
}

/// `arg1=10` -> `10`: replay prints values only.
fn value(s: &str) -> &str {
    s.split_once('=').map_or(s, |(_, v)| v)
}

/// Compares the chart of `ds` with replay's calls (and dump's entry times when given).
fn compare(what: &str, ds: &Dataset, replay: &str, dump: Option<&str>) -> usize {
    let want = parse_replay(replay);
    let starts = dump.map(parse_dump_entries);
    let got = chart(ds);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}: tasks"
    );
    let mut n = 0;
    for (tid, calls) in &want {
        let mine = &got[tid];
        for (i, (m, w)) in mine.iter().zip(calls).enumerate() {
            let at = format!("{what}: task {tid} call {i} ({})", w.name);
            assert_eq!(m.call.depth, w.depth, "{at}: depth");
            let args: Vec<&str> = m.args.iter().map(|a| value(a)).collect();
            // Replay prints `name(args)`, but a name ending in ")" (`main::$_0::operator()`)
            // without arguments alone.
            let printed = if args.is_empty() && m.name.ends_with(')') {
                m.name.clone()
            } else {
                format!("{}({})", m.name, args.join(", "))
            };
            assert_eq!(printed, w.head, "{at}: name and arguments");
            assert_eq!(
                m.retval.as_deref().map(value),
                w.retval.as_deref(),
                "{at}: return value"
            );
            match w.duration {
                Some((v, unit)) => {
                    assert_eq!(m.call.flags, 0, "{at}: flags");
                    assert_eq!((m.call.end - m.call.start) / unit, v, "{at}: duration");
                }
                None => assert_ne!(m.call.flags & calls::NO_RETURN, 0, "{at}: never returned"),
            }
            if let Some(s) = starts.as_ref().and_then(|s| s.get(tid)) {
                assert_eq!(Some(&m.call.start), s.get(i), "{at}: start (uftrace dump)");
            }
            n += 1;
        }
        assert_eq!(mine.len(), calls.len(), "{what}: calls of task {tid}");
    }
    n
}

/// The recordings of tests/fixtures/uftrace whose tasks begin and end at depth 0 (the fork and
/// LOST fixtures rebuild stacks uftrace's replay prints differently).
#[test]
fn fixtures_equal_uftrace_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/uftrace");
    let mut total = 0;
    for name in ["cxx-clones", "cxx-names", "unresolved"] {
        let dir = root.join(name);
        let ds = open_dir(&dir.join("uftrace.data"));
        let replay = std::fs::read_to_string(dir.join("expected/replay.txt")).unwrap();
        total += compare(name, &ds, &replay, None);
    }
    assert!(total > 500, "{total} calls compared");
}

/// The corpus recordings with arguments and return values, against replay and dump.
#[test]
fn corpus_recordings_equal_uftrace_replay() {
    let Some(root) = common::corpus_dir("uftrace") else {
        return;
    };
    for name in ["recorded-single", "recorded-single-args"] {
        let dir = root.join(name);
        let ds = open_dir(&dir.join("uftrace.data"));
        let read = |f: &str| std::fs::read_to_string(dir.join("expected").join(f)).unwrap();
        let n = compare(name, &ds, &read("replay.txt"), Some(&read("dump.txt")));
        assert!(n > 100, "{name}: {n} calls");
    }
}

fn arg_text(v: &Option<ArgValue>, label: &str) -> Option<String> {
    v.as_ref().map(|v| match v {
        ArgValue::Int(n) => format!("{label}={n}"),
        ArgValue::Str(s) => format!("{label}={s:?}"),
    })
}

/// A generated recording: every call's start, end, depth, name, argument and return value as
/// the generator made it; windows of it laid out for the view agree with the whole-line calls.
#[test]
fn generated_recording_calls_are_the_generated_calls() {
    let rec = Recording::generate(&UftraceSpec::default());
    let inputs: Vec<InputFile> = rec
        .files()
        .into_iter()
        .map(|(n, b)| InputFile::from_vec(format!("uftrace.data/{n}"), b))
        .collect();
    let (groups, _) = formats::group(inputs);
    let ds = formats::open(&groups[0]).unwrap();
    let got = chart(&ds);
    for t in &rec.tasks {
        let mine = &got[&t.tid];
        assert_eq!(mine.len(), t.calls.len(), "task {}", t.tid);
        for (m, c) in mine.iter().zip(&t.calls) {
            let name = Recording::function_name(c.func);
            assert_eq!(
                (m.call.start, m.call.end, m.call.depth, m.call.flags),
                (c.entry_ns, c.exit_ns, c.depth as u32, 0),
                "task {} {name}",
                t.tid
            );
            assert_eq!(m.name, name);
            assert_eq!(m.args.first().cloned(), arg_text(&c.arg, "arg1"));
            assert_eq!(m.retval, arg_text(&c.retval, "retval"));
        }
    }

    // Windows: at one pixel per ns nothing merges, and every call that meets the window is
    // there, clipped to it where it crosses an edge.
    let ix = FrameIndex::new(&ds);
    let t = &rec.tasks[0];
    let line = 0;
    assert_eq!(
        ds.profiles[ds.trace.as_ref().unwrap().lines[line].prof_index as usize].id_tuple[0]
            .logical_id,
        t.tid
    );
    let (a, b) = (t.calls[3].entry_ns + 1, t.calls[t.calls.len() / 2].exit_ns);
    let win = Window::new(a, b, (b - a) as u32);
    let l = calls::layout(&ds, &ix, line, win, EXACT_LIMIT).unwrap();
    assert!(l.exact);
    let mut want: Vec<(u64, u64, u32)> = t
        .calls
        .iter()
        .filter(|c| c.entry_ns < b && c.exit_ns > a)
        .map(|c| (c.entry_ns.max(a), c.exit_ns.min(b), c.depth as u32))
        .collect();
    want.sort_by_key(|w| (w.2, w.0));
    let mut mine: Vec<(u64, u64, u32)> = l
        .calls
        .iter()
        .map(|c| (c.start.max(a), c.end.min(b), c.depth))
        .collect();
    mine.sort_by_key(|w| (w.2, w.0));
    assert_eq!(mine, want);
    // The same window cut from the kept line: every call that meets it, with its real bounds.
    let lc = calls::LineCalls::read(&ds, &ix, line).unwrap();
    let cut = calls::layout_of(&ds, &lc, win).unwrap();
    let mut real: Vec<(u64, u64, u32)> = t
        .calls
        .iter()
        .filter(|c| c.entry_ns < b && c.exit_ns > a)
        .map(|c| (c.entry_ns, c.exit_ns, c.depth as u32))
        .collect();
    real.sort_by_key(|w| (w.2, w.0));
    let got: Vec<(u64, u64, u32)> = cut
        .calls
        .iter()
        .map(|c| (c.start, c.end, c.depth))
        .collect();
    assert_eq!(got, real);
    assert_eq!(cut.samples, l.samples);
    // Ten pixels: calls merge, and the merged boxes count every call once.
    let l = calls::layout(&ds, &ix, line, Window::new(a, b, 10), EXACT_LIMIT).unwrap();
    let counted: u64 = l.calls.iter().map(|c| c.count as u64).sum();
    assert_eq!(counted, want.len() as u64);
    assert!(l.calls.iter().any(|c| c.flags & MERGED != 0));
    assert!(l.calls.len() < want.len());
    // The bounds of a clipped call are its real ones.
    let outer = l.calls.iter().find(|c| c.depth == 0).unwrap();
    let bounds = calls::call_bounds(&ds, &ix, line, a, 0, u64::MAX)
        .unwrap()
        .unwrap();
    let main = &t.calls[0];
    assert_eq!(outer.node, bounds.node);
    assert_eq!(
        (bounds.start, bounds.end),
        (main.entry_ns, Some(main.exit_ns))
    );
}
