//! `hpcscope fixture`, `summary` and `dump --json` on the formats without public samples (DCPI,
//! prof2 with a binary meta.db) and on the corpus prof2 database, through the real binary.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

fn hpcscope(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hpcscope"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    let _ = std::fs::remove_file(&d);
    d
}

fn dump(path: &str) -> serde_json::Value {
    let (ok, out, err) = hpcscope(&["dump", "--json", path]);
    assert!(ok, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn dcpi_fixture_summary_and_dump() {
    let f = tmp("example.prof");
    let p = f.to_str().unwrap();
    let (ok, _, err) = hpcscope(&["fixture", "dcpi", "--chunks", "3", "--len", "16", p]);
    assert!(ok, "{err}");
    let (ok, out, err) = hpcscope(&["summary", p]);
    assert!(ok, "{err}");
    assert!(out.contains("(dcpi DCPI profile)"), "{out}");
    assert!(
        out.contains("comment (unknown line, kept): written by hpcscope"),
        "{out}"
    );
    assert!(out.contains("(match the chunks)"), "{out}");
    let j = dump(p);
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
    let d = tmp("prof2-fixture");
    let p = d.to_str().unwrap();
    let (ok, _, err) = hpcscope(&["fixture", "prof2", "--little-endian", p]);
    assert!(ok, "{err}");
    let (ok, out, err) = hpcscope(&["summary", p]);
    assert!(ok, "{err}");
    assert!(
        out.contains("prof2 pre-release 1.0 (little-endian)"),
        "{out}"
    );
    assert!(out.contains("tree from: meta.db (version 4.0)"), "{out}");
    let j = dump(p);
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
    let (ok, out, err) = hpcscope(&["summary", dir]);
    assert!(ok, "{err}");
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
