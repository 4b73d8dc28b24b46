//! The built-in example dataset the page shows at start: a small HPCToolkit v4.0 database written
//! by the project's own writer (synth/hpctoolkit), opened through the same grouping, probe and
//! reader as a dropped database.

use super::{SynthDb, SynthSpec};
use crate::formats::InputFile;

/// Folder name the example's files are given, as if a `hpcscope-example.d/` folder was dropped.
pub const EXAMPLE_ROOT: &str = "hpcscope-example.d";

/// The spec of the built-in example.
pub fn example_spec() -> SynthSpec {
    SynthSpec {
        title: "hpcscope example".into(),
        ranks: 4,
        threads: 2,
        contexts: 200,
        depth: 8,
        metrics: 3,
        samples: 3000,
        seed: 2024,
        unknown_entry: false,
        chain: 0,
        names: Vec::new(),
    }
}

/// The built-in example database: 4 ranks x 2 threads, ~200 contexts, CPUTIME and two counters,
/// 3000 trace samples per line, as (file name, bytes).
pub fn example_database() -> Vec<(String, Vec<u8>)> {
    SynthDb::new(&example_spec())
        .expect("the example spec is valid")
        .to_files()
}

/// The example database's files, with paths under [`EXAMPLE_ROOT`].
pub fn example_files() -> Vec<InputFile> {
    example_database()
        .into_iter()
        .map(|(name, bytes)| InputFile::from_vec(format!("{EXAMPLE_ROOT}/{name}"), bytes))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{group, probe::probe};

    #[test]
    fn example_is_one_final_layout_database() {
        let (groups, loose) = group(example_files());
        assert!(loose.is_empty());
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].format_id(), "hpctoolkit");
        assert_eq!(groups[0].root, EXAMPLE_ROOT);
        let p = probe(&groups[0]);
        assert_eq!(p.problem, None);
        assert_eq!(p.layout, "v4.0 final");
        assert_eq!(p.title, "hpcscope example");
        // The writer's example spec: 3 metrics, 4 ranks x 2 threads.
        assert_eq!(p.count_value("metrics"), Some(3), "{p:?}");
        assert_eq!(p.count_value("profiles"), Some(8), "{p:?}");
        assert_eq!(p.count_value("trace lines"), Some(8), "{p:?}");
    }
}
