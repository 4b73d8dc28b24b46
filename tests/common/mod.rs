//! Helpers shared by the integration tests (`mod common;`): where the real-file corpus is
//! (../shared/corpus, absent in a fresh clone, where corpus tests skip), and HPCToolkit's golden
//! transcripts read with a maintained YAML parser (`yaml.rs`, `golden.rs`).
#![allow(dead_code)] // each test crate uses its own part of these helpers

pub mod frames;
pub mod golden;
pub mod yaml;

use hpcscope::formats::{self, DatasetGroup, InputFile};
use hpcscope::model::Dataset;
use std::path::{Path, PathBuf};

/// The corpus folder ../shared/corpus, or None (saying so on stderr) when it is absent.
pub fn corpus() -> Option<PathBuf> {
    corpus_dir("")
}

/// A folder inside the corpus (`hpctoolkit/v4`, `uftrace`), or None (saying so on stderr) when
/// it is absent.
pub fn corpus_dir(sub: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let p = if sub.is_empty() { root } else { root.join(sub) };
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipping: ../shared/corpus/{sub} absent");
        None
    }
}

/// The folders inside corpus folder `sub` (one dataset each), sorted, or None (saying so on
/// stderr) when it is absent.
pub fn corpus_subdirs(sub: &str) -> Option<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus_dir(sub)?)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    Some(v)
}

/// Bytes read (counted, see src/work.rs) by `f`, which must be more than none: a build without
/// debug assertions counts nothing, and a bound checked against zero would check nothing.
pub fn bytes_read<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let (r, n) = hpcscope::work::count(hpcscope::work::Work::BytesRead, f);
    assert!(
        n > 0,
        "no bytes counted (work is counted only with debug assertions)"
    );
    (r, n)
}

/// Runs `f`, checking that it reads at most `max_ratio` times `baseline` bytes: a hostile
/// variant of a file costs about what the file does, never a loop over a count it claims.
pub fn read_at_most<T>(baseline: u64, max_ratio: u64, what: &str, f: impl FnOnce() -> T) -> T {
    let (r, n) = hpcscope::work::count(hpcscope::work::Work::BytesRead, f);
    assert!(
        n <= max_ratio * baseline,
        "{what}: {n} bytes read, at most {max_ratio} x {baseline} expected"
    );
    r
}

/// The one dataset group `files` (name, bytes) make in folder `dir`, every file in it.
pub fn group_files(dir: &str, files: impl IntoIterator<Item = (String, Vec<u8>)>) -> DatasetGroup {
    let inputs: Vec<InputFile> = files
        .into_iter()
        .map(|(name, bytes)| InputFile::from_vec(format!("{dir}/{name}"), bytes))
        .collect();
    let (groups, loose) = formats::group(inputs);
    assert!(loose.is_empty(), "{loose:?}");
    assert_eq!(groups.len(), 1);
    groups.into_iter().next().unwrap()
}

/// Opens `files` (name, bytes) as the one dataset they make in folder `dir`.
pub fn open_files(dir: &str, files: impl IntoIterator<Item = (String, Vec<u8>)>) -> Dataset {
    formats::open(&group_files(dir, files)).unwrap_or_else(|e| panic!("{dir}: {e}"))
}

/// The uftrace recording among the files of folder `dir` on disk.
pub fn uftrace_group(dir: &Path) -> DatasetGroup {
    let inputs = hpcscope::cli::read_inputs(dir).unwrap();
    let (groups, _) = formats::group(inputs);
    groups
        .into_iter()
        .find(|g| g.format_id() == formats::uftrace::ID)
        .unwrap_or_else(|| panic!("{}: no uftrace group", dir.display()))
}
