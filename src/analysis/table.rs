//! The rows of a tree table (top-down, bottom-up, flat), for a virtualised view: which nodes are
//! expanded, the flattened list of visible rows in sort order, hot-path expansion and revealing a
//! node. Trees supply children and values through [`TableTree`]; only row windows reach the UI.

use super::frames::Names;
use super::values::Columns;
use crate::model::Dataset;

/// What a tree needs to answer: the dataset, its names and the loaded metric columns.
pub struct Ctx<'a> {
    pub ds: &'a Dataset,
    pub names: &'a Names,
    /// One entry per loaded metric column pair (the session decides which metrics).
    pub cols: &'a [Columns],
}

/// A value column: slot in `Ctx::cols`, inclusive or exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Col {
    pub slot: usize,
    pub exclusive: bool,
}

impl Col {
    /// The inclusive column of `slot`.
    pub const fn incl(slot: usize) -> Col {
        Col {
            slot,
            exclusive: false,
        }
    }
    /// The exclusive column of `slot`.
    pub const fn excl(slot: usize) -> Col {
        Col {
            slot,
            exclusive: true,
        }
    }
}

/// A tree shown by a table. Node 0 is the aggregate root row.
pub trait TableTree {
    /// Children of `node` (in any order; the table sorts them).
    fn children(&mut self, ctx: &Ctx, node: u32) -> Vec<u32>;
    /// Children of `node` appended to `out` (trees override it to avoid an allocation per node).
    fn children_into(&mut self, ctx: &Ctx, node: u32, out: &mut Vec<u32>) {
        out.extend(self.children(ctx, node));
    }
    fn has_children(&mut self, ctx: &Ctx, node: u32) -> bool;
    fn value(&mut self, ctx: &Ctx, node: u32, col: Col) -> f64;
    fn label(&self, ctx: &Ctx, node: u32) -> String;
    /// The CCT node a row stands for (for tooltips, source and cross-selection).
    fn cct_node(&self, ctx: &Ctx, node: u32) -> Option<u32>;
    /// Path of table nodes from the root (exclusive) to the row showing CCT node `cct`.
    fn find(&mut self, ctx: &Ctx, cct: u32) -> Option<Vec<u32>>;
    /// Forget cached values (the columns changed).
    fn clear_values(&mut self);
    /// Work of listing `node`'s children, in instances touched: 1 for a tree that stores its
    /// children, the row's instance count for a derived tree (bottom-up) that regroups them.
    fn expand_cost(&self, _node: u32) -> usize {
        1
    }
}

/// Most instances one "expand all" or hot-path call may regroup. A bottom-up row of a recursion
/// `f <- f <- ...` n deep holds n - level instances, so expanding the whole chain is quadratic
/// in time and memory (5e9 instances at n = 100,000; hpcviewer's tree is the same): the bulk
/// operations stop at this budget and single expansions, each linear, go further.
pub const MAX_EXPAND_WORK: usize = 4_000_000;

/// Set of node ids as a bitset (node ids are dense): O(1) tests without hashing, which matters
/// when a million rows are re-flattened.
#[derive(Clone, Debug, Default)]
pub struct NodeSet {
    words: Vec<u64>,
}

impl NodeSet {
    pub fn contains(&self, n: &u32) -> bool {
        let n = *n as usize;
        self.words
            .get(n / 64)
            .is_some_and(|w| w & (1u64 << (n % 64)) != 0)
    }
    /// Adds `n`; false when it was there already.
    pub fn insert(&mut self, n: u32) -> bool {
        let n = n as usize;
        if self.words.len() <= n / 64 {
            self.words.resize(n / 64 + 1, 0);
        }
        let bit = 1u64 << (n % 64);
        let had = self.words[n / 64] & bit != 0;
        self.words[n / 64] |= bit;
        !had
    }
    /// Removes `n`; false when it was not there.
    pub fn remove(&mut self, n: &u32) -> bool {
        let n = *n as usize;
        match self.words.get_mut(n / 64) {
            Some(w) if *w & (1u64 << (n % 64)) != 0 => {
                *w &= !(1u64 << (n % 64));
                true
            }
            _ => false,
        }
    }
}

/// A window of a table's rows: each row's table node and depth, and flags (bit 0: has children,
/// bit 1: expanded; the profile view adds bit 2: matches the search).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableRows {
    pub node: Vec<u32>,
    pub depth: Vec<u32>,
    pub flags: Vec<u8>,
}

/// Visible rows of a table: node, depth; the root row is row 0 and starts expanded.
pub struct TableView {
    pub rows: Vec<u32>,
    pub depth: Vec<u32>,
    expanded: NodeSet,
    pub sort: Col,
    pub descending: bool,
}

impl TableView {
    pub fn new(tree: &mut dyn TableTree, ctx: &Ctx, sort: Col) -> TableView {
        let mut t = TableView {
            rows: vec![0],
            depth: vec![0],
            expanded: NodeSet::default(),
            sort,
            descending: true,
        };
        t.expand_row(tree, ctx, 0);
        t
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    pub fn is_expanded(&self, node: u32) -> bool {
        self.expanded.contains(&node)
    }
    pub fn row_of(&self, node: u32) -> Option<usize> {
        self.rows.iter().position(|&r| r == node)
    }

    fn sorted_children(&self, tree: &mut dyn TableTree, ctx: &Ctx, node: u32) -> Vec<u32> {
        let mut kids = Vec::new();
        let mut keyed = Vec::new();
        self.sorted_children_into(tree, ctx, node, &mut kids, &mut keyed);
        kids
    }

    /// Children of `node` in sort order into `kids`, using `keyed` as scratch.
    fn sorted_children_into(
        &self,
        tree: &mut dyn TableTree,
        ctx: &Ctx,
        node: u32,
        kids: &mut Vec<u32>,
        keyed: &mut Vec<(f64, u32)>,
    ) {
        kids.clear();
        tree.children_into(ctx, node, kids);
        keyed.clear();
        // Descending sorts the negated values ascending: negation reverses `total_cmp`'s order
        // exactly (NaNs and zeros included), and one comparator compiles one copy of std's sort.
        let descending = self.descending;
        keyed.extend(kids.iter().map(|&c| {
            let v = row_value(tree, ctx, c, self.sort);
            (if descending { -v } else { v }, c)
        }));
        keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        kids.clear();
        kids.extend(keyed.iter().map(|&(_, c)| c));
    }

    /// Expands the row at `row` (no-op when it is expanded or has no children).
    pub fn expand_row(&mut self, tree: &mut dyn TableTree, ctx: &Ctx, row: usize) {
        let Some(&node) = self.rows.get(row) else {
            return;
        };
        if self.expanded.contains(&node) {
            return;
        }
        self.expanded.insert(node);
        // Children that were expanded before are shown expanded again.
        let d = self.depth[row];
        let mut ins_rows = Vec::new();
        let mut ins_depth = Vec::new();
        self.flatten_into(tree, ctx, node, d, &mut ins_rows, &mut ins_depth);
        self.rows.splice(row + 1..row + 1, ins_rows);
        self.depth.splice(row + 1..row + 1, ins_depth);
    }

    /// Collapses the row at `row`.
    pub fn collapse_row(&mut self, row: usize) {
        let Some(&node) = self.rows.get(row) else {
            return;
        };
        if !self.expanded.remove(&node) {
            return;
        }
        let d = self.depth[row];
        let mut end = row + 1;
        while end < self.rows.len() && self.depth[end] > d {
            end += 1;
        }
        self.rows.drain(row + 1..end);
        self.depth.drain(row + 1..end);
    }

    /// Appends the visible descendants of an expanded `node` at depth `d` (iterative).
    fn flatten_into(
        &self,
        tree: &mut dyn TableTree,
        ctx: &Ctx,
        node: u32,
        d: u32,
        rows: &mut Vec<u32>,
        depth: &mut Vec<u32>,
    ) {
        let mut kids = Vec::new();
        let mut keyed = Vec::new();
        self.sorted_children_into(tree, ctx, node, &mut kids, &mut keyed);
        let mut stack: Vec<(u32, u32)> = kids.iter().rev().map(|&c| (c, d + 1)).collect();
        while let Some((n, nd)) = stack.pop() {
            rows.push(n);
            depth.push(nd);
            if self.expanded.contains(&n) {
                self.sorted_children_into(tree, ctx, n, &mut kids, &mut keyed);
                stack.extend(kids.iter().rev().map(|&c| (c, nd + 1)));
            }
        }
    }

    /// Expands every row below the root, breadth-first, until about `max_rows` rows are shown,
    /// `MAX_EXPAND_LEVELS` levels are open or [`MAX_EXPAND_WORK`] instances were regrouped (one
    /// rebuild instead of one splice per row). The caps bound the work on a 100,000-deep
    /// recursion, where each bottom-up level regroups almost every instance.
    pub fn expand_all(&mut self, tree: &mut dyn TableTree, ctx: &Ctx, max_rows: usize) {
        const MAX_EXPAND_LEVELS: usize = 512;
        let mut shown = 1usize;
        let mut level = vec![0u32];
        let mut levels = 0usize;
        let mut work = 0usize;
        self.expanded.insert(0);
        'levels: while !level.is_empty() && shown < max_rows && levels < MAX_EXPAND_LEVELS {
            levels += 1;
            let mut next = Vec::new();
            for &n in &level {
                // The root's children are always listed; below it, stop before the budget.
                let cost = tree.expand_cost(n);
                if n != 0 && work.saturating_add(cost) > MAX_EXPAND_WORK {
                    break 'levels;
                }
                work = work.saturating_add(cost);
                let kids = tree.children(ctx, n);
                shown += kids.len();
                self.expanded.insert(n);
                next.extend(kids.into_iter().filter(|&c| tree.has_children(ctx, c)));
                if shown >= max_rows {
                    break;
                }
            }
            level = next;
        }
        self.refresh(tree, ctx);
    }

    /// Re-sorts every expanded level by `col`.
    pub fn sort_by(&mut self, tree: &mut dyn TableTree, ctx: &Ctx, col: Col, descending: bool) {
        self.sort = col;
        self.descending = descending;
        self.refresh(tree, ctx);
    }

    /// Rebuilds the rows from the expanded set (after a sort or a change of values).
    pub fn refresh(&mut self, tree: &mut dyn TableTree, ctx: &Ctx) {
        let mut rows = vec![0];
        let mut depth = vec![0];
        if self.expanded.contains(&0) {
            self.flatten_into(tree, ctx, 0, 0, &mut rows, &mut depth);
        }
        self.rows = rows;
        self.depth = depth;
    }

    /// Expands from the row at `row` down the child holding at least `share` (0..1) of its
    /// parent's value in the sort column, as long as there is one and [`MAX_EXPAND_WORK`] is not
    /// spent. Returns the row where it stopped.
    pub fn hot_path(
        &mut self,
        tree: &mut dyn TableTree,
        ctx: &Ctx,
        row: usize,
        share: f64,
    ) -> usize {
        let mut row = row;
        let mut work = 0usize;
        loop {
            let Some(&node) = self.rows.get(row) else {
                return row;
            };
            work = work.saturating_add(tree.expand_cost(node));
            if work > MAX_EXPAND_WORK && row != 0 {
                return row;
            }
            let v = row_value(tree, ctx, node, self.sort);
            if !tree.has_children(ctx, node) {
                return row;
            }
            let kids = self.sorted_children(tree, ctx, node);
            let best = kids
                .iter()
                .map(|&c| (row_value(tree, ctx, c, self.sort), c))
                .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
            let Some((bv, bc)) = best else {
                return row;
            };
            if !(v > 0.0 && bv >= share * v) {
                return row;
            }
            self.expand_row(tree, ctx, row);
            let Some(r) = self.child_row(row, bc) else {
                return row;
            };
            row = r;
        }
    }

    /// The row of child node `node` of the expanded row `row`: among the rows right under it.
    fn child_row(&self, row: usize, node: u32) -> Option<usize> {
        let d = self.depth[row];
        let mut r = row + 1;
        while r < self.rows.len() && self.depth[r] > d {
            if self.rows[r] == node && self.depth[r] == d + 1 {
                break;
            }
            r += 1;
        }
        (r < self.rows.len() && self.rows[r] == node).then_some(r)
    }

    /// Expands the ancestors of the row showing CCT node `cct` and returns that row.
    pub fn reveal(&mut self, tree: &mut dyn TableTree, ctx: &Ctx, cct: u32) -> Option<usize> {
        let path = tree.find(ctx, cct)?;
        let mut row = 0usize;
        for &n in &path {
            self.expand_row(tree, ctx, row);
            row = self.child_row(row, n)?;
        }
        Some(row)
    }

    /// A window of rows.
    pub fn window(
        &self,
        tree: &mut dyn TableTree,
        ctx: &Ctx,
        start: usize,
        count: usize,
    ) -> TableRows {
        let end = start.saturating_add(count).min(self.rows.len());
        let start = start.min(end);
        let node = self.rows[start..end].to_vec();
        let depth = self.depth[start..end].to_vec();
        let flags = node
            .iter()
            .map(|&n| (tree.has_children(ctx, n) as u8) | ((self.expanded.contains(&n) as u8) << 1))
            .collect();
        TableRows { node, depth, flags }
    }
}

/// Sum of `values` over the instances (CCT nodes in preorder) not inside an earlier one: the
/// inclusive value of a set of contexts without counting nested ones (recursion) twice.
pub fn sum_outermost(ds: &Dataset, instances: &[u32], values: &[f64]) -> f64 {
    let mut end = 0u32;
    let mut sum = 0.0;
    for &x in instances {
        if x < end {
            continue;
        }
        end = ds
            .cct
            .tree
            .subtree_end
            .get(x as usize)
            .copied()
            .unwrap_or(x + 1);
        sum += values.get(x as usize).copied().unwrap_or(0.0);
    }
    sum
}

/// Sum of `values` over all instances.
pub fn sum_all(instances: &[u32], values: &[f64]) -> f64 {
    instances
        .iter()
        .map(|&x| values.get(x as usize).copied().unwrap_or(0.0))
        .sum()
}

/// Value column of a derived tree, cached per node (NaN = not computed yet).
#[derive(Default)]
pub struct ValueCache {
    cols: std::collections::HashMap<Col, Vec<f64>>,
}

impl ValueCache {
    pub fn get_or(&mut self, node: u32, col: Col, f: impl FnOnce() -> f64) -> f64 {
        let v = self.cols.entry(col).or_default();
        let i = node as usize;
        if v.len() <= i {
            v.resize(i + 1, f64::NAN);
        }
        if v[i].is_nan() {
            v[i] = f();
        }
        v[i]
    }
    /// The cached value of row `node` standing for the CCT nodes `instances` (in preorder): the
    /// sum of their exclusive values, or of the inclusive values of the outermost ones (nested
    /// instances, recursion, counted once).
    pub fn instances_value(&mut self, ctx: &Ctx, node: u32, col: Col, instances: &[u32]) -> f64 {
        let values = column(ctx, col);
        self.get_or(node, col, || {
            if col.exclusive {
                sum_all(instances, values)
            } else {
                sum_outermost(ctx.ds, instances, values)
            }
        })
    }
    pub fn clear(&mut self) {
        self.cols.clear();
    }
}

/// Value of a derived tree's root row (the whole program) in either column: the inclusive total,
/// as the root has no exclusive value of its own.
pub fn root_value(ctx: &Ctx, col: Col) -> f64 {
    column(ctx, Col::incl(col.slot))
        .first()
        .copied()
        .unwrap_or(0.0)
}

/// Value of row `node` in column `col`: the tree's own for a dataset metric; for a formula metric
/// (a slot past the dataset's metrics), the formula over the row's values of its inputs, as
/// hpcviewer computes derived metrics in each view: a bottom-up or flat row's ratio is the ratio
/// of the row's sums, not a sum of ratios.
pub fn row_value(tree: &mut dyn TableTree, ctx: &Ctx, node: u32, col: Col) -> f64 {
    match ctx.ds.derived_metric(col.slot) {
        None => tree.value(ctx, node, col),
        Some(d) => match d.formula(col.exclusive) {
            None => 0.0,
            Some(f) => f.eval(&mut |m, exclusive| {
                // Formula metrics read only metrics numbered before them: the recursion ends.
                if m as usize >= col.slot {
                    return 0.0;
                }
                let c = Col {
                    slot: m as usize,
                    exclusive,
                };
                row_value(tree, ctx, node, c)
            }),
        },
    }
}

/// Inclusive or exclusive column of a slot, empty when the slot is missing.
pub fn column<'a>(ctx: &'a Ctx, col: Col) -> &'a [f64] {
    match ctx.cols.get(col.slot) {
        Some(c) if col.exclusive => &c.exclusive,
        Some(c) => &c.inclusive,
        None => &[],
    }
}
