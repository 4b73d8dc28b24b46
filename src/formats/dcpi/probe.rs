//! The summary probe of a DCPI-style profile: its ASCII `key value` header lines up to `samples`
//! (seed 003), shown as facts.

use super::PROFILE;
use crate::error::{Error, Result};
use crate::formats::probe::{text_head, Probe};
use crate::formats::DatasetGroup;

pub(super) fn probe(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let f = g
        .file(PROFILE)
        .ok_or_else(|| Error::mismatch(&g.root, "DCPI dataset without a profile file"))?;
    p.layout = "DCPI profile".into();
    let head = text_head(f)?;
    for line in head.lines() {
        if line.starts_with("samples") {
            break;
        }
        let mut parts = line.splitn(2, [' ', '\t']);
        let key = parts.next().unwrap_or("");
        let value = parts.next().unwrap_or("").trim();
        if key.is_empty() {
            continue;
        }
        if key == "path" || (key == "image" && p.title.is_empty()) {
            p.title = value.rsplit('/').next().unwrap_or(value).to_string();
        }
        p.fact(key, value);
    }
    Ok(())
}
