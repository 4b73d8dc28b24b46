//! HPCToolkit's golden transcripts of the corpus databases (`hpctoolkit/golden/<db>.yaml.xz`,
//! written by hpctesttool: meta.db, profile.db, cct.db and trace.db as tagged YAML), decompressed
//! with lzma-rs and parsed by `yaml.rs`; plus the labels hpctesttool gives profiles.

use super::yaml::{self, Node};
use std::path::Path;

/// The golden transcript of corpus database `name` (its folder name under hpctoolkit/v4, e.g.
/// `hpctoolkit-tests-small.d`); None when the corpus or that transcript is absent.
pub fn golden(name: &str) -> Option<Node> {
    golden_parts(name, &["meta", "profile", "context", "trace"])
}

/// Only some top-level sections of a golden transcript (`meta`, `profile`, `context`, `trace`:
/// one per database file): the others are left unparsed, which saves about a third of the
/// parsing where `context` (cct.db's per-context values) is not needed. Anchors are all in
/// `meta`, so keep it when following aliases.
pub fn golden_parts(name: &str, sections: &[&str]) -> Option<Node> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/hpctoolkit/golden")
        .join(format!("{name}.yaml.xz"));
    let text = read_xz(&path)?;
    let text = top_level_sections(&text, sections);
    Some(yaml::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The document with only the named entries of its top-level block map: an entry runs from its
/// `key:` line at column 0 to the next line at column 0. Lines before the first entry (the
/// document's tag) are kept.
fn top_level_sections(text: &str, keys: &[&str]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut keep = true;
    for line in text.split_inclusive('\n') {
        if !line.starts_with([' ', '#', '\n', '-']) {
            if let Some((key, _)) = line.split_once(':') {
                keep = keys.contains(&key);
            }
        }
        if keep {
            out.push_str(line);
        }
    }
    out
}

/// An xz-compressed text file, None when it cannot be opened.
pub fn read_xz(path: &Path) -> Option<String> {
    let xz = std::fs::read(path).ok()?;
    let mut raw = Vec::new();
    lzma_rs::xz_decompress(&mut xz.as_slice(), &mut raw)
        .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    Some(String::from_utf8(raw).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The identifier kind names of meta.db (`SUMMARY`, `NODE`, `RANK`, `THREAD`, ...).
pub fn id_names(golden: &Node) -> Vec<String> {
    let names = golden.get("meta").get("id_names").get("names").seq();
    names
        .iter()
        .map(|n| n.str().unwrap_or("").to_string())
        .collect()
}

/// The profiles of profile.db in file order.
pub fn profiles(golden: &Node) -> &[Node] {
    golden
        .get("profile")
        .get("profile_infos")
        .get("profiles")
        .seq()
}

/// A profile's identifier tuple as hpctesttool labels it: `NODE 0 [0x11ac0300] / CORE 0 /
/// THREAD 0`, the physical id in brackets where the identifier is physical (when `physical`).
pub fn profile_label(profile: &Node, id_names: &[String], physical: bool) -> String {
    let tuple = profile.get("id_tuple");
    if tuple.is_null() {
        return String::new();
    }
    tuple
        .get("ids")
        .seq()
        .iter()
        .map(|id| {
            let kind = id.get("kind").u64().unwrap() as usize;
            let mut s = format!("{} {}", id_names[kind], id.get("logical_id").u64().unwrap());
            if physical && id.get("flags").flags().contains(&"is_physical") {
                s += &format!(" [{:#x}]", id.get("physical_id").u64().unwrap());
            }
            s
        })
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The scope name (`execution`, `function`, `point`, ...) a metric's scope instance or summary
/// statistic refers to through its `scope` alias.
pub fn scope_name<'a>(golden: &'a Node, item: &Node) -> Option<&'a str> {
    let scopes = golden.get("meta").get("metrics").get("scopes").seq();
    let i = yaml::position(scopes, item.get("scope").alias()).expect("a scope");
    scopes[i].get("scope_name").str()
}
