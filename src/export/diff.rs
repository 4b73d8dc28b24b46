//! Writers of a comparison of two runs: a differential folded file as flamegraph.pl and inferno
//! read with `--diff` (`frame;frame;frame base new`: each union context's own value in both runs,
//! as `difffolded.pl` writes), and the delta table as CSV (RFC 4180), one row per union context
//! in preorder with both runs' inclusive and exclusive values, the delta and the ratio.

use super::csv::field;
use super::{clean_name, num, Error, Result};
use crate::analysis::diff::view::{Comparison, ADDED, REMOVED};
use crate::model::{Dataset, NONE};

/// Own values (inclusive less the children's) of the union nodes, residue of the subtraction
/// (|x| <= 1e-12 of the root) set to 0.
fn own_values(c: &Comparison, incl: &[f64]) -> Vec<f64> {
    let mut out = incl.to_vec();
    let parent = &c.union.tree.parent;
    for (i, (&p, &v)) in parent.iter().zip(incl).enumerate().skip(1) {
        if (p as usize) < i {
            out[p as usize] -= v;
        }
    }
    let root = incl.first().copied().unwrap_or(0.0).abs();
    for v in out.iter_mut() {
        if v.abs() <= root * 1e-12 || !v.is_finite() {
            *v = 0.0;
        }
    }
    out
}

/// Names of the union nodes, each path written once through a stack of prefix lengths (paths
/// can be 100,000 deep): calls `line(node, path)` for every node but the root.
fn for_each_path(c: &Comparison, mut line: impl FnMut(usize, &str) -> Result<()>) -> Result<()> {
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let mut buf = String::new();
    for i in 1..c.union.len() {
        let parent = c.union.parent(i as u32);
        super::pop_to(&mut stack, parent);
        buf.truncate(stack.last().map_or(0, |&(_, len)| len));
        if !buf.is_empty() {
            buf.push(';');
        }
        let name = c.node_name(i as u32);
        buf.push_str(&clean_name(name).replace(';', ":"));
        line(i, &buf)?;
        stack.push((i as u32, buf.len()));
    }
    Ok(())
}

/// The differential folded file of a comparison: one line per union context with a value of
/// its own in either run, `path base new`, normalised as the comparison is.
pub fn write_folded(c: &Comparison, base: &Dataset, new: &Dataset) -> Result<String> {
    let t = c.totals_info(base, new);
    let cols = c.columns();
    let b = own_values(c, &cols.base.inclusive);
    let n = own_values(c, &cols.new.inclusive);
    let mut out = String::new();
    if b[0] != 0.0 || n[0] != 0.0 {
        out.push_str(&format!(
            "<root> {} {}\n",
            num(b[0] * t.base_factor),
            num(n[0] * t.new_factor)
        ));
    }
    for_each_path(c, |i, path| {
        if b[i] == 0.0 && n[i] == 0.0 {
            return Ok(());
        }
        if out.len() + path.len() > super::folded::MAX_BYTES {
            return Err(Error::too_large(
                &new.title,
                0,
                "calling contexts too deep for a folded export (over 256 MiB)",
            ));
        }
        out.push_str(path);
        out.push(' ');
        out.push_str(&num(b[i] * t.base_factor));
        out.push(' ');
        out.push_str(&num(n[i] * t.new_factor));
        out.push('\n');
        Ok(())
    })?;
    Ok(out)
}

/// new / base, empty when base is 0.
fn ratio(base: f64, new: f64) -> String {
    if base == 0.0 {
        String::new()
    } else {
        num(new / base)
    }
}

/// The delta table of a comparison as CSV: per union context its parent, depth, name, module,
/// status (both, added, removed) and the base, new, delta and ratio of the inclusive and
/// exclusive values, normalised as the comparison is.
pub fn write_csv(c: &Comparison, base: &Dataset, new: &Dataset) -> Result<String> {
    let t = c.totals_info(base, new);
    let cols = c.columns();
    let (bf, nf) = (t.base_factor, t.new_factor);
    let mut out = String::from("node,parent,depth,name,module,status");
    for scope in ["inclusive", "exclusive"] {
        for what in ["base", "new", "delta", "ratio"] {
            out.push(',');
            out.push_str(&field(&format!("{what} {} ({scope})", t.new_metric)));
        }
    }
    out.push_str("\r\n");
    for i in 1..c.union.len() {
        let u = i as u32;
        let parent = c.union.parent(u);
        let flags = c.flags(base, new, u);
        let status = if flags & ADDED != 0 {
            "added"
        } else if flags & REMOVED != 0 {
            "removed"
        } else {
            "both"
        };
        let module = c.module_name(u);
        out.push_str(&format!(
            "{i},{},{},{},{},{status}",
            if parent == NONE {
                String::new()
            } else {
                parent.to_string()
            },
            c.union.tree.depth[i],
            field(&clean_name(c.node_name(u))),
            field(module),
        ));
        for (b, n) in [
            (cols.base.inclusive[i] * bf, cols.new.inclusive[i] * nf),
            (cols.base.exclusive[i] * bf, cols.new.exclusive[i] * nf),
        ] {
            out.push_str(&format!(
                ",{},{},{},{}",
                num(b),
                num(n),
                num(n - b),
                ratio(b, n)
            ));
        }
        out.push_str("\r\n");
    }
    Ok(out)
}
