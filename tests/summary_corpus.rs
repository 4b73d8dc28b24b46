//! The summary the page shows for every corpus dataset: the header probe's counts agree with the
//! full reader's where both exist, and known datasets show their known counts.

use common::corpus;
use hpcscope::session::Workspace;
use std::path::Path;

mod common;

fn folders(corpus: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for top in [
        "hpctoolkit/v4",
        "hpctoolkit/v4-draft",
        "hpctoolkit/prof2",
        "hpctoolkit/xml",
        "hpcrun",
    ] {
        let mut v: Vec<String> = std::fs::read_dir(corpus.join(top))
            .unwrap()
            .map(|e| format!("{top}/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

#[test]
fn probe_counts_agree_with_readers() {
    let Some(corpus) = corpus() else { return };
    let mut mismatches = Vec::new();
    for dir in folders(&corpus) {
        let inputs = hpcscope::cli::read_inputs(&corpus.join(&dir)).unwrap();
        let mut ws = Workspace::new();
        let r = ws.open_files(inputs);
        assert!(r.errors.is_empty(), "{dir}: {:?}", r.errors);
        let s = &r.datasets[0];
        let e = ws.entry(s.id).unwrap();
        let Some(d) = &e.dataset else { continue };
        for (k, n) in &e.probe.counts {
            let from_reader = match k.as_str() {
                "metrics" => d.metrics.len() as u64,
                "profiles" => d.profiles.iter().filter(|p| !p.summary).count() as u64,
                "trace lines" => d.trace.as_ref().map_or(0, |t| t.lines.len() as u64),
                _ => continue,
            };
            if from_reader != *n {
                mismatches.push(format!("{dir}: {k} probe {n}, reader {from_reader}"));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn known_dataset_counts() {
    let Some(corpus) = corpus() else { return };
    let inputs = hpcscope::cli::read_inputs(
        &corpus.join("hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t.d"),
    )
    .unwrap();
    let mut ws = Workspace::new();
    let r = ws.open_files(inputs);
    let s = &r.datasets[0];
    let count = |k: &str| s.counts.iter().find(|(c, _)| c == k).map(|(_, n)| *n);
    // loops-cputime-t: one CPUTIME metric, 4 threads each with a trace line (golden transcript).
    assert_eq!(count("metrics"), Some(1.0));
    assert_eq!(count("profiles"), Some(4.0));
    assert_eq!(count("trace lines"), Some(4.0));
    assert_eq!(s.title, "testmeas-loops");
    assert_eq!(s.layout, "v4.0 final");
    assert_eq!(s.status, "opened");
    // The files card lists the database's files with their sizes.
    assert_eq!(s.files.len(), 5);
    assert!(s
        .files
        .iter()
        .any(|f| f.path.ends_with("/meta.db") && f.size > 0.0));
}
