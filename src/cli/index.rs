//! `hpcscope index DIR`: writes DIR/hpcscope-index.json, the list of files (paths relative to DIR,
//! '/'-separated, and sizes) that the page reads to open a database folder served over HTTP,
//! where a static server gives no directory listing.

use std::path::Path;

/// Name of the index file the page looks for in a folder URL.
pub const INDEX_NAME: &str = "hpcscope-index.json";

/// The index JSON of the files under `dir` (the index file itself left out).
pub fn index_json(dir: &Path) -> Result<String, String> {
    let mut files = Vec::new();
    for (p, len) in super::walk_files(dir)? {
        let rel = super::relative_path(&p, dir);
        if rel != INDEX_NAME {
            files.push(serde_json::json!({"path": rel, "size": len}));
        }
    }
    let v = serde_json::json!({"hpcscope_index": 1, "files": files});
    serde_json::to_string_pretty(&v).map_err(|e| e.to_string())
}

pub fn run(args: &[String]) -> Result<(), String> {
    let [dir] = args else {
        return Err("usage: hpcscope index DIR".into());
    };
    let d = Path::new(dir);
    if !d.is_dir() {
        return Err(format!("{dir}: not a folder"));
    }
    let text = index_json(d)?;
    let out = d.join(INDEX_NAME);
    std::fs::write(&out, text + "\n").map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_files_relative_with_sizes() {
        let dir = std::env::temp_dir().join(format!("hpcscope-index-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src/sub")).unwrap();
        std::fs::write(dir.join("meta.db"), [0u8; 10]).unwrap();
        std::fs::write(dir.join("src/sub/a.c"), b"int x;").unwrap();
        std::fs::write(dir.join(INDEX_NAME), b"old").unwrap();
        let v: serde_json::Value = serde_json::from_str(&index_json(&dir).unwrap()).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            v["files"],
            serde_json::json!([{"path": "meta.db", "size": 10}, {"path": "src/sub/a.c", "size": 6}])
        );
    }
}
