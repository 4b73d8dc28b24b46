//! `hpcscope fixture`, `summary` and `dump --json` on the formats without public samples (DCPI,
//! prof2 with a binary meta.db) and on the corpus prof2 database, through the real binary.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

/// The standard output of `hpcscope args`, which must succeed.
fn hpcscope(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hpcscope"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "hpcscope {args:?}: {err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_file(&d);
    d
}

fn dump(path: &str) -> serde_json::Value {
    let out = hpcscope(&["dump", "--json", path]);
    serde_json::from_str(&out).unwrap()
}

/// Writes a fixture (`hpcscope fixture KIND_ARGS.. PATH`, PATH a fresh `name` in the test
/// folder), checks that its `summary` says each of `says`, and returns its `dump --json`.
fn fixture_summary_dump(name: &str, kind_args: &[&str], says: &[&str]) -> serde_json::Value {
    let path = tmp(name);
    let p = path.to_str().unwrap();
    hpcscope(&[&["fixture"], kind_args, &[p]].concat());
    let out = hpcscope(&["summary", p]);
    for s in says {
        assert!(out.contains(s), "{s} not in {out}");
    }
    dump(p)
}

#[test]
fn dcpi_fixture_summary_and_dump() {
    let j = fixture_summary_dump(
        "example.prof",
        &["dcpi", "--chunks", "3", "--len", "16"],
        &[
            "(dcpi DCPI profile)",
            "comment (unknown line, kept): written by hpcscope",
            "(match the chunks)",
        ],
    );
    assert_eq!(j["format"], "dcpi");
    // The root's inclusive value (id 1) is the footer's total_samples.
    let want = hpcscope::synth::dcpi::example(3, 16).footer.total_samples as f64;
    let root = j["profiles"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v[0] == 0 && v[1] == 1)
        .unwrap()[2]
        .as_f64()
        .unwrap();
    assert_eq!(root, want);
}

#[test]
fn prof2_fixture_summary_and_dump() {
    let j = fixture_summary_dump(
        "prof2-fixture",
        &["prof2", "--little-endian"],
        &[
            "prof2 pre-release 1.0 (little-endian)",
            "tree from: meta.db (version 4.0)",
        ],
    );
    assert_eq!(j["format"], "prof2");
    assert_eq!(j["trace"]["lines"].as_array().unwrap().len(), 2);
    assert_eq!(j["profiles"].as_array().unwrap().len(), 3);
}

#[test]
fn prof2_corpus_summary_and_dump() {
    let Some(dir) = common::corpus_dir("hpctoolkit/prof2/hpcviewer-empty-trace") else {
        return;
    };
    let dir = dir.to_str().unwrap();
    let out = hpcscope(&["summary", dir]);
    assert!(out.contains("trace: no samples (1 empty lines)"), "{out}");
    let j = dump(dir);
    assert_eq!(j["title"], "loop");
    let summary = j["profiles"][0]["values"].as_array().unwrap();
    let root = summary.iter().find(|v| v[0] == 0 && v[1] == 512).unwrap()[2]
        .as_f64()
        .unwrap();
    assert_eq!(root, f64::from_bits(0x403b_1f97_fe8e_f7fa));
    assert_eq!(j["trace"]["lines"][0]["samples"], serde_json::json!([]));
}
