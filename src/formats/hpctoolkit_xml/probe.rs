//! The summary probe of an XML-era database: the experiment.xml version and title from its first
//! elements, and the side files (.metric-db, .mdb, .mt, .hpctrace) beside it.

use crate::error::{Error, Result};
use crate::formats::probe::{text_head, Probe};
use crate::formats::xml::first_attr;
use crate::formats::{DatasetGroup, EXPERIMENT_XML};

pub(super) fn probe(g: &DatasetGroup, p: &mut Probe) -> Result<()> {
    let xml = g
        .file(EXPERIMENT_XML)
        .ok_or_else(|| Error::mismatch(&g.root, "XML-era database without experiment.xml"))?;
    let head = text_head(xml)?;
    let version =
        first_attr(head.as_bytes(), "HPCToolkitExperiment", "version").ok_or_else(|| {
            Error::invalid(
                xml.source.name(),
                0,
                "experiment.xml without an HPCToolkitExperiment version",
            )
        })?;
    p.layout = format!("experiment.xml v{version}");
    if let Some(t) = first_attr(head.as_bytes(), "Header", "n") {
        p.title = t;
    }
    let mut side = std::collections::BTreeMap::<&str, u64>::new();
    for (_, f) in &g.files {
        let name = f.path.rsplit('/').next().unwrap_or(&f.path);
        for ext in [".metric-db", ".mdb", ".mt", ".hpctrace"] {
            if name.ends_with(ext) {
                *side.entry(ext).or_default() += 1;
            }
        }
    }
    let side: Vec<String> = side.iter().map(|(e, n)| format!("{n} x {e}")).collect();
    p.fact(
        "side files",
        if side.is_empty() {
            "none".to_string()
        } else {
            side.join(", ")
        },
    );
    let traces = g
        .files
        .iter()
        .filter(|(_, f)| f.path.ends_with(".hpctrace"))
        .count();
    if traces > 0 {
        p.count("trace lines", traces as u64);
    }
    Ok(())
}
