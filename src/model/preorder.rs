//! A tree as columns in DFS preorder: node 0 is the root and the subtree of node `i` is the
//! contiguous range `i..subtree_end[i]`. The calling-context tree and the flame graph's tree share it.

use super::cct::NONE;

/// Parent, depth and subtree-end columns of a tree in DFS preorder.
#[derive(Clone, Debug, Default)]
pub struct Preorder {
    /// Parent node index, `NONE` for the root.
    pub parent: Vec<u32>,
    /// Depth below the root (root = 0).
    pub depth: Vec<u32>,
    /// One past the last node of each subtree.
    pub subtree_end: Vec<u32>,
}

impl Preorder {
    pub fn len(&self) -> usize {
        self.parent.len()
    }
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }
    /// Children of `node` in file order.
    pub fn children(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.subtree_end.get(node as usize).copied().unwrap_or(0);
        let mut next = node + 1;
        std::iter::from_fn(move || {
            if next >= end {
                return None;
            }
            let c = next;
            next = self.subtree_end[c as usize];
            Some(c)
        })
    }
    /// Path of node indexes from the root to `node`, inclusive.
    pub fn path(&self, node: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut n = node;
        while (n as usize) < self.len() {
            out.push(n);
            n = self.parent[n as usize];
        }
        out.reverse();
        out
    }
    /// Integrity check run by tests: preorder, parent links, depths and subtree ranges agree.
    pub fn check(&self) -> std::result::Result<(), String> {
        let n = self.len();
        if self.depth.len() != n || self.subtree_end.len() != n {
            return Err("column lengths differ".into());
        }
        for i in 0..n {
            let p = self.parent[i];
            if i == 0 {
                if p != NONE || self.depth[0] != 0 {
                    return Err("node 0 is not a root".into());
                }
            } else {
                if p as usize >= i {
                    return Err(format!("node {i}: parent {p} not before it"));
                }
                if self.depth[i] != self.depth[p as usize] + 1 {
                    return Err(format!("node {i}: depth"));
                }
                if self.subtree_end[p as usize] < self.subtree_end[i] {
                    return Err(format!("node {i}: subtree leaves its parent's"));
                }
            }
            if (self.subtree_end[i] as usize) <= i || self.subtree_end[i] as usize > n {
                return Err(format!("node {i}: bad subtree end"));
            }
        }
        Ok(())
    }
}
