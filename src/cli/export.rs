//! `hpcscope export --format speedscope|chrome|folded|csv [--metric NAME] [-o FILE] DIR`: writes a
//! dataset in another tool's format through `crate::export` (the same code the page's download
//! button runs), to stdout or FILE.

use crate::export::{export, pick_metric, Format};
use crate::formats;
use std::path::Path;

const USAGE: &str =
    "usage: hpcscope export --format speedscope|chrome|folded|csv [--metric NAME] [-o FILE] DIR";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut format = None;
    let mut metric = None;
    let mut output = None;
    let mut dir = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--format" | "-f" => {
                let v = it.next().ok_or(USAGE)?;
                format =
                    Some(Format::parse(v).ok_or_else(|| format!("unknown format '{v}'\n{USAGE}"))?);
            }
            "--metric" | "-m" => metric = Some(it.next().ok_or(USAGE)?.clone()),
            "-o" | "--output" => output = Some(it.next().ok_or(USAGE)?.clone()),
            _ if dir.is_none() && !a.starts_with('-') => dir = Some(a.clone()),
            _ => return Err(USAGE.into()),
        }
    }
    let (Some(format), Some(dir)) = (format, dir) else {
        return Err(USAGE.into());
    };
    let inputs = super::read_inputs(Path::new(&dir))?;
    let (groups, _) = formats::group(inputs);
    let Some(g) = groups.first() else {
        return Err(format!("{dir}: no dataset recognised"));
    };
    if groups.len() > 1 {
        eprintln!(
            "hpcscope: {dir} holds {} datasets; exporting {}",
            groups.len(),
            g.root
        );
    }
    let ds = formats::open(g).map_err(|e| e.to_string())?;
    let m = pick_metric(&ds, metric.as_deref()).map_err(|e| e.to_string())?;
    let text = export(&ds, format, m).map_err(|e| e.to_string())?;
    match output {
        Some(o) => std::fs::write(&o, text).map_err(|e| format!("{o}: {e}")),
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(text.as_bytes())
                .map_err(|e| e.to_string())
        }
    }
}
