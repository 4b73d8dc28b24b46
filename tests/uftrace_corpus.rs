//! uftrace recordings of ../shared/corpus/uftrace against uftrace's own views of them
//! (`expected/report.txt`, `report-task.txt`, `dump.txt`, `dump --flame-graph`), plus robustness
//! of every file under truncation and bit flips.

use hpcscope::formats::{self, uftrace, DatasetKind, InputFile};
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let p = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/uftrace"
    ));
    if p.is_dir() {
        Some(p.to_path_buf())
    } else {
        eprintln!("skipping: ../shared/corpus absent");
        None
    }
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
        .find(|g| g.kind == DatasetKind::Uftrace)
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

/// Rows of a `uftrace report` table: (name, total range, self range, calls).
fn parse_report(text: &str) -> Vec<(String, (u64, u64), (u64, u64), u64)> {
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
