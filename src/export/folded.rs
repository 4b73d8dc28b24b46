//! Folded stacks as read by flamegraph.pl and inferno: one line per calling context with a value
//! of its own, `frame;frame;frame value`, root first. Values are self (point) values, so the lines
//! sum to the root's inclusive value; frames are the views' names (`;` inside a name becomes `:`).

use super::{clean_name, num, Flame};
use crate::error::{Error, Result};
use crate::model::Dataset;

/// Most bytes of output: every line repeats its whole path, so the text grows with depth times
/// valued contexts (a 100,000-deep recursion with a value at each level is tens of gigabytes).
pub const MAX_BYTES: usize = 256 << 20;

/// Folded stacks of metric `metric` (summary selection), in tree preorder.
pub fn write(ds: &Dataset, metric: usize) -> Result<String> {
    let f = Flame::new(ds, metric)?;
    // The output's size (at most: cleaning names only shortens them), from each node's path
    // length (parents come first in preorder), so a too large export fails at once instead of
    // after writing hundreds of megabytes. Saturating: usize is 32 bits in wasm.
    let mut path_len = vec![0usize; ds.cct.tree.len()];
    let mut total = 0usize;
    for i in 1..ds.cct.tree.len() {
        let p = ds.cct.tree.parent[i] as usize;
        let above = if p < i { path_len[p] } else { 0 };
        path_len[i] = above.saturating_add(f.names.of(i as u32).len() + 1);
        if f.point[i] != 0.0 {
            total = total.saturating_add(path_len[i].saturating_add(24));
        }
    }
    if total > MAX_BYTES {
        return Err(Error::too_large(
            &ds.title,
            0,
            "calling contexts too deep for a folded export (over 256 MiB)",
        ));
    }
    let mut out = String::new();
    // The CCT is in preorder: a stack of (node, prefix length) gives each node's path text
    // without keeping one string per node (paths can be 100,000 deep).
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let mut buf = String::new();
    for i in 0..ds.cct.tree.len() {
        let parent = ds.cct.tree.parent[i];
        super::pop_to(&mut stack, parent);
        let prefix = stack.last().map(|&(_, len)| len).unwrap_or(0);
        buf.truncate(prefix);
        if i == 0 {
            // The synthetic root is not a frame; it only has a line when it holds a value itself.
            if f.point[0] != 0.0 {
                out.push_str("<root> ");
                out.push_str(&num(f.point[0]));
                out.push('\n');
            }
        } else {
            if !buf.is_empty() {
                buf.push(';');
            }
            buf.push_str(&clean_name(f.names.of(i as u32)).replace(';', ":"));
            let v = f.point[i];
            if v != 0.0 {
                if out.len() + buf.len() > MAX_BYTES {
                    return Err(Error::too_large(
                        &ds.title,
                        0,
                        "calling contexts too deep for a folded export (over 256 MiB)",
                    ));
                }
                out.push_str(&buf);
                out.push(' ');
                out.push_str(&num(v));
                out.push('\n');
            }
        }
        stack.push((i as u32, buf.len()));
    }
    Ok(out)
}
