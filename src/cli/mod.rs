//! The native command line, one module per subcommand (summary, dump, report, export, fixture,
//! synth, ...), over the same library the browser uses.

pub mod diff;
pub mod dump;
pub mod export;
pub mod fixture;
pub mod index;
pub mod load;
pub mod report;
#[cfg(not(target_arch = "wasm32"))]
pub mod report_html;
pub mod summary;
pub mod synth;

use crate::bytes::Source;
use crate::formats::InputFile;
use std::path::Path;

/// The first dataset recognised under `dir`; when there are more, `note(n, root)` (what is done
/// with the first of `n`) goes to stderr.
pub fn first_dataset(
    dir: &str,
    note: impl FnOnce(usize, &str) -> String,
) -> Result<crate::formats::DatasetGroup, String> {
    let (mut groups, _) = crate::formats::group(read_inputs(Path::new(dir))?);
    if groups.is_empty() {
        return Err(format!("{dir}: no dataset recognised"));
    }
    let n = groups.len();
    let first = groups.swap_remove(0);
    if n > 1 {
        eprintln!("{}", note(n, &first.root));
    }
    Ok(first)
}

/// Every regular file under `dir` (or `dir` itself when it is a file) with its size, in sorted
/// path order, walked iteratively.
pub fn walk_files(dir: &Path) -> Result<Vec<(std::path::PathBuf, u64)>, String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        let meta = std::fs::metadata(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        if meta.is_dir() {
            let mut entries: Vec<_> = std::fs::read_dir(&p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .collect();
            entries.sort();
            stack.extend(entries.into_iter().rev());
        } else if meta.is_file() {
            out.push((p, meta.len()));
        }
    }
    Ok(out)
}

/// `p` relative to `base`, '/'-separated.
pub fn relative_path(p: &Path, base: &Path) -> String {
    p.strip_prefix(base)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every regular file under `dir` (or `dir` itself when it is a file), as input files whose paths are
/// relative to `dir`'s parent: large files are read on demand through
/// [`crate::bytes::FileSource`], small ones into memory. Order is sorted for stable output.
pub fn read_inputs(dir: &Path) -> Result<Vec<InputFile>, String> {
    let base = dir.parent().unwrap_or(Path::new(""));
    walk_files(dir)?
        .into_iter()
        .map(|(p, len)| {
            let rel = relative_path(&p, base);
            let source = source_of(&p, len, rel.clone())?;
            Ok(InputFile { path: rel, source })
        })
        .collect()
}

/// Files from this size on are read on demand (a multi-GB database costs only the parts a reader
/// touches); smaller ones are read whole, so folders of thousands of small files hold no open
/// descriptors.
#[cfg(not(target_arch = "wasm32"))]
const ON_DEMAND_BYTES: u64 = 64 << 10;

fn source_of(p: &Path, len: u64, name: String) -> Result<Source, String> {
    #[cfg(not(target_arch = "wasm32"))]
    if len >= ON_DEMAND_BYTES {
        let file =
            crate::bytes::FileSource::open(p).map_err(|e| format!("{}: {e}", p.display()))?;
        return Ok(Source::new(name, std::sync::Arc::new(file)));
    }
    let _ = len;
    let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
    Ok(Source::from_vec(name, bytes))
}
