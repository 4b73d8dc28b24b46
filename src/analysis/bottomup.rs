//! The bottom-up table (hpcviewer's "Bottom-up" / callers view): one top-level row per function,
//! below it the functions that called it, their callers, and so on, built lazily on expansion.

// Attribution follows hpcviewer (edu.rice.cs.hpcdata CallersViewScopeVisitor / CallerScopeBuilder):
// every row of the callers tree stands for a set of CCT instances of the top-level function `f`
// whose chain of callers matches the row's path (f <- g <- h ...). Each row shows `f`'s costs,
// not the callers': its exclusive value is the sum of the exclusive values of all its instances;
// its inclusive value sums the inclusive values of only those instances that have no ancestor
// instance in the same row's set. hpcviewer gets the same result with a counter per callers-view
// node that is incremented when a CCT scope on the current DFS path contributes and decremented
// after it: inclusive costs are added only while the counter is zero. So a recursive f <- f <- f
// counts the inclusive time of the outermost call once, and the top-level exclusive values add up
// to the total.

use super::table::{root_value, Col, Ctx, TableTree, ValueCache};
use crate::model::{Dataset, NONE};
use crate::work::{self, Work};

/// Callers tree, grown as rows are expanded. Node 0 is the aggregate root.
pub struct BottomUp {
    parent: Vec<u32>,
    /// Function name id of each row (the callee at the top level, the caller below).
    name: Vec<u32>,
    /// Instances of each row: `inst[start[i]..start[i+1]]` (callee instance, current caller),
    /// sorted by callee instance in preorder.
    ranges: Vec<(u32, u32)>,
    inst: Vec<(u32, u32)>,
    children: Vec<Option<Vec<u32>>>,
    /// Nearest function instance strictly above each CCT node (`NONE` if none).
    up_head: Vec<u32>,
    /// Callee instances of a row, kept apart for the value sums.
    callee: Vec<u32>,
    cache: ValueCache,
}

impl BottomUp {
    pub fn new(ds: &Dataset, names: &super::frames::Names) -> BottomUp {
        let n = ds.cct.tree.len();
        let mut up_head = vec![NONE; n];
        for i in 1..n {
            let p = ds.cct.tree.parent[i] as usize;
            if p < i {
                up_head[i] = if names.head[p] { p as u32 } else { up_head[p] };
            }
        }
        let mut b = BottomUp {
            parent: vec![NONE],
            name: vec![NONE],
            ranges: vec![(0, 0)],
            inst: Vec::new(),
            children: vec![None],
            up_head,
            callee: Vec::new(),
            cache: ValueCache::default(),
        };
        // Top level: group every function instance by its function, in order of first appearance.
        let heads: Vec<(u32, u32)> = (0..n as u32)
            .filter(|&i| names.head[i as usize])
            .map(|i| (i, i))
            .collect();
        let top = b.group(
            &heads,
            |&(x, _)| names.node_name[x as usize],
            |&(x, _)| (x, x),
            0,
        );
        b.children[0] = Some(top);
        b
    }

    /// Creates one child row of `parent` per distinct key of `items`, keeping item order.
    fn group(
        &mut self,
        items: &[(u32, u32)],
        key: impl Fn(&(u32, u32)) -> u32,
        map: impl Fn(&(u32, u32)) -> (u32, u32),
        parent: u32,
    ) -> Vec<u32> {
        let mut order: Vec<u32> = Vec::new();
        let mut slot: crate::model::IdMap<u32, usize> = Default::default();
        let mut buckets: Vec<Vec<(u32, u32)>> = Vec::new();
        for it in items {
            let k = key(it);
            let s = *slot.entry(k).or_insert_with(|| {
                order.push(k);
                buckets.push(Vec::new());
                buckets.len() - 1
            });
            buckets[s].push(map(it));
        }
        let mut out = Vec::with_capacity(order.len());
        for (k, bucket) in order.into_iter().zip(buckets) {
            let id = self.parent.len() as u32;
            let a = self.inst.len() as u32;
            self.inst.extend_from_slice(&bucket);
            self.callee.extend(bucket.iter().map(|&(x, _)| x));
            self.ranges.push((a, self.inst.len() as u32));
            self.parent.push(parent);
            self.name.push(k);
            self.children.push(None);
            out.push(id);
        }
        out
    }

    fn instances(&self, node: u32) -> &[(u32, u32)] {
        match self.ranges.get(node as usize) {
            Some(&(a, b)) => &self.inst[a as usize..b as usize],
            None => &[],
        }
    }

    /// Function name id of a row (`NONE` for the root).
    pub fn name_of(&self, node: u32) -> u32 {
        self.name.get(node as usize).copied().unwrap_or(NONE)
    }
}

impl TableTree for BottomUp {
    fn children(&mut self, ctx: &Ctx, node: u32) -> Vec<u32> {
        if let Some(Some(c)) = self.children.get(node as usize) {
            return c.clone();
        }
        if node as usize >= self.children.len() {
            return Vec::new();
        }
        work::add(Work::TreeNodes, self.instances(node).len());
        let callers: Vec<(u32, u32)> = self
            .instances(node)
            .iter()
            .filter_map(|&(x, cur)| {
                let up = *self.up_head.get(cur as usize)?;
                (up != NONE).then_some((x, up))
            })
            .collect();
        let names = ctx.names;
        let kids = self.group(
            &callers,
            |&(_, up)| names.node_name[up as usize],
            |&it| it,
            node,
        );
        self.children[node as usize] = Some(kids.clone());
        kids
    }
    fn has_children(&mut self, _ctx: &Ctx, node: u32) -> bool {
        if let Some(Some(c)) = self.children.get(node as usize) {
            return !c.is_empty();
        }
        let found = self
            .instances(node)
            .iter()
            .position(|&(_, cur)| self.up_head.get(cur as usize).is_some_and(|&u| u != NONE));
        work::add(
            Work::TreeNodes,
            found.map_or(self.instances(node).len(), |k| k + 1),
        );
        found.is_some()
    }
    fn value(&mut self, ctx: &Ctx, node: u32, col: Col) -> f64 {
        if node == 0 {
            return root_value(ctx, col);
        }
        let Some(&(a, b)) = self.ranges.get(node as usize) else {
            return 0.0;
        };
        let xs = &self.callee[a as usize..b as usize];
        self.cache.instances_value(ctx, node, col, xs)
    }
    fn label(&self, ctx: &Ctx, node: u32) -> String {
        if node == 0 {
            return "<all functions>".into();
        }
        ctx.names
            .names
            .get(self.name_of(node) as usize)
            .cloned()
            .unwrap_or_default()
    }
    fn cct_node(&self, _ctx: &Ctx, node: u32) -> Option<u32> {
        self.instances(node).first().map(|&(_, cur)| cur)
    }
    fn find(&mut self, ctx: &Ctx, cct: u32) -> Option<Vec<u32>> {
        // The top-level row of the function enclosing `cct`.
        let head = ctx.names.enclosing_head(ctx.ds, cct)?;
        let name = ctx.names.node_name[head as usize];
        let top = self.children(ctx, 0);
        top.into_iter()
            .find(|&r| self.name_of(r) == name)
            .map(|r| vec![r])
    }
    fn clear_values(&mut self) {
        self.cache.clear();
    }
    fn expand_cost(&self, node: u32) -> usize {
        self.instances(node).len().max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::table::TableView;
    use crate::analysis::tests::Loaded;

    const INCL: Col = Col::incl(0);
    const EXCL: Col = Col::excl(0);

    fn rows(text: &str) -> Vec<String> {
        let l = Loaded::folded(text);
        let ctx = l.ctx();
        let mut tree = BottomUp::new(&l.ds, &l.names);
        let mut t = TableView::new(&mut tree, &ctx, INCL);
        // Expand everything, top to bottom.
        let mut r = 0;
        while r < t.len() {
            t.expand_row(&mut tree, &ctx, r);
            r += 1;
        }
        let mut top_excl = 0.0;
        for &c in &tree.children(&ctx, 0) {
            top_excl += tree.value(&ctx, c, EXCL);
        }
        // The top-level exclusive values add up to the total.
        assert_eq!(top_excl, l.cols[0].inclusive[0], "{text}");
        t.rows
            .iter()
            .zip(&t.depth)
            .map(|(&n, d)| {
                let (i, e) = (tree.value(&ctx, n, INCL), tree.value(&ctx, n, EXCL));
                format!("{d}:{} {i}/{e}", tree.label(&ctx, n))
            })
            .collect()
    }

    #[test]
    fn callers_of_each_function() {
        let got = rows("main;a;c 10\nmain;b;c 20\nmain;b 5\nmain 1\n");
        assert_eq!(
            got,
            [
                "0:<all functions> 36/36",
                "1:main 36/1",
                "1:c 30/30",
                "2:b 20/20",
                "3:main 20/20",
                "2:a 10/10",
                "3:main 10/10",
                "1:b 25/5",
                "2:main 25/5",
                "1:a 10/0",
                "2:main 10/0",
            ]
        );
    }

    #[test]
    fn recursion_not_double_counted() {
        // f calls itself twice; each level has 1 of its own, the innermost 10.
        let got = rows("main;f 1\nmain;f;f 1\nmain;f;f;f 10\nmain;g;f 4\n");
        assert_eq!(
            got,
            [
                "0:<all functions> 16/16",
                "1:main 16/0",
                "1:f 16/16",
                "2:main 12/1",
                "2:f 11/11",
                "3:main 11/1",
                "3:f 10/10",
                "4:main 10/10",
                "2:g 4/4",
                "3:main 4/4",
                "1:g 4/0",
                "2:main 4/0",
            ]
        );
    }

    #[test]
    fn lexical_levels_are_skipped_in_caller_chains() {
        let got = rows("main;loop@m.c:3;line@m.c:4;work 6\nmain;line@m.c:9 2\n");
        assert_eq!(
            got,
            [
                "0:<all functions> 8/8",
                "1:main 8/2",
                "1:work 6/6",
                "2:main 6/6",
            ]
        );
    }
}
