//! uftrace recordings of ../shared/corpus/uftrace against uftrace's own views of them
//! (`expected/report.txt`, `report-task.txt`, `dump.txt`, `dump --flame-graph`), plus robustness
//! of every file under truncation and bit flips.

use hpcscope::bytes::Source;
use hpcscope::formats::{self, uftrace, InputFile};
use std::path::{Path, PathBuf};

mod common;

fn corpus() -> Option<PathBuf> {
    common::corpus_dir("uftrace")
}

/// Every uftrace.data folder under the corpus (recorded-* and public-*).
fn recordings(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.file_name().is_some_and(|n| n == "uftrace.data") {
            out.push(p);
            continue;
        }
        if let Ok(rd) = std::fs::read_dir(&p) {
            for e in rd.flatten() {
                if e.path().is_dir() {
                    stack.push(e.path());
                }
            }
        }
    }
    out.sort();
    out
}

fn inputs(dir: &Path) -> Vec<InputFile> {
    hpcscope::cli::read_inputs(dir).unwrap()
}

fn open(dir: &Path) -> (hpcscope::model::Dataset, uftrace::UftraceReport) {
    let (groups, _) = formats::group(inputs(dir));
    let g = groups
        .into_iter()
        .find(|g| g.format_id() == uftrace::ID)
        .unwrap_or_else(|| panic!("{}: no uftrace group", dir.display()));
    uftrace::open_report(&g).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// A printed uftrace time ("44.085 us", "6.599 ms", "59.760  s") as the range of nanoseconds
/// that print so (uftrace truncates).
fn parse_time(num: &str, unit: &str) -> (u64, u64) {
    let (i, f) = num.split_once('.').unwrap();
    let milli: u64 = i.trim().parse::<u64>().unwrap() * 1000 + f.parse::<u64>().unwrap();
    let scale: u64 = match unit {
        "us" => 1,
        "ms" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        "h" => 3_600_000_000,
        u => panic!("unit {u}"),
    };
    // milli is in thousandths of the unit; one thousandth of `us` is 1 ns.
    (milli * scale, (milli + 1) * scale)
}

/// A `uftrace report` row: name, total range (ns), self range (ns), calls.
type ReportLine = (String, (u64, u64), (u64, u64), u64);

/// Rows of a `uftrace report` table.
fn parse_report(text: &str) -> Vec<ReportLine> {
    let mut out = Vec::new();
    for line in text.lines().skip(2) {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() < 6 {
            continue;
        }
        let total = parse_time(w[0], w[1]);
        let selft = parse_time(w[2], w[3]);
        let calls: u64 = w[4].parse().unwrap();
        let name = w[5..].join(" ");
        out.push((name, total, selft, calls));
    }
    out
}

#[test]
fn reports_equal_uftrace_report() {
    let Some(root) = corpus() else { return };
    let mut checked = 0;
    for dir in recordings(&root) {
        let exp = dir.parent().unwrap().join("expected/report.txt");
        let Ok(text) = std::fs::read_to_string(&exp) else {
            continue;
        };
        let (_, rep) = open(&dir);
        let want = parse_report(&text);
        assert_eq!(
            rep.functions.len(),
            want.len(),
            "{}: number of functions",
            dir.display()
        );
        for (row, (name, total, selft, calls)) in rep.functions.iter().zip(&want) {
            assert_eq!(&row.function, name, "{}: order/name", dir.display());
            assert!(
                (total.0..total.1).contains(&row.total_ns),
                "{}: {name} total {} not in {total:?}",
                dir.display(),
                row.total_ns
            );
            assert!(
                (selft.0..selft.1).contains(&row.self_ns),
                "{}: {name} self {} not in {selft:?}",
                dir.display(),
                row.self_ns
            );
            assert_eq!(row.calls, *calls, "{}: {name} calls", dir.display());
        }
        // The CLI prints the very same table.
        assert_eq!(
            hpcscope::cli::report::format_table(&rep.functions),
            text,
            "{}: printed table",
            dir.display()
        );
        checked += 1;
    }
    assert!(
        checked >= 4,
        "only {checked} recordings with expected/report.txt"
    );
}

#[test]
fn payload_counts_equal_uftrace_dump() {
    let Some(root) = corpus() else { return };
    for dir in recordings(&root) {
        let Ok(text) = std::fs::read_to_string(dir.parent().unwrap().join("expected/dump.txt"))
        else {
            continue;
        };
        let (ds, rep) = open(&dir);
        let count = |tag: &str| text.lines().filter(|l| l.contains(tag)).count() as u64;
        let c = rep.counts;
        assert_eq!(c.args, count("[args ]"), "{}: args", dir.display());
        assert_eq!(c.retvals, count("[retval]"), "{}: retvals", dir.display());
        // `[data ]` lines are the payloads of user events (read:proc/statm ...).
        assert_eq!(
            c.event_data,
            count("[data ]"),
            "{}: event data",
            dir.display()
        );
        assert_eq!(c.entries, count("[entry]"), "{}: entries", dir.display());
        assert_eq!(c.exits, count("[exit ]"), "{}: exits", dir.display());
        assert!(
            ds.warnings
                .iter()
                .all(|w| !w.what.contains("no known size")),
            "{}: {:?}",
            dir.display(),
            ds.warnings
        );
    }
}

/// Recordings whose `expected/flame.txt` uftrace built from a consistent call graph. uftrace's
/// `dump --flame-graph` loses a thread's place in its graph after a scheduler switch inside a
/// function of the main thread (recorded-threads prints `pthread_join` and `printf` at the root
/// although `main` called them) and after fork/exec (recorded-forkexec prints the children's
/// `forked_work`, `exit` and `execl` without `main`), so those two are compared only for the
/// functions, not the paths.
const FLAME_CONSISTENT: [&str; 3] = ["recorded-single", "recorded-single-args", "recorded-cxx"];

#[test]
fn flame_graph_equals_uftrace_dump() {
    let Some(root) = corpus() else { return };
    let mut checked = 0;
    for dir in recordings(&root) {
        let rec = dir.parent().unwrap();
        let Ok(text) = std::fs::read_to_string(rec.join("expected/flame.txt")) else {
            continue;
        };
        let (ds, rep) = open(&dir);
        let name = rec.file_name().unwrap().to_string_lossy().to_string();
        let mine: Vec<String> = rep.flame.iter().map(|(p, v)| format!("{p} {v}")).collect();
        let want: Vec<String> = text.lines().map(str::to_string).collect();
        if FLAME_CONSISTENT.contains(&name.as_str()) {
            assert_eq!(mine, want, "{name}: folded stacks");
            checked += 1;
        } else {
            // Same functions, whatever uftrace did to their paths.
            let leaves = |v: &[String]| {
                let mut l: Vec<String> = v
                    .iter()
                    .filter_map(|s| s.rsplit(' ').nth(1))
                    .map(|p| p.rsplit(';').next().unwrap_or(p).to_string())
                    .collect();
                l.sort();
                l.dedup();
                l
            };
            for f in leaves(&want) {
                assert!(
                    ds.functions.iter().any(|r| r.name == f),
                    "{name}: {f} of flame.txt not among the functions"
                );
            }
        }
    }
    assert_eq!(checked, 3);
}

/// Every file that matters to the reader, truncated at several lengths and with bytes flipped:
/// opening gives a dataset (with warnings) or an error, never a panic, and it terminates after
/// reading at most a few times what the whole recording takes (counted).
#[test]
fn truncated_and_flipped_files_never_panic() {
    let Some(root) = corpus() else { return };
    let start = std::time::Instant::now();
    let mut opened = 0;
    // Opens the recording's uftrace groups and reads each timeline line; how many opened.
    let open_all = |files: Vec<InputFile>| {
        let (groups, _) = formats::group(files);
        let mut n = 0;
        for g in groups.iter().filter(|g| g.format_id() == uftrace::ID) {
            if let Ok((ds, _)) = uftrace::open_report(g) {
                ds.cct.check().unwrap();
                // The timeline must stay readable too.
                if let Some(t) = &ds.trace {
                    for line in 0..t.lines.len() {
                        let _ = ds.data.trace_samples(line, 0, 64);
                        let _ = ds.data.trace_find(line, u64::MAX / 2);
                    }
                }
            }
            n += 1;
        }
        n
    };
    for dir in recordings(&root) {
        let files = inputs(&dir);
        let (_, base) = common::bytes_read(|| open_all(files.clone()));
        for (i, f) in files.iter().enumerate() {
            let name = f.path.rsplit('/').next().unwrap_or("");
            // Library symbol tables are large and alike: the program's own is enough.
            if name.starts_with("lib") || name.starts_with("ld-") {
                continue;
            }
            let bytes = f
                .source
                .bytes(0, f.source.len(), "all")
                .unwrap()
                .into_owned();
            let n = bytes.len();
            let mut variants: Vec<Vec<u8>> = Vec::new();
            for cut in [0, 17, 41, n / 2, n.saturating_sub(1)] {
                if cut < n {
                    variants.push(bytes[..cut].to_vec());
                }
            }
            for (k, pos) in [13usize, 24, n / 2, n.saturating_sub(9)].iter().enumerate() {
                if *pos < n {
                    let mut b = bytes.clone();
                    b[*pos] ^= [0xff, 0x01, 0x80, 0x10][k];
                    variants.push(b);
                }
            }
            for (k, v) in variants.into_iter().enumerate() {
                let mut mutated = files.clone();
                mutated[i] = InputFile::from_vec(f.path.as_str(), v);
                let what = format!("{} variant {k}", f.path);
                opened += common::read_at_most(base, 4, &what, || open_all(mutated));
            }
        }
    }
    assert!(opened > 100, "only {opened} mutated opens");
    eprintln!(
        "{opened} mutated recordings opened in {:?}",
        start.elapsed()
    );
}

/// Public recordings without uftrace's own views: facts checked by hand against `uftrace dump`
/// (record counts are the .dat sizes / 16: none of them has payloads) and their symbol tables.
#[test]
fn public_recordings_open_with_plausible_facts() {
    let Some(root) = corpus() else { return };
    // (folder, tasks, records, a function with its calls)
    type Case<'a> = (&'a str, usize, u64, Option<(&'a str, u64)>);
    let cases: [Case; 6] = [
        (
            "public-opencv_tests/uftrace_test1",
            1,
            10,
            Some(("do_nothing", 1)),
        ),
        (
            "public-opencv_tests/uftrace_test2",
            1,
            10,
            Some(("printf", 1)),
        ),
        (
            "public-opencv_tests/Makefile_test1",
            1,
            28,
            Some(("main", 1)),
        ),
        (
            "public-opencv_tests/tests",
            5,
            2092,
            Some(("face_detection", 1)),
        ),
        // Only info and a symbol table: no tasks, still a dataset.
        ("public-opencv_tests/tracing_test2", 0, 0, None),
        ("public-oslab_ringbuf", 1, 260, Some(("dfs", 30))),
    ];
    for (dir, tasks, records, func) in cases {
        let d = root.join(dir).join("uftrace.data");
        let (ds, rep) = open(&d);
        assert_eq!(ds.format, "uftrace");
        assert_eq!(ds.layout, "uftrace file version 4", "{dir}");
        assert_eq!(rep.tasks.len(), tasks, "{dir}: tasks");
        assert_eq!(ds.profiles.len(), tasks + 1, "{dir}: profiles");
        assert_eq!(rep.counts.records, records, "{dir}: records");
        let dat_bytes: u64 = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .filter(|e| {
                let n = e.file_name().to_string_lossy().to_string();
                n.ends_with(".dat") && n.chars().next().is_some_and(|c| c.is_ascii_digit())
            })
            .map(|e| e.metadata().unwrap().len())
            .sum();
        assert_eq!(
            rep.counts.records * 16,
            dat_bytes,
            "{dir}: records vs bytes"
        );
        if let Some((name, calls)) = func {
            let row = rep
                .functions
                .iter()
                .find(|r| r.function == name)
                .unwrap_or_else(|| panic!("{dir}: no {name}"));
            assert_eq!(row.calls, calls, "{dir}: {name} calls");
            assert!(
                row.self_ns <= row.total_ns || row.calls > 1,
                "{dir}: {name}"
            );
        }
        ds.cct.check().unwrap();
        // Entries and exits balance into the summary: the root's children hold all the time.
        let sum = ds.data.profile_values(0).unwrap();
        let top: f64 = ds
            .cct
            .tree
            .children(0)
            .map(|n| sum.get(n, uftrace::VAL_TIME_INCL))
            .sum();
        let selfs: f64 = (0..ds.cct.tree.len() as u32)
            .map(|n| sum.get(n, uftrace::VAL_TIME_EXCL))
            .sum();
        assert!((top - selfs).abs() < 1.0, "{dir}: {top} vs {selfs}");
    }
}

/// The timeline of recorded-single: per task, samples are the exact ENTRY/EXIT transitions, so
/// walking them rebuilds each call's span; trace_find lands on the last sample at or before a time.
#[test]
fn timeline_samples_are_exact_transitions() {
    let Some(root) = corpus() else { return };
    let (ds, rep) = open(&root.join("recorded-single/uftrace.data"));
    let trace = ds.trace.as_ref().unwrap();
    assert_eq!(trace.lines.len(), 1);
    // 277 calls -> 554 records, and the 14 scheduler switches of perf-cpu*.dat (7 out, 7 in;
    // uftrace reports none of them since none happened inside a function).
    assert_eq!(rep.counts.entries + rep.counts.exits, 554);
    assert_eq!(trace.lines[0].samples, 554 + 14);
    let all = ds.data.trace_samples(0, 0, 10_000).unwrap();
    assert_eq!(all.len() as u64, trace.lines[0].samples);
    // Depth goes up by one at each entry and down at each exit; main's span is its total time.
    let main = ds
        .cct
        .tree
        .children(0)
        .find(|&n| ds.frame_name(n) == "main")
        .unwrap();
    let enter = all.iter().position(|s| s.node == main).unwrap();
    let leave = all[enter + 1..]
        .iter()
        .position(|s| s.node == 0)
        .map(|i| i + enter + 1)
        .unwrap();
    let main_row = rep.functions.iter().find(|r| r.function == "main").unwrap();
    assert_eq!(all[leave].time - all[enter].time, main_row.total_ns);
    for w in all.windows(2) {
        assert!(w[0].time <= w[1].time);
        let (a, b) = (
            ds.cct.tree.depth[w[0].node as usize],
            ds.cct.tree.depth[w[1].node as usize],
        );
        assert!(a.abs_diff(b) == 1, "{a} -> {b}");
    }
    // Reading from the middle gives the same samples.
    assert_eq!(
        ds.data.trace_samples(0, 100, 5).unwrap(),
        all[100..105].to_vec()
    );
    let t = all[200].time;
    let i = ds.data.trace_find(0, t).unwrap().unwrap() as usize;
    assert!(all[i].time <= t && all.get(i + 1).is_none_or(|s| s.time > t));
    assert_eq!(ds.data.trace_find(0, all[0].time - 1).unwrap(), None);
}

/// Tooltip details of recorded-single-args: the call open at a time, with the arguments and the
/// return value `uftrace dump` shows for it.
#[test]
fn span_details_show_arguments_and_return_values() {
    let Some(root) = corpus() else { return };
    let (ds, _) = open(&root.join("recorded-single-args/uftrace.data"));
    let d = ds.data.span_at(0, 1_940_975_583_661).unwrap().unwrap();
    assert_eq!(ds.frame_name(d.node), "make_greeting");
    assert_eq!(
        (d.start, d.end),
        (1_940_975_583_660, Some(1_940_975_586_815))
    );
    assert_eq!(d.payload.args, vec!["arg1=\"uftrace\""]);
    assert_eq!(
        d.payload.retval.as_deref(),
        Some("retval=\"hello, uftrace\"")
    );
    // main(1, argv) returning 0; fib(10) = 55 (0x37) whose first child starts 170 ns later.
    let d = ds.data.span_at(0, 1_940_975_330_000).unwrap().unwrap();
    assert_eq!(ds.frame_name(d.node), "main");
    assert_eq!(d.payload.args, vec!["arg1=1", "arg2=0x7ffe41a0fc38"]);
    assert_eq!(d.payload.retval.as_deref(), Some("retval=0"));
    let d = ds.data.span_at(0, 1_940_975_359_700).unwrap().unwrap();
    assert_eq!(ds.frame_name(d.node), "fib");
    assert_eq!(d.payload.args, vec!["arg1=10"]);
    assert_eq!(d.payload.retval.as_deref(), Some("retval=55"));
    assert_eq!(d.end, Some(1_940_975_402_951));
    // Before anything ran: no call.
    assert_eq!(ds.data.span_at(0, 1).unwrap(), None);
}

/// A LOST record (what libmcount writes when its buffers overflowed), put into recorded-single
/// in place of 10 records: the recording still opens, with a warning, and the calls around the
/// gap keep the times uftrace gives them (`uftrace report` on the same bytes: main 44.085 us,
/// 1 call; fib 171 calls, total 17.185 us).
#[test]
fn lost_records_open_with_a_warning() {
    let Some(root) = corpus() else { return };
    let mut files = inputs(&root.join("recorded-single/uftrace.data"));
    let dat = files
        .iter_mut()
        .find(|f| f.path.ends_with("16952.dat"))
        .unwrap();
    let bytes = dat
        .source
        .bytes(0, dat.source.len(), "all")
        .unwrap()
        .into_owned();
    let recs: Vec<&[u8]> = bytes.chunks(16).collect();
    let prev = u64::from_le_bytes(recs[99][8..16].try_into().unwrap());
    let depth = (prev >> 6) & 0x3ff;
    let lost_word: u64 = 2 | (5 << 3) | (depth << 6) | (10 << 16);
    let mut out = Vec::new();
    for r in &recs[..100] {
        out.extend_from_slice(r);
    }
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&lost_word.to_le_bytes());
    for r in &recs[110..] {
        out.extend_from_slice(r);
    }
    dat.source = Source::from_vec(dat.path.clone(), out);
    let (groups, _) = formats::group(files);
    let (ds, rep) = uftrace::open_report(&groups[0]).unwrap();
    assert!(
        ds.warnings.iter().any(|w| w.what.contains("LOST")),
        "{:?}",
        ds.warnings
    );
    assert_eq!(rep.counts.lost_records, 1);
    assert_eq!(rep.counts.lost, 10);
    let row = |n: &str| {
        rep.functions
            .iter()
            .find(|r| r.function == n)
            .unwrap()
            .clone()
    };
    assert_eq!((row("main").total_ns / 1000, row("main").calls), (44, 1));
    assert_eq!((row("fib").total_ns, row("fib").calls), (17_185, 171));
    ds.cct.check().unwrap();
}

/// recorded-cxx: every task's whole timeline replays. std::__iterator_category returns an empty
/// struct: its EXIT records carry the "more" bit with a payload of 0 bytes (`uftrace dump`:
/// "length = 0"); a re-read that waited for more bytes ran off the file ("truncated record payload
/// at 0x450"). The samples step one level at a time and the call's span is the one dump shows.
#[test]
fn cxx_timeline_replays_whole() {
    let Some(root) = corpus() else { return };
    let (ds, rep) = open(&root.join("recorded-cxx/uftrace.data"));
    let trace = ds.trace.as_ref().unwrap();
    let mut records = 0;
    for (l, line) in trace.lines.iter().enumerate() {
        let all = ds.data.trace_samples(l, 0, line.samples).unwrap();
        assert_eq!(all.len() as u64, line.samples);
        records += all.len() as u64;
        for w in all.windows(2) {
            let (a, b) = (
                ds.cct.tree.depth[w[0].node as usize],
                ds.cct.tree.depth[w[1].node as usize],
            );
            assert!(w[0].time <= w[1].time && a.abs_diff(b) <= 1, "{a} -> {b}");
        }
    }
    assert!(records >= rep.counts.entries + rep.counts.exits);
    // dump.txt: [entry] std::__iterator_category at 1941.211496614, [exit] at 1941.211496985.
    let d = ds.data.span_at(0, 1_941_211_496_700).unwrap().unwrap();
    assert_eq!(ds.frame_name(d.node), "std::__iterator_category");
    assert_eq!(
        (d.start, d.end),
        (1_941_211_496_614, Some(1_941_211_496_985))
    );
}
