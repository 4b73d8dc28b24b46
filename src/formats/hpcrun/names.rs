//! Names of the frames of merged nodes: HPCToolkit's placeholder "addresses" (placeholders.h),
//! hpcrun's reserved GPU range load modules (hpcprof's hpcrun4.cpp), kernel symbols, and addresses
//! named through the `.hpcstruct` scopes of their load module (procedure, inlined code, loop,
//! line) or else shown as load module + offset.

use super::hpcstruct::{StructKind, StructScope};
use super::kernel_symbols::{self, KernelSymbols};
use super::merge::{Key, Merger};
use crate::error::{Error, ErrorKind};
use crate::model::{CodeRef, EntryKind, Frame, LexicalType, Relation};

/// Placeholder "addresses" in load module 0 are 8 ASCII characters (HPCToolkit placeholders.h).
const fn tag(s: &[u8; 8]) -> u64 {
    u64::from_be_bytes(*s)
}
pub(super) const PH_ROOT_PRIMARY: u64 = tag(b"^Primary");
pub(super) const PH_ROOT_PARTIAL: u64 = tag(b"^Partial");
pub(super) const PH_UNNORMALIZED: u64 = tag(b"*Unnorm ");
pub(super) const PH_FENCE_MAIN: u64 = tag(b"| Main  ");
pub(super) const PH_FENCE_THREAD: u64 = tag(b"| Thread");
pub(super) const PH_NO_ACTIVITY: u64 = tag(b"NoActvty");

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
pub(super) fn gpu_range_node(lm_id: u16) -> Option<&'static str> {
    match lm_id {
        65533 => Some("range root"),
        65532 => Some("range"),
        65531 => Some("context"),
        _ => None,
    }
}

impl Merger {
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
    fn kernel_for(&mut self, module: u32) -> Option<&KernelSymbols> {
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

    /// Adds the frames of address `ip` in `module` under `parent`. Returns the node of its
    /// outermost frame (the call context the address belongs to) and the innermost node.
    pub(super) fn address(
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
            let frame = Frame::instruction(Some(module), ip);
            let n = self.child(parent, Key::Instr(module, ip), frame);
            return (n, n);
        }
        let s = self.struct_for(module).unwrap_or(0);
        // A context hpcrun did not unwind (a GPU PC sample) hangs directly below the context it
        // was sampled in; when that is already its procedure, it lies inside it (hpcprof
        // reconstructs these paths from the GPU binary's call graph).
        if !unwound && chain.len() > 1 && self.is_parent_procedure(parent, module, s, chain[0]) {
            chain.remove(0);
        }
        let mut node = parent;
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
            let (key, frame) = self.scope_frame(&scope, sc, module);
            node = self.child(node, key, frame);
            rel.get_or_insert(node);
        }
        (rel.unwrap_or(node), node)
    }

    /// Whether node `parent` is the call of the procedure that scope `scope` of struct module `s`
    /// stands for (same name, load module and entry address).
    fn is_parent_procedure(&self, parent: u32, module: u32, s: usize, scope: u32) -> bool {
        let parent_fn = self.builder.frame(parent).and_then(|f| {
            (f.lexical_type == LexicalType::Function && f.relation == Relation::Call)
                .then_some(f.code.function)
                .flatten()
        });
        let first = self
            .structs
            .get(s)
            .and_then(|m| m.scopes.get(scope as usize));
        let (Some(pf), Some(first)) = (parent_fn, first) else {
            return false;
        };
        let same = self.functions.get(pf as usize).is_some_and(|f| {
            f.name == first.name && f.module == Some(module) && f.offset == first.entry
        });
        first.kind == StructKind::Proc && same
    }

    /// The merge key and frame of structure scope `scope` (index `sc` in its module's scopes) of
    /// an address in `module`.
    fn scope_frame(&mut self, scope: &StructScope, sc: u32, module: u32) -> (Key, Frame) {
        let file = self.file(&scope.file);
        let line = (scope.line > 0).then_some(scope.line);
        let lexical = |lexical_type| {
            Frame::context(
                Relation::Lexical,
                lexical_type,
                CodeRef::at_line(file, line),
            )
        };
        match scope.kind {
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
                    relation: if inlined {
                        Relation::InlinedCall
                    } else {
                        Relation::Call
                    },
                    ..Frame::call(f)
                };
                (if inlined { Key::Alien(f) } else { Key::Func(f) }, frame)
            }
            StructKind::Loop => (Key::Loop(module, sc), lexical(LexicalType::Loop)),
            StructKind::Stmt => (
                Key::Line(file.unwrap_or(u32::MAX), scope.line),
                lexical(LexicalType::Line),
            ),
        }
    }

    /// The node of placeholder `ip` (load module 0) under `parent`: a thread-entry fence or a
    /// named pseudo-function.
    pub(super) fn placeholder(&mut self, parent: u32, ip: u64) -> u32 {
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
