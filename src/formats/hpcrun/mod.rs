//! hpcrun measurement folders as one dataset: every `.hpcrun` profile (one per thread or GPU
//! stream) is read, their calling-context trees are merged by call path, frames are named through
//! `structs/*.hpcstruct` when present (procedure, inlined code, loop, line) or else shown as
//! load module + offset, and each `.hpctrace` becomes the trace line of its profile. Values are the
//! files' point values times the metric period, as hpcprof's `Hpcrun4` source computes them.

pub mod hpcstruct;
pub mod kernel_symbols;
pub mod probe;
pub mod profile;
pub mod trace;

use crate::error::{Error, ErrorKind, Result, Warning};
use crate::formats::{DatasetGroup, FileKind, Format, InputFile, Probe};
use crate::model::{
    Cct, CctBuilder, Combine, Dataset, EntryKind, FileEntry, Frame, Function, Identifier, LazyData,
    LexicalType, Metric, MetricScope, Module, NodeKind, ProfileInfo, Relation, ScopeKind,
    SourceFile, SparseValues, SummaryStat, TraceInfo, TraceLineInfo, TraceSample,
};
use hpcstruct::{StructKind, StructModule};
use profile::{ProfileLayout, RunProfile};
use std::collections::HashMap;
use trace::RunTrace;

/// Identifier kind names hpcrun uses when a file carries no dictionary (`IDTUPLE_*`).
const DEFAULT_ID_NAMES: [&str; 8] = [
    "SUMMARY",
    "NODE",
    "RANK",
    "THREAD",
    "GPUDEVICE",
    "GPUCONTEXT",
    "GPUSTREAM",
    "CORE",
];

/// Placeholder "addresses" in load module 0 are 8 ASCII characters (HPCToolkit placeholders.h).
const fn tag(s: &[u8; 8]) -> u64 {
    u64::from_be_bytes(*s)
}
const PH_ROOT_PRIMARY: u64 = tag(b"^Primary");
const PH_ROOT_PARTIAL: u64 = tag(b"^Partial");
const PH_UNNORMALIZED: u64 = tag(b"*Unnorm ");
const PH_FENCE_MAIN: u64 = tag(b"| Main  ");
const PH_FENCE_THREAD: u64 = tag(b"| Thread");
const PH_NO_ACTIVITY: u64 = tag(b"NoActvty");

/// Display names of placeholders, as HPCToolkit's placeholders.c gives them.
fn placeholder_name(ip: u64) -> String {
    let known: &[(&[u8; 8], &str)] = &[
        (b"OMP Idle", "<omp idle>"),
        (b"OMPOvrHd", "<omp overhead>"),
        (b"OMPBarrW", "<omp barrier wait>"),
        (b"OMPTaskW", "<omp task wait>"),
        (b"OMPMtexW", "<omp mutex wait>"),
        (b"OMP Work", "<omp work>"),
        (b"OMPETask", "<omp expl task>"),
        (b"OMPITask", "<omp impl task>"),
        (b"OMTAlloc", "<omp tgt alloc>"),
        (b"OMTDelte", "<omp tgt delete>"),
        (b"OMTCpIn ", "<omp tgt copyin>"),
        (b"OMTCpOut", "<omp tgt copyout>"),
        (b"OMTKernl", "<omp tgt kernel>"),
        (b"OMPUresv", "<omp region unresolved>"),
        (b"GPUCp?2?", "<gpu copy>"),
        (b"GPUCpH2D", "<gpu copyin>"),
        (b"GPUCpD2H", "<gpu copyout>"),
        (b"GPUAlloc", "<gpu alloc>"),
        (b"GPUDelte", "<gpu delete>"),
        (b"GPUKernl", "<gpu kernel>"),
        (b"GPUMemst", "<gpu memset>"),
        (b"GPU Sync", "<gpu sync>"),
        (b"GPUTrace", "<gpu kernel>"),
        (b"*Unnorm ", "<unknown>"),
        (b"^Partial", "<partial call paths>"),
    ];
    if let Some((_, n)) = known.iter().find(|(t, _)| tag(t) == ip) {
        return (*n).to_string();
    }
    let bytes = ip.to_be_bytes();
    if bytes.iter().all(|b| (0x20..0x7f).contains(b)) {
        format!("<{}>", String::from_utf8_lossy(&bytes).trim())
    } else {
        format!("<placeholder {ip:#x}>")
    }
}

/// Reserved load module ids of outlined GPU range trees (hpcprof's hpcrun4.cpp:
/// `HPCRUN_GPU_ROOT_NODE` 65533, `HPCRUN_GPU_RANGE_NODE` 65532, `HPCRUN_GPU_CONTEXT_NODE` 65531).
fn gpu_range_node(lm_id: u16) -> Option<&'static str> {
    match lm_id {
        65533 => Some("range root"),
        65532 => Some("range"),
        65531 => Some("context"),
        _ => None,
    }
}

/// What a merged node stands for; siblings with equal keys are one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Entry(u8),
    Func(u32),
    Alien(u32),
    Loop(u32, u32),
    Line(u32, u32),
    Instr(u32, u64),
    /// A node whose load module id the load map does not list.
    Unmapped(u16, u64),
}

/// Builds the merged tree and its name tables.
struct Merger {
    builder: CctBuilder,
    children: HashMap<(u32, Key), u32>,
    modules: Vec<Module>,
    module_ix: HashMap<String, u32>,
    files: Vec<SourceFile>,
    file_ix: HashMap<String, u32>,
    functions: Vec<Function>,
    function_ix: HashMap<(Option<u32>, String, Option<u64>), u32>,
    structs: Vec<StructModule>,
    /// Module index -> struct module index.
    struct_of_module: HashMap<u32, Option<usize>>,
    /// `kernel_symbols/*` files of the folder (path, bytes source), read when a module names one.
    kernel_files: Vec<(String, crate::bytes::Source)>,
    kernel_of_module: HashMap<u32, Option<kernel_symbols::KernelSymbols>>,
    warnings: Vec<Warning>,
}

impl Merger {
    fn module(&mut self, path: &str) -> u32 {
        if let Some(&i) = self.module_ix.get(path) {
            return i;
        }
        let i = self.modules.len() as u32;
        self.modules.push(Module { path: path.into() });
        self.module_ix.insert(path.into(), i);
        i
    }
    fn file(&mut self, path: &str) -> Option<u32> {
        if path.is_empty() {
            return None;
        }
        if let Some(&i) = self.file_ix.get(path) {
            return Some(i);
        }
        let i = self.files.len() as u32;
        self.files.push(SourceFile { path: path.into() });
        self.file_ix.insert(path.into(), i);
        Some(i)
    }
    fn function(
        &mut self,
        name: &str,
        module: Option<u32>,
        offset: Option<u64>,
        file: Option<u32>,
        line: Option<u32>,
    ) -> u32 {
        let key = (module, name.to_string(), offset);
        if let Some(&i) = self.function_ix.get(&key) {
            return i;
        }
        let i = self.functions.len() as u32;
        self.functions.push(Function {
            name: name.into(),
            module,
            offset,
            file,
            line,
        });
        self.function_ix.insert(key, i);
        i
    }
    fn child(&mut self, parent: u32, key: Key, frame: Frame) -> u32 {
        if let Some(&c) = self.children.get(&(parent, key)) {
            return c;
        }
        let ctx = self.builder.len() as u32;
        let c = self.builder.add(parent, ctx, frame);
        self.children.insert((parent, key), c);
        c
    }
    /// The structure of a load module: exact path, else a relative struct path that ends the
    /// module's path (vdso), else the same file name.
    fn struct_for(&mut self, module: u32) -> Option<usize> {
        if let Some(&s) = self.struct_of_module.get(&module) {
            return s;
        }
        let path = self.modules.get(module as usize)?.path.clone();
        let base = path.rsplit('/').next().unwrap_or(&path);
        let found = self
            .structs
            .iter()
            .position(|s| s.path == path)
            .or_else(|| {
                self.structs.iter().position(|s| {
                    !s.path.is_empty() && !s.path.starts_with('/') && path.ends_with(&s.path)
                })
            })
            .or_else(|| {
                self.structs
                    .iter()
                    .position(|s| s.path.rsplit('/').next() == Some(base))
            });
        self.struct_of_module.insert(module, found);
        found
    }
    /// Kernel symbols for a module whose load-map name is `kernel_symbols/NAME` (hpcrun's perf
    /// support saves the kernel's symbol table there).
    fn kernel_for(&mut self, module: u32) -> Option<&kernel_symbols::KernelSymbols> {
        if !self.kernel_of_module.contains_key(&module) {
            let path = self.modules.get(module as usize)?.path.clone();
            let mut found = None;
            if path.starts_with("kernel_symbols/") || path.contains("/kernel_symbols/") {
                let rel = &path[path.find("kernel_symbols/").unwrap_or(0)..];
                if let Some((fpath, src)) = self
                    .kernel_files
                    .iter()
                    .find(|(p, _)| p.ends_with(&format!("/{rel}")) || p == rel)
                {
                    let parsed = src
                        .bytes(0, src.len(), "kernel symbol table")
                        .and_then(|b| kernel_symbols::parse(&b, fpath));
                    match parsed {
                        Ok((k, bad)) => {
                            if bad > 0 {
                                self.warnings.push(Error::new(
                                    ErrorKind::Invalid,
                                    fpath.clone(),
                                    None,
                                    format!("{bad} malformed kernel symbol lines skipped"),
                                ));
                            }
                            found = Some(k);
                        }
                        Err(e) => self.warnings.push(e),
                    }
                }
            }
            self.kernel_of_module.insert(module, found);
        }
        self.kernel_of_module.get(&module).and_then(|k| k.as_ref())
    }

    /// Adds the frames of address `ip` in `module` under `parent`; returns the innermost node.
    fn address(
        &mut self,
        parent: u32,
        module: u32,
        ip: u64,
        is_call_site: bool,
        unwound: bool,
    ) -> (u32, u32) {
        // Kernel frames are named by the symbol containing the address (as hpcprof does, without
        // the return-address adjustment).
        if let Some((start, name)) = self
            .kernel_for(module)
            .and_then(|k| k.lookup(ip))
            .map(|(a, n)| (a, n.to_string()))
        {
            let f = self.function(&name, Some(module), Some(start), None, None);
            let n = self.child(parent, Key::Func(f), Frame::call(f));
            return (n, n);
        }
        // A call site's address is the return address: the call itself is just before it.
        let lookup_ip = if is_call_site {
            ip.saturating_sub(1)
        } else {
            ip
        };
        let mut chain = match self.struct_for(module) {
            Some(s) => self.structs[s].lookup(lookup_ip),
            None => Vec::new(),
        };
        if chain.is_empty() {
            let frame = Frame {
                kind: NodeKind::Context,
                relation: Relation::Call,
                lexical_type: LexicalType::Instruction,
                function: None,
                file: None,
                line: None,
                module: Some(module),
                offset: Some(ip),
            };
            let n = self.child(parent, Key::Instr(module, ip), frame);
            return (n, n);
        }
        let s = self.struct_for(module).unwrap_or(0);
        let mut node = parent;
        // A context hpcrun did not unwind (a GPU PC sample) hangs directly below the context it
        // was sampled in; when that is already its procedure, it lies inside it (hpcprof
        // reconstructs these paths from the GPU binary's call graph).
        if !unwound && chain.len() > 1 {
            let parent_fn = self.builder.frame(parent).and_then(|f| {
                (f.lexical_type == LexicalType::Function && f.relation == Relation::Call)
                    .then_some(f.function)
                    .flatten()
            });
            let first = self
                .structs
                .get(s)
                .and_then(|m| m.scopes.get(chain[0] as usize));
            if let (Some(pf), Some(first)) = (parent_fn, first) {
                let same = self.functions.get(pf as usize).is_some_and(|f| {
                    f.name == first.name && f.module == Some(module) && f.offset == first.entry
                });
                if first.kind == StructKind::Proc && same {
                    chain.remove(0);
                }
            }
        }
        let mut rel = None;
        for sc in chain {
            let Some(scope) = self
                .structs
                .get(s)
                .and_then(|m| m.scopes.get(sc as usize))
                .cloned()
            else {
                break;
            };
            let file = self.file(&scope.file);
            let line = (scope.line > 0).then_some(scope.line);
            let (key, frame) = match scope.kind {
                StructKind::Proc | StructKind::Alien => {
                    let inlined = scope.kind == StructKind::Alien;
                    let f = self.function(
                        &scope.name,
                        (!inlined).then_some(module),
                        scope.entry,
                        file,
                        line,
                    );
                    let frame = Frame {
                        kind: NodeKind::Context,
                        relation: if inlined {
                            Relation::InlinedCall
                        } else {
                            Relation::Call
                        },
                        lexical_type: LexicalType::Function,
                        function: Some(f),
                        file: None,
                        line: None,
                        module: None,
                        offset: None,
                    };
                    (if inlined { Key::Alien(f) } else { Key::Func(f) }, frame)
                }
                StructKind::Loop => (
                    Key::Loop(module, sc),
                    Frame {
                        kind: NodeKind::Context,
                        relation: Relation::Lexical,
                        lexical_type: LexicalType::Loop,
                        function: None,
                        file,
                        line,
                        module: None,
                        offset: None,
                    },
                ),
                StructKind::Stmt => (
                    Key::Line(file.unwrap_or(u32::MAX), scope.line),
                    Frame {
                        kind: NodeKind::Context,
                        relation: Relation::Lexical,
                        lexical_type: LexicalType::Line,
                        function: None,
                        file,
                        line,
                        module: None,
                        offset: None,
                    },
                ),
            };
            node = self.child(node, key, frame);
            rel.get_or_insert(node);
        }
        (rel.unwrap_or(node), node)
    }
    fn placeholder(&mut self, parent: u32, ip: u64) -> u32 {
        let (key, frame) = match ip {
            PH_FENCE_MAIN => (Key::Entry(0), Frame::entry(EntryKind::MainThread)),
            PH_FENCE_THREAD => (Key::Entry(1), Frame::entry(EntryKind::ApplicationThread)),
            _ => {
                let name = placeholder_name(ip);
                let f = self.function(&name, None, None, None, None);
                (Key::Func(f), Frame::call(f))
            }
        };
        self.child(parent, key, frame)
    }
}

/// Values and traces behind a measurement dataset.
struct HpcrunData {
    /// Point values per (non-summary) profile: (node, metric, value).
    points: Vec<Vec<(u32, u16, f64)>>,
    summary: Option<usize>,
    parent: Vec<u32>,
    /// Whether a node's value also counts in its parent's exclusive ("function") value.
    lexical: Vec<bool>,
    traces: Vec<TraceLine>,
}

struct TraceLine {
    trace: RunTrace,
    /// File context id -> model node, sorted by id.
    ctx_map: Vec<(u32, u32)>,
    /// The records sorted by time, when the profile says hpcrun wrote them out of order
    /// (`trace-disorder` > 0); otherwise records are read from the file on demand.
    sorted: Option<Vec<trace::RunTraceRecord>>,
}

impl TraceLine {
    fn records(&self, start: u64, count: u64) -> Result<Vec<trace::RunTraceRecord>> {
        match &self.sorted {
            Some(v) => {
                let a = (start.min(v.len() as u64)) as usize;
                let b = (start.saturating_add(count).min(v.len() as u64)) as usize;
                Ok(v[a..b].to_vec())
            }
            None => self.trace.records(start, count),
        }
    }
    fn find(&self, time: u64) -> Result<Option<u64>> {
        match &self.sorted {
            Some(v) => Ok((v.partition_point(|r| r.time_ns <= time) as u64).checked_sub(1)),
            None => self.trace.find(time),
        }
    }
}

impl HpcrunData {
    fn propagate(&self, points: &[(u32, u16, f64)]) -> SparseValues {
        let n = self.parent.len();
        let mut by_metric: HashMap<u16, Vec<(u32, f64)>> = HashMap::new();
        for &(node, m, v) in points {
            by_metric.entry(m).or_default().push((node, v));
        }
        let mut triples = Vec::new();
        let mut metrics: Vec<_> = by_metric.into_iter().collect();
        metrics.sort_by_key(|(m, _)| *m);
        for (m, pts) in metrics {
            let mut point = vec![0.0; n];
            for (node, v) in pts {
                if let Some(p) = point.get_mut(node as usize) {
                    *p += v;
                }
            }
            let mut incl = point.clone();
            let mut excl = point.clone();
            // Preorder: every parent precedes its children, so one reverse sweep propagates.
            for i in (1..n).rev() {
                let p = self.parent[i] as usize;
                if p < n {
                    incl[p] += incl[i];
                    if self.lexical[i] {
                        excl[p] += excl[i];
                    }
                }
            }
            let base = m * 3;
            for i in 0..n {
                if point[i] != 0.0 {
                    triples.push((i as u32, base, point[i]));
                }
                if excl[i] != 0.0 {
                    triples.push((i as u32, base + 1, excl[i]));
                }
                if incl[i] != 0.0 {
                    triples.push((i as u32, base + 2, incl[i]));
                }
            }
        }
        SparseValues::from_triples(triples)
    }
}

impl LazyData for HpcrunData {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        if Some(prof) == self.summary {
            let all: Vec<_> = self.points.iter().flatten().copied().collect();
            return Ok(self.propagate(&all));
        }
        match self.points.get(prof) {
            Some(p) => Ok(self.propagate(p)),
            None => Err(Error::invalid("", 0, format!("no profile {prof}"))),
        }
    }
    fn trace_samples(&self, line: usize, start: u64, count: u64) -> Result<Vec<TraceSample>> {
        let Some(l) = self.traces.get(line) else {
            return Ok(Vec::new());
        };
        Ok(l.records(start, count)?
            .into_iter()
            .map(|r| TraceSample {
                time: r.time_ns,
                node: l
                    .ctx_map
                    .binary_search_by_key(&r.ctx_id, |&(c, _)| c)
                    .map(|i| l.ctx_map[i].1)
                    .unwrap_or(0),
            })
            .collect())
    }
    fn trace_find(&self, line: usize, time: u64) -> Result<Option<u64>> {
        match self.traces.get(line) {
            Some(l) => l.find(time),
            None => Ok(None),
        }
    }
}

/// Unit shown for a metric, from the suffix hpcrun puts in its name.
fn unit_of(name: &str) -> &'static str {
    if name.ends_with("(sec)") {
        "s"
    } else if name.ends_with("(usec)") {
        "us"
    } else if name.ends_with("(ns)") {
        "ns"
    } else if name.ends_with("(B)") {
        "B"
    } else {
        ""
    }
}

fn stem(path: &str) -> &str {
    let base = path.rsplit('/').next().unwrap_or(path);
    base.rsplit_once('.').map(|(s, _)| s).unwrap_or(base)
}

/// Opens a measurement folder.
pub fn open(group: &DatasetGroup) -> Result<Dataset> {
    let mut warnings: Vec<Warning> = Vec::new();
    let mut files = Vec::new();
    for (_, f) in &group.files {
        files.push(FileEntry {
            path: f.path.clone(),
            size: f.source.len(),
        });
    }

    // Profiles: a broken file is reported and left out; the dataset fails only if none is left.
    let mut profiles: Vec<(String, RunProfile)> = Vec::new();
    let mut first_err = None;
    for f in group.files_of(PROFILE) {
        match profile::read(&f.source) {
            Ok(p) => {
                warnings.extend(p.warnings.iter().cloned());
                profiles.push((f.path.clone(), p));
            }
            Err(e) => {
                warnings.push(e.clone());
                first_err.get_or_insert(e);
            }
        }
    }
    if profiles.is_empty() {
        return Err(first_err.unwrap_or_else(|| {
            Error::new(
                ErrorKind::Mismatch,
                group.root.clone(),
                None,
                "measurement folder without a readable .hpcrun profile",
            )
        }));
    }

    let mut structs = Vec::new();
    for f in group.files_of(HPCSTRUCT) {
        let text = f
            .source
            .bytes(0, f.source.len(), "hpcstruct")
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        match text.and_then(|t| hpcstruct::parse(&t, &f.path)) {
            Ok(m) => structs.extend(m),
            Err(e) => warnings.push(e),
        }
    }
    let n_structs = structs.len();

    let mut m = Merger {
        builder: CctBuilder::new(0),
        children: HashMap::new(),
        modules: Vec::new(),
        module_ix: HashMap::new(),
        files: Vec::new(),
        file_ix: HashMap::new(),
        functions: Vec::new(),
        function_ix: HashMap::new(),
        structs,
        struct_of_module: HashMap::new(),
        kernel_files: group
            .files
            .iter()
            .filter(|(_, f)| f.path.contains("kernel_symbols/"))
            .map(|(_, f)| (f.path.clone(), f.source.clone()))
            .collect(),
        kernel_of_module: HashMap::new(),
        warnings: Vec::new(),
    };

    // Metrics: the union by name of every file's raw (non-formula) metrics.
    let mut metric_names: Vec<String> = Vec::new();
    let mut metric_ix: HashMap<String, u16> = HashMap::new();
    let mut n_derived = 0usize;
    for (_, p) in &profiles {
        for e in &p.epochs {
            for d in &e.metrics {
                if !d.formula.is_empty() {
                    n_derived += 1;
                    continue;
                }
                if !metric_ix.contains_key(&d.name) {
                    if metric_names.len() >= (u16::MAX / 3) as usize {
                        return Err(Error::too_large(
                            &group.root,
                            0,
                            format!("more than {} metrics", u16::MAX / 3),
                        ));
                    }
                    metric_ix.insert(d.name.clone(), metric_names.len() as u16);
                    metric_names.push(d.name.clone());
                }
            }
        }
    }

    // Merge every profile's tree; remember file node -> builder node per profile.
    let mut unmapped_lm = 0usize;
    let mut dangling = 0usize;
    let mut node_maps: Vec<HashMap<u32, (u32, u32)>> = Vec::new();
    let mut raw_points: Vec<Vec<(u32, u16, f64)>> = Vec::new();
    for (_, p) in &profiles {
        let mut ctx_to_builder: HashMap<u32, (u32, u32)> = HashMap::new();
        let mut points = Vec::new();
        for e in &p.epochs {
            let lm_to_module: HashMap<u16, u32> = e
                .loadmap
                .iter()
                .map(|l| (l.id, m.module(&l.name)))
                .collect();
            let index: HashMap<u32, usize> =
                e.nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
            let mut has_children = vec![false; e.nodes.len()];
            for n in &e.nodes {
                if let Some(&pi) = index.get(&n.parent) {
                    if let Some(h) = has_children.get_mut(pi) {
                        *h = true;
                    }
                }
            }
            let mut mapped: Vec<Option<u32>> = vec![None; e.nodes.len()];
            // The call (relation) context of each node: its procedure, where hpcprof puts the
            // values of "move to procedure" metrics (GPU kernel totals) and call-trace samples.
            let mut rel_of: Vec<u32> = vec![0; e.nodes.len()];
            let mut on_path = vec![false; e.nodes.len()];
            let mut path = Vec::new();
            for start in 0..e.nodes.len() {
                // Collect the unmapped ancestors, then map them outermost first (no recursion:
                // call paths can be 100,000 deep; a parent cycle stops at a node already on the
                // path and is reported as a dangling parent).
                let mut cur = start;
                loop {
                    if mapped[cur].is_some() || on_path[cur] {
                        break;
                    }
                    on_path[cur] = true;
                    path.push(cur);
                    match index.get(&e.nodes[cur].parent) {
                        Some(&pi) => cur = pi,
                        None => break,
                    }
                }
                while let Some(i) = path.pop() {
                    on_path[i] = false;
                    let n = e.nodes[i];
                    let parent_node = if n.parent == 0 {
                        None
                    } else {
                        match index.get(&n.parent).and_then(|&pi| mapped[pi]) {
                            Some(pn) => Some(pn),
                            None => {
                                dangling += 1;
                                None
                            }
                        }
                    };
                    let is_root = n.parent == 0;
                    let under = parent_node.unwrap_or(0);
                    let (rel, merged) = if n.lm_id == 0 {
                        let ip = n.ip;
                        let v2_root = p.layout == ProfileLayout::V2 && is_root;
                        let n = if (v2_root && ip == 0) || ip == PH_ROOT_PRIMARY {
                            0
                        } else if ip == PH_NO_ACTIVITY {
                            under
                        } else if (v2_root && ip == 1) || ip == PH_ROOT_PARTIAL {
                            m.placeholder(under, PH_ROOT_PARTIAL)
                        } else if ip == PH_UNNORMALIZED {
                            m.placeholder(under, PH_UNNORMALIZED)
                        } else {
                            m.placeholder(under, ip)
                        };
                        (n, n)
                    } else if let Some(&module) = lm_to_module.get(&n.lm_id) {
                        m.address(under, module, n.ip, has_children[i], n.unwound)
                    } else if let Some(kind) = gpu_range_node(n.lm_id) {
                        // hpcrun's outlined GPU range trees (root, context, range nodes) use
                        // reserved load module ids; hpcprof moves them into synthetic GPU
                        // context profiles, we keep them in place under a named node.
                        let f =
                            m.function(&format!("<gpu {kind} {}>", n.ip), None, None, None, None);
                        let c = m.child(under, Key::Unmapped(n.lm_id, n.ip), Frame::call(f));
                        (c, c)
                    } else {
                        unmapped_lm += 1;
                        let frame = Frame {
                            kind: NodeKind::Context,
                            relation: Relation::Call,
                            lexical_type: LexicalType::Instruction,
                            function: None,
                            file: None,
                            line: None,
                            module: None,
                            offset: Some(n.ip),
                        };
                        let c = m.child(under, Key::Unmapped(n.lm_id, n.ip), frame);
                        (c, c)
                    };
                    mapped[i] = Some(merged);
                    rel_of[i] = rel;
                    ctx_to_builder.insert(n.id, (merged, rel));
                }
            }
            for &(ni, mi, v) in &e.values {
                let (Some(Some(full)), Some(d)) =
                    (mapped.get(ni as usize), e.metrics.get(mi as usize))
                else {
                    continue;
                };
                let node = if d.move2proc {
                    rel_of.get(ni as usize).unwrap_or(full)
                } else {
                    full
                };
                if let Some(&gm) = metric_ix.get(&d.name) {
                    if d.formula.is_empty() {
                        points.push((*node, gm, v * d.period as f64));
                    }
                }
            }
        }
        node_maps.push(ctx_to_builder);
        raw_points.push(points);
    }
    if unmapped_lm > 0 {
        warnings.push(Error::new(
            ErrorKind::Invalid,
            group.root.clone(),
            None,
            format!("{unmapped_lm} contexts name load modules missing from their load map"),
        ));
    }
    if dangling > 0 {
        warnings.push(Error::new(
            ErrorKind::Invalid,
            group.root.clone(),
            None,
            format!(
                "{dangling} contexts have a parent missing from their tree (put under the root)"
            ),
        ));
    }

    let Merger {
        builder,
        modules,
        files: source_files,
        functions,
        warnings: merge_warnings,
        ..
    } = m;
    warnings.extend(merge_warnings);
    let cct: Cct = builder.finish(&group.root)?;
    let to_final = |b: u32| cct.node_of_ctx(b).unwrap_or(0);
    let points: Vec<Vec<(u32, u16, f64)>> = raw_points
        .into_iter()
        .map(|v| {
            v.into_iter()
                .map(|(n, mi, x)| (to_final(n), mi, x))
                .collect()
        })
        .collect();

    // Profiles and their identifiers.
    let mut id_names: Vec<String> = DEFAULT_ID_NAMES.iter().map(|s| s.to_string()).collect();
    for (_, p) in &profiles {
        for (k, name) in &p.id_names {
            let k = (*k & 0x3fff) as usize;
            if k < 64 {
                if id_names.len() <= k {
                    id_names.resize(k + 1, String::new());
                }
                id_names[k] = name.clone();
            }
        }
    }
    let mut infos = Vec::new();
    let mut n_gpu = 0usize;
    for (path, p) in &profiles {
        let id_tuple: Vec<Identifier> = if !p.id_tuple.is_empty() {
            p.id_tuple
                .iter()
                .map(|e| Identifier {
                    kind: e.kind,
                    logical_id: e.logical as u32,
                    physical_id: e.physical,
                    // "Logical only" ids carry no meaningful physical index.
                    physical: e.interpret != 3,
                })
                .collect()
        } else {
            // 02.00 files: NODE / RANK / THREAD from the header, else the file name.
            let fname = profile::parse_file_name(path);
            let num = |key: &str, f: Option<u32>| {
                p.nv(key)
                    .and_then(|v| v.trim().parse::<u32>().ok())
                    .or(f)
                    .unwrap_or(0)
            };
            let host = p
                .nv("host-id")
                .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
                .or(fname.as_ref().map(|f| f.host_id))
                .unwrap_or(0);
            vec![
                Identifier {
                    kind: 1,
                    logical_id: 0,
                    physical_id: host,
                    physical: true,
                },
                Identifier {
                    kind: 2,
                    logical_id: num("mpi-rank", fname.as_ref().map(|f| f.rank)),
                    physical_id: 0,
                    physical: false,
                },
                Identifier {
                    kind: 3,
                    logical_id: num("thread-id", fname.as_ref().map(|f| f.thread)),
                    physical_id: 0,
                    physical: false,
                },
            ]
        };
        if id_tuple.iter().any(|i| i.kind == 6) {
            n_gpu += 1;
        }
        infos.push(ProfileInfo {
            summary: false,
            id_tuple,
        });
    }
    let summary_index = infos.len();
    infos.push(ProfileInfo {
        summary: true,
        id_tuple: Vec::new(),
    });

    // Traces: each .hpctrace belongs to the profile with the same file stem.
    let mut lines = Vec::new();
    let mut trace_lines = Vec::new();
    let (mut min_t, mut max_t) = (u64::MAX, 0u64);
    for f in group.files_of(TRACE) {
        let Some(pi) = profiles.iter().position(|(p, _)| stem(p) == stem(&f.path)) else {
            warnings.push(Error::mismatch(
                &f.path,
                "trace without a matching .hpcrun profile",
            ));
            continue;
        };
        let t = match RunTrace::open(&f.source) {
            Ok(t) => t,
            Err(e) => {
                warnings.push(e);
                continue;
            }
        };
        if t.trailing_bytes() != 0 {
            warnings.push(Error::at(
                ErrorKind::Truncated,
                &f.path,
                t.source.len() - t.trailing_bytes(),
                "trace ends inside a record (ignored)",
            ));
        }
        let mut ctx_map: Vec<(u32, u32)> = node_maps[pi]
            .iter()
            // Call traces record the call (procedure) context of each sample, others the full one.
            .map(|(&c, &(full, rel))| (c, to_final(if t.is_call_trace() { rel } else { full })))
            .collect();
        ctx_map.sort_unstable();
        lines.push(TraceLineInfo {
            prof_index: pi as u32,
            samples: t.count,
        });
        let disorder = profiles[pi]
            .1
            .nv("trace-disorder")
            .and_then(|d| d.trim().parse::<u64>().ok())
            .unwrap_or(0);
        let sorted = if disorder > 0 {
            match t.records(0, t.count) {
                Ok(mut v) => {
                    v.sort_by_key(|r| r.time_ns);
                    Some(v)
                }
                Err(e) => {
                    warnings.push(e);
                    None
                }
            }
        } else {
            None
        };
        let ends = match &sorted {
            Some(v) => v.first().zip(v.last()).map(|(a, b)| (a.time_ns, b.time_ns)),
            None if t.count > 0 => t.time_at(0).ok().zip(t.time_at(t.count - 1).ok()),
            None => None,
        };
        if let Some((a, b)) = ends {
            min_t = min_t.min(a.min(b));
            max_t = max_t.max(a.max(b));
        }
        trace_lines.push(TraceLine {
            trace: t,
            ctx_map,
            sorted,
        });
    }
    let trace = (!lines.is_empty()).then(|| TraceInfo {
        min_time: (min_t <= max_t).then_some(min_t),
        max_time: (min_t <= max_t).then_some(max_t),
        lines,
    });

    let metrics: Vec<Metric> = metric_names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let base = i as u16 * 3;
            let scopes = [
                ("point", ScopeKind::Point, base),
                ("function", ScopeKind::Function, base + 1),
                ("execution", ScopeKind::Execution, base + 2),
            ];
            Metric {
                name: name.clone(),
                unit: unit_of(name).into(),
                scopes: scopes
                    .iter()
                    .map(|&(s, kind, id)| MetricScope {
                        scope: s.into(),
                        kind,
                        prop_metric_id: id,
                    })
                    .collect(),
                summaries: scopes
                    .iter()
                    .map(|&(s, kind, id)| SummaryStat {
                        scope: s.into(),
                        kind,
                        formula: "$$".into(),
                        combine: Combine::Sum,
                        stat_metric_id: id,
                    })
                    .collect(),
            }
        })
        .collect();

    let first = &profiles[0].1;
    let title = first
        .nv("program-name")
        .map(str::to_string)
        .unwrap_or_else(|| group.root.clone());
    let layout = format!("hpcrun profile {}b", first.version);
    let mut facts = vec![
        ("program".to_string(), title.clone()),
        (
            "profiles".to_string(),
            format!(
                "{} ({} CPU threads, {} GPU streams)",
                profiles.len(),
                profiles.len() - n_gpu,
                n_gpu
            ),
        ),
        ("metrics".to_string(), metrics.len().to_string()),
        ("contexts".to_string(), cct.len().to_string()),
        ("structure files".to_string(), n_structs.to_string()),
    ];
    if let Some(path) = first.nv("program-path") {
        facts.insert(1, ("program path".into(), path.into()));
    }
    if n_derived > 0 {
        facts.push((
            "derived metrics (not computed)".into(),
            n_derived.to_string(),
        ));
    }
    if let Some(t) = &trace {
        facts.push(("trace lines".into(), t.lines.len().to_string()));
    }
    if profiles.iter().any(|(_, p)| p.version != first.version) {
        warnings.push(Error::mismatch(
            &group.root,
            "profiles of different hpcrun versions in one folder",
        ));
    }

    let parent = cct.parent.clone();
    let lexical = cct
        .frame
        .iter()
        .map(|f| f.relation == Relation::Lexical)
        .collect();
    Ok(Dataset {
        format: "hpcrun".into(),
        layout,
        title,
        files,
        facts,
        id_names,
        modules,
        source_files,
        functions,
        cct,
        metrics,
        profiles: infos,
        summary_profile: Some(summary_index),
        trace,
        warnings,
        data: Box::new(HpcrunData {
            points,
            summary: Some(summary_index),
            parent,
            lexical,
            traces: trace_lines,
        }),
    })
}

/// The format id of hpcrun measurement folders.
pub const ID: &str = "hpcrun";
pub const PROFILE: FileKind = FileKind::new(ID, "profile");
pub const TRACE: FileKind = FileKind::new(ID, "trace");
pub const HPCSTRUCT: FileKind = FileKind::new(ID, "hpcstruct");

/// hpcrun measurement folders in the registry ([`crate::formats::FORMATS`]).
pub struct Hpcrun;
pub static HPCRUN: Hpcrun = Hpcrun;

impl Format for Hpcrun {
    fn id(&self) -> &'static str {
        ID
    }
    fn display_name(&self) -> &'static str {
        "hpcrun measurements"
    }
    /// `HPCRUN-profile`, `HPCRUN-trace` and `*.hpcstruct` XML (the structure files beside them).
    fn detect(&self, _path: &str, name: &str, head: &[u8]) -> Option<FileKind> {
        if head.starts_with(b"HPCRUN-profile") {
            Some(PROFILE)
        } else if head.starts_with(b"HPCRUN-trace") {
            Some(TRACE)
        } else if name.ends_with(".hpcstruct") && crate::formats::is_xml(head) {
            Some(HPCSTRUCT)
        } else {
            None
        }
    }
    fn claims(&self, files: &[(FileKind, InputFile)]) -> bool {
        files.iter().any(|(k, _)| *k == PROFILE || *k == TRACE)
    }
    fn probe(&self, group: &DatasetGroup, p: &mut Probe) -> Result<()> {
        probe::probe(group, p)
    }
    fn open(&self, group: &DatasetGroup) -> Result<Dataset> {
        open(group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytes::Source;
    use crate::formats::{group, InputFile};

    fn input(path: &str, bytes: Vec<u8>) -> InputFile {
        InputFile {
            path: path.into(),
            source: Source::from_vec(path, bytes),
        }
    }

    #[test]
    fn merges_two_threads_and_propagates() {
        let fx = profile::tests::v4_fixture();
        let (groups, _) = group(vec![
            input("m/app-000000-000-abc-1-0.hpcrun", fx.clone()),
            input("m/app-000000-001-abc-1-0.hpcrun", fx),
        ]);
        let ds = open(&groups[0]).unwrap();
        ds.cct.check().unwrap();
        // root -> app+0x10 -> app+0x20, shared by both threads.
        assert_eq!(ds.cct.len(), 3);
        assert_eq!(ds.frame_name(2), "app+0x20");
        assert_eq!(ds.metrics.len(), 2);
        assert_eq!(ds.profiles.len(), 3);
        assert_eq!(ds.layout, "hpcrun profile 04.00b");
        let cpu = &ds.metrics[0];
        let v = ds.data.profile_values(0).unwrap();
        let incl = cpu.inclusive(false).unwrap();
        let excl = cpu.exclusive(false).unwrap();
        assert_eq!(v.get(0, incl), 0.75);
        assert_eq!(v.get(1, incl), 0.75);
        assert_eq!(v.get(1, excl), 0.25);
        assert_eq!(v.get(2, excl), 0.5);
        // CYCLES: 7 samples x period 1000.
        assert_eq!(v.get(0, ds.metrics[1].inclusive(false).unwrap()), 7000.0);
        let s = ds.data.profile_values(2).unwrap();
        assert_eq!(s.get(0, cpu.inclusive(true).unwrap()), 1.5);
        assert_eq!(ds.profiles[0].label(&ds.id_names), "NODE 0 / THREAD 5");
    }

    #[test]
    fn deep_reversed_tree_merges_without_recursion() {
        // 100,000-deep call path stored leaf first: every node's parent comes after it.
        const DEPTH: u32 = 100_000;
        let mut nodes = vec![(1u32, 0u32, 0u16, PH_ROOT_PRIMARY)];
        for i in 2..=DEPTH + 1 {
            nodes.push((i, i - 1, 1, 0x1000 + i as u64));
        }
        nodes.reverse();
        let bytes =
            profile::tests::v4_build(false, &nodes, &[(DEPTH + 1, vec![(2.0f64.to_bits(), 0)])]);
        let (groups, _) = group(vec![input("m/app-000000-000-abc-1-0.hpcrun", bytes)]);
        let t = std::time::Instant::now();
        let ds = open(&groups[0]).unwrap();
        assert!(t.elapsed().as_secs() < 20);
        assert_eq!(ds.cct.len(), DEPTH as usize + 1);
        assert_eq!(ds.cct.depth[DEPTH as usize], DEPTH);
        let v = ds.data.profile_values(0).unwrap();
        assert_eq!(v.get(0, ds.metrics[0].inclusive(false).unwrap()), 2.0);
        assert_eq!(v.get(DEPTH, ds.metrics[0].exclusive(false).unwrap()), 2.0);
        assert!(ds.warnings.is_empty(), "{:?}", ds.warnings);
    }

    #[test]
    fn disordered_trace_is_sorted_and_mapped() {
        let prof = profile::tests::v4_build_nv(
            false,
            &[("trace-disorder", "1")],
            &[(1, 0, 0, PH_ROOT_PRIMARY), (2, 1, 1, 0x10), (3, 2, 1, 0x20)],
            &[],
        );
        let mut tr = b"HPCRUN-trace______01.01b".to_vec();
        tr.extend_from_slice(&0u64.to_be_bytes());
        for (t, c) in [(300u64, 3u32), (100, 2), (200, 99)] {
            tr.extend_from_slice(&t.to_be_bytes());
            tr.extend_from_slice(&c.to_be_bytes());
        }
        let (groups, _) = group(vec![
            input("m/app-000000-000-abc-1-0.hpcrun", prof),
            input("m/app-000000-000-abc-1-0.hpctrace", tr),
        ]);
        let ds = open(&groups[0]).unwrap();
        let t = ds.trace.as_ref().unwrap();
        assert_eq!((t.min_time, t.max_time), (Some(100), Some(300)));
        let s = ds.data.trace_samples(0, 0, 10).unwrap();
        let times: Vec<u64> = s.iter().map(|x| x.time).collect();
        assert_eq!(times, vec![100, 200, 300]);
        // ctx 2 -> app+0x10 (node 1), unknown ctx 99 -> root, ctx 3 -> app+0x20 (node 2).
        let nodes: Vec<u32> = s.iter().map(|x| x.node).collect();
        assert_eq!(nodes, vec![1, 0, 2]);
        assert_eq!(ds.data.trace_find(0, 250).unwrap(), Some(1));
        assert_eq!(ds.data.trace_find(0, 50).unwrap(), None);
    }

    #[test]
    fn parent_cycles_and_unknown_modules_become_warnings() {
        let bytes = profile::tests::v4_build(
            false,
            &[
                (1, 0, 0, PH_ROOT_PRIMARY),
                (2, 3, 1, 0x10),
                (3, 2, 1, 0x20),
                (4, 1, 9, 0x30),
                (5, 0, 65533, 0),
                (6, 5, 65531, 1),
            ],
            &[(3, vec![(1.0f64.to_bits(), 0)])],
        );
        let (groups, _) = group(vec![input("m/app-000000-000-abc-1-0.hpcrun", bytes)]);
        let ds = open(&groups[0]).unwrap();
        ds.cct.check().unwrap();
        assert_eq!(ds.cct.len(), 6);
        // The cycle and load module 9; the GPU range nodes are named, not warned about.
        assert_eq!(ds.warnings.len(), 2, "{:?}", ds.warnings);
        let names: Vec<String> = (0..6).map(|n| ds.frame_name(n)).collect();
        assert!(
            names.contains(&"<gpu range root 0>".to_string()),
            "{names:?}"
        );
        assert!(names.contains(&"<gpu context 1>".to_string()), "{names:?}");
        let v = ds.data.profile_values(0).unwrap();
        assert_eq!(v.get(0, ds.metrics[0].inclusive(false).unwrap()), 1.0);
    }
}
