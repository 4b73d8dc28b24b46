//! Helpers shared by the integration tests (`mod common;`): where the real-file corpus is
//! (../shared/corpus, absent in a fresh clone, where corpus tests skip), and HPCToolkit's golden
//! transcripts read with a maintained YAML parser (`yaml.rs`, `golden.rs`).
#![allow(dead_code)] // each test crate uses its own part of these helpers

pub mod frames;
pub mod golden;
pub mod yaml;

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
