//! The calling-context tree: its [`Preorder`] shape plus each node's context id and frame. Built
//! from parent links in any order by [`CctBuilder`], iteratively (a 100,000-deep path must not
//! overflow a stack).

use super::preorder::Preorder;
use crate::error::{Error, Result};

/// "No value" in a u32 column.
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    Lexical,
    Call,
    InlinedCall,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LexicalType {
    Function,
    Loop,
    Line,
    Instruction,
}

/// How a thread entered the tree (HPCToolkit entry points).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    MainThread,
    ApplicationThread,
    UnknownEntry,
}

/// What a node is: the synthetic root, an entry point, or a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Root,
    EntryPoint(EntryKind),
    Context,
}

/// Where in the program code a frame is: its function, source file and line, module and offset
/// in the module. Indexes refer to the dataset's functions, files and modules; `None` where the
/// format gives no value. Formats read it whole into their own records and hand it on as is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CodeRef {
    pub function: Option<u32>,
    pub file: Option<u32>,
    pub line: Option<u32>,
    pub module: Option<u32>,
    pub offset: Option<u64>,
}

// The three parts HPCToolkit's formats flag as present one by one: a function, a source line, a
// point (an offset in a module).
impl CodeRef {
    pub fn of_function(function: u32) -> CodeRef {
        CodeRef {
            function: Some(function),
            ..CodeRef::default()
        }
    }
    pub fn at_line(file: Option<u32>, line: Option<u32>) -> CodeRef {
        CodeRef {
            file,
            line,
            ..CodeRef::default()
        }
    }
    pub fn at_point(module: Option<u32>, offset: u64) -> CodeRef {
        CodeRef {
            module,
            offset: Some(offset),
            ..CodeRef::default()
        }
    }
}

/// The frame a node stands for: what kind of node it is and where in the code (serialized with
/// the [`CodeRef`] fields inline).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Frame {
    pub kind: NodeKind,
    pub relation: Relation,
    pub lexical_type: LexicalType,
    #[serde(flatten)]
    pub code: CodeRef,
}

impl Frame {
    pub fn root() -> Frame {
        Frame {
            kind: NodeKind::Root,
            relation: Relation::Call,
            lexical_type: LexicalType::Function,
            code: CodeRef::default(),
        }
    }
    pub fn entry(kind: EntryKind) -> Frame {
        Frame {
            kind: NodeKind::EntryPoint(kind),
            ..Frame::root()
        }
    }
    /// A context of `relation` and `lexical_type` at `code` (what formats with lexical structure
    /// read for each context).
    pub fn context(relation: Relation, lexical_type: LexicalType, code: CodeRef) -> Frame {
        Frame {
            kind: NodeKind::Context,
            relation,
            lexical_type,
            code,
        }
    }
    /// A called instruction address with no function known for it (hpcrun's unmapped or
    /// unstructured addresses): `offset` in `module`, when the module is known.
    pub fn instruction(module: Option<u32>, offset: u64) -> Frame {
        let code = CodeRef::at_point(module, offset);
        Frame::context(Relation::Call, LexicalType::Instruction, code)
    }
    /// A called function (the common case for formats without lexical structure).
    pub fn call(function: u32) -> Frame {
        let code = CodeRef::of_function(function);
        Frame::context(Relation::Call, LexicalType::Function, code)
    }
}

/// Calling-context tree columns in DFS preorder.
#[derive(Clone, Debug, Default)]
pub struct Cct {
    /// The format's own identifier of each node (HPCToolkit ctxId, uftrace call-path number ...).
    pub ctx_id: Vec<u32>,
    /// Parent, depth and subtree end of each node.
    pub tree: Preorder,
    pub frame: Vec<Frame>,
    /// (ctx_id, node) sorted by ctx_id, for mapping file ids to nodes without a ctx-id-sized array.
    by_ctx: Vec<(u32, u32)>,
}

impl Cct {
    /// Node index of a format context id.
    pub fn node_of_ctx(&self, ctx_id: u32) -> Option<u32> {
        self.by_ctx
            .binary_search_by_key(&ctx_id, |&(c, _)| c)
            .ok()
            .map(|i| self.by_ctx[i].1)
    }
    /// Integrity check run by tests: every column has a value per node and the tree's preorder,
    /// parent links, depths and subtree ranges agree.
    pub fn check(&self) -> std::result::Result<(), String> {
        let n = self.tree.len();
        if self.ctx_id.len() != n || self.frame.len() != n {
            return Err("column lengths differ".into());
        }
        self.tree.check()
    }
}

/// Collects nodes with parent links in any order, then lays them out in DFS preorder, children in
/// insertion order.
#[derive(Default)]
pub struct CctBuilder {
    parent: Vec<u32>,
    ctx_id: Vec<u32>,
    frame: Vec<Frame>,
}

impl CctBuilder {
    /// A builder whose node 0 is the root with the given context id.
    pub fn new(root_ctx_id: u32) -> CctBuilder {
        CctBuilder {
            parent: vec![NONE],
            ctx_id: vec![root_ctx_id],
            frame: vec![Frame::root()],
        }
    }
    /// [`CctBuilder::new`] with room for `n` more nodes (no regrowth while adding them).
    pub fn with_capacity(root_ctx_id: u32, n: usize) -> CctBuilder {
        let mut b = CctBuilder::new(root_ctx_id);
        b.parent.reserve(n);
        b.ctx_id.reserve(n);
        b.frame.reserve(n);
        b
    }
    /// Adds a node under `parent` (a value returned by an earlier `add`, or 0 for the root) and
    /// returns its builder index.
    pub fn add(&mut self, parent: u32, ctx_id: u32, frame: Frame) -> u32 {
        let i = self.parent.len() as u32;
        self.parent.push(parent);
        self.ctx_id.push(ctx_id);
        self.frame.push(frame);
        i
    }
    pub fn len(&self) -> usize {
        self.parent.len()
    }
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }
    /// Frame of a node added earlier, for callers that merge paths (find-or-add child).
    pub fn frame(&self, i: u32) -> Option<&Frame> {
        self.frame.get(i as usize)
    }

    /// Lays the tree out in preorder. `file` names the source for the error of a dangling parent or
    /// a duplicated context id.
    pub fn finish(self, file: &str) -> Result<Cct> {
        let n = self.parent.len();
        // Children lists by counting sort on the parent, keeping insertion order.
        let mut child_count = vec![0u32; n + 1];
        for (i, &p) in self.parent.iter().enumerate().skip(1) {
            if p as usize >= n || p as usize == i {
                return Err(Error::invalid(
                    file,
                    0,
                    format!("context {} has a dangling parent", self.ctx_id[i]),
                ));
            }
            child_count[p as usize + 1] += 1;
        }
        for i in 1..=n {
            child_count[i] += child_count[i - 1];
        }
        let first_child = child_count.clone();
        let mut fill = child_count;
        let mut children = vec![0u32; n.saturating_sub(1)];
        for (i, &p) in self.parent.iter().enumerate().skip(1) {
            children[fill[p as usize] as usize] = i as u32;
            fill[p as usize] += 1;
        }
        // Iterative preorder walk.
        let mut order = Vec::with_capacity(n);
        let mut stack: Vec<(u32, u32)> = vec![(0, first_child[0])];
        order.push(0u32);
        let mut new_index = vec![NONE; n];
        new_index[0] = 0;
        let mut depth_of = vec![0u32; n];
        let mut end_of = vec![0u32; n];
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if *next < first_child[node as usize + 1] {
                let c = children[*next as usize];
                *next += 1;
                new_index[c as usize] = order.len() as u32;
                depth_of[order.len()] = stack.len() as u32;
                order.push(c);
                stack.push((c, first_child[c as usize]));
            } else {
                end_of[new_index[node as usize] as usize] = order.len() as u32;
                stack.pop();
            }
        }
        if order.len() != n {
            // Some node is not reachable from the root: its parent chain is a cycle.
            return Err(Error::invalid(file, 0, "context tree has a cycle"));
        }
        let parent: Vec<u32> = order
            .iter()
            .map(|&o| {
                let p = self.parent[o as usize];
                if p == NONE {
                    NONE
                } else {
                    new_index[p as usize]
                }
            })
            .collect();
        // Frames are the big column: reorder the builder's own in place rather than copy them.
        let (mut ctx_id, mut frame) = (self.ctx_id, self.frame);
        permute(&mut ctx_id, &order);
        permute(&mut frame, &order);
        let mut cct = Cct {
            ctx_id,
            tree: Preorder {
                parent,
                depth: depth_of,
                subtree_end: end_of,
            },
            frame,
            by_ctx: Vec::new(),
        };
        cct.by_ctx = by_ctx(&cct.ctx_id);
        if let Some(w) = cct.by_ctx.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(Error::invalid(
                file,
                0,
                format!("context id {} appears twice", w[0].0),
            ));
        }
        Ok(cct)
    }
}

/// Reorders `v` in place so that `v[i]` becomes the old `v[order[i]]` (`order` a permutation of
/// `0..v.len()`), following each cycle of the permutation once.
fn permute<T: Copy>(v: &mut [T], order: &[u32]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        if done[start] {
            continue;
        }
        let first = v[start];
        let mut i = start;
        loop {
            done[i] = true;
            let from = order[i] as usize;
            if from == start {
                v[i] = first;
                break;
            }
            v[i] = v[from];
            i = from;
        }
    }
}

/// (ctx_id, node) sorted by ctx_id (ties in node order), for any per-node ids. Dense ids (most
/// formats number contexts from 0 or 1) are placed by a counting pass over an id-indexed table;
/// sparse ones are sorted.
pub(crate) fn by_ctx(ctx_id: &[u32]) -> Vec<(u32, u32)> {
    let n = ctx_id.len();
    let max = ctx_id.iter().copied().max().unwrap_or(0) as usize;
    if max > 4 * n + 4096 {
        let mut v: Vec<(u32, u32)> = ctx_id
            .iter()
            .enumerate()
            .map(|(i, &c)| (c, i as u32))
            .collect();
        crate::sort::sort_by(&mut v, |a, b| a.cmp(b));
        return v;
    }
    // How many nodes carry each id, then where each id's nodes go (node order within an id).
    let mut at = vec![0u32; max + 2];
    for &c in ctx_id {
        at[c as usize + 1] += 1;
    }
    for i in 1..at.len() {
        at[i] += at[i - 1];
    }
    let mut v = vec![(0u32, 0u32); n];
    for (i, &c) in ctx_id.iter().enumerate() {
        let slot = &mut at[c as usize];
        v[*slot as usize] = (c, i as u32);
        *slot += 1;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_follows_cycles() {
        let mut v = vec!['a', 'b', 'c', 'd', 'e'];
        permute(&mut v, &[3, 0, 2, 4, 1]);
        assert_eq!(v, vec!['d', 'a', 'c', 'e', 'b']);
    }

    #[test]
    fn by_ctx_dense_and_sparse_sort_like_a_sort() {
        let sorted = |ids: &[u32]| {
            let mut v: Vec<(u32, u32)> = ids
                .iter()
                .enumerate()
                .map(|(i, &c)| (c, i as u32))
                .collect();
            v.sort_unstable();
            v
        };
        for ids in [
            vec![0, 7, 3, 3, 1, 9],
            vec![0],
            vec![0, 4_000_000_000, 12, 12, 5],
            (0..1000u32).rev().collect(),
        ] {
            assert_eq!(by_ctx(&ids), sorted(&ids), "{ids:?}");
        }
    }

    #[test]
    fn builds_preorder_from_any_insertion_order() {
        // root(0) -> a(10) -> c(12); root -> b(11); a -> d(13); inserted breadth-first.
        let mut b = CctBuilder::new(0);
        let a = b.add(0, 10, Frame::call(0));
        let _bb = b.add(0, 11, Frame::call(1));
        let _c = b.add(a, 12, Frame::call(2));
        let _d = b.add(a, 13, Frame::call(3));
        let cct = b.finish("t").unwrap();
        cct.check().unwrap();
        assert_eq!(cct.ctx_id, vec![0, 10, 12, 13, 11]);
        assert_eq!(cct.tree.parent, vec![NONE, 0, 1, 1, 0]);
        assert_eq!(cct.tree.depth, vec![0, 1, 2, 2, 1]);
        assert_eq!(cct.tree.subtree_end, vec![5, 4, 3, 4, 5]);
        assert_eq!(cct.tree.children(0).collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(cct.tree.children(1).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(cct.node_of_ctx(13), Some(3));
        assert_eq!(cct.node_of_ctx(99), None);
        assert_eq!(cct.tree.path(3), vec![0, 1, 3]);
    }

    #[test]
    fn deep_path_does_not_recurse() {
        let mut b = CctBuilder::new(0);
        let mut p = 0;
        for i in 1..200_000u32 {
            p = b.add(p, i, Frame::call(0));
        }
        let cct = b.finish("deep").unwrap();
        assert_eq!(cct.tree.depth[199_999], 199_999);
        assert_eq!(cct.tree.subtree_end[0], 200_000);
        cct.check().unwrap();
    }

    #[test]
    fn rejects_duplicate_ids_and_dangling_parents() {
        let mut b = CctBuilder::new(0);
        b.add(0, 5, Frame::call(0));
        b.add(0, 5, Frame::call(0));
        assert!(b.finish("t").is_err());
        let mut b = CctBuilder::new(0);
        b.add(7, 1, Frame::call(0));
        assert!(b.finish("t").is_err());
    }
}
