//! The summary probe of a DCPI-style profile: its ASCII `key value` header lines up to `samples`
//! (seed 003), split by the reader's own line rules (header.rs) and shown as facts.

use super::header::{is_samples_line, HeaderLine};
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
        if is_samples_line(line) {
            break;
        }
        let l = HeaderLine::parse(line);
        if l.key.is_empty() {
            continue;
        }
        let value = l.value.trim();
        if l.key == "path" || (l.key == "image" && p.title.is_empty()) {
            p.title = value.rsplit('/').next().unwrap_or(value).to_string();
        }
        p.fact(&l.key, value);
    }
    Ok(())
}
