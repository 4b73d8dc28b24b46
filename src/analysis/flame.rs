//! Flame-graph (icicle) layout: the tree to draw (the CCT itself, or the CCT with loops and lines
//! folded into their function and equal sibling functions merged), children ordered heaviest
//! first or in file order, and the rectangles of the visible part only, as struct-of-arrays.

use super::frames::Names;
use crate::model::IdMap;
use crate::model::{CctBuilder, Dataset, Frame, Preorder, NONE};

/// The tree a flame graph draws, in DFS preorder like the CCT.
#[derive(Clone, Debug, Default)]
pub struct FlameTree {
    pub tree: Preorder,
    /// CCT node each flame node stands for (the first of those merged into it).
    pub rep: Vec<u32>,
    /// Flame node holding each CCT node (a folded loop or line maps to its function's node).
    pub of_cct: Vec<u32>,
    /// Per CCT node: the flame node its inclusive value adds to, `NONE` for folded lexical nodes
    /// (their value is inside their function's already).
    contrib: Vec<u32>,
    pub merged: bool,
}

impl FlameTree {
    /// The CCT as it is.
    pub fn from_cct(ds: &Dataset) -> FlameTree {
        let c = &ds.cct;
        let ids: Vec<u32> = (0..c.tree.len() as u32).collect();
        FlameTree {
            tree: c.tree.clone(),
            rep: ids.clone(),
            of_cct: ids.clone(),
            contrib: ids,
            merged: false,
        }
    }

    /// Function-only tree: lexical levels (loops, lines, instructions) fold into the enclosing
    /// function, and the calls a function makes to the same function from different lines merge.
    pub fn merged_lexical(ds: &Dataset, names: &Names) -> FlameTree {
        let c = &ds.cct;
        let n = c.tree.len();
        let mut b = CctBuilder::new(0);
        let mut rep: Vec<u32> = vec![0];
        let mut of_cct = vec![0u32; n];
        let mut contrib = vec![NONE; n];
        if n > 0 {
            contrib[0] = 0;
        }
        let mut child: IdMap<(u32, u32), u32> = IdMap::default();
        for i in 1..n {
            let p = c.tree.parent[i] as usize;
            let pf = of_cct.get(p).copied().unwrap_or(0);
            let visible =
                names.head[i] || !matches!(c.frame[i].kind, crate::model::NodeKind::Context);
            if !visible {
                of_cct[i] = pf;
                continue;
            }
            let key = (pf, names.node_name[i]);
            let f = match child.get(&key) {
                Some(&f) => f,
                None => {
                    let f = b.add(pf, b.len() as u32, Frame::root());
                    rep.push(i as u32);
                    child.insert(key, f);
                    f
                }
            };
            of_cct[i] = f;
            contrib[i] = f;
        }
        let t = b
            .finish("flame")
            .expect("merged tree built from a well-formed tree");
        // Builder index -> preorder index.
        let mut pre = vec![0u32; t.tree.len()];
        for (p, &ctx) in t.ctx_id.iter().enumerate() {
            pre[ctx as usize] = p as u32;
        }
        let remap = |v: u32| if v == NONE { NONE } else { pre[v as usize] };
        FlameTree {
            rep: t.ctx_id.iter().map(|&ctx| rep[ctx as usize]).collect(),
            tree: t.tree,
            of_cct: of_cct.into_iter().map(remap).collect(),
            contrib: contrib.into_iter().map(remap).collect(),
            merged: true,
        }
    }

    /// Inclusive value of each flame node from the CCT's inclusive column.
    pub fn inclusive(&self, cct_incl: &[f64]) -> Vec<f64> {
        if !self.merged {
            return cct_incl.to_vec();
        }
        let mut out = vec![0.0; self.tree.len()];
        for (i, &f) in self.contrib.iter().enumerate() {
            if let (Some(slot), Some(v)) = (out.get_mut(f as usize), cct_incl.get(i)) {
                *slot += v;
            }
        }
        out
    }

    /// Exclusive value of each flame node: the CCT's column as it is, or, for the merged tree, a
    /// node's inclusive value less its children's (which is what its folded levels hold).
    pub fn exclusive(&self, cct_excl: &[f64], flame_incl: &[f64]) -> Vec<f64> {
        if !self.merged {
            return cct_excl.to_vec();
        }
        let mut out = flame_incl.to_vec();
        out.resize(self.tree.len(), 0.0);
        for (i, &v) in flame_incl.iter().enumerate().take(self.tree.len()).skip(1) {
            let p = self.tree.parent[i] as usize;
            if p < i {
                out[p] -= v;
            }
        }
        out
    }
}

/// Children of every flame node in drawing order, as one array sliced by `start`.
#[derive(Clone, Debug, Default)]
pub struct ChildOrder {
    pub start: Vec<u32>,
    pub list: Vec<u32>,
    /// Heaviest first (by the inclusive column the order was made for).
    pub heavy: bool,
}

impl ChildOrder {
    pub fn children(&self, node: u32) -> &[u32] {
        let i = node as usize;
        match (self.start.get(i), self.start.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.list[a as usize..b as usize],
            _ => &[],
        }
    }
}

/// Children in file order (`heavy` false) or by decreasing inclusive value, ties in file order.
pub fn child_order(tree: &Preorder, incl: &[f64], heavy: bool) -> ChildOrder {
    let n = tree.len();
    let mut start = vec![0u32; n + 1];
    for &p in tree.parent.iter().skip(1) {
        if (p as usize) < n {
            start[p as usize + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut list = vec![0u32; start[n] as usize];
    // Preorder visits children of a node in file order.
    for i in 1..n {
        let p = tree.parent[i] as usize;
        if p < n {
            list[fill[p] as usize] = i as u32;
            fill[p] += 1;
        }
    }
    if heavy {
        let w = |c: u32| incl.get(c as usize).copied().unwrap_or(0.0);
        for i in 0..n {
            let s = &mut list[start[i] as usize..start[i + 1] as usize];
            if s.len() > 1 {
                s.sort_by(|&a, &b| w(b).total_cmp(&w(a)));
            }
        }
    }
    ChildOrder { start, list, heavy }
}

/// The visible window: an x range in fractions of the zoom root's width, a range of depths
/// (absolute, root = 0), the canvas width and the narrowest rectangle worth drawing. The page
/// sends it as a plain object with these field names.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
pub struct Viewport {
    pub x0: f64,
    pub x1: f64,
    pub depth0: u32,
    pub depth1: u32,
    pub width_px: f64,
    pub min_width_px: f64,
}

#[cfg(test)]
impl Viewport {
    /// The whole width and every depth on a canvas `width_px` wide, every rectangle drawn.
    pub(crate) fn full(width_px: f64) -> Viewport {
        Viewport {
            x0: 0.0,
            x1: 1.0,
            depth0: 0,
            depth1: u32::MAX,
            width_px,
            min_width_px: 0.0,
        }
    }
}

/// Rectangles to draw: flame node, depth, x and width in fractions of the zoom root's width.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlameRects {
    pub node: Vec<u32>,
    pub depth: Vec<u32>,
    pub x: Vec<f64>,
    pub width: Vec<f64>,
}

/// Name id and load module id of each frame, as its rectangle shows them (module `u32::MAX` when
/// unknown).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameLabels {
    pub name: Vec<u32>,
    pub module: Vec<u32>,
}

impl FrameLabels {
    pub fn push(&mut self, name: u32, module: u32) {
        self.name.push(name);
        self.module.push(module);
    }
}

/// What every flame graph's window draws alike: the rectangles, and the labels of the frame each
/// stands for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlameFrames {
    pub rects: FlameRects,
    pub labels: FrameLabels,
}

impl FlameRects {
    fn push(&mut self, node: u32, depth: u32, x: f64, width: f64) {
        self.node.push(node);
        self.depth.push(depth);
        self.x.push(x);
        self.width.push(width);
    }
    pub fn len(&self) -> usize {
        self.node.len()
    }
    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }
}

/// Lays out what is visible of the subtree of `zoom` (its ancestors span the full width above
/// it). Subtrees narrower than `min_width_px` or outside the window are never entered, so the
/// cost follows what is drawn, not the tree's size. Negative values count as zero width.
pub fn layout(
    tree: &Preorder,
    order: &ChildOrder,
    incl: &[f64],
    zoom: u32,
    vp: &Viewport,
) -> FlameRects {
    let mut out = FlameRects::default();
    if zoom as usize >= tree.len() {
        return out;
    }
    let span = (vp.x1 - vp.x0).max(f64::MIN_POSITIVE);
    let min_w = if vp.width_px > 0.0 {
        vp.min_width_px.max(0.0) * span / vp.width_px
    } else {
        0.0
    };
    let visible_depth = |d: u32| d >= vp.depth0 && d <= vp.depth1;
    for &a in tree.path(zoom).iter() {
        let d = tree.depth[a as usize];
        if visible_depth(d) {
            out.push(a, d, 0.0, 1.0);
        }
    }
    let total = incl.get(zoom as usize).copied().unwrap_or(0.0);
    if total <= 0.0 || !total.is_finite() {
        return out;
    }
    let width = |n: u32| incl.get(n as usize).copied().unwrap_or(0.0).max(0.0) / total;
    let mut stack: Vec<(u32, f64)> = Vec::new();
    let mut kids: Vec<(u32, f64)> = Vec::new();
    // The zoom root is emitted above; start from its children.
    let mut expand = |node: u32, x: f64, stack: &mut Vec<(u32, f64)>| {
        let d = tree.depth[node as usize];
        if d >= vp.depth1 {
            return;
        }
        kids.clear();
        let mut cursor = x;
        for &c in order.children(node) {
            let w = width(c);
            if w < min_w || w <= 0.0 {
                if order.heavy {
                    break;
                }
                cursor += w;
                continue;
            }
            if cursor >= vp.x1 {
                break;
            }
            if cursor + w > vp.x0 {
                kids.push((c, cursor));
            }
            cursor += w;
        }
        stack.extend(kids.iter().rev());
    };
    expand(zoom, 0.0, &mut stack);
    while let Some((node, x)) = stack.pop() {
        let d = tree.depth[node as usize];
        if visible_depth(d) {
            out.push(node, d, x, width(node));
        }
        expand(node, x, &mut stack);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::folded::{from_folded, node_of_path, FoldedScopes};
    use crate::analysis::values::{metric_columns, Selection};

    const TEXT: &str = "main;init 20\nmain;solve;mpi_wait 30\nmain;solve 10\nmain;loop@m.c:5;line@m.c:6;solve 15\n";

    fn rects(ds: &Dataset, merged: bool, heavy: bool, zoom: &str, vp: Viewport) -> Vec<String> {
        let cols = metric_columns(ds, 0, &Selection::Summary).unwrap();
        let names = Names::new(ds);
        let tree = if merged {
            FlameTree::merged_lexical(ds, &names)
        } else {
            FlameTree::from_cct(ds)
        };
        let incl = tree.inclusive(&cols.inclusive);
        let order = child_order(&tree.tree, &incl, heavy);
        let z = if zoom.is_empty() {
            0
        } else {
            tree.of_cct[node_of_path(ds, zoom).unwrap() as usize]
        };
        let r = layout(&tree.tree, &order, &incl, z, &vp);
        (0..r.len())
            .map(|i| {
                format!(
                    "{} d{} x{} w{}",
                    ds.frame_name(tree.rep[r.node[i] as usize]),
                    r.depth[i],
                    (r.x[i] * 75.0).round(),
                    (r.width[i] * 75.0).round()
                )
            })
            .collect()
    }

    #[test]
    fn file_order_and_left_heavy() {
        let ds = from_folded(TEXT, FoldedScopes::Point).unwrap();
        // Widths are in 75ths of the root (the total is 75).
        assert_eq!(
            rects(&ds, false, false, "", Viewport::full(750.0)),
            [
                "<root> d0 x0 w75",
                "main d1 x0 w75",
                "init d2 x0 w20",
                "solve d2 x20 w40",
                "mpi_wait d3 x20 w30",
                "loop at m.c:5 d2 x60 w15",
                "m.c:6 d3 x60 w15",
                "solve d4 x60 w15",
            ]
        );
        assert_eq!(
            rects(&ds, false, true, "", Viewport::full(750.0)),
            [
                "<root> d0 x0 w75",
                "main d1 x0 w75",
                "solve d2 x0 w40",
                "mpi_wait d3 x0 w30",
                "init d2 x40 w20",
                "loop at m.c:5 d2 x60 w15",
                "m.c:6 d3 x60 w15",
                "solve d4 x60 w15",
            ]
        );
    }

    #[test]
    fn merge_lexical_levels() {
        let ds = from_folded(TEXT, FoldedScopes::Point).unwrap();
        // The loop and line fold into main; both calls of solve merge into one frame.
        assert_eq!(
            rects(&ds, true, true, "", Viewport::full(750.0)),
            [
                "<root> d0 x0 w75",
                "main d1 x0 w75",
                "solve d2 x0 w55",
                "mpi_wait d3 x0 w30",
                "init d2 x55 w20",
            ]
        );
        let cols = metric_columns(&ds, 0, &Selection::Summary).unwrap();
        let names = Names::new(&ds);
        let tree = FlameTree::merged_lexical(&ds, &names);
        let incl = tree.inclusive(&cols.inclusive);
        let excl = tree.exclusive(&cols.exclusive, &incl);
        let solve = tree.of_cct[node_of_path(&ds, "main;solve").unwrap() as usize];
        let inner = node_of_path(&ds, "main;loop@m.c:5;line@m.c:6;solve").unwrap();
        assert_eq!(tree.of_cct[inner as usize], solve);
        assert_eq!((incl[solve as usize], excl[solve as usize]), (55.0, 25.0));
        let main = tree.of_cct[node_of_path(&ds, "main").unwrap() as usize];
        assert_eq!(excl[main as usize], 0.0);
        let lp = node_of_path(&ds, "main;loop@m.c:5").unwrap();
        assert_eq!(tree.of_cct[lp as usize], main);
    }

    #[test]
    fn zoom_window_and_min_width() {
        let ds = from_folded(TEXT, FoldedScopes::Point).unwrap();
        // Zoomed into main;solve (40): ancestors at full width, mpi_wait 30/40.
        let z = rects(&ds, false, false, "main;solve", Viewport::full(40.0));
        assert_eq!(
            z,
            [
                "<root> d0 x0 w75",
                "main d1 x0 w75",
                "solve d2 x0 w75",
                "mpi_wait d3 x0 w56"
            ]
        );
        // 75 px wide, 16 px minimum: the 15-wide loop subtree is skipped.
        let mut vp = Viewport::full(75.0);
        vp.min_width_px = 16.0;
        assert_eq!(rects(&ds, false, false, "", vp).len(), 5);
        // Right half only, depths 2..=3: solve (20..60) and the loop (60..75) intersect.
        let vp = Viewport {
            x0: 0.5,
            x1: 1.0,
            depth0: 2,
            depth1: 3,
            width_px: 750.0,
            min_width_px: 0.0,
        };
        assert_eq!(
            rects(&ds, false, false, "", vp),
            [
                "solve d2 x20 w40",
                "mpi_wait d3 x20 w30",
                "loop at m.c:5 d2 x60 w15",
                "m.c:6 d3 x60 w15",
            ]
        );
    }

    #[test]
    fn deep_path_layout_is_iterative() {
        let path = format!("main{} 5\n", ";f".repeat(100_000));
        let ds = from_folded(&path, FoldedScopes::Point).unwrap();
        let r = rects(&ds, false, true, "", Viewport::full(1000.0));
        assert_eq!(r.len(), 100_002);
        assert_eq!(r[100_001], "f d100001 x0 w75");
        let merged = rects(&ds, true, true, "", Viewport::full(1000.0));
        assert_eq!(merged.len(), 100_002);
    }
}
