//! The one-way flow of STYLE.md, checked on the sources: bytes -> formats -> model -> analysis ->
//! session -> wasm -> views. Every `crate::` / `super::` path in non-test Rust under src/ must
//! name a top-level module its own module may use (LAYERS); in www/, render/ imports neither the
//! store, the engine nor views, and only the Worker server imports the wasm package (JS_RULES).

use regex_lite::Regex;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a top-level module may use besides itself.
#[derive(Clone, Copy)]
enum May {
    Only(&'static [&'static str]),
    AllBut(&'static [&'static str]),
}
use May::{AllBut, Only};

/// The top-level modules of src/ (a file `x.rs` or folder `x/`; `bin` is src/bin/), lowest layer
/// first, each with what it may use. A new module needs a line here.
const LAYERS: &[(&str, May)] = &[
    // Foundations: counted work (for tests); one error type; byte sources and bounds-checked reads.
    ("work", Only(&[])),
    ("error", Only(&[])),
    // One stable sort for cold call sites (fewer std sort copies in the wasm): a utility of
    // every layer, using none.
    ("sort", Only(&[])),
    ("bytes", Only(&["error", "work"])),
    // The format-neutral model: knows no format and no bytes.
    ("model", Only(&["error", "sort"])),
    // Readers: bytes in, model out.
    (
        "formats",
        Only(&["error", "sort", "bytes", "model", "work"]),
    ),
    // Generators of datasets in the formats' byte layouts (tests, fixtures, the built-in
    // example): they may reuse the formats' constants and the model, never the reverse.
    (
        "synth",
        Only(&["error", "sort", "bytes", "model", "formats"]),
    ),
    // The views' computations over the model (no formats, no bytes).
    ("analysis", Only(&["error", "sort", "model", "work"])),
    ("export", Only(&["error", "sort", "model", "analysis"])),
    // The Worker session: open datasets, views' caches, staged reads of block-cached sources;
    // it opens the built-in example (made by synth).
    ("block_cache", Only(&["error", "sort", "bytes"])),
    (
        "session",
        Only(&[
            "error",
            "sort",
            "bytes",
            "model",
            "formats",
            "synth",
            "analysis",
            "export",
            "block_cache",
        ]),
    ),
    // Front ends over everything below; the browser bindings and the command line never use
    // each other (the binary is the command line's `main`).
    ("wasm", AllBut(&["cli", "bin"])),
    ("cli", AllBut(&["wasm", "bin"])),
    ("bin", AllBut(&["wasm"])),
];

/// Known uses against LAYERS, each with why it stays for now: (file, module it uses, reason).
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// www/ rules: (files under this prefix, may not import modules under this prefix, why).
const JS_RULES: &[(&str, &str, &str)] = &[
    (
        "www/render/",
        "www/store.js",
        "render/ draws from what it is given: no store",
    ),
    (
        "www/render/",
        "www/engine.js",
        "render/ draws from what it is given: no engine",
    ),
    (
        "www/render/",
        "www/views/",
        "render/ is below the views: it never imports them",
    ),
];

/// The only module that imports the wasm package (/pkg): the Worker side of the engine.
const WASM_IMPORTER: &str = "www/worker-server.js";

// ---------------------------------------------------------------------------------------------
// Rust: a small lexer (comments, strings and char literals dropped; `::` one token), then the
// paths that start with `crate::` or climb to the crate root with `super::`.

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

fn lex(src: &str) -> Vec<(Tok, usize)> {
    let b: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let at = |i: usize| b.get(i).copied().unwrap_or('\0');
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(b[i] == '\n');
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
                line += usize::from(at(i - 1) == '\n');
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a), which is skipped.
            if at(i + 1) == '\\' {
                i += 3;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c == ':' && at(i + 1) == ':' {
            out.push((Tok::PathSep, line));
            i += 2;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            let word: String = b[start..i].iter().collect();
            let hashes = b[i..].iter().take_while(|&&h| h == '#').count();
            if matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"' {
                // A raw string: ends at a quote followed by as many hashes.
                i += hashes + 1;
                while i < b.len()
                    && !(b[i] == '"' && b[i + 1..].iter().take(hashes).all(|&h| h == '#'))
                {
                    line += usize::from(b[i] == '\n');
                    i += 1;
                }
                i += 1 + hashes;
            } else if word == "r" && hashes == 1 {
                i += 1; // a raw identifier (r#type): the name follows
            } else {
                out.push((Tok::Ident(word), line));
            }
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// A use of a top-level module: where, which module, and the path as written.
#[derive(Debug)]
struct Use {
    line: usize,
    module: String,
    path: String,
}

fn ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(s), _)) => Some(s),
        _ => None,
    }
}

fn punct(t: Option<&(Tok, usize)>, c: char) -> bool {
    matches!(t, Some((Tok::Punct(p), _)) if *p == c)
}

/// Index after the token that closes the bracket opened at `open`.
fn close_of(toks: &[(Tok, usize)], open: usize) -> usize {
    let mut depth = 0i32;
    for (j, (t, _)) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Punct('{' | '[' | '(') => depth += 1,
            Tok::Punct('}' | ']' | ')') => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// Index after the item starting at `i` (its attributes included): after its `;` or its body.
fn item_end(toks: &[(Tok, usize)], mut i: usize) -> usize {
    while punct(toks.get(i), '#') {
        i = close_of(toks, i + 1);
    }
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct(';') => return i + 1,
            Tok::Punct('{') => return close_of(toks, i),
            Tok::Punct('[' | '(') => i = close_of(toks, i),
            _ => i += 1,
        }
    }
    i
}

/// Whether the attribute whose `[` is at `open` is a `cfg` that holds only under test.
fn is_test_cfg(toks: &[(Tok, usize)], open: usize) -> bool {
    let words: Vec<&str> = toks[open..close_of(toks, open)]
        .iter()
        .filter_map(|t| ident(Some(t)))
        .collect();
    words.first() == Some(&"cfg") && words.contains(&"test") && !words.contains(&"not")
}

/// The first names of the items of a use group whose `{` is at `open` (`{a::b, c}` -> a, c).
fn group_heads(toks: &[(Tok, usize)], open: usize) -> Vec<(String, usize)> {
    let end = close_of(toks, open);
    let (mut out, mut depth, mut fresh) = (Vec::new(), 0, true);
    for t in &toks[open..end] {
        match &t.0 {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => depth -= 1,
            Tok::Punct(',') if depth == 1 => fresh = true,
            Tok::Ident(s) if depth == 1 && fresh => {
                out.push((s.clone(), t.1));
                fresh = false;
            }
            _ => {}
        }
    }
    out
}

/// The top-level modules a Rust file uses, outside `#[cfg(test)]` items. `module` is the file's
/// module path (`src/formats/hpcrun/mod.rs` -> formats, hpcrun); `root_names` maps what lib.rs
/// re-exports (`Error`) to the module it comes from. Also returns the test-only `mod x;` names.
fn uses(
    module: &[String],
    src: &str,
    root_names: &BTreeMap<String, String>,
) -> (Vec<Use>, Vec<String>) {
    let toks = lex(src);
    let (mut out, mut test_mods) = (Vec::new(), Vec::new());
    let mut inline: Vec<(String, i32)> = Vec::new(); // inline `mod x {` and its brace depth
    let (mut depth, mut i) = (0i32, 0);
    while i < toks.len() {
        let t = &toks[i].0;
        if punct(toks.get(i), '#') && punct(toks.get(i + 1), '!') && is_test_cfg(&toks, i + 2) {
            return (Vec::new(), Vec::new()); // #![cfg(test)]: the whole file is test code
        }
        if punct(toks.get(i), '#') && punct(toks.get(i + 1), '[') && is_test_cfg(&toks, i + 1) {
            let end = item_end(&toks, i);
            let item: Vec<&str> = toks[i..end].iter().filter_map(|t| ident(Some(t))).collect();
            if let [.., "mod", name] = item.as_slice() {
                test_mods.push(name.to_string());
            }
            i = end;
            continue;
        }
        match t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                inline.retain(|(_, d)| *d <= depth);
            }
            Tok::Ident(w) if w == "mod" && punct(toks.get(i + 2), '{') => {
                let name = ident(toks.get(i + 1)).unwrap_or("").to_string();
                inline.push((name, depth + 1));
            }
            _ => {}
        }
        let at_path_start = i == 0 || toks[i - 1].0 != Tok::PathSep;
        // The binary (src/bin/) is another crate: it names the library by its package name.
        let root = match module.first().map(String::as_str) {
            Some("bin") => env!("CARGO_PKG_NAME"),
            _ => "crate",
        };
        let climbs = match t {
            Tok::Ident(w) if w == root && at_path_start => Some(usize::MAX),
            Tok::Ident(w) if w == "super" && at_path_start => {
                let mut n = 0;
                while ident(toks.get(i + 2 * n)) == Some("super")
                    && toks.get(i + 2 * n + 1).map(|t| &t.0) == Some(&Tok::PathSep)
                {
                    n += 1;
                }
                Some(n).filter(|&n| n > 0)
            }
            _ => None,
        };
        let Some(n) = climbs else {
            i += 1;
            continue;
        };
        let depth_here = module.len() + inline.len();
        let head = if n == usize::MAX {
            i + 1
        } else {
            i + 2 * n - 1
        };
        i = head + 1;
        if toks.get(head).map(|t| &t.0) != Some(&Tok::PathSep)
            || (n != usize::MAX && n < depth_here)
        {
            continue; // `pub(crate)`, or a path that stays inside this top-level module
        }
        let names = if punct(toks.get(head + 1), '{') {
            group_heads(&toks, head + 1)
        } else {
            ident(toks.get(head + 1))
                .map(|s| (s.to_string(), toks[head + 1].1))
                .into_iter()
                .collect()
        };
        let written = if n == usize::MAX {
            root.to_string()
        } else {
            vec!["super"; n].join("::")
        };
        for (name, line) in names {
            if name == "self" {
                continue;
            }
            let module = root_names.get(&name).cloned().unwrap_or(name.clone());
            out.push(Use {
                line,
                module,
                path: format!("{written}::{name}"),
            });
        }
    }
    (out, test_mods)
}

// ---------------------------------------------------------------------------------------------
// The checks, on (repo-relative path, text) pairs so that tests can feed them examples.

fn allowed(module: &str, used: &str) -> Option<bool> {
    let (_, may) = LAYERS.iter().find(|(m, _)| *m == module)?;
    Some(match may {
        Only(list) => list.contains(&used),
        AllBut(list) => !list.contains(&used),
    })
}

fn rule_text(module: &str) -> String {
    match LAYERS.iter().find(|(m, _)| *m == module) {
        Some((_, Only([]))) => format!("{module} may use no other module"),
        Some((_, Only(list))) => format!("{module} may use only {}", list.join(", ")),
        Some((_, AllBut(list))) => format!("{module} may use anything but {}", list.join(", ")),
        None => format!("{module} is not in LAYERS"),
    }
}

/// `src/a/b.rs` -> [a, b]; `src/a/mod.rs` -> [a]; src/bin/x.rs -> [bin].
fn module_path(path: &str) -> Vec<String> {
    let rel = path
        .strip_prefix("src/")
        .unwrap_or(path)
        .trim_end_matches(".rs");
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if parts[0] == "bin" {
        return vec!["bin".into()];
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// Violations of LAYERS in Rust sources (src/lib.rs gives the re-exported names).
fn check_rust(files: &[(String, String)]) -> Vec<String> {
    let mut root_names = BTreeMap::new();
    if let Some((_, lib)) = files.iter().find(|(p, _)| p == "src/lib.rs") {
        let re = Regex::new(r"pub use (\w+)::\{?([\w, ]+)\}?;").unwrap();
        for c in re.captures_iter(lib) {
            for name in c[2].split(',').map(str::trim).filter(|n| !n.is_empty()) {
                root_names.insert(name.to_string(), c[1].to_string());
            }
        }
    }
    // Files of test-only modules (`#[cfg(test)] mod x;`) and files named tests.rs are skipped.
    let mut skipped: Vec<String> = Vec::new();
    let mut found: Vec<(String, Use)> = Vec::new();
    let mut tops: Vec<String> = Vec::new();
    for (path, text) in files {
        if path == "src/lib.rs" {
            continue;
        }
        let module = module_path(path);
        tops.push(module[0].clone());
        let (used, test_mods) = uses(&module, text, &root_names);
        let dir = match path.strip_suffix("mod.rs") {
            Some(d) => d.to_string(),
            None => format!("{}/", path.trim_end_matches(".rs")),
        };
        skipped.extend(
            test_mods
                .iter()
                .flat_map(|m| [format!("{dir}{m}.rs"), format!("{dir}{m}/")]),
        );
        found.extend(used.into_iter().map(|u| (path.clone(), u)));
    }
    let test_file = |p: &str| {
        p.ends_with("/tests.rs")
            || skipped
                .iter()
                .any(|s| p == s || (s.ends_with('/') && p.starts_with(s.as_str())))
    };
    let mut out = Vec::new();
    tops.sort();
    tops.dedup();
    for top in &tops {
        if allowed(top, top).is_none() {
            out.push(format!("src/{top}: a top-level module missing from LAYERS in tests/layering.rs: add a line saying what it may use"));
        }
    }
    for (m, _) in LAYERS {
        if !tops.iter().any(|t| t == m) && !files.is_empty() {
            out.push(format!(
                "LAYERS names {m}, which src/ no longer has: remove its line"
            ));
        }
    }
    for (path, u) in found {
        let own = module_path(&path)[0].clone();
        if test_file(&path) || u.module == own || allowed(&own, &u.module) == Some(true) {
            continue;
        }
        if EXCEPTIONS
            .iter()
            .any(|(f, m, _)| *f == path && *m == u.module)
        {
            continue;
        }
        out.push(format!(
            "{path}:{}: `{}` uses {}, but {}",
            u.line,
            u.path,
            u.module,
            rule_text(&own)
        ));
    }
    out
}

/// Resolves an import specifier against the importing file's folder (both repo-relative).
fn resolve(from: &str, spec: &str) -> String {
    if !spec.starts_with("./") && !spec.starts_with("../") {
        return spec.to_string();
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for p in spec.split('/') {
        match p {
            "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(p),
        }
    }
    parts.join("/")
}

/// Violations of JS_RULES and WASM_IMPORTER in www/ sources.
fn check_js(files: &[(String, String)]) -> Vec<String> {
    // Comments out (line numbers kept): block comments, and `//` after a blank or punctuation.
    let block = Regex::new(r"(?s)/\*.*?\*/").unwrap();
    let line_comment = Regex::new(r"(?m)(^|[\s;,(){}])//.*$").unwrap();
    let imports = [
        Regex::new(r#"(?m)^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]"#).unwrap(),
        Regex::new(r#"(?m)^\s*import\s*['"]([^'"]+)['"]"#).unwrap(),
        Regex::new(r#"\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)"#).unwrap(),
        Regex::new(r#"\bnew\s+(?:Shared)?Worker\s*\(\s*new\s+URL\s*\(\s*['"]([^'"]+)['"]"#)
            .unwrap(),
        Regex::new(r#"\bimportScripts\s*\(\s*['"]([^'"]+)['"]"#).unwrap(),
    ];
    let mut out = Vec::new();
    for (path, text) in files {
        let keep_lines = |m: &regex_lite::Captures| "\n".repeat(m[0].matches('\n').count());
        let code = block.replace_all(text, keep_lines);
        let code = line_comment.replace_all(&code, "$1");
        for re in &imports {
            for c in re.captures_iter(&code) {
                let spec = c.get(1).unwrap();
                let line = code[..spec.start()].matches('\n').count() + 1;
                let target = resolve(path, spec.as_str());
                for (from, to, why) in JS_RULES {
                    if path.starts_with(from)
                        && (target == *to || (to.ends_with('/') && target.starts_with(to)))
                    {
                        out.push(format!(
                            "{path}:{line}: imports '{}' ({target}), but {why}",
                            spec.as_str()
                        ));
                    }
                }
                if target.starts_with("pkg/") && path != WASM_IMPORTER {
                    out.push(format!(
                        "{path}:{line}: imports '{}' ({target}), but only {WASM_IMPORTER} imports the wasm package",
                        spec.as_str()
                    ));
                }
            }
        }
    }
    out
}

/// Every file with extension `ext` under `dir` (repo-relative paths, sorted, with text).
fn sources(dir: &str, ext: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stack: Vec<PathBuf> = vec![root.join(dir)];
    let mut out = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Fails listing the violations `v` (`what`: "uses against the layers") when there are any.
fn assert_none(v: &[String], what: &str) {
    assert!(v.is_empty(), "{} {what}:\n{}", v.len(), v.join("\n"));
}

#[test]
fn rust_modules_use_only_lower_layers() {
    assert_none(
        &check_rust(&sources("src", "rs")),
        "uses against the layers",
    );
}

#[test]
fn www_modules_follow_the_import_rules() {
    assert_none(
        &check_js(&sources("www", "js")),
        "imports against the rules",
    );
}

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

#[test]
fn a_forbidden_rust_use_is_reported_with_file_line_and_rule() {
    let src = files(&[
        (
            "src/lib.rs",
            "pub mod model;\npub use error::{Error, Result};\n",
        ),
        (
            "src/model/cct.rs",
            "//! A tree.\n\
             use crate::error::Error; // allowed\n\
             use crate::{Result, cli}; // `crate::session` in a comment is not a use\n\
             fn f() -> &'static str { \"crate::wasm in a string\" }\n\
             #[cfg(test)]\nmod tests { use crate::session; }\n",
        ),
        (
            "src/model/mod.rs",
            "pub mod cct;\n#[cfg(test)]\nmod helpers;\n",
        ),
        ("src/model/helpers.rs", "use crate::synth;\n"),
        (
            "src/formats/x/mod.rs",
            "use super::super::analysis::Thing;\nuse super::y;\n",
        ),
        ("src/error.rs", ""),
        ("src/cli/mod.rs", ""),
        ("src/analysis.rs", ""),
    ]);
    let v = check_rust(&src);
    let want = [
        "src/model/cct.rs:3: `crate::cli` uses cli, but model may use only error, sort",
        "src/formats/x/mod.rs:1: `super::super::analysis` uses analysis, but formats may use only error, sort, bytes, model, work",
    ];
    for w in want {
        assert!(v.iter().any(|x| x == w), "missing {w:?} in {v:#?}");
    }
    // The table's modules absent from this example are reported as stale, nothing else.
    let rest: Vec<_> = v
        .iter()
        .filter(|x| !want.contains(&x.as_str()) && !x.starts_with("LAYERS names"))
        .collect();
    assert!(rest.is_empty(), "{rest:#?}");
}

#[test]
fn forbidden_js_imports_are_reported_with_file_line_and_rule() {
    let www = files(&[
        (
            "www/render/flame-draw.js",
            "// imports neither from '../store.js' nor the engine\n\
             import { colourIndex } from './colours.js';\n\
             import {\n  Store,\n} from '../store.js';\n\
             const m = await import('../views/profile.js');\n",
        ),
        (
            "www/views/profile.js",
            "const w = await import('../../pkg/hpcscope.js');\n",
        ),
        (
            "www/worker-server.js",
            "const wasm = await import('../pkg/hpcscope.js');\n",
        ),
    ]);
    let v = check_js(&www);
    assert_eq!(
        v,
        [
            "www/render/flame-draw.js:5: imports '../store.js' (www/store.js), but render/ draws from what it is given: no store",
            "www/render/flame-draw.js:6: imports '../views/profile.js' (www/views/profile.js), but render/ is below the views: it never imports them",
            "www/views/profile.js:1: imports '../../pkg/hpcscope.js' (pkg/hpcscope.js), but only www/worker-server.js imports the wasm package",
        ]
    );
}
