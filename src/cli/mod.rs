//! The native command line, one module per subcommand, over the same library the browser uses.

pub mod dump;
pub mod summary;
pub mod synth;

use crate::bytes::Source;
use crate::formats::InputFile;
use std::path::Path;

/// Every regular file under `dir` (or `dir` itself when it is a file), as input files whose paths are
/// relative to `dir`'s parent, read into memory. Order is sorted for stable output.
pub fn read_inputs(dir: &Path) -> Result<Vec<InputFile>, String> {
    let base = dir.parent().unwrap_or(Path::new(""));
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
            let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let rel = p
                .strip_prefix(base)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            out.push(InputFile {
                path: rel.clone(),
                source: Source::from_vec(rel, bytes),
            });
        }
    }
    Ok(out)
}
