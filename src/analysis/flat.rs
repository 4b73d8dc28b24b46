//! The flat table (hpcviewer's "Flat view"): static structure instead of calling contexts, load
//! module -> source file -> function -> loop -> line, each row aggregating every context that
//! maps to it. Inclusive values count only instances not nested in another instance of the same
//! row (recursion is not counted twice); exclusive values add up all instances.

use super::table::{root_value, Col, Ctx, TableTree, ValueCache};
use crate::model::IdMap;
use crate::model::{Dataset, NodeKind, NONE};

/// What a flat row stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatKind {
    Root,
    /// Index into `Dataset::modules`, `NONE` for "unknown module".
    Module(u32),
    /// Index into `Dataset::source_files`, `NONE` for "unknown file".
    File(u32),
    /// A function (name id of `Names`).
    Function(u32),
    /// A loop, line or instruction inside a function (name id of `Names`).
    Lexical(u32),
}

pub struct Flat {
    pub kind: Vec<FlatKind>,
    pub parent: Vec<u32>,
    children: Vec<Vec<u32>>,
    /// CCT instances of each row, preorder: `inst[start[i]..start[i+1]]`.
    start: Vec<u32>,
    inst: Vec<u32>,
    /// Row holding each CCT node (`NONE` for the root and entry points).
    pub of_cct: Vec<u32>,
    cache: ValueCache,
}

impl Flat {
    pub fn new(ds: &Dataset, names: &super::frames::Names) -> Flat {
        let n = ds.cct.tree.len();
        let mut kind = vec![FlatKind::Root];
        let mut parent = vec![NONE];
        let mut children: Vec<Vec<u32>> = vec![Vec::new()];
        let mut index: IdMap<(u32, u8, u32), u32> = IdMap::default();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut of_cct = vec![NONE; n];
        let mut get = |p: u32, k: FlatKind| -> u32 {
            let (tag, key) = match k {
                FlatKind::Root => (0, 0),
                FlatKind::Module(m) => (1, m),
                FlatKind::File(f) => (2, f),
                FlatKind::Function(f) => (3, f),
                FlatKind::Lexical(l) => (4, l),
            };
            *index.entry((p, tag, key)).or_insert_with(|| {
                let id = kind.len() as u32;
                kind.push(k);
                parent.push(p);
                children.push(Vec::new());
                children[p as usize].push(id);
                id
            })
        };
        for i in 0..n {
            let f = &ds.cct.frame[i];
            if f.kind != NodeKind::Context {
                continue;
            }
            let p = ds.cct.tree.parent[i] as usize;
            let parent_row = if p < i { of_cct[p] } else { NONE };
            let row = if names.head[i] || parent_row == NONE {
                let func = f.code.function.and_then(|fi| ds.functions.get(fi as usize));
                let module = f
                    .code
                    .module
                    .or(func.and_then(|x| x.module))
                    .unwrap_or(NONE);
                let file = f.code.file.or(func.and_then(|x| x.file)).unwrap_or(NONE);
                let m = get(0, FlatKind::Module(module));
                let fl = get(m, FlatKind::File(file));
                pairs.push((m, i as u32));
                pairs.push((fl, i as u32));
                if names.head[i] {
                    get(fl, FlatKind::Function(names.node_name[i]))
                } else {
                    // A loop or line outside any function: its own row under the file.
                    get(fl, FlatKind::Lexical(names.node_name[i]))
                }
            } else {
                get(parent_row, FlatKind::Lexical(names.node_name[i]))
            };
            of_cct[i] = row;
            pairs.push((row, i as u32));
        }
        // Counting sort by row keeps each row's instances in preorder.
        let rows = kind.len();
        let mut start = vec![0u32; rows + 1];
        for &(r, _) in &pairs {
            start[r as usize + 1] += 1;
        }
        for r in 0..rows {
            start[r + 1] += start[r];
        }
        let mut fill = start.clone();
        let mut inst = vec![0u32; pairs.len()];
        for &(r, x) in &pairs {
            inst[fill[r as usize] as usize] = x;
            fill[r as usize] += 1;
        }
        Flat {
            kind,
            parent,
            children,
            start,
            inst,
            of_cct,
            cache: ValueCache::default(),
        }
    }

    fn instances(&self, row: u32) -> &[u32] {
        let r = row as usize;
        match (self.start.get(r), self.start.get(r + 1)) {
            (Some(&a), Some(&b)) => &self.inst[a as usize..b as usize],
            _ => &[],
        }
    }
}

impl TableTree for Flat {
    fn children(&mut self, _ctx: &Ctx, node: u32) -> Vec<u32> {
        self.children
            .get(node as usize)
            .cloned()
            .unwrap_or_default()
    }
    fn has_children(&mut self, _ctx: &Ctx, node: u32) -> bool {
        self.children
            .get(node as usize)
            .is_some_and(|c| !c.is_empty())
    }
    fn value(&mut self, ctx: &Ctx, node: u32, col: Col) -> f64 {
        if node == 0 {
            return root_value(ctx, col);
        }
        let r = node as usize;
        let (Some(&a), Some(&b)) = (self.start.get(r), self.start.get(r + 1)) else {
            return 0.0;
        };
        let xs = &self.inst[a as usize..b as usize];
        self.cache.instances_value(ctx, node, col, xs)
    }
    fn label(&self, ctx: &Ctx, node: u32) -> String {
        let name = |id: u32| {
            ctx.names
                .names
                .get(id as usize)
                .cloned()
                .unwrap_or_default()
        };
        let short = |path: Option<&String>, unknown: &str| {
            path.map_or(unknown.into(), |p| crate::model::short_path(p).to_string())
        };
        match self.kind.get(node as usize) {
            Some(FlatKind::Root) | None => "<program>".into(),
            Some(FlatKind::Module(m)) => short(
                ctx.ds.modules.get(*m as usize).map(|m| &m.path),
                "<unknown module>",
            ),
            Some(FlatKind::File(f)) => short(
                ctx.ds.source_files.get(*f as usize).map(|f| &f.path),
                "<unknown file>",
            ),
            Some(FlatKind::Function(f)) | Some(FlatKind::Lexical(f)) => name(*f),
        }
    }
    fn cct_node(&self, _ctx: &Ctx, node: u32) -> Option<u32> {
        match self.kind.get(node as usize) {
            Some(FlatKind::Function(_)) | Some(FlatKind::Lexical(_)) => {
                self.instances(node).first().copied()
            }
            _ => None,
        }
    }
    fn find(&mut self, _ctx: &Ctx, cct: u32) -> Option<Vec<u32>> {
        let mut r = *self.of_cct.get(cct as usize)?;
        if r == NONE {
            return None;
        }
        let mut path = Vec::new();
        while r != 0 && r != NONE {
            path.push(r);
            r = self.parent[r as usize];
        }
        path.reverse();
        Some(path)
    }
    fn clear_values(&mut self) {
        self.cache.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::table::TableView;
    use crate::analysis::tests::Loaded;

    #[test]
    fn modules_files_functions_loops_lines() {
        let text = "main[app:main.c];loop@main.c:10;line@main.c:11;dgemm[libblas.so:gemm.f] 40\n\
                    main[app:main.c];line@main.c:20;dgemm[libblas.so:gemm.f] 20\n\
                    main[app:main.c];loop@main.c:10;line@main.c:12 5\n\
                    main[app:main.c];helper[app:util.c];helper[app:util.c] 7\n\
                    main[app:main.c] 3\n";
        let l = Loaded::folded(text);
        let ctx = l.ctx();
        let mut tree = Flat::new(&l.ds, &l.names);
        let (incl, excl) = (Col::incl(0), Col::excl(0));
        let mut t = TableView::new(&mut tree, &ctx, incl);
        let mut r = 0;
        while r < t.len() {
            t.expand_row(&mut tree, &ctx, r);
            r += 1;
        }
        let got: Vec<String> = t
            .rows
            .clone()
            .iter()
            .zip(&t.depth)
            .map(|(&n, d)| {
                format!(
                    "{d}:{} {}/{}",
                    tree.label(&ctx, n),
                    tree.value(&ctx, n, incl),
                    tree.value(&ctx, n, excl)
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                "0:<program> 75/75",
                "1:app 75/15",
                "2:main.c 75/8",
                "3:main 75/8",
                "4:loop at main.c:10 45/5",
                "5:main.c:11 40/0",
                "5:main.c:12 5/5",
                "4:main.c:20 20/0",
                "2:util.c 7/7",
                "3:helper 7/7",
                "1:libblas.so 60/60",
                "2:gemm.f 60/60",
                "3:dgemm 60/60",
            ]
        );
        // Flat totals: module exclusive values add up to the root's inclusive value.
        let top = tree.children(&ctx, 0);
        let sum: f64 = top.iter().map(|&m| tree.value(&ctx, m, excl)).sum();
        assert_eq!(sum, l.cols[0].inclusive[0]);
    }
}
