//! Source files for a synthetic database's `src/` folder, laid out as hpcprof copies sources
//! (`src/<absolute recorded path>`): every line a function or statement of the tree names has
//! text, so the source view of a generated database has something at each annotated line.

use super::SynthDb;

/// Whether a recorded path can be written under `src/` as is: absolute, no empty, "." or ".."
/// component, and only plain file-name characters (hostile `--name`s make no files).
fn writable(path: &str) -> bool {
    let Some(rest) = path.strip_prefix('/') else {
        return false;
    };
    rest.split('/').all(|c| {
        !c.is_empty()
            && c != "."
            && c != ".."
            && c.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
    })
}

impl SynthDb {
    /// (path relative to the database folder, text) of each source file the tree names.
    pub fn source_files(&self) -> Vec<(String, String)> {
        let mut last = vec![0u32; self.tree.files.len()];
        let mut defs: Vec<Vec<(u32, &str)>> = vec![Vec::new(); self.tree.files.len()];
        for f in &self.tree.functions {
            if let Some(i) = f.file.filter(|&i| (i as usize) < last.len()) {
                last[i as usize] = last[i as usize].max(f.line);
                defs[i as usize].push((f.line, &f.name));
            }
        }
        for n in &self.tree.nodes {
            if let Some((i, line)) = n.code.file.zip(n.code.line) {
                if let Some(l) = last.get_mut(i as usize) {
                    *l = (*l).max(line);
                }
            }
        }
        let mut out = Vec::new();
        for (i, path) in self.tree.files.iter().enumerate() {
            if !writable(path) || last[i] == 0 {
                continue;
            }
            let mut d = std::mem::take(&mut defs[i]);
            d.sort();
            let mut text = format!("/* {path}: written by `hpcscope synth --sources` */\n");
            let mut k = 0;
            for line in 2..=last[i] + 2 {
                let mut names: Vec<&str> = Vec::new();
                while k < d.len() && d[k].0 <= line {
                    if d[k].0 == line {
                        names.push(d[k].1);
                    }
                    k += 1;
                }
                if names.is_empty() {
                    text.push_str(&format!("    x = step(x, {line});\n"));
                } else {
                    // Functions the generator defined at the same line share it.
                    text.push_str(&format!("double {}(double x) {{\n", names.join(" / ")));
                }
            }
            out.push((format!("src{path}"), text));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::SynthSpec;

    #[test]
    fn files_cover_every_named_line() {
        let spec = SynthSpec {
            contexts: 300,
            names: vec!["../evil".into(), "ok_name".into()],
            ..SynthSpec::default()
        };
        let db = SynthDb::new(&spec).unwrap();
        let files = db.source_files();
        assert!(
            files.len() >= 3,
            "{:?}",
            files.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        for (path, text) in &files {
            assert!(path.starts_with("src/opt/synth/src/"), "{path}");
            assert!(!path.contains(".."), "{path}");
            let recorded = &path[3..];
            let i = db.tree.files.iter().position(|f| f == recorded).unwrap() as u32;
            let lines: Vec<&str> = text.lines().collect();
            for line in db
                .tree
                .nodes
                .iter()
                .filter_map(|n| n.code.line.filter(|&l| n.code.file == Some(i) && l > 0))
            {
                assert!(lines.len() >= line as usize, "{path}: line {line}");
            }
            for f in db.tree.functions.iter().filter(|f| f.file == Some(i)) {
                assert!(
                    lines[f.line as usize - 1].contains(&f.name),
                    "{path}:{}",
                    f.line
                );
            }
        }
        assert!(!writable("/opt/../x.c") && !writable("rel.c") && !writable("/a//b.c"));
        assert!(writable("/opt/synth/src/main.c"));
    }
}
