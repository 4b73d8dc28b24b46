//! Matching two calling-context trees by call path, not by ids: a context is the path of frame
//! keys (kind, function or frame name, load module basename, file basename, line) from the root;
//! both trees are walked together into one union tree in DFS preorder.

use crate::analysis::flame::FrameLabels;
use crate::analysis::frames::is_head;
use crate::analysis::names::FrameTexts;
pub use crate::analysis::names::Interner;
use crate::model::IdMap;
use crate::model::{short_path, Dataset, EntryKind, LexicalType, NodeKind, Preorder, NONE};

// Each union node lists the contexts of either run on its path (several when siblings share a
// key); a node with none from one run is added (or removed) there. With `merged`, loops and lines
// fold into their function first, so runs with and without loop structure match by function.

/// What identifies a frame among its siblings. Ids index the comparison's interners (`NONE`
/// where the frame has no module, file or line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FrameKey {
    /// 0 root, 1-3 entry points (main, application, unknown), 4 a function instance, 5 loop,
    /// 6 line or instruction.
    pub tag: u8,
    pub name: u32,
    pub module: u32,
    pub file: u32,
    pub line: u32,
}

/// One run as the matcher sees it: its dataset, and per node the comparison's id of its name
/// and whether it is a function instance; its ids of module and file basenames.
pub struct Side<'a> {
    pub ds: &'a Dataset,
    /// Comparison name id of each node.
    node_name: Vec<u32>,
    /// Per node: is it a function instance (`analysis::frames::is_head`).
    head: Vec<bool>,
    module_id: Vec<u32>,
    file_id: Vec<u32>,
    /// Module of each node (index into the dataset's modules, `NONE` when unknown).
    node_module: Vec<u32>,
}

impl<'a> Side<'a> {
    /// Names every node of `ds` in `names` (one pass), its modules and files in `paths`.
    pub fn new(ds: &'a Dataset, names: &mut Interner, paths: &mut Interner) -> Side<'a> {
        let n = ds.cct.tree.len() as u32;
        let mut texts = FrameTexts::new(ds);
        let node_name = (0..n).map(|i| texts.id(names, i)).collect();
        let head = (0..n).map(|i| is_head(ds, i)).collect();
        let module_id = ds
            .modules
            .iter()
            .map(|m| paths.id(short_path(&m.path)))
            .collect();
        let file_id = ds
            .source_files
            .iter()
            .map(|f| paths.id(short_path(&f.path)))
            .collect();
        Side {
            ds,
            node_name,
            head,
            module_id,
            file_id,
            node_module: resolved_modules(ds),
        }
    }

    /// Whether node `i` is a node of the tree `walk` matches: not a loop or line folded into its
    /// function (`merged`), not a hidden entry point.
    pub fn visible(&self, i: u32, walk: Walk) -> bool {
        match self.ds.cct.frame.get(i as usize).map(|f| f.kind) {
            Some(NodeKind::EntryPoint(_)) => !walk.entries_hidden,
            Some(NodeKind::Context) => {
                !walk.merged || self.head.get(i as usize).copied().unwrap_or(false)
            }
            _ => true,
        }
    }

    /// Whether the run's tree has entry points (HPCToolkit's main thread, application thread).
    pub fn has_entries(&self) -> bool {
        self.ds
            .cct
            .frame
            .iter()
            .any(|f| matches!(f.kind, NodeKind::EntryPoint(_)))
    }

    /// Comparison name id of node `i`.
    pub fn name(&self, i: u32) -> u32 {
        self.node_name.get(i as usize).copied().unwrap_or(NONE)
    }

    /// Comparison basename id of node `i`'s load module (see [`resolved_modules`]).
    pub fn module(&self, i: u32) -> u32 {
        self.node_module
            .get(i as usize)
            .and_then(|&m| self.module_id.get(m as usize).copied())
            .unwrap_or(NONE)
    }

    /// `children` as (match key, position, node), sorted by key, into `out`.
    fn keyed(&self, children: &[u32], out: &mut Vec<(FrameKey, u32, u32)>) {
        out.clear();
        out.extend(
            children
                .iter()
                .enumerate()
                .map(|(k, &c)| (self.key(c), k as u32, c)),
        );
        crate::sort::sort_by(out, |a, b| a.cmp(b));
    }

    /// The key node `i` is matched by.
    pub fn key(&self, i: u32) -> FrameKey {
        let Some(f) = self.ds.cct.frame.get(i as usize) else {
            return FrameKey {
                tag: 0,
                name: NONE,
                module: NONE,
                file: NONE,
                line: NONE,
            };
        };
        let tag = match f.kind {
            NodeKind::Root => 0,
            NodeKind::EntryPoint(EntryKind::MainThread) => 1,
            NodeKind::EntryPoint(EntryKind::ApplicationThread) => 2,
            NodeKind::EntryPoint(EntryKind::UnknownEntry) => 3,
            NodeKind::Context if self.head.get(i as usize) == Some(&true) => 4,
            // Readers differ on whether a statement is a line or an instruction.
            NodeKind::Context => match f.lexical_type {
                LexicalType::Loop => 5,
                _ => 6,
            },
        };
        let func = f
            .code
            .function
            .and_then(|x| self.ds.functions.get(x as usize));
        let file = f
            .code
            .file
            .or(func.and_then(|x| x.file))
            .and_then(|x| self.file_id.get(x as usize).copied())
            .unwrap_or(NONE);
        FrameKey {
            tag,
            name: self.name(i),
            module: self.module(i),
            file,
            // Line 0 is "no line" in HPCToolkit's formats.
            line: f.code.line.filter(|&l| l != 0).unwrap_or(NONE),
        }
    }

    /// Appends the children of `node` in the tree `walk` matches: the nearest visible nodes below
    /// it (its CCT children, or through folded loops, lines and entry points), in preorder.
    fn children_into(&self, node: u32, walk: Walk, out: &mut Vec<u32>) {
        let tree = &self.ds.cct.tree;
        let end = tree.subtree_end.get(node as usize).copied().unwrap_or(0);
        let mut i = node + 1;
        while i < end {
            if self.visible(i, walk) {
                out.push(i);
                i = tree.subtree_end[i as usize];
            } else {
                i += 1;
            }
        }
    }
}

/// The load module of every node: its frame's, else its function's, else its parent's. Inlined
/// code and loops live in their caller's module, and some readers name it only on the caller
/// (hpcrun leaves inlined functions without one where the database from it names it).
pub fn resolved_modules(ds: &Dataset) -> Vec<u32> {
    let cct = &ds.cct;
    let mut out = vec![NONE; cct.tree.len()];
    for i in 0..cct.tree.len() {
        let f = &cct.frame[i];
        let own = f.code.module.or(f
            .code
            .function
            .and_then(|x| ds.functions.get(x as usize))
            .and_then(|x| x.module));
        out[i] = match own {
            Some(m) => m,
            None if f.kind == NodeKind::Context && (cct.tree.parent[i] as usize) < i => {
                out[cct.tree.parent[i] as usize]
            }
            None => NONE,
        };
    }
    out
}

/// Which nodes of each run the union tree is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Walk {
    /// Loops and lines fold into their function.
    pub merged: bool,
    /// Entry points fold into the root: one run has none (prof2, the April 2022 draft), so its
    /// paths start at the first function.
    pub entries_hidden: bool,
}

/// How the contexts of one run map onto the union tree.
#[derive(Clone, Debug, Default)]
pub struct RunNodes {
    /// First context of the run on each union node's path (`NONE`: the path is not in the run).
    pub rep: Vec<u32>,
    /// Union node each context of the run adds its value to (`NONE` for a loop or line folded
    /// into its function, whose value the function's holds already).
    pub of: Vec<u32>,
}

/// The union of two trees in DFS preorder. Node 0 is the root (both roots).
#[derive(Clone, Debug, Default)]
pub struct UnionTree {
    /// Parent, depth and subtree end of each union node, as the flame layout takes them.
    pub tree: Preorder,
    pub base: RunNodes,
    pub new: RunNodes,
    /// Comparison name id and module basename id of each node.
    pub labels: FrameLabels,
    /// Whether loops and lines were folded into their functions and entry points into the root.
    pub walk: Walk,
}

impl UnionTree {
    pub fn len(&self) -> usize {
        self.tree.len()
    }
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }
    pub fn parent(&self, node: u32) -> u32 {
        self.tree.parent.get(node as usize).copied().unwrap_or(NONE)
    }
    /// Union nodes from the root down to `node`.
    pub fn path(&self, node: u32) -> Vec<u32> {
        self.tree.path(node)
    }
    /// Contexts of run `base` (else the new run) that union node `node` holds, in preorder.
    pub fn members(&self, node: u32, base: bool) -> Vec<u32> {
        let run = if base { &self.base } else { &self.new };
        match run.rep.get(node as usize) {
            Some(&f) if f != NONE => (f..run.of.len() as u32)
                .filter(|&c| run.of[c as usize] == node)
                .collect(),
            _ => Vec::new(),
        }
    }
    /// How many union nodes are in both runs, only in the base, only in the new run.
    pub fn counts(&self) -> UnionCounts {
        let mut c = UnionCounts {
            contexts: self.len() as u32,
            ..UnionCounts::default()
        };
        for (&b, &n) in self.base.rep.iter().zip(&self.new.rep) {
            match (b != NONE, n != NONE) {
                (true, true) => c.matched += 1,
                (true, false) => c.removed += 1,
                _ => c.added += 1,
            }
        }
        c
    }
}

/// Union nodes, and how many are in both runs, only in the base, only in the new run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UnionCounts {
    pub contexts: u32,
    pub matched: u32,
    pub removed: u32,
    pub added: u32,
}

/// A union node waiting to be laid out: its parent, depth and its contexts' ranges in the two
/// member stacks (which grow and shrink with the node stack).
struct Pending {
    parent: u32,
    depth: u32,
    base: (u32, u32),
    new: (u32, u32),
}

/// Children of one node from both runs, grouped by key: (order, base range, new range) into
/// the sorted child lists.
type Group = (u32, (u32, u32), (u32, u32));

/// Groups sorted (key, position, node) lists of base and new children by key. A group's order is
/// its first base child's position, or after every base child, its first new child's.
fn group_children(kb: &[(FrameKey, u32, u32)], kn: &[(FrameKey, u32, u32)], out: &mut Vec<Group>) {
    out.clear();
    let (mut i, mut j) = (0usize, 0usize);
    let run = |v: &[(FrameKey, u32, u32)], mut k: usize| {
        let s = k;
        while k < v.len() && v[k].0 == v[s].0 {
            k += 1;
        }
        k
    };
    while i < kb.len() || j < kn.len() {
        let ord = match (kb.get(i), kn.get(j)) {
            (Some(a), Some(b)) => a.0.cmp(&b.0),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Less => {
                let e = run(kb, i);
                out.push((kb[i].1, (i as u32, e as u32), (0, 0)));
                i = e;
            }
            std::cmp::Ordering::Greater => {
                let e = run(kn, j);
                out.push((kb.len() as u32 + kn[j].1, (0, 0), (j as u32, e as u32)));
                j = e;
            }
            std::cmp::Ordering::Equal => {
                let (ei, ej) = (run(kb, i), run(kn, j));
                out.push((kb[i].1, (i as u32, ei as u32), (j as u32, ej as u32)));
                i = ei;
                j = ej;
            }
        }
    }
    crate::sort::sort_by_key(out, |g| g.0);
}

/// Builds the union of two runs' trees (function-level trees when `merged`; without entry points
/// unless both runs have them), iteratively: a 100,000-deep path must not overflow the stack.
pub fn union_tree(base: &Side, new: &Side, merged: bool) -> UnionTree {
    let walk = Walk {
        merged,
        entries_hidden: !(base.has_entries() && new.has_entries()),
    };
    let nb = base.ds.cct.tree.len();
    let nn = new.ds.cct.tree.len();
    let mut t = UnionTree {
        walk,
        ..UnionTree::default()
    };
    t.base.of = vec![NONE; nb];
    t.new.of = vec![NONE; nn];
    let cap = nb.max(nn) + nb.min(nn) / 8;
    let mut parent: Vec<u32> = Vec::with_capacity(cap);
    let mut depth: Vec<u32> = Vec::with_capacity(cap);
    t.base.rep.reserve(cap);
    t.new.rep.reserve(cap);
    t.labels.name.reserve(cap);
    t.labels.module.reserve(cap);
    let mut base_members: Vec<u32> = Vec::new();
    let mut new_members: Vec<u32> = Vec::new();
    let mut stack: Vec<Pending> = Vec::new();
    if nb > 0 {
        base_members.push(0);
    }
    if nn > 0 {
        new_members.push(0);
    }
    stack.push(Pending {
        parent: NONE,
        depth: 0,
        base: (0, base_members.len() as u32),
        new: (0, new_members.len() as u32),
    });
    let (mut sb, mut sn) = (Vec::new(), Vec::new());
    let (mut cb, mut cn) = (Vec::new(), Vec::new());
    let (mut kb, mut kn) = (Vec::new(), Vec::new());
    let mut groups: Vec<Group> = Vec::new();
    while let Some(p) = stack.pop() {
        let u = parent.len() as u32;
        // This node's members are on top of the member stacks (its siblings' below them).
        sb.clear();
        sb.extend_from_slice(&base_members[p.base.0 as usize..p.base.1 as usize]);
        base_members.truncate(p.base.0 as usize);
        sn.clear();
        sn.extend_from_slice(&new_members[p.new.0 as usize..p.new.1 as usize]);
        new_members.truncate(p.new.0 as usize);
        parent.push(p.parent);
        depth.push(p.depth);
        t.base.rep.push(sb.first().copied().unwrap_or(NONE));
        t.new.rep.push(sn.first().copied().unwrap_or(NONE));
        let (name, module) = match (sb.first(), sn.first()) {
            (Some(&b), _) => (base.name(b), base.module(b)),
            (None, Some(&n)) => (new.name(n), new.module(n)),
            (None, None) => (NONE, NONE),
        };
        t.labels.push(name, module);
        for &c in &sb {
            t.base.of[c as usize] = u;
        }
        for &c in &sn {
            t.new.of[c as usize] = u;
        }
        cb.clear();
        for &c in &sb {
            base.children_into(c, walk, &mut cb);
        }
        cn.clear();
        for &c in &sn {
            new.children_into(c, walk, &mut cn);
        }
        if cb.is_empty() && cn.is_empty() {
            continue;
        }
        base.keyed(&cb, &mut kb);
        new.keyed(&cn, &mut kn);
        group_children(&kb, &kn, &mut groups);
        // Last child first, so the first child (and its members) ends on top.
        for g in groups.iter().rev() {
            let b0 = base_members.len() as u32;
            base_members.extend(kb[g.1 .0 as usize..g.1 .1 as usize].iter().map(|x| x.2));
            let n0 = new_members.len() as u32;
            new_members.extend(kn[g.2 .0 as usize..g.2 .1 as usize].iter().map(|x| x.2));
            stack.push(Pending {
                parent: u,
                depth: p.depth + 1,
                base: (b0, base_members.len() as u32),
                new: (n0, new_members.len() as u32),
            });
        }
    }
    let n = parent.len();
    let mut end: Vec<u32> = (1..=n as u32).collect();
    for i in (1..n).rev() {
        let p = parent[i] as usize;
        if end[p] < end[i] {
            end[p] = end[i];
        }
    }
    t.tree = Preorder {
        parent,
        depth,
        subtree_end: end,
    };
    t
}

/// Sums a per-context column of one run into the union nodes: each visible context adds to the
/// node holding it (a folded loop's value is inside its function's already).
pub fn sum_into_union(t: &UnionTree, of: &[u32], col: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; t.len()];
    for (c, &u) in of.iter().enumerate() {
        if u == NONE {
            continue;
        }
        if let (Some(slot), Some(&v)) = (out.get_mut(u as usize), col.get(c)) {
            *slot += v;
        }
    }
    out
}

/// Exclusive values of a function-level union tree: a node's inclusive value less its
/// children's (what its folded loops and lines hold).
pub fn exclusive_from_inclusive(t: &UnionTree, incl: &[f64]) -> Vec<f64> {
    let mut out = incl.to_vec();
    for (i, (&p, &v)) in t.tree.parent.iter().zip(incl).enumerate().skip(1) {
        if (p as usize) < i {
            out[p as usize] -= v;
        }
    }
    out
}

/// Union node reached from the root by a `;`-separated path of frame names (tests, deep links).
pub fn node_of_names(t: &UnionTree, names: &Interner, path: &str) -> Option<u32> {
    let mut node = 0u32;
    let mut index: IdMap<(u32, u32), u32> = IdMap::default();
    for i in 1..t.len() {
        index
            .entry((t.tree.parent[i], t.labels.name[i]))
            .or_insert(i as u32);
    }
    for part in path.split(';') {
        let id = names.find(part)?;
        node = *index.get(&(node, id))?;
    }
    Some(node)
}
