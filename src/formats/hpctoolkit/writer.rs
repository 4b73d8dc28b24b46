//! Writer of final-layout HPCToolkit v4.0 databases (meta.db, profile.db, cct.db, trace.db as
//! HPCToolkit's `doc/FORMATS.md` specifies them and hpcprof lays them out: `szProfile` 48, sections
//! in hpcprof's order, 8-byte footers) from a deterministic synthetic description. It feeds the
//! built-in example, round-trip tests and multi-GB benchmark inputs.
//!
//! Nothing is held whole: meta.db is built in memory (it grows with the context count only), while
//! profile.db, cct.db and trace.db stream through `std::io::Write` with every offset computed up
//! front by a counting pass. Values are a pure function of (seed, profile, context), so the
//! context-major cct.db is written in bounded chunks by regenerating profiles.

use std::io::{self, Write};

// ---------------------------------------------------------------------------------------------
// Deterministic randomness: splitmix64 for stateless hashes, xorshift64* for sequences.

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn hash(seed: u64, a: u64, b: u64, c: u64) -> u64 {
    mix(seed ^ mix(a ^ mix(b.wrapping_add(mix(c)))))
}

/// Uniform in [0, 1) from the top 53 bits.
fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(mix(seed) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn unit(&mut self) -> f64 {
        unit(self.next())
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

// ---------------------------------------------------------------------------------------------
// The description.

/// What to synthesise. Profiles are `ranks * threads`; thread 0 of each rank runs under the
/// "main thread" entry point, other threads under "application thread" (OpenMP-style workers).
#[derive(Clone, Debug, PartialEq)]
pub struct SynthSpec {
    pub title: String,
    pub ranks: u32,
    pub threads: u32,
    /// Approximate number of contexts in the tree (entry points included).
    pub contexts: u32,
    /// Maximum call depth (function frames on a path, `main` is depth 1).
    pub depth: u32,
    pub metrics: u32,
    /// Trace samples per profile; 0 writes no trace.db.
    pub samples: u64,
    pub seed: u64,
    /// Add an "unknown entry" entry point without children, as real databases often have.
    pub unknown_entry: bool,
}

impl Default for SynthSpec {
    fn default() -> SynthSpec {
        SynthSpec {
            title: "hpcscope synthetic database".into(),
            ranks: 4,
            threads: 2,
            contexts: 1000,
            depth: 10,
            metrics: 3,
            samples: 1000,
            seed: 1,
            unknown_entry: true,
        }
    }
}

/// Most metrics and contexts a spec may ask for: metric ids are u16 (15 statistics per metric)
/// and every context costs meta.db bytes held in memory.
pub const MAX_METRICS: u32 = 1000;
pub const MAX_CONTEXTS: u32 = 2_000_000;
/// Most bytes of trace samples a spec may ask for (keeps every offset far from u64 overflow).
pub const MAX_TRACE_BYTES: u64 = 1 << 50;

/// Propagation scopes every metric is instantiated in: (name, type, propagation index).
/// Types: 1 point, 2 execution, 3 transitive (bit 0 = "function": lexical children propagate).
pub const SCOPES: [(&str, u8, u8); 3] =
    [("point", 1, 255), ("function", 3, 0), ("execution", 2, 255)];
pub const SCOPE_POINT: usize = 0;
pub const SCOPE_FUNCTION: usize = 1;
pub const SCOPE_EXECUTION: usize = 2;
/// Summary statistics of each scope, in hpcprof's order: (formula, combine 0 sum / 1 min / 2 max).
pub const STATS: [(&str, u8); 5] = [("1", 0), ("$$", 0), ("($$^2)", 0), ("$$", 1), ("$$", 2)];
pub const STAT_COUNT: usize = 0;
pub const STAT_SUM: usize = 1;
pub const STAT_SUMSQ: usize = 2;
pub const STAT_MIN: usize = 3;
pub const STAT_MAX: usize = 4;

/// Identifier kinds named in meta.db, as hpcprof writes them.
pub const ID_NAMES: [&str; 8] = [
    "SUMMARY",
    "NODE",
    "RANK",
    "THREAD",
    "GPUDEVICE",
    "GPUCONTEXT",
    "GPUSTREAM",
    "CORE",
];
const KIND_NODE: u8 = 1;
const KIND_RANK: u8 = 2;
const KIND_THREAD: u8 = 3;
const RANKS_PER_NODE: u32 = 4;

/// Trace time origin (ns since the epoch). The sampling period is chosen per database so a trace
/// line lasts about as long as the main thread's CPU time ([`SynthDb::trace_period_ns`]).
pub const TRACE_T0_NS: u64 = 1_700_000_000_000_000_000;
/// One CPUTIME sample is 2^-10 s, so sums of seconds stay exact in f64.
pub const CPUTIME_PER_SAMPLE: f64 = 1.0 / 1024.0;

const METRIC_NAMES: [&str; 6] = [
    "CPUTIME (sec)",
    "PAPI_TOT_CYC",
    "PAPI_TOT_INS",
    "PAPI_L2_TCM",
    "PAPI_FP_OPS",
    "PAPI_BR_MSP",
];
/// Events per sample of metrics 1.. (cycles at 2.6 GHz, ...).
const METRIC_RATES: [f64; 6] = [0.0, 2.6e6, 3.1e6, 2.0e4, 3.5e6, 1.5e4];

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
    pub function: Option<u32>,
    /// Source location (`line` meaningful when `file` is set).
    pub file: Option<u32>,
    pub line: u32,
    /// Point (`offset` meaningful when `module` is set).
    pub module: Option<u32>,
    pub offset: u64,
    /// Bit 0 of `propagation`: values flow to the parent in the "function" scope.
    pub propagate: bool,
}

impl SynthNode {
    fn flags(&self) -> u8 {
        (self.function.is_some() as u8)
            | ((self.file.is_some() as u8) << 1)
            | ((self.module.is_some() as u8) << 2)
    }
    fn flex_words(&self) -> u8 {
        (self.function.is_some() as u8)
            + 2 * (self.file.is_some() as u8)
            + 2 * (self.module.is_some() as u8)
    }
    fn record_len(&self) -> u64 {
        if self.entry.is_some() {
            0x20
        } else {
            0x20 + 8 * self.flex_words() as u64
        }
    }
}

/// A planned database: names, the tree and everything needed to regenerate any profile's values.
pub struct SynthDb {
    pub spec: SynthSpec,
    pub modules: Vec<String>,
    pub files: Vec<String>,
    pub functions: Vec<SynthFunction>,
    /// The tree in DFS preorder (node 0 = global context).
    pub nodes: Vec<SynthNode>,
    pub metric_names: Vec<String>,
    subtree_end: Vec<u32>,
    /// node index of each ctx id (ids are a permutation of 0..nodes.len()).
    node_of_ctx: Vec<u32>,
    leaves: Vec<u32>,
    leaf_weight: Vec<f64>,
    leaf_activity: Vec<f64>,
    leaf_comm: Vec<bool>,
    /// leaves x metrics: events per sample (0 where the metric never fires).
    leaf_rate: Vec<f64>,
    main_range: (u32, u32),
    app_range: Option<(u32, u32)>,
    trace_period_ns: u64,
}

// ---------------------------------------------------------------------------------------------
// Tree generation.

const APP_TOP: [&str; 6] = [
    "read_input",
    "init_mesh",
    "setup_solver",
    "solve",
    "write_checkpoint",
    "finalize",
];
const APP_MID: [&str; 28] = [
    "assemble_matrix",
    "compute_residual",
    "apply_boundary_conditions",
    "exchange_halo",
    "compute_fluxes",
    "smooth",
    "restrict_residual",
    "prolongate_correction",
    "apply_preconditioner",
    "cg_iteration",
    "spmv",
    "dot_product",
    "axpy",
    "vector_norm",
    "interpolate_field",
    "advect",
    "diffuse",
    "compute_timestep",
    "integrate_forces",
    "build_neighbor_list",
    "pack_buffers",
    "unpack_buffers",
    "update_ghost_cells",
    "compute_gradients",
    "reduce_energy",
    "sort_particles",
    "update_positions",
    "solve_local_block",
];
const APP_FILES: [&str; 5] = ["solver.c", "linalg.c", "comm.c", "mesh.c", "physics.c"];
const SRC_DIR: &str = "/opt/synth/src/";
const EXE: &str = "/opt/synth/bin/solver";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Family {
    App,
    Mpi,
    Blas,
    Libm,
    Libc,
    Omp,
}

/// Library families: (family, module path, public functions, internal callees, module of internals).
const LIBS: [(Family, &str, &[&str], &[&str], &str); 4] = [
    (
        Family::Mpi,
        "/opt/openmpi/lib/libmpi.so.40",
        &[
            "MPI_Wait",
            "MPI_Waitall",
            "MPI_Allreduce",
            "MPI_Isend",
            "MPI_Irecv",
            "MPI_Barrier",
            "MPI_Bcast",
            "MPI_Reduce",
        ],
        &[
            "opal_progress",
            "ucp_worker_progress",
            "uct_mm_iface_progress",
        ],
        "/opt/openmpi/lib/libopen-pal.so.40",
    ),
    (
        Family::Blas,
        "/opt/openblas/lib/libopenblas.so.0",
        &["dgemm_", "dgemv_", "daxpy_", "ddot_", "dnrm2_", "dscal_"],
        &[
            "dgemm_kernel_HASWELL",
            "dgemm_itcopy_HASWELL",
            "daxpy_k_HASWELL",
        ],
        "/opt/openblas/lib/libopenblas.so.0",
    ),
    (
        Family::Libm,
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        &["exp", "log", "sqrt", "pow", "sin", "cos"],
        &[
            "__ieee754_exp_fma",
            "__ieee754_log_fma",
            "__ieee754_pow_fma",
        ],
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
    ),
    (
        Family::Libc,
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        &["memcpy", "memset", "malloc", "free", "write", "read"],
        &["__memcpy_avx_unaligned_erms", "_int_malloc", "__libc_write"],
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
    ),
];
const GOMP: &str = "/usr/lib/x86_64-linux-gnu/libgomp.so.1";

struct Builder {
    rng: Rng,
    max_depth: u32,
    cap: usize,
    modules: Vec<String>,
    files: Vec<String>,
    functions: Vec<SynthFunction>,
    function_family: Vec<Family>,
    by_name: std::collections::HashMap<String, u32>,
    /// Nodes in creation order; parents are always created before children.
    nodes: Vec<SynthNode>,
    family: Vec<Family>,
    app_pool: Vec<String>,
    next_offset: u64,
}

struct Task {
    node: u32,
    function: u32,
    depth: u32,
    budget: u64,
}

enum Item {
    Leaf,
    Call(u32, u64),
    Loop(Vec<Item>),
}

impl Builder {
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
        let (fam, path, names, _, _) = LIBS[k];
        let name = self.rng.pick(names);
        self.function(name, fam, path, None)
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
            function: None,
            file: None,
            line: 0,
            module: None,
            offset: 0,
            propagate: false,
        }
    }
    fn call_ctx(&mut self, parent: u32, function: u32, relation: u8) -> u32 {
        let node = SynthNode {
            relation,
            lexical_type: LEX_FUNCTION,
            function: Some(function),
            ..Builder::blank()
        };
        let fam = self.function_family[function as usize];
        self.add(parent, node, fam)
    }
    fn instruction(&mut self, parent: u32, function: u32, k: u64) -> u32 {
        let f = &self.functions[function as usize];
        let node = SynthNode {
            lexical_type: LEX_INSTRUCTION,
            module: f.module,
            offset: f.offset + 4 * k + 4,
            propagate: true,
            ..Builder::blank()
        };
        let fam = self.function_family[function as usize];
        self.add(parent, node, fam)
    }

    fn expand(&mut self, t: Task, tasks: &mut Vec<Task>) {
        let fam = self.function_family[t.function as usize];
        if fam != Family::App {
            self.expand_library(t, fam, tasks);
            return;
        }
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
                    let n = SynthNode {
                        file: f.file,
                        line: here,
                        propagate: true,
                        ..Builder::blank()
                    };
                    self.add(parent, n, Family::App);
                }
                Item::Call(callee, b) => {
                    let site = SynthNode {
                        file: f.file,
                        line: here,
                        propagate: true,
                        ..Builder::blank()
                    };
                    let site = self.add(parent, site, Family::App);
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
                        file: f.file,
                        line: here,
                        module: f.module,
                        offset: f.offset + 0x20 * loop_k,
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
        let internals = LIBS.iter().find(|l| l.0 == fam);
        if let Some(&(_, _, _, inner, inner_module)) = internals {
            let room = t.budget >= n_instr + 3 && t.depth < self.max_depth;
            if room && self.nodes.len() < self.cap && self.rng.chance(0.6) {
                let name = self.rng.pick(inner);
                let callee = self.function(name, fam, inner_module, None);
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

impl SynthDb {
    /// Plans a database: names, the tree in preorder with shuffled ctx ids, per-leaf weights.
    pub fn new(spec: &SynthSpec) -> Result<SynthDb, String> {
        if spec.ranks == 0 || spec.threads == 0 {
            return Err("ranks and threads must be at least 1".into());
        }
        let profiles = spec.ranks as u64 * spec.threads as u64;
        if profiles >= u32::MAX as u64 {
            return Err(format!(
                "{profiles} profiles do not fit the format's u32 index"
            ));
        }
        if spec.metrics == 0 || spec.metrics > MAX_METRICS {
            return Err(format!("metrics must be 1..={MAX_METRICS}"));
        }
        if spec.contexts > MAX_CONTEXTS {
            return Err(format!("contexts must be at most {MAX_CONTEXTS}"));
        }
        let trace_bytes = profiles
            .checked_mul(spec.samples)
            .and_then(|x| x.checked_mul(12));
        if trace_bytes.is_none_or(|b| b > MAX_TRACE_BYTES) {
            return Err(format!(
                "{profiles} profiles x {} samples exceed {MAX_TRACE_BYTES} bytes of trace",
                spec.samples
            ));
        }
        let depth = spec.depth.max(1);
        let mut b = Builder {
            rng: Rng::new(spec.seed ^ 0x5EED),
            max_depth: depth,
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
            let start = b.function("gomp_thread_start", Family::Omp, GOMP, None);
            let start_c = b.call_ctx(app_e, start, REL_CALL);
            let n_regions = 1 + b.rng.below(3);
            let per = app_share.saturating_sub(2 + 3 * n_regions) / n_regions;
            for k in 0..n_regions {
                let base = APP_MID[b.rng.below(APP_MID.len() as u64) as usize];
                let name = format!("{base}._omp_fn.{k}");
                let f = b.app_function(&name);
                let site = b.instruction(start_c, start, 16 + k);
                let c = b.call_ctx(site, f, REL_CALL);
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
        if spec.unknown_entry {
            b.add(0, entry(ENTRY_UNKNOWN), Family::App);
        }
        b.run(tasks);

        // Preorder layout, children in creation order.
        let n = b.nodes.len();
        let mut first = vec![0u32; n + 1];
        for node in b.nodes.iter().skip(1) {
            first[node.parent as usize + 1] += 1;
        }
        for i in 1..=n {
            first[i] += first[i - 1];
        }
        let mut fill = first.clone();
        let mut kids = vec![0u32; n.saturating_sub(1)];
        for (i, node) in b.nodes.iter().enumerate().skip(1) {
            let p = node.parent as usize;
            kids[fill[p] as usize] = i as u32;
            fill[p] += 1;
        }
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut new_index = vec![0u32; n];
        let mut stack: Vec<u32> = vec![0];
        while let Some(v) = stack.pop() {
            new_index[v as usize] = order.len() as u32;
            order.push(v);
            let (a, z) = (first[v as usize] as usize, first[v as usize + 1] as usize);
            stack.extend(kids[a..z].iter().rev());
        }
        let mut nodes: Vec<SynthNode> = Vec::with_capacity(n);
        let mut family = Vec::with_capacity(n);
        for &o in &order {
            let mut node = b.nodes[o as usize].clone();
            if o != 0 {
                node.parent = new_index[node.parent as usize];
            }
            nodes.push(node);
            family.push(b.family[o as usize]);
        }
        let mut subtree_end: Vec<u32> = (1..=n as u32).collect();
        for i in (1..n).rev() {
            let p = nodes[i].parent as usize;
            subtree_end[p] = subtree_end[p].max(subtree_end[i]);
        }
        // Ctx ids: a shuffle of 1..n, as hpcprof's ids follow no tree order.
        let mut ids: Vec<u32> = (1..n as u32).collect();
        for i in (1..ids.len()).rev() {
            let j = b.rng.below(i as u64 + 1) as usize;
            ids.swap(i, j);
        }
        let mut node_of_ctx = vec![0u32; n];
        for (i, node) in nodes.iter_mut().enumerate().skip(1) {
            node.ctx_id = ids[i - 1];
            node_of_ctx[node.ctx_id as usize] = i as u32;
        }
        let range_of = |kind: u16| {
            nodes
                .iter()
                .position(|x| x.entry == Some(kind))
                .map(|i| (i as u32, subtree_end[i]))
        };
        let main_range = range_of(ENTRY_MAIN_THREAD).unwrap_or((1, 2));
        let app_range = range_of(ENTRY_APPLICATION_THREAD);

        // Leaves and their static properties.
        let metrics = spec.metrics as usize;
        let mut leaves = Vec::new();
        let mut leaf_weight = Vec::new();
        let mut leaf_activity = Vec::new();
        let mut leaf_comm = Vec::new();
        let mut leaf_rate = Vec::new();
        let mut hot_in_main = false;
        let mut hot_in_app = false;
        for i in 1..n {
            if subtree_end[i] != i as u32 + 1 || nodes[i].entry.is_some() {
                continue;
            }
            let u = b.rng.unit();
            let comm = family[i] == Family::Mpi;
            let weight = if comm {
                1.0 + 150.0 * u * u
            } else {
                1.0 + 400.0 * u * u * u * u
            };
            let in_main = (i as u32) < main_range.1;
            // One leaf of each entry is active in every profile, so no profile is empty.
            let hot = if in_main {
                &mut hot_in_main
            } else {
                &mut hot_in_app
            };
            let activity = if !*hot {
                *hot = true;
                1.0
            } else {
                0.45 + 0.55 * b.rng.unit()
            };
            leaves.push(i as u32);
            leaf_weight.push(weight);
            leaf_activity.push(activity);
            leaf_comm.push(comm);
            for m in 0..metrics {
                let rate = match m {
                    0 => 1.0,
                    _ => {
                        let base = METRIC_RATES.get(m).copied().unwrap_or(1.0e5);
                        let sparse = m >= 3 && b.rng.chance(0.4);
                        let comm_ins = if comm && m == 2 { 0.3 } else { 1.0 };
                        if sparse {
                            0.0
                        } else {
                            base * comm_ins * (0.5 + b.rng.unit())
                        }
                    }
                };
                leaf_rate.push(rate);
            }
        }
        // Expected CPU time of a main-thread profile, spread over the trace samples.
        let main_samples: f64 = leaves
            .iter()
            .zip(leaf_weight.iter().zip(&leaf_activity))
            .filter(|(&l, _)| l < main_range.1)
            .map(|(_, (w, a))| w * a)
            .sum();
        let cpu_ns = main_samples * CPUTIME_PER_SAMPLE * 1e9;
        let trace_period_ns = (cpu_ns / spec.samples.max(1) as f64).clamp(1e3, 1e9) as u64;
        let metric_names = (0..metrics)
            .map(|m| match METRIC_NAMES.get(m) {
                Some(s) => s.to_string(),
                None => format!("EVENT_{m:03}"),
            })
            .collect();
        Ok(SynthDb {
            spec: spec.clone(),
            modules: b.modules,
            files: b.files,
            functions: b.functions,
            nodes,
            metric_names,
            subtree_end,
            node_of_ctx,
            leaves,
            leaf_weight,
            leaf_activity,
            leaf_comm,
            leaf_rate,
            main_range,
            app_range,
            trace_period_ns,
        })
    }

    /// Number of non-summary profiles (profile indexes 1..=profiles(); 0 is the summary).
    pub fn profiles(&self) -> u32 {
        self.spec.ranks * self.spec.threads
    }

    pub fn metrics(&self) -> usize {
        self.metric_names.len()
    }

    /// Value id of metric `m` in scope `s` (non-summary profiles and cct.db).
    pub fn prop_metric_id(m: usize, s: usize) -> u16 {
        (3 * m + s) as u16
    }

    /// Value id of statistic `stat` of metric `m` in scope `s` (summary profile).
    pub fn stat_metric_id(m: usize, stat: usize, s: usize) -> u16 {
        (15 * m + 3 * stat + s) as u16
    }

    /// (rank, thread) of profile index `prof` (1-based).
    pub fn rank_thread(&self, prof: u32) -> (u32, u32) {
        let i = prof.saturating_sub(1);
        (i / self.spec.threads, i % self.spec.threads)
    }

    /// Identifier tuple of profile `prof`: (kind, logical id, physical id, is physical).
    pub fn id_tuple(&self, prof: u32) -> Vec<(u8, u32, u64, bool)> {
        let (r, t) = self.rank_thread(prof);
        let node = r / RANKS_PER_NODE;
        let mut out = vec![(KIND_NODE, node, 0x0a00_0100 + node as u64, true)];
        if self.spec.ranks > 1 {
            out.push((KIND_RANK, r, r as u64, false));
        }
        out.push((KIND_THREAD, t, t as u64, false));
        out
    }

    /// Node range of the entry point profile `prof` runs under.
    fn range(&self, prof: u32) -> (u32, u32) {
        let (_, t) = self.rank_thread(prof);
        match self.app_range {
            Some(r) if t > 0 => r,
            _ => self.main_range,
        }
    }

    /// Node index of a ctx id.
    pub fn node_of_ctx(&self, ctx: u32) -> Option<u32> {
        self.node_of_ctx.get(ctx as usize).copied()
    }

    fn slots(&self) -> usize {
        self.metrics() * 3
    }

    /// Fills `buf` (nodes x metrics x 3 scopes, index `(node * metrics + m) * 3 + s`) with every
    /// value of profile `prof`. Only node 0 and the profile's entry subtree are written; the rest of
    /// `buf` is left as it was (callers read those ranges only).
    fn fill_profile(&self, prof: u32, buf: &mut Vec<f64>) {
        let k = self.slots();
        buf.resize(self.nodes.len() * k, 0.0);
        let (a, z) = self.range(prof);
        buf[..k].fill(0.0);
        buf[a as usize * k..z as usize * k].fill(0.0);
        let (rank, thread) = self.rank_thread(prof);
        let seed = self.spec.seed;
        let f_rank = 0.8 + 0.4 * unit(hash(seed, 11, rank as u64, 0));
        let f_thread = 0.9 + 0.2 * unit(hash(seed, 13, rank as u64, thread as u64));
        let lo = self.leaves.partition_point(|&l| l < a);
        let hi = self.leaves.partition_point(|&l| l < z);
        let m_count = self.metrics();
        for li in lo..hi {
            let leaf = self.leaves[li] as usize;
            let h = hash(seed, 17, prof as u64, leaf as u64);
            if unit(h) >= self.leaf_activity[li] {
                continue;
            }
            let factor = if self.leaf_comm[li] {
                2.0 - f_rank
            } else {
                f_rank * f_thread
            };
            let w = self.leaf_weight[li] * factor * (0.6 + 0.8 * unit(mix(h)));
            let samples = w.round().max(1.0);
            let base = leaf * k;
            buf[base] = samples * CPUTIME_PER_SAMPLE;
            for m in 1..m_count {
                let rate = self.leaf_rate[li * m_count + m];
                if rate > 0.0 {
                    let noise = 0.9 + 0.2 * unit(mix(h ^ m as u64));
                    buf[base + 3 * m] = (samples * rate * noise).round();
                }
            }
        }
        // Propagation, children before parents: execution takes every descendant, function only
        // through contexts whose propagation bit is set (lexical children).
        for i in (a as usize..z as usize).rev() {
            let p = self.nodes[i].parent as usize;
            let prop = self.nodes[i].propagate;
            for m in 0..m_count {
                let s = (i * m_count + m) * 3;
                let point = buf[s];
                buf[s + 1] += point;
                buf[s + 2] += point;
                let d = (p * m_count + m) * 3;
                buf[d + 2] += buf[s + 2];
                if prop {
                    buf[d + 1] += buf[s + 1];
                }
            }
        }
    }

    /// Every non-zero value of profile `prof` as (ctx id, metric id, value), sorted by ctx id then
    /// metric id; `prof` 0 gives the summary profile (statistics ids). For tests and small uses.
    pub fn profile_values(&self, prof: u32) -> Vec<(u32, u16, f64)> {
        let mut out = Vec::new();
        let k = self.slots();
        if prof == 0 {
            let st = self.stats();
            for ctx in 0..self.nodes.len() as u32 {
                let node = self.node_of_ctx[ctx as usize] as usize;
                for m in 0..self.metrics() {
                    for stat in 0..STATS.len() {
                        for s in 0..3 {
                            let v = st.stat(node * k + 3 * m + s, stat);
                            if v != 0.0 {
                                out.push((ctx, Self::stat_metric_id(m, stat, s), v));
                            }
                        }
                    }
                }
            }
            return out;
        }
        let mut buf = Vec::new();
        self.fill_profile(prof, &mut buf);
        let (a, z) = self.range(prof);
        for ctx in 0..self.nodes.len() as u32 {
            let node = self.node_of_ctx[ctx as usize];
            if node != 0 && (node < a || node >= z) {
                continue;
            }
            for j in 0..k {
                let v = buf[node as usize * k + j];
                if v != 0.0 {
                    out.push((ctx, j as u16, v));
                }
            }
        }
        out
    }

    /// Samples of the trace line of profile `prof`: (timestamp ns, ctx id).
    pub fn trace_line(&self, prof: u32) -> Vec<(u64, u32)> {
        let mut buf = Vec::new();
        let mut out = Vec::with_capacity(self.spec.samples as usize);
        let mut tl = TraceGen::new(self, prof, &mut buf);
        for i in 0..self.spec.samples {
            out.push(tl.sample(self, prof, i));
        }
        out
    }

    /// Nominal time between trace samples; each sample is late by up to half of it.
    pub fn trace_period_ns(&self) -> u64 {
        self.trace_period_ns
    }

    fn timestamp(&self, prof: u32, i: u64) -> u64 {
        let (r, t) = self.rank_thread(prof);
        let start = TRACE_T0_NS + (r as u64 * 1500 + t as u64 * 250) * 1000;
        let period = self.trace_period_ns;
        let jitter = hash(self.spec.seed, 19, prof as u64, i) % (period / 2);
        start + i * period + jitter
    }

    /// Counting pass: regenerates every profile once and gathers the summary statistics and the
    /// sizes every offset of profile.db and cct.db depends on.
    pub fn stats(&self) -> SynthStats {
        let k = self.slots();
        let n = self.nodes.len();
        let p = self.profiles();
        let mut st = SynthStats {
            slots: k,
            count: vec![0; n * k],
            sum: vec![0.0; n * k],
            sumsq: vec![0.0; n * k],
            min: vec![f64::INFINITY; n * k],
            max: vec![0.0; n * k],
            prof_values: vec![0; p as usize + 1],
            prof_ctxs: vec![0; p as usize + 1],
        };
        let mut buf = Vec::new();
        for prof in 1..=p {
            self.fill_profile(prof, &mut buf);
            let (a, z) = self.range(prof);
            let mut values = 0u64;
            let mut ctxs = 0u32;
            for node in std::iter::once(0).chain(a as usize..z as usize) {
                let mut any = false;
                for j in node * k..node * k + k {
                    let v = buf[j];
                    if v != 0.0 {
                        any = true;
                        values += 1;
                        st.count[j] += 1;
                        st.sum[j] += v;
                        st.sumsq[j] += v * v;
                        st.min[j] = st.min[j].min(v);
                        st.max[j] = st.max[j].max(v);
                    }
                }
                ctxs += any as u32;
            }
            st.prof_values[prof as usize] = values;
            st.prof_ctxs[prof as usize] = ctxs;
        }
        let (mut values, mut ctxs) = (0u64, 0u32);
        for node in 0..n {
            let c = st.count[node * k..node * k + k]
                .iter()
                .filter(|&&c| c > 0)
                .count() as u64;
            values += c * STATS.len() as u64;
            ctxs += (c > 0) as u32;
        }
        st.prof_values[0] = values;
        st.prof_ctxs[0] = ctxs;
        st
    }
}

/// Per (node, metric, scope) statistics over all profiles, and per-profile value counts.
pub struct SynthStats {
    slots: usize,
    count: Vec<u32>,
    sum: Vec<f64>,
    sumsq: Vec<f64>,
    min: Vec<f64>,
    max: Vec<f64>,
    prof_values: Vec<u64>,
    prof_ctxs: Vec<u32>,
}

impl SynthStats {
    /// Statistic `stat` of slot `j` (0 when no profile has a value there).
    fn stat(&self, j: usize, stat: usize) -> f64 {
        if self.count[j] == 0 {
            return 0.0;
        }
        match stat {
            STAT_COUNT => self.count[j] as f64,
            STAT_SUM => self.sum[j],
            STAT_SUMSQ => self.sumsq[j],
            STAT_MIN => self.min[j],
            _ => self.max[j],
        }
    }
    /// cct.db values of a node: (value count, non-empty metric ids).
    fn ctx_counts(&self, node: usize) -> (u64, u16) {
        let s = &self.count[node * self.slots..(node + 1) * self.slots];
        (
            s.iter().map(|&c| c as u64).sum(),
            s.iter().filter(|&&c| c > 0).count() as u16,
        )
    }
}

/// Trace sample generator for one line: a run-length walk over the profile's sampled leaves,
/// weighted by their sample counts, with rare idle (ctx 0) samples never two in a row.
struct TraceGen {
    rng: Rng,
    cum: Vec<f64>,
    ctx: Vec<u32>,
    cur: u32,
    prev_idle: bool,
}

impl TraceGen {
    fn new(db: &SynthDb, prof: u32, buf: &mut Vec<f64>) -> TraceGen {
        db.fill_profile(prof, buf);
        let (a, z) = db.range(prof);
        let k = db.slots();
        let mut cum = Vec::new();
        let mut ctx = Vec::new();
        let mut total = 0.0;
        let lo = db.leaves.partition_point(|&l| l < a);
        let hi = db.leaves.partition_point(|&l| l < z);
        for &leaf in &db.leaves[lo..hi] {
            let v = buf[leaf as usize * k];
            if v > 0.0 {
                total += v;
                cum.push(total);
                ctx.push(db.nodes[leaf as usize].ctx_id);
            }
        }
        TraceGen {
            rng: Rng::new(hash(db.spec.seed, 23, prof as u64, 0)),
            cum,
            ctx,
            cur: 0,
            prev_idle: true,
        }
    }
    fn pick(&mut self) -> u32 {
        let Some(&total) = self.cum.last() else {
            return 0;
        };
        let x = self.rng.unit() * total;
        let i = self
            .cum
            .partition_point(|&c| c <= x)
            .min(self.ctx.len() - 1);
        self.ctx[i]
    }
    fn sample(&mut self, db: &SynthDb, prof: u32, i: u64) -> (u64, u32) {
        // An idle sample is always followed by a running one: the format forbids two in a row.
        if i == 0 || self.prev_idle || self.rng.chance(0.25) {
            if !self.prev_idle && self.rng.chance(0.02) {
                self.cur = 0;
            } else {
                self.cur = self.pick();
            }
        }
        self.prev_idle = self.cur == 0;
        (db.timestamp(prof, i), self.cur)
    }
}

// ---------------------------------------------------------------------------------------------
// Byte layout helpers.

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// A growable little-endian buffer for structures built in memory.
#[derive(Default)]
struct Buf(Vec<u8>);

impl Buf {
    fn pos(&self) -> u64 {
        self.0.len() as u64
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn zeros(&mut self, n: u64) {
        self.0.resize(self.0.len() + n as usize, 0);
    }
    fn align(&mut self, a: u64) {
        let to = align(self.pos(), a);
        self.zeros(to - self.pos());
    }
    fn pad_to(&mut self, off: u64) {
        debug_assert!(off >= self.pos());
        self.zeros(off.saturating_sub(self.pos()));
    }
    fn cstr(&mut self, s: &str) -> u64 {
        let at = self.pos();
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        at
    }
    fn set_u64(&mut self, at: u64, v: u64) {
        self.0[at as usize..at as usize + 8].copy_from_slice(&v.to_le_bytes());
    }
}

/// A sink that knows its position, so each structure can be checked to land where the header
/// said it would.
struct Out<'a, W: Write> {
    w: &'a mut W,
    pos: u64,
}

impl<W: Write> Out<'_, W> {
    fn put(&mut self, b: &[u8]) -> io::Result<()> {
        self.w.write_all(b)?;
        self.pos += b.len() as u64;
        Ok(())
    }
    fn pad_to(&mut self, off: u64) -> io::Result<()> {
        if off < self.pos {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("writer layout bug: at {:#x}, planned {:#x}", self.pos, off),
            ));
        }
        const ZEROS: [u8; 64] = [0; 64];
        while self.pos < off {
            let n = (off - self.pos).min(64) as usize;
            self.put(&ZEROS[..n])?;
        }
        Ok(())
    }
}

fn file_header(b: &mut Buf, format: &[u8; 4], sections: usize) {
    b.0.extend_from_slice(b"HPCTOOLKIT");
    b.0.extend_from_slice(format);
    b.u8(4);
    b.u8(0);
    b.zeros(16 * sections as u64);
}

// ---------------------------------------------------------------------------------------------
// meta.db

impl SynthDb {
    /// meta.db, laid out like hpcprof: header, General, IdNames, Metrics, Strings, Modules, Files,
    /// Functions, Context (children arrays, then the entry points), footer.
    pub fn meta_bytes(&self) -> Vec<u8> {
        let mut b = Buf::default();
        file_header(&mut b, b"meta", 8);
        let mut sections = [(0u64, 0u64); 8];

        // General properties.
        let gen = b.pos();
        b.zeros(16);
        let title = b.cstr(&self.spec.title);
        let s = &self.spec;
        let description = format!(
            "Synthetic database written by `hpcscope synth`: {} ranks x {} threads, {} contexts, \
             call depth up to {}, {} metrics, {} trace samples per line, seed {}.",
            s.ranks,
            s.threads,
            self.nodes.len() - 1,
            s.depth,
            s.metrics,
            s.samples,
            s.seed
        );
        let desc = b.cstr(&description);
        b.set_u64(gen, title);
        b.set_u64(gen + 8, desc);
        sections[0] = (b.pos() - gen, gen);
        b.align(8);

        // Identifier names.
        let idn = b.pos();
        b.u64(0);
        b.u8(ID_NAMES.len() as u8);
        b.u8(0);
        let names: Vec<u64> = ID_NAMES.iter().map(|n| b.cstr(n)).collect();
        b.align(8);
        let pp = b.pos();
        for p in names {
            b.u64(p);
        }
        b.set_u64(idn, pp);
        sections[1] = (b.pos() - idn, idn);
        b.align(8);

        // Performance metrics.
        let met = b.pos();
        b.zeros(0x1b);
        let scope_names: Vec<u64> = SCOPES.iter().map(|s| b.cstr(s.0)).collect();
        b.align(8);
        let scopes = b.pos();
        for (i, s) in SCOPES.iter().enumerate() {
            b.u64(scope_names[i]);
            b.u8(s.1);
            b.u8(s.2);
            b.zeros(6);
        }
        let mut descs = Vec::new();
        for (m, name) in self.metric_names.iter().enumerate() {
            let insts = b.pos();
            for s in 0..SCOPES.len() {
                b.u64(scopes + 16 * s as u64);
                b.u16(Self::prop_metric_id(m, s));
                b.zeros(6);
            }
            let formulas: Vec<u64> = ["1", "$$", "($$^2)"].iter().map(|f| b.cstr(f)).collect();
            b.align(8);
            let sums = b.pos();
            for s in 0..SCOPES.len() {
                for (stat, &(formula, combine)) in STATS.iter().enumerate() {
                    let fi = match formula {
                        "1" => 0,
                        "$$" => 1,
                        _ => 2,
                    };
                    b.u64(scopes + 16 * s as u64);
                    b.u64(formulas[fi]);
                    b.u8(combine);
                    b.u8(0);
                    b.u16(Self::stat_metric_id(m, stat, s));
                    b.zeros(4);
                }
            }
            let pname = b.cstr(name);
            b.align(8);
            descs.push((pname, insts, sums));
        }
        let table = b.pos();
        for (pname, insts, sums) in descs {
            b.u64(pname);
            b.u64(insts);
            b.u64(sums);
            b.u16(SCOPES.len() as u16);
            b.u16((SCOPES.len() * STATS.len()) as u16);
            b.zeros(4);
        }
        let end = b.pos();
        b.0[met as usize..met as usize + 8].copy_from_slice(&table.to_le_bytes());
        b.0[met as usize + 8..met as usize + 12]
            .copy_from_slice(&(self.metric_names.len() as u32).to_le_bytes());
        b.0[met as usize + 12] = 32;
        b.0[met as usize + 13] = 16;
        b.0[met as usize + 14] = 24;
        b.set_u64(met + 0x10, scopes);
        b.0[met as usize + 0x18..met as usize + 0x1a]
            .copy_from_slice(&(SCOPES.len() as u16).to_le_bytes());
        b.0[met as usize + 0x1a] = 16;
        sections[2] = (end - met, met);

        // Common string table.
        let strings = b.pos();
        let entry_names: Vec<u64> = ["unknown entry", "main thread", "application thread"]
            .iter()
            .map(|s| b.cstr(s))
            .collect();
        let module_names: Vec<u64> = self.modules.iter().map(|m| b.cstr(m)).collect();
        let file_names: Vec<u64> = self.files.iter().map(|f| b.cstr(f)).collect();
        let func_names: Vec<u64> = self.functions.iter().map(|f| b.cstr(&f.name)).collect();
        sections[4] = (b.pos() - strings, strings);
        b.align(8);

        // Load modules.
        let lm = b.pos();
        let lm_table = lm + 0x10;
        b.u64(lm_table);
        b.u32(self.modules.len() as u32);
        b.u16(16);
        b.zeros(2);
        for p in &module_names {
            b.u32(0);
            b.u32(0);
            b.u64(*p);
        }
        sections[5] = (b.pos() - lm, lm);

        // Source files ("copied" stays 0: no src/ copies are written).
        let sf = b.pos();
        let sf_table = sf + 0x10;
        b.u64(sf_table);
        b.u32(self.files.len() as u32);
        b.u16(16);
        b.zeros(2);
        for p in &file_names {
            b.u32(0);
            b.u32(0);
            b.u64(*p);
        }
        sections[6] = (b.pos() - sf, sf);

        // Functions.
        let fs = b.pos();
        let fs_table = fs + 0x10;
        b.u64(fs_table);
        b.u32(self.functions.len() as u32);
        b.u16(40);
        b.zeros(2);
        for (i, f) in self.functions.iter().enumerate() {
            b.u64(func_names[i]);
            b.u64(f.module.map_or(0, |m| lm_table + 16 * m as u64));
            b.u64(if f.module.is_some() { f.offset } else { 0 });
            b.u64(f.file.map_or(0, |x| sf_table + 16 * x as u64));
            b.u32(if f.file.is_some() { f.line } else { 0 });
            b.u32(0);
        }
        sections[7] = (b.pos() - fs, fs);

        // Context tree: children arrays in preorder of their parents, then the entry points.
        let ct = b.pos();
        let n = self.nodes.len();
        let mut cursor = ct + 0x10;
        let mut array_of = vec![(0u64, 0u64); n];
        for i in 1..n {
            let mut size = 0;
            let mut c = i + 1;
            while c < self.subtree_end[i] as usize {
                size += self.nodes[c].record_len();
                c = self.subtree_end[c] as usize;
            }
            if size > 0 {
                array_of[i] = (size, cursor);
                cursor += size;
            }
        }
        let entries = cursor;
        b.u64(entries);
        let n_entries = self.nodes.iter().filter(|x| x.entry.is_some()).count();
        b.u16(n_entries as u16);
        b.u8(32);
        b.zeros(5);
        for i in 1..n {
            if array_of[i].0 == 0 {
                continue;
            }
            debug_assert_eq!(b.pos(), array_of[i].1);
            let mut c = i + 1;
            while c < self.subtree_end[i] as usize {
                let x = &self.nodes[c];
                let (sz, p) = array_of[c];
                b.u64(sz);
                b.u64(p);
                b.u32(x.ctx_id);
                b.u8(x.flags());
                b.u8(x.relation);
                b.u8(x.lexical_type);
                b.u8(x.flex_words());
                b.u16(x.propagate as u16);
                b.zeros(6);
                if let Some(f) = x.function {
                    b.u64(fs_table + 40 * f as u64);
                }
                if let Some(f) = x.file {
                    b.u64(sf_table + 16 * f as u64);
                    b.u32(x.line);
                    b.u32(0);
                }
                if let Some(m) = x.module {
                    b.u64(lm_table + 16 * m as u64);
                    b.u64(x.offset);
                }
                c = self.subtree_end[c] as usize;
            }
        }
        debug_assert_eq!(b.pos(), entries);
        let mut c = 1;
        while c < n {
            let x = &self.nodes[c];
            let kind = x.entry.unwrap_or(ENTRY_UNKNOWN);
            let (sz, p) = array_of[c];
            b.u64(sz);
            b.u64(p);
            b.u32(x.ctx_id);
            b.u16(kind);
            b.zeros(2);
            b.u64(entry_names[(kind as usize).min(2)]);
            c = self.subtree_end[c] as usize;
        }
        sections[3] = (b.pos() - ct, ct);
        b.align(8);
        b.0.extend_from_slice(b"_meta.db");
        for (i, (sz, p)) in sections.iter().enumerate() {
            b.set_u64(0x10 + 16 * i as u64, *sz);
            b.set_u64(0x18 + 16 * i as u64, *p);
        }
        b.0
    }
}

// ---------------------------------------------------------------------------------------------
// profile.db, cct.db, trace.db (streamed)

/// Where a sparse block lands: values start, index start, end.
#[derive(Clone, Copy, Debug, Default)]
struct Block {
    values: u64,
    index: u64,
    end: u64,
}

/// Profile-major block: 10-byte (metric, value) pairs, then 12-byte (ctx, start) indices.
fn prof_block(cursor: u64, n_values: u64, n_ctxs: u64) -> Block {
    let values = align(cursor, 4);
    let index = align(values + 10 * n_values, 4);
    Block {
        values,
        index,
        end: index + 12 * n_ctxs,
    }
}

/// Context-major block: 12-byte (profile, value) pairs, then 10-byte (metric, start) indices.
fn ctx_block(cursor: u64, n_values: u64, n_metrics: u64) -> Block {
    let values = align(cursor, 4);
    let index = values + 12 * n_values;
    Block {
        values,
        index,
        end: index + 10 * n_metrics,
    }
}

/// Bytes written per file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteReport {
    pub files: Vec<(String, u64)>,
}

impl WriteReport {
    pub fn total(&self) -> u64 {
        self.files.iter().map(|f| f.1).sum()
    }
}

/// Default memory budget for one chunk of context-major values while writing cct.db.
pub const CCT_CHUNK_BYTES: u64 = 64 << 20;

impl SynthDb {
    pub fn write_meta<W: Write>(&self, w: &mut W) -> io::Result<u64> {
        let bytes = self.meta_bytes();
        w.write_all(&bytes)?;
        Ok(bytes.len() as u64)
    }

    pub fn write_profile<W: Write>(&self, st: &SynthStats, w: &mut W) -> io::Result<u64> {
        let p = self.profiles() as u64;
        let k = self.slots();
        let mut head = Buf::default();
        file_header(&mut head, b"prof", 2);
        let infos = 0x30u64;
        let infos_len = 0x10 + 48 * (p + 1);
        let tuples = align(infos + infos_len, 8);
        let tuple_lens: Vec<u64> = (1..=p as u32)
            .map(|i| 8 + 16 * self.id_tuple(i).len() as u64)
            .collect();
        let tuples_len: u64 = tuple_lens.iter().sum();
        let mut blocks = Vec::with_capacity(p as usize + 1);
        let mut cursor = tuples + tuples_len;
        for i in 0..=p as usize {
            let bl = prof_block(cursor, st.prof_values[i], st.prof_ctxs[i] as u64);
            cursor = bl.end;
            blocks.push(bl);
        }
        let footer = align(cursor, 8);
        head.set_u64(0x10, infos_len);
        head.set_u64(0x18, infos);
        head.set_u64(0x20, tuples_len);
        head.set_u64(0x28, tuples);
        head.u64(infos + 0x10);
        head.u32(p as u32 + 1);
        head.u8(48);
        head.zeros(3);
        let mut tuple_at = tuples;
        for i in 0..=p as usize {
            let bl = blocks[i];
            head.u64(st.prof_values[i]);
            head.u64(bl.values);
            head.u32(st.prof_ctxs[i]);
            head.u32(0);
            head.u64(bl.index);
            if i == 0 {
                head.u64(0);
                head.u32(1);
            } else {
                head.u64(tuple_at);
                tuple_at += tuple_lens[i - 1];
                head.u32(0);
            }
            head.u32(0);
        }
        head.pad_to(tuples);
        for i in 1..=p as u32 {
            let ids = self.id_tuple(i);
            head.u16(ids.len() as u16);
            head.zeros(6);
            for (kind, logical, physical, is_phys) in ids {
                head.u8(kind);
                head.u8(0);
                head.u16(is_phys as u16);
                head.u32(logical);
                head.u64(physical);
            }
        }
        let mut out = Out { w, pos: 0 };
        out.put(&head.0)?;

        let mut vals = Vec::new();
        let mut idx = Vec::new();
        let emit = |out: &mut Out<W>, bl: Block, vals: &mut Vec<u8>, idx: &mut Vec<u8>| {
            out.pad_to(bl.values)?;
            out.put(vals)?;
            out.pad_to(bl.index)?;
            out.put(idx)?;
            if out.pos != bl.end {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "writer layout bug: profile block size differs from the counting pass",
                ));
            }
            vals.clear();
            idx.clear();
            Ok(())
        };
        // Summary profile: statistics of every (metric, scope) in stat-id order.
        let mut n_vals = 0u64;
        for ctx in 0..self.nodes.len() {
            let node = self.node_of_ctx[ctx] as usize;
            let start = n_vals;
            for m in 0..self.metrics() {
                for stat in 0..STATS.len() {
                    for s in 0..3 {
                        let v = st.stat(node * k + 3 * m + s, stat);
                        if v != 0.0 {
                            vals.extend_from_slice(&Self::stat_metric_id(m, stat, s).to_le_bytes());
                            vals.extend_from_slice(&v.to_le_bytes());
                            n_vals += 1;
                        }
                    }
                }
            }
            if n_vals > start {
                idx.extend_from_slice(&(ctx as u32).to_le_bytes());
                idx.extend_from_slice(&start.to_le_bytes());
            }
        }
        emit(&mut out, blocks[0], &mut vals, &mut idx)?;
        let mut buf = Vec::new();
        for prof in 1..=p as u32 {
            self.fill_profile(prof, &mut buf);
            let (a, z) = self.range(prof);
            let mut n_vals = 0u64;
            for ctx in 0..self.nodes.len() {
                let node = self.node_of_ctx[ctx];
                if node != 0 && (node < a || node >= z) {
                    continue;
                }
                let start = n_vals;
                let base = node as usize * k;
                for (j, &v) in buf[base..base + k].iter().enumerate() {
                    if v != 0.0 {
                        vals.extend_from_slice(&(j as u16).to_le_bytes());
                        vals.extend_from_slice(&v.to_le_bytes());
                        n_vals += 1;
                    }
                }
                if n_vals > start {
                    idx.extend_from_slice(&(ctx as u32).to_le_bytes());
                    idx.extend_from_slice(&start.to_le_bytes());
                }
            }
            emit(&mut out, blocks[prof as usize], &mut vals, &mut idx)?;
        }
        out.pad_to(footer)?;
        out.put(b"_prof.db")?;
        Ok(out.pos)
    }

    /// cct.db with at most about `chunk_bytes` of values gathered in memory at a time.
    pub fn write_cct<W: Write>(
        &self,
        st: &SynthStats,
        w: &mut W,
        chunk_bytes: u64,
    ) -> io::Result<u64> {
        let n = self.nodes.len();
        let k = self.slots();
        let mut head = Buf::default();
        file_header(&mut head, b"ctxt", 1);
        let infos = 0x20u64;
        let infos_len = 0x10 + 32 * n as u64;
        head.set_u64(0x10, infos_len);
        head.set_u64(0x18, infos);
        head.u64(infos + 0x10);
        head.u32(n as u32);
        head.u8(32);
        head.zeros(3);
        let mut cursor = infos + infos_len;
        let mut blocks = Vec::with_capacity(n);
        for ctx in 0..n {
            let (nv, nm) = st.ctx_counts(self.node_of_ctx[ctx] as usize);
            let bl = ctx_block(cursor, nv, nm as u64);
            head.u64(nv);
            head.u64(bl.values);
            head.u16(nm);
            head.zeros(6);
            head.u64(bl.index);
            cursor = bl.end;
            blocks.push(bl);
        }
        let footer = align(cursor, 8);
        let mut out = Out { w, pos: 0 };
        out.put(&head.0)?;
        drop(head);

        let p = self.profiles();
        let mut buf = Vec::new();
        let mut prof_of: Vec<u32> = Vec::new();
        let mut value_of: Vec<f64> = Vec::new();
        let mut fill: Vec<u64> = Vec::new();
        let mut bytes = Vec::new();
        let mut a = 0usize;
        while a < n {
            // Contexts [a, z) whose values fit the budget (at least one).
            let mut z = a;
            let mut total = 0u64;
            while z < n {
                let (nv, _) = st.ctx_counts(self.node_of_ctx[z] as usize);
                if z > a && (total + nv) * 12 > chunk_bytes {
                    break;
                }
                total += nv;
                z += 1;
            }
            // Slot starts: (ctx, metric, scope) runs in metric-id order, filled profile by profile
            // so each run comes out sorted by profile index.
            fill.clear();
            let mut at = 0u64;
            for ctx in a..z {
                let node = self.node_of_ctx[ctx] as usize;
                for j in 0..k {
                    fill.push(at);
                    at += st.count[node * k + j] as u64;
                }
            }
            prof_of.clear();
            prof_of.resize(total as usize, 0);
            value_of.clear();
            value_of.resize(total as usize, 0.0);
            if total > 0 {
                for prof in 1..=p {
                    let (ra, rz) = self.range(prof);
                    self.fill_profile(prof, &mut buf);
                    for ctx in a..z {
                        let node = self.node_of_ctx[ctx];
                        if node != 0 && (node < ra || node >= rz) {
                            continue;
                        }
                        let base = node as usize * k;
                        for j in 0..k {
                            let v = buf[base + j];
                            if v != 0.0 {
                                let slot = &mut fill[(ctx - a) * k + j];
                                prof_of[*slot as usize] = prof;
                                value_of[*slot as usize] = v;
                                *slot += 1;
                            }
                        }
                    }
                }
            }
            let mut at = 0usize;
            for ctx in a..z {
                let node = self.node_of_ctx[ctx] as usize;
                let bl = blocks[ctx];
                bytes.clear();
                let (nv, _) = st.ctx_counts(node);
                for i in at..at + nv as usize {
                    bytes.extend_from_slice(&prof_of[i].to_le_bytes());
                    bytes.extend_from_slice(&value_of[i].to_le_bytes());
                }
                let mut start = 0u64;
                for j in 0..k {
                    let c = st.count[node * k + j] as u64;
                    if c > 0 {
                        bytes.extend_from_slice(&(j as u16).to_le_bytes());
                        bytes.extend_from_slice(&start.to_le_bytes());
                        start += c;
                    }
                }
                at += nv as usize;
                out.pad_to(bl.values)?;
                out.put(&bytes)?;
                if out.pos != bl.end {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "writer layout bug: context block size differs from the counting pass",
                    ));
                }
            }
            a = z;
        }
        out.pad_to(footer)?;
        out.put(b"__ctx.db")?;
        Ok(out.pos)
    }

    /// trace.db (nothing written and `Ok(0)` when the spec asks for no samples).
    pub fn write_trace<W: Write>(&self, w: &mut W) -> io::Result<u64> {
        let s = self.spec.samples;
        if s == 0 {
            return Ok(0);
        }
        let p = self.profiles() as u64;
        let mut head = Buf::default();
        file_header(&mut head, b"trce", 1);
        let sec = 0x20u64;
        let sec_len = 0x20 + 24 * p;
        head.set_u64(0x10, sec_len);
        head.set_u64(0x18, sec);
        let min = (1..=p as u32)
            .map(|i| self.timestamp(i, 0))
            .min()
            .unwrap_or(0);
        let max = (1..=p as u32)
            .map(|i| self.timestamp(i, s - 1))
            .max()
            .unwrap_or(0);
        head.u64(sec + 0x20);
        head.u32(p as u32);
        head.u8(24);
        head.zeros(3);
        head.u64(min);
        head.u64(max);
        let mut cursor = align(sec + sec_len, 8);
        let mut starts = Vec::with_capacity(p as usize);
        for i in 1..=p as u32 {
            let start = align(cursor, 8);
            head.u32(i);
            head.u32(0);
            head.u64(start);
            head.u64(start + 12 * s);
            cursor = start + 12 * s;
            starts.push(start);
        }
        let footer = align(cursor, 8);
        let mut out = Out { w, pos: 0 };
        out.put(&head.0)?;
        let mut buf = Vec::new();
        let mut bytes = Vec::with_capacity(12 * 8192);
        for i in 1..=p as u32 {
            out.pad_to(starts[i as usize - 1])?;
            let mut tg = TraceGen::new(self, i, &mut buf);
            for j in 0..s {
                let (t, c) = tg.sample(self, i, j);
                bytes.extend_from_slice(&t.to_le_bytes());
                bytes.extend_from_slice(&c.to_le_bytes());
                if bytes.len() >= 12 * 8192 {
                    out.put(&bytes)?;
                    bytes.clear();
                }
            }
            out.put(&bytes)?;
            bytes.clear();
        }
        out.pad_to(footer)?;
        out.put(b"trace.db")?;
        Ok(out.pos)
    }

    /// Writes the database into `dir` (created if missing) through buffered file writers.
    pub fn write_dir(&self, dir: &std::path::Path) -> io::Result<WriteReport> {
        std::fs::create_dir_all(dir)?;
        let create = |name: &str| -> io::Result<io::BufWriter<std::fs::File>> {
            Ok(io::BufWriter::with_capacity(
                1 << 20,
                std::fs::File::create(dir.join(name))?,
            ))
        };
        let mut report = WriteReport::default();
        let mut w = create("meta.db")?;
        report
            .files
            .push(("meta.db".into(), self.write_meta(&mut w)?));
        w.flush()?;
        let st = self.stats();
        let mut w = create("profile.db")?;
        report
            .files
            .push(("profile.db".into(), self.write_profile(&st, &mut w)?));
        w.flush()?;
        let mut w = create("cct.db")?;
        report.files.push((
            "cct.db".into(),
            self.write_cct(&st, &mut w, CCT_CHUNK_BYTES)?,
        ));
        w.flush()?;
        drop(st);
        if self.spec.samples > 0 {
            let mut w = create("trace.db")?;
            report
                .files
                .push(("trace.db".into(), self.write_trace(&mut w)?));
            w.flush()?;
        } else {
            let _ = std::fs::remove_file(dir.join("trace.db"));
        }
        Ok(report)
    }

    /// The whole database in memory as (file name, bytes), for small databases.
    pub fn to_files(&self) -> Vec<(String, Vec<u8>)> {
        let st = self.stats();
        let mut out = vec![("meta.db".to_string(), self.meta_bytes())];
        let mut v = Vec::new();
        // Writes into a Vec cannot fail; a layout bug would, and must not pass silently.
        self.write_profile(&st, &mut v)
            .expect("profile.db layout matches its counting pass");
        out.push(("profile.db".to_string(), v));
        let mut v = Vec::new();
        self.write_cct(&st, &mut v, CCT_CHUNK_BYTES)
            .expect("cct.db layout matches its counting pass");
        out.push(("cct.db".to_string(), v));
        if self.spec.samples > 0 {
            let mut v = Vec::new();
            self.write_trace(&mut v)
                .expect("trace.db layout matches its plan");
            out.push(("trace.db".to_string(), v));
        }
        out
    }
}

/// The spec of the built-in example the page shows at start.
pub fn example_spec() -> SynthSpec {
    SynthSpec {
        title: "hpcscope example".into(),
        ranks: 4,
        threads: 2,
        contexts: 200,
        depth: 8,
        metrics: 3,
        samples: 3000,
        seed: 2024,
        unknown_entry: false,
    }
}

/// The built-in example database: 4 ranks x 2 threads, ~200 contexts, CPUTIME and two counters,
/// 3000 trace samples per line.
pub fn example_files() -> Vec<(String, Vec<u8>)> {
    SynthDb::new(&example_spec())
        .expect("the example spec is valid")
        .to_files()
}
