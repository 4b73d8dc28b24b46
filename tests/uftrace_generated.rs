//! Recordings made on the fly with the installed uftrace (never committed): small C programs
//! built with `gcc -pg -O0 -g`, recorded with various options (arguments and return values,
//! string arguments, threads, fork, setjmp/longjmp, deep recursion, no libcalls, read triggers),
//! then `uftrace report` compared line by line with `hpcscope report`'s table of the same data.
//! Skips, saying so, when uftrace or gcc is not installed.

use hpcscope::formats::{self, uftrace};
use std::path::{Path, PathBuf};
use std::process::Command;

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

const PROGRAMS: [(&str, &str); 5] = [
    (
        "rec",
        r#"#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const char *greet(const char *who) { static char b[64]; snprintf(b, sizeof b, "hi %s", who); return b; }
double scale(double x, int k) { return x * k; }
int deep(int n) { return n == 0 ? 0 : 1 + deep(n - 1); }
int main(int argc, char **argv) {
    char *p = malloc(32);
    strcpy(p, "world");
    printf("%d %s %f %d\n", fib(12), greet(p), scale(1.5, 3), deep(300));
    free(p);
    return 0;
}
"#,
    ),
    (
        "thr",
        r#"#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
int leaf(int x) { return x + 1; }
int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += leaf(i); return s; }
void *run(void *a) { long id = (long)a; int s = work(200 * (id + 1)); usleep(1000 * (id + 1)); return (void *)(long)s; }
int main(void) {
    pthread_t t[3];
    for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, run, (void *)i);
    for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
    printf("%d\n", work(50));
    return 0;
}
"#,
    ),
    (
        "frk",
        r#"#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
int child_work(int n) { return n ? child_work(n - 1) + 1 : 0; }
int parent_work(int n) { return n ? parent_work(n - 1) + 2 : 0; }
int main(void) {
    pid_t p = fork();
    if (p == 0) { printf("%d\n", child_work(20)); exit(0); }
    waitpid(p, 0, 0);
    printf("%d\n", parent_work(10));
    return 0;
}
"#,
    ),
    (
        "jmp",
        r#"#include <setjmp.h>
#include <stdio.h>
jmp_buf env;
void inner(int n) { if (n == 0) longjmp(env, 1); inner(n - 1); }
int outer(void) { if (setjmp(env) == 0) { inner(5); return 0; } return 1; }
int main(void) { int r = 0; for (int i = 0; i < 3; i++) r += outer(); printf("%d\n", r); return 0; }
"#,
    ),
    // The benchmark's program (scripts/bench-uftrace.sh).
    ("hot", include_str!("programs/hot.c")),
];

/// (program, uftrace record options)
const CASES: [(&str, &[&str]); 10] = [
    ("rec", &[]),
    ("rec", &["-a"]),
    (
        "rec",
        &[
            "-A",
            "fib@arg1",
            "-R",
            "fib@retval",
            "-A",
            "greet@arg1/s",
            "-R",
            "greet@retval/s",
            "-A",
            "scale@fparg1,arg1/i32",
            "-R",
            "scale@retval/f64",
        ],
    ),
    ("rec", &["--no-libcall"]),
    (
        "rec",
        &["-T", "main@read=proc/statm", "-T", "fib@read=page-fault"],
    ),
    ("thr", &[]),
    ("thr", &["-a"]),
    ("frk", &[]),
    ("jmp", &[]),
    ("hot", &[]),
];

/// The timeline read through the sparse index equals one straight read, in any window.
fn check_timeline(ds: &hpcscope::model::Dataset) {
    let Some(trace) = &ds.trace else { return };
    for (line, info) in trace.lines.iter().enumerate() {
        let all = ds.data.trace_samples(line, 0, info.samples).unwrap();
        assert_eq!(all.len() as u64, info.samples);
        let step = (info.samples / 7).max(1);
        let mut start = 0;
        while start < info.samples {
            let part = ds.data.trace_samples(line, start, 300).unwrap();
            let end = (start as usize + 300).min(all.len());
            assert_eq!(
                part,
                all[start as usize..end].to_vec(),
                "line {line} at {start}"
            );
            let t = all[start as usize].time;
            let i = ds.data.trace_find(line, t).unwrap().unwrap() as usize;
            assert!(all[i].time == t && all.get(i + 1).is_none_or(|s| s.time > t));
            start += step;
        }
    }
}

fn ours(dir: &Path) -> (String, uftrace::UftraceReport, Vec<String>) {
    let inputs = hpcscope::cli::read_inputs(dir).unwrap();
    let (groups, _) = formats::group(inputs);
    let g = groups
        .into_iter()
        .find(|g| g.format_id() == uftrace::ID)
        .expect("uftrace group");
    let (ds, rep) = uftrace::open_report(&g).unwrap();
    ds.cct.check().unwrap();
    check_timeline(&ds);
    let warnings = ds.warnings.iter().map(|w| w.to_string()).collect();
    (
        hpcscope::cli::report::format_table(&rep.functions),
        rep,
        warnings,
    )
}

#[test]
fn reports_equal_uftrace_on_fresh_recordings() {
    if !have("uftrace") || !have("gcc") {
        eprintln!("skipping: uftrace or gcc not installed");
        return;
    }
    let work: PathBuf =
        std::env::temp_dir().join(format!("hpcscope-uftrace-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    for (name, src) in PROGRAMS {
        let c = work.join(format!("{name}.c"));
        std::fs::write(&c, src).unwrap();
        let ok = Command::new("gcc")
            .args(["-pg", "-O0", "-g", "-pthread", "-o"])
            .arg(work.join(name))
            .arg(&c)
            .status()
            .unwrap()
            .success();
        assert!(ok, "gcc {name}");
    }
    let mut failures = Vec::new();
    for (i, (prog, opts)) in CASES.iter().enumerate() {
        let data = work.join(format!("case{i}.data"));
        let st = Command::new("uftrace")
            .arg("record")
            .arg("-d")
            .arg(&data)
            .args(*opts)
            .arg(work.join(prog))
            .current_dir(&work)
            .output()
            .unwrap();
        assert!(data.join("info").exists(), "record {prog} {opts:?}: {st:?}");
        let theirs = Command::new("uftrace")
            .args(["--no-pager", "--color=no", "report", "-d"])
            .arg(&data)
            .output()
            .unwrap();
        let theirs = String::from_utf8_lossy(&theirs.stdout).to_string();
        let (mine, rep, warnings) = ours(&data);
        if mine != theirs {
            failures.push(format!(
                "case {i} ({prog} {opts:?}):\n--- uftrace\n{theirs}--- hpcscope\n{mine}"
            ));
        }
        assert!(
            warnings.iter().all(|w| !w.contains("no known size")),
            "case {i}: {warnings:?}"
        );
        assert!(rep.counts.records > 0);
    }
    let _ = std::fs::remove_dir_all(&work);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
