//! Folded stacks as read by flamegraph.pl and inferno: one line per calling context with a value
//! of its own, `frame;frame;frame value`, root first. Values are self (point) values, so the lines
//! sum to the root's inclusive value; frames are the views' names (`;` inside a name becomes `:`).

use super::{clean_name, num, Flame};
use crate::error::Result;
use crate::model::Dataset;

/// Folded stacks of metric `metric` (summary selection), in tree preorder.
pub fn write(ds: &Dataset, metric: usize) -> Result<String> {
    let f = Flame::new(ds, metric)?;
    let mut out = String::new();
    // The CCT is in preorder: a stack of (node, prefix length) gives each node's path text
    // without keeping one string per node (paths can be 100,000 deep).
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let mut buf = String::new();
    for i in 0..ds.cct.len() {
        let parent = ds.cct.parent[i];
        while let Some(&(n, _)) = stack.last() {
            if n == parent {
                break;
            }
            stack.pop();
        }
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
