//! `hpcscope summary DIR`: what a dataset is, in a few human-readable lines.

use crate::formats;
use std::path::Path;

pub fn run(args: &[String]) -> Result<(), String> {
    let [dir] = args else {
        return Err("usage: hpcscope summary DIR".into());
    };
    let inputs = super::read_inputs(Path::new(dir))?;
    let (groups, unknown) = formats::group(inputs);
    for f in unknown {
        eprintln!("skipped {f}");
    }
    if groups.is_empty() {
        return Err(format!("{dir}: no dataset recognised"));
    }
    for g in groups {
        let ds = formats::open(&g).map_err(|e| e.to_string())?;
        println!("{} ({} {})", g.root, ds.format, ds.layout);
        if !ds.title.is_empty() {
            println!("  title: {}", ds.title);
        }
        for (k, v) in &ds.facts {
            println!("  {k}: {v}");
        }
        for w in &ds.warnings {
            println!("  warning: {w}");
        }
    }
    Ok(())
}
