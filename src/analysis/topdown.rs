//! The top-down table: the calling-context tree itself, one row per context, with the inclusive
//! and exclusive value of every loaded metric (hpcviewer's "Top-down view").

use super::table::{column, Col, Ctx, TableTree};

/// Top-down rows are CCT nodes; the root row is the CCT root.
#[derive(Default)]
pub struct TopDown;

impl TableTree for TopDown {
    fn children(&mut self, ctx: &Ctx, node: u32) -> Vec<u32> {
        ctx.ds.cct.tree.children(node).collect()
    }
    fn children_into(&mut self, ctx: &Ctx, node: u32, out: &mut Vec<u32>) {
        out.extend(ctx.ds.cct.tree.children(node));
    }
    fn has_children(&mut self, ctx: &Ctx, node: u32) -> bool {
        ctx.ds
            .cct
            .tree
            .subtree_end
            .get(node as usize)
            .is_some_and(|&e| e > node + 1)
    }
    fn value(&mut self, ctx: &Ctx, node: u32, col: Col) -> f64 {
        column(ctx, col).get(node as usize).copied().unwrap_or(0.0)
    }
    fn label(&self, ctx: &Ctx, node: u32) -> String {
        ctx.ds.frame_name(node)
    }
    fn cct_node(&self, _ctx: &Ctx, node: u32) -> Option<u32> {
        Some(node)
    }
    fn find(&mut self, ctx: &Ctx, cct: u32) -> Option<Vec<u32>> {
        if cct as usize >= ctx.ds.cct.tree.len() {
            return None;
        }
        Some(ctx.ds.cct.tree.path(cct).into_iter().skip(1).collect())
    }
    fn clear_values(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::folded::node_of_path;
    use crate::analysis::table::TableView;
    use crate::analysis::tests::Loaded;

    #[test]
    fn rows_sort_hot_path_and_reveal() {
        let l = Loaded::folded(
            "main;init 20\nmain;solve;mpi_wait 30\nmain;solve;compute 25\nmain;solve 10\nmain;io 5\n",
        );
        let (ds, cols) = (&l.ds, &l.cols);
        let ctx = l.ctx();
        let mut tree = TopDown;
        let mut t = TableView::new(&mut tree, &ctx, Col::incl(0));
        let label = |t: &TableView| -> Vec<String> {
            t.rows
                .iter()
                .zip(&t.depth)
                .map(|(&n, d)| {
                    format!("{d}:{}={}", ds.frame_name(n), cols[0].inclusive[n as usize])
                })
                .collect()
        };
        assert_eq!(label(&t), ["0:<root>=90", "1:main=90"]);
        // Hot path at 50%: main -> solve (65 of 90) -> mpi_wait (30 of 65 < 50%) stops at solve.
        let stop = t.hot_path(&mut tree, &ctx, 0, 0.5);
        assert_eq!(ds.frame_name(t.rows[stop]), "solve");
        assert_eq!(
            label(&t),
            [
                "0:<root>=90",
                "1:main=90",
                "2:solve=65",
                "2:init=20",
                "2:io=5"
            ]
        );
        t.expand_row(&mut tree, &ctx, 2);
        t.sort_by(&mut tree, &ctx, Col::excl(0), false);
        // Ascending by exclusive value; ties keep node order.
        assert_eq!(
            label(&t),
            [
                "0:<root>=90",
                "1:main=90",
                "2:io=5",
                "2:solve=65",
                "3:compute=25",
                "3:mpi_wait=30",
                "2:init=20"
            ]
        );
        t.collapse_row(3);
        assert_eq!(t.len(), 5);
        let mw = node_of_path(ds, "main;solve;mpi_wait").unwrap();
        let r = t.reveal(&mut tree, &ctx, mw).unwrap();
        assert_eq!(t.rows[r], mw);
        let w = t.window(&mut tree, &ctx, 3, 2);
        assert_eq!(w.node.len(), 2);
        assert_eq!(w.depth, [2, 3]);
        assert_eq!(w.flags, [3, 0]);
    }
}
