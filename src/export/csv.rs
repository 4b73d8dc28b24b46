//! CSV (RFC 4180) of the top-down table: one row per calling context in tree preorder with its
//! parent, depth, name, source position and module, then the inclusive and exclusive summary value
//! of every metric (the columns the tree table shows).

use super::num;
use crate::analysis::frames::Names;
use crate::analysis::values::{metric_columns, Selection};
use crate::error::Result;
use crate::model::Dataset;

/// A field quoted when it holds a comma, quote or line break.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The top-down table of `ds` as CSV.
pub fn write(ds: &Dataset) -> Result<String> {
    let names = Names::new(ds);
    let mut cols = Vec::with_capacity(ds.metrics.len());
    for m in 0..ds.metrics.len() {
        cols.push(metric_columns(ds, m, &Selection::Summary)?);
    }
    let mut out = String::from("node,parent,depth,name,file,line,module");
    for m in &ds.metrics {
        out.push(',');
        out.push_str(&field(&format!("{} (inclusive)", m.name)));
        out.push(',');
        out.push_str(&field(&format!("{} (exclusive)", m.name)));
    }
    out.push_str("\r\n");
    for i in 1..ds.cct.tree.len() {
        let (file, line, module) = ds.frame_place(i as u32);
        let (file, module) = (file.unwrap_or(""), module.unwrap_or(""));
        let line = line.map(|l| l.to_string()).unwrap_or_default();
        let parent = ds.cct.tree.parent[i];
        out.push_str(&format!(
            "{i},{},{},{},{},{line},{}",
            if parent == crate::model::NONE {
                String::new()
            } else {
                parent.to_string()
            },
            ds.cct.tree.depth[i],
            field(names.of(i as u32)),
            field(file),
            field(module)
        ));
        for c in &cols {
            out.push(',');
            out.push_str(&num(c.inclusive[i]));
            out.push(',');
            out.push_str(&num(c.exclusive[i]));
        }
        out.push_str("\r\n");
    }
    Ok(out)
}
