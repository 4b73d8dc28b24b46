//! Search over frame names by substring or regular expression (regex-lite syntax): the matching
//! names, the nodes carrying them and the total of their inclusive values with nested matches
//! counted once. Matching runs over distinct names, not nodes, so a 1M-node tree costs one pass.

use super::frames::Names;

/// Which name ids match `pattern`. A bad regular expression is an `Err` with the parser's message.
pub fn matching_names(
    names: &Names,
    pattern: &str,
    regex: bool,
    ignore_case: bool,
) -> Result<Vec<bool>, String> {
    if pattern.is_empty() {
        return Ok(vec![false; names.names.len()]);
    }
    if regex {
        let re = regex_lite::RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(names.names.iter().map(|n| re.is_match(n)).collect())
    } else if ignore_case {
        let p = pattern.to_lowercase();
        Ok(names
            .names
            .iter()
            .map(|n| n.to_lowercase().contains(&p))
            .collect())
    } else {
        Ok(names.names.iter().map(|n| n.contains(pattern)).collect())
    }
}

/// Nodes (in preorder) whose name matches, given per-node name ids.
pub fn matching_nodes(node_name: &[u32], matched: &[bool]) -> Vec<u32> {
    node_name
        .iter()
        .enumerate()
        .filter(|&(_, &id)| matched.get(id as usize).copied().unwrap_or(false))
        .map(|(i, _)| i as u32)
        .collect()
}

/// Total of `values` over `nodes` (preorder) skipping nodes inside an earlier match's subtree.
pub fn outermost_total(subtree_end: &[u32], nodes: &[u32], values: &[f64]) -> f64 {
    let mut end = 0u32;
    let mut sum = 0.0;
    for &x in nodes {
        if x < end {
            continue;
        }
        end = subtree_end.get(x as usize).copied().unwrap_or(x + 1);
        sum += values.get(x as usize).copied().unwrap_or(0.0);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::flame::FlameTree;
    use crate::analysis::folded::{from_folded, FoldedScopes};
    use crate::analysis::values::{metric_columns, Selection};

    #[test]
    fn substring_regex_and_nested_totals() {
        let ds = from_folded(
            "main;MPI_Send 5\nmain;solve;MPI_Wait 30\nmain;solve;mpi_helper;MPI_Wait 4\nmain;io 2\n",
            FoldedScopes::Point,
        )
        .unwrap();
        let names = Names::new(&ds);
        let cols = metric_columns(&ds, 0, &Selection::Summary).unwrap();
        let total = |pat: &str, re: bool, ic: bool| {
            let m = matching_names(&names, pat, re, ic).unwrap();
            let nodes = matching_nodes(&names.node_name, &m);
            (
                nodes.len(),
                outermost_total(&ds.cct.tree.subtree_end, &nodes, &cols.inclusive),
            )
        };
        assert_eq!(total("MPI_", false, false), (3, 39.0));
        // mpi_helper contains a MPI_Wait: 4 counted once.
        assert_eq!(total("mpi_", false, true), (4, 39.0));
        assert_eq!(total("^MPI_W", true, false), (2, 34.0));
        assert_eq!(total("solve|io", true, false), (2, 36.0));
        assert_eq!(total("", false, false), (0, 0.0));
        assert!(matching_names(&names, "(", true, false).is_err());
        // On the merged flame tree, flame nodes carry their representative's name.
        let tree = FlameTree::merged_lexical(&ds, &names);
        let incl = tree.inclusive(&cols.inclusive);
        let ids: Vec<u32> = tree
            .rep
            .iter()
            .map(|&r| names.node_name[r as usize])
            .collect();
        let m = matching_names(&names, "MPI_Wait", false, false).unwrap();
        let nodes = matching_nodes(&ids, &m);
        assert_eq!(outermost_total(&tree.tree.subtree_end, &nodes, &incl), 34.0);
    }
}
