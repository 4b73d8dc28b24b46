//! Tree generation of a synthetic HPCToolkit database: entry points, `main` and OpenMP worker
//! regions grown call by call within a context budget (application code, library calls, loops,
//! inlined callees), then laid out in preorder with shuffled ctx ids as hpcprof numbers them.

use super::names::{Family, APP_FILES, APP_MID, APP_TOP, EXE, GOMP, LIBS, SRC_DIR};
use super::rng::{mix, Rng};
use super::spec::SynthSpec;
use crate::model::CodeRef;
use std::collections::HashMap;

/// A function of the database: its module and entry offset, its source file and line.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthFunction {
    pub name: String,
    pub module: Option<u32>,
    /// Entry offset in `module` (0 without a module).
    pub offset: u64,
    pub file: Option<u32>,
    /// Definition line in `file` (0 without a file).
    pub line: u32,
}

/// Context relations and lexical types, as the format numbers them.
pub const REL_LEXICAL: u8 = 0;
pub const REL_CALL: u8 = 1;
pub const REL_INLINED: u8 = 2;
pub const LEX_FUNCTION: u8 = 0;
pub const LEX_LOOP: u8 = 1;
pub const LEX_LINE: u8 = 2;
pub const LEX_INSTRUCTION: u8 = 3;
/// Entry point kinds.
pub const ENTRY_UNKNOWN: u16 = 0;
pub const ENTRY_MAIN_THREAD: u16 = 1;
pub const ENTRY_APPLICATION_THREAD: u16 = 2;

/// One node of the tree in DFS preorder. Node 0 is the implicit global context (ctxId 0), its
/// children are the entry points.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthNode {
    /// Parent node index (`u32::MAX` for node 0).
    pub parent: u32,
    pub ctx_id: u32,
    /// Entry point kind for the children of node 0.
    pub entry: Option<u16>,
    pub relation: u8,
    pub lexical_type: u8,
    /// Where the context is; `line` is set with `file` and `offset` with `module`, as the format
    /// stores them.
    pub code: CodeRef,
    /// Bit 0 of `propagation`: values flow to the parent in the "function" scope.
    pub propagate: bool,
}

/// A point: `offset` in `module`, when there is a module (meta.db stores no offset without one,
/// where [`CodeRef::at_point`] keeps it).
fn point(module: Option<u32>, offset: u64) -> CodeRef {
    CodeRef {
        module,
        offset: module.map(|_| offset),
        ..CodeRef::default()
    }
}

/// The tree under construction and the names registered so far.
struct Builder {
    rng: Rng,
    max_depth: u32,
    /// Node count past which functions stop calling further (the spec's contexts plus a margin).
    cap: usize,
    modules: Vec<String>,
    files: Vec<String>,
    functions: Vec<SynthFunction>,
    function_family: Vec<Family>,
    by_name: HashMap<String, u32>,
    /// Nodes in creation order; parents are always created before children.
    nodes: Vec<SynthNode>,
    family: Vec<Family>,
    /// Application function names calls are drawn from.
    app_pool: Vec<String>,
    /// Next free entry offset in the modules.
    next_offset: u64,
}

/// A call whose subtree is still to grow: its context node, function, call depth and how many
/// contexts it may add.
struct Task {
    node: u32,
    function: u32,
    depth: u32,
    budget: u64,
}

/// One piece of a planned function body.
enum Item {
    /// A sampled source line.
    Leaf,
    /// A call of a function, with the budget of its subtree.
    Call(u32, u64),
    Loop(Vec<Item>),
}

impl Builder {
    /// An empty tree (the global context only) for `spec`.
    fn new(spec: &SynthSpec) -> Builder {
        let mut b = Builder {
            rng: Rng::new(spec.seed ^ 0x5EED),
            max_depth: spec.depth.max(1),
            cap: (spec.contexts as usize).saturating_mul(5) / 4 + 64,
            modules: Vec::new(),
            files: Vec::new(),
            functions: Vec::new(),
            function_family: Vec::new(),
            by_name: Default::default(),
            nodes: Vec::new(),
            family: Vec::new(),
            app_pool: APP_MID.iter().map(|s| s.to_string()).collect(),
            next_offset: 0x1000,
        };
        let extra = spec.contexts / 40;
        b.app_pool
            .extend((0..extra).map(|i| format!("kernel_{i:04}")));
        let global = SynthNode {
            parent: u32::MAX,
            relation: REL_CALL,
            lexical_type: LEX_FUNCTION,
            ..Builder::blank()
        };
        b.nodes.push(global);
        b.family.push(Family::App);
        b
    }

    fn module(&mut self, path: &str) -> u32 {
        match self.modules.iter().position(|m| m == path) {
            Some(i) => i as u32,
            None => {
                self.modules.push(path.to_string());
                self.modules.len() as u32 - 1
            }
        }
    }
    fn file(&mut self, name: &str) -> u32 {
        let path = format!("{SRC_DIR}{name}");
        match self.files.iter().position(|f| *f == path) {
            Some(i) => i as u32,
            None => {
                self.files.push(path);
                self.files.len() as u32 - 1
            }
        }
    }
    /// Function index by name, registering it (with module, file and a plausible entry offset
    /// and definition line) on first use.
    fn function(&mut self, name: &str, family: Family, module: &str, file: Option<&str>) -> u32 {
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let module = self.module(module);
        let file = file.map(|f| self.file(f));
        self.next_offset += 0x40 + 0x10 * self.rng.below(64);
        let line = if file.is_some() {
            10 + self.rng.below(1500) as u32
        } else {
            0
        };
        self.functions.push(SynthFunction {
            name: name.to_string(),
            module: Some(module),
            offset: self.next_offset,
            file,
            line,
        });
        self.next_offset += 0x100 + 0x10 * self.rng.below(256);
        self.function_family.push(family);
        let i = self.functions.len() as u32 - 1;
        self.by_name.insert(name.to_string(), i);
        i
    }
    fn app_function(&mut self, name: &str) -> u32 {
        let file = match name {
            "main" => "main.c".to_string(),
            "read_input" | "write_checkpoint" => "io.c".to_string(),
            "init_mesh" => "mesh.c".to_string(),
            "setup_solver" | "solve" | "finalize" => "solver.c".to_string(),
            _ if name.starts_with("kernel_") => {
                let n: u32 = name[7..].parse().unwrap_or(0);
                format!("kernels_{:02}.c", n / 40)
            }
            _ => {
                let base = name.split('.').next().unwrap_or(name);
                let h = mix(base
                    .bytes()
                    .fold(7u64, |a, b| a.wrapping_mul(31) ^ b as u64));
                APP_FILES[(h % APP_FILES.len() as u64) as usize].to_string()
            }
        };
        self.function(name, Family::App, EXE, Some(&file))
    }
    fn lib_function(&mut self) -> u32 {
        let r = self.rng.unit();
        let k = if r < 0.4 {
            0
        } else if r < 0.65 {
            1
        } else if r < 0.8 {
            2
        } else {
            3
        };
        let lib = &LIBS[k];
        let name = self.rng.pick(lib.public);
        self.function(name, lib.family, lib.module, None)
    }
    fn add(&mut self, parent: u32, node: SynthNode, family: Family) -> u32 {
        let mut node = node;
        node.parent = parent;
        self.nodes.push(node);
        self.family.push(family);
        self.nodes.len() as u32 - 1
    }
    fn blank() -> SynthNode {
        SynthNode {
            parent: 0,
            ctx_id: 0,
            entry: None,
            relation: REL_LEXICAL,
            lexical_type: LEX_LINE,
            code: CodeRef::default(),
            propagate: false,
        }
    }
    /// A sampled source line (a leaf, or the call site of its one child): `line` of `file`, when
    /// there is a file.
    fn line(file: Option<u32>, line: u32) -> SynthNode {
        SynthNode {
            code: CodeRef::at_line(file, file.map(|_| line)),
            propagate: true,
            ..Builder::blank()
        }
    }
    fn call_ctx(&mut self, parent: u32, function: u32, relation: u8) -> u32 {
        let node = SynthNode {
            relation,
            lexical_type: LEX_FUNCTION,
            code: CodeRef::of_function(function),
            ..Builder::blank()
        };
        let fam = self.function_family[function as usize];
        self.add(parent, node, fam)
    }
    fn instruction(&mut self, parent: u32, function: u32, k: u64) -> u32 {
        let f = &self.functions[function as usize];
        let node = SynthNode {
            lexical_type: LEX_INSTRUCTION,
            code: point(f.module, f.offset + 4 * k + 4),
            propagate: true,
            ..Builder::blank()
        };
        let fam = self.function_family[function as usize];
        self.add(parent, node, fam)
    }

    /// Grows the subtree of one call: library functions get instructions and maybe an internal
    /// callee, application functions sampled lines, loops and calls within their budget.
    fn expand(&mut self, t: Task, tasks: &mut Vec<Task>) {
        let fam = self.function_family[t.function as usize];
        if fam != Family::App {
            self.expand_library(t, fam, tasks);
            return;
        }
        let items = self.plan(&t);
        self.emit(t, items, tasks);
    }

    /// The body of an application function: sampled lines and calls (with the budget each callee
    /// gets), some of them inside a loop or two nested loops.
    fn plan(&mut self, t: &Task) -> Vec<Item> {
        let full = self.nodes.len() >= self.cap;
        let budget = t.budget.max(1);
        let levels_left = self.max_depth.saturating_sub(t.depth) as u64;
        let mut n_calls = 0u64;
        if levels_left > 0 && budget >= 4 && !full {
            // Enough fan-out that the budget is spent before the depth limit, where a function
            // holds about LEAF_FN contexts: the least fan with fan^levels >= budget / LEAF_FN.
            // Integer arithmetic only, so the browser's example is the native one bit for bit
            // (libm's powf may differ between targets in the last place).
            const LEAF_FN: u64 = 6;
            let want = budget.div_ceil(LEAF_FN);
            let levels = u32::try_from(levels_left).unwrap_or(u32::MAX);
            let fan = (1..12u64)
                .find(|f| f.saturating_pow(levels) >= want)
                .unwrap_or(12);
            n_calls = (fan + self.rng.below(2)).clamp(1, 12).min(budget / 3);
        }
        let mut n_leaves = if n_calls == 0 {
            // A function at the depth limit spends its budget on sampled lines.
            budget.min(24).max(budget.min(2 + self.rng.below(6)))
        } else {
            1 + self.rng.below(3)
        };
        // Callees: library calls get a small fixed budget, application calls share the rest.
        let mut calls: Vec<(u32, bool)> = Vec::new();
        for _ in 0..n_calls {
            let lib = t.depth >= 3 && self.rng.chance(0.3);
            let callee = if lib {
                self.lib_function()
            } else if t.depth == 1 {
                // main's first callee is the solver, where the time goes.
                let name = if calls.is_empty() {
                    "solve"
                } else {
                    APP_TOP[self.rng.below(APP_TOP.len() as u64) as usize]
                };
                self.app_function(name)
            } else {
                let i = self.rng.below(self.app_pool.len() as u64) as usize;
                let name = self.app_pool[i].clone();
                self.app_function(&name)
            };
            calls.push((callee, lib));
        }
        let lib_budget = |rng: &mut Rng| 1 + rng.below(6);
        let lib_budgets: Vec<u64> = calls
            .iter()
            .map(|&(_, lib)| if lib { lib_budget(&mut self.rng) } else { 0 })
            .collect();
        let spend = n_leaves + 2 * n_calls + lib_budgets.iter().sum::<u64>();
        let mut spare = budget.saturating_sub(spend);
        if calls.iter().all(|&(_, lib)| lib) {
            let more = spare.min(24u64.saturating_sub(n_leaves));
            n_leaves += more;
            spare = 0;
        }
        let mut items: Vec<Item> = (0..n_leaves).map(|_| Item::Leaf).collect();
        if n_calls > 0 {
            let mut weights: Vec<f64> = calls
                .iter()
                .map(|&(_, lib)| if lib { 0.0 } else { 0.2 + self.rng.unit() })
                .collect();
            if let Some(w) = weights.iter_mut().find(|w| **w > 0.0) {
                *w += 1.0; // a dominant callee makes deep, realistic hot paths
            }
            let total: f64 = weights.iter().sum::<f64>().max(1e-9);
            for (i, &(callee, lib)) in calls.iter().enumerate() {
                let b = if lib {
                    lib_budgets[i]
                } else {
                    ((spare as f64) * weights[i] / total) as u64
                };
                let at = self.rng.below(items.len() as u64 + 1) as usize;
                items.insert(at, Item::Call(callee, b));
            }
        }
        if items.len() >= 2 && self.rng.chance(0.6) {
            let a = self.rng.below(items.len() as u64) as usize;
            let b = a + 1 + self.rng.below((items.len() - a) as u64) as usize;
            let mut inner: Vec<Item> = items.drain(a..b).collect();
            if inner.len() >= 2 && self.rng.chance(0.3) {
                let c = self.rng.below(inner.len() as u64) as usize;
                let nested: Vec<Item> = inner.drain(c..).collect();
                inner.push(Item::Loop(nested));
            }
            items.insert(a, Item::Loop(inner));
        }
        items
    }

    /// Adds the planned body under the call's node, lines numbered down the function's file;
    /// each call becomes a call site, the callee's context and a task to grow it.
    fn emit(&mut self, t: Task, items: Vec<Item>, tasks: &mut Vec<Task>) {
        let f = self.functions[t.function as usize].clone();
        let mut line = f.line + 1 + self.rng.below(3) as u32;
        let mut loop_k = 0u64;
        // Iterative emission of the nested items: (parent node, items, next index).
        let mut stack: Vec<(u32, Vec<Item>)> = vec![(t.node, items.into_iter().rev().collect())];
        while let Some((parent, mut rest)) = stack.pop() {
            let Some(item) = rest.pop() else { continue };
            stack.push((parent, rest));
            let here = line;
            line += 1 + self.rng.below(4) as u32;
            match item {
                Item::Leaf => {
                    self.add(parent, Builder::line(f.file, here), Family::App);
                }
                Item::Call(callee, b) => {
                    let site = self.add(parent, Builder::line(f.file, here), Family::App);
                    let small_app = self.function_family[callee as usize] == Family::App && b < 6;
                    let rel = if small_app && self.rng.chance(0.3) {
                        REL_INLINED
                    } else {
                        REL_CALL
                    };
                    let node = self.call_ctx(site, callee, rel);
                    tasks.push(Task {
                        node,
                        function: callee,
                        depth: t.depth + 1,
                        budget: b,
                    });
                }
                Item::Loop(inner) => {
                    loop_k += 1;
                    let n = SynthNode {
                        lexical_type: LEX_LOOP,
                        code: CodeRef {
                            file: f.file,
                            line: f.file.map(|_| here),
                            ..point(f.module, f.offset + 0x20 * loop_k)
                        },
                        propagate: true,
                        ..Builder::blank()
                    };
                    let l = self.add(parent, n, Family::App);
                    stack.push((l, inner.into_iter().rev().collect()));
                }
            }
        }
    }

    fn expand_library(&mut self, t: Task, fam: Family, tasks: &mut Vec<Task>) {
        let n_instr = 1 + self.rng.below(3);
        for k in 0..n_instr {
            self.instruction(t.node, t.function, k * 7);
        }
        if let Some(lib) = LIBS.iter().find(|l| l.family == fam) {
            let room = t.budget >= n_instr + 3 && t.depth < self.max_depth;
            if room && self.nodes.len() < self.cap && self.rng.chance(0.6) {
                let name = self.rng.pick(lib.internal);
                let callee = self.function(name, fam, lib.internal_module, None);
                let site = self.instruction(t.node, t.function, 40);
                let node = self.call_ctx(site, callee, REL_CALL);
                tasks.push(Task {
                    node,
                    function: callee,
                    depth: t.depth + 1,
                    budget: t.budget - n_instr - 2,
                });
            }
        }
    }

    fn run(&mut self, mut tasks: Vec<Task>) {
        while let Some(t) = tasks.pop() {
            self.expand(t, &mut tasks);
        }
    }
}

/// A generated tree in DFS preorder (node 0 = global context) with what was named on the way.
pub struct SynthTree {
    pub modules: Vec<String>,
    pub files: Vec<String>,
    pub functions: Vec<SynthFunction>,
    pub nodes: Vec<SynthNode>,
    /// Where each node's function comes from (the application or a library).
    pub(super) family: Vec<Family>,
    /// One past the last node of each node's subtree.
    pub(super) subtree_end: Vec<u32>,
    /// Node index of each ctx id (ids are a permutation of 0..nodes.len()).
    pub(super) node_of_ctx: Vec<u32>,
}

/// Grows the tree `spec` describes: the entry points and their random subtrees, then the named
/// functions and the recursive chain, laid out in preorder with shuffled ctx ids. Also returns the
/// random sequence where the tree left it, for the leaves' properties to continue.
pub(super) fn generate(spec: &SynthSpec) -> (SynthTree, Rng) {
    let mut b = Builder::new(spec);
    let entry = |kind| SynthNode {
        entry: Some(kind),
        relation: REL_CALL,
        lexical_type: LEX_FUNCTION,
        ..Builder::blank()
    };
    let total = spec.contexts.max(4) as u64;
    let app_share = if spec.threads > 1 { total * 3 / 10 } else { 0 };
    let main_e = b.add(0, entry(ENTRY_MAIN_THREAD), Family::App);
    let main_f = b.app_function("main");
    let main_c = b.call_ctx(main_e, main_f, REL_CALL);
    let mut tasks = vec![Task {
        node: main_c,
        function: main_f,
        depth: 1,
        budget: (total - app_share).saturating_sub(3),
    }];
    // Tasks run LIFO: push the application thread first so main's subtree is built first
    // (creation order only decides ids before the shuffle; kept stable for readability).
    if spec.threads > 1 {
        let app_e = b.add(0, entry(ENTRY_APPLICATION_THREAD), Family::App);
        b.worker_regions(app_e, app_share, &mut tasks);
    }
    if spec.unknown_entry {
        b.add(0, entry(ENTRY_UNKNOWN), Family::App);
    }
    b.run(tasks);
    // Added after the random tree so the rest of the database is the same with or without.
    b.named_functions(&spec.names, main_f, main_c);
    if spec.chain > 0 {
        b.chain(spec.chain, main_f, main_c);
    }
    b.into_tree()
}

impl Builder {
    /// The OpenMP worker entry: `gomp_thread_start` calling one to three outlined regions
    /// (`<name>._omp_fn.<k>`), each a task sharing `budget`.
    fn worker_regions(&mut self, entry: u32, budget: u64, tasks: &mut Vec<Task>) {
        let start = self.function("gomp_thread_start", Family::Omp, GOMP, None);
        let start_c = self.call_ctx(entry, start, REL_CALL);
        let n_regions = 1 + self.rng.below(3);
        let per = budget.saturating_sub(2 + 3 * n_regions) / n_regions;
        for k in 0..n_regions {
            let base = APP_MID[self.rng.below(APP_MID.len() as u64) as usize];
            let name = format!("{base}._omp_fn.{k}");
            let f = self.app_function(&name);
            let site = self.instruction(start_c, start, 16 + k);
            let c = self.call_ctx(site, f, REL_CALL);
            tasks.insert(
                0,
                Task {
                    node: c,
                    function: f,
                    depth: 2,
                    budget: per,
                },
            );
        }
    }

    /// One function per name, called from `main` through a line call site, with one sampled line.
    fn named_functions(&mut self, names: &[String], main_f: u32, main_c: u32) {
        for name in names {
            let f = self.function(name, Family::App, EXE, Some(name));
            let line = self.functions[f as usize].line;
            let file = self.functions[main_f as usize].file;
            let site = self.add(main_c, Builder::line(file, 3), Family::App);
            let c = self.call_ctx(site, f, REL_CALL);
            let own = self.functions[f as usize].file;
            self.add(c, Builder::line(own, line + 1), Family::App);
        }
    }

    /// `main -> recurse -> recurse -> ...`, `frames` calls deep, each through a line call site.
    fn chain(&mut self, frames: u32, main_f: u32, main_c: u32) {
        let f = self.app_function("recurse");
        let (file, line) = {
            let r = &self.functions[f as usize];
            (r.file, r.line)
        };
        let main_file = self.functions[main_f as usize].file;
        let mut parent = self.add(main_c, Builder::line(main_file, 4), Family::App);
        for _ in 0..frames {
            let c = self.call_ctx(parent, f, REL_CALL);
            parent = self.add(c, Builder::line(file, line + 2), Family::App);
        }
    }

    /// Preorder layout (children in creation order), subtree ends, and ctx ids: a shuffle of
    /// 1..n, as hpcprof's ids follow no tree order.
    fn into_tree(mut self) -> (SynthTree, Rng) {
        let n = self.nodes.len();
        let order = preorder(&self.nodes);
        let mut new_index = vec![0u32; n];
        for (i, &o) in order.iter().enumerate() {
            new_index[o as usize] = i as u32;
        }
        let mut nodes: Vec<SynthNode> = Vec::with_capacity(n);
        let mut family = Vec::with_capacity(n);
        for &o in &order {
            let mut node = self.nodes[o as usize].clone();
            if o != 0 {
                node.parent = new_index[node.parent as usize];
            }
            nodes.push(node);
            family.push(self.family[o as usize]);
        }
        let mut subtree_end: Vec<u32> = (1..=n as u32).collect();
        for i in (1..n).rev() {
            let p = nodes[i].parent as usize;
            subtree_end[p] = subtree_end[p].max(subtree_end[i]);
        }
        let mut ids: Vec<u32> = (1..n as u32).collect();
        for i in (1..ids.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            ids.swap(i, j);
        }
        let mut node_of_ctx = vec![0u32; n];
        for (i, node) in nodes.iter_mut().enumerate().skip(1) {
            node.ctx_id = ids[i - 1];
            node_of_ctx[node.ctx_id as usize] = i as u32;
        }
        let tree = SynthTree {
            modules: self.modules,
            files: self.files,
            functions: self.functions,
            nodes,
            family,
            subtree_end,
            node_of_ctx,
        };
        (tree, self.rng)
    }
}

/// Creation-order indexes of `nodes` (parents created before children) in DFS preorder,
/// children in creation order.
fn preorder(nodes: &[SynthNode]) -> Vec<u32> {
    let n = nodes.len();
    let mut first = vec![0u32; n + 1];
    for node in nodes.iter().skip(1) {
        first[node.parent as usize + 1] += 1;
    }
    for i in 1..=n {
        first[i] += first[i - 1];
    }
    let mut fill = first.clone();
    let mut kids = vec![0u32; n.saturating_sub(1)];
    for (i, node) in nodes.iter().enumerate().skip(1) {
        let p = node.parent as usize;
        kids[fill[p] as usize] = i as u32;
        fill[p] += 1;
    }
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut stack: Vec<u32> = vec![0];
    while let Some(v) = stack.pop() {
        order.push(v);
        let (a, z) = (first[v as usize] as usize, first[v as usize + 1] as usize);
        stack.extend(kids[a..z].iter().rev());
    }
    order
}
