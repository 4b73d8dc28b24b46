//! Merging the calling-context trees of every profile of a measurement folder into one tree by
//! call path: siblings that stand for the same thing (placeholder, function, loop, line, address)
//! become one node, and each file node's values go to its merged node times the metric period.

use super::hpcstruct::StructModule;
use super::kernel_symbols::KernelSymbols;
use super::names::{
    gpu_range_node, PH_NO_ACTIVITY, PH_ROOT_PARTIAL, PH_ROOT_PRIMARY, PH_UNNORMALIZED,
};
use super::profile::{CctNode, Epoch, ProfileLayout, RunProfile};
use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::model::{intern, Cct, CctBuilder, Frame, Function, Module, SourceFile};
use crate::work::{self, Work};
use std::collections::HashMap;

/// What a merged node stands for; siblings with equal keys are one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Key {
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
pub(super) struct Merger {
    pub(super) builder: CctBuilder,
    children: HashMap<(u32, Key), u32>,
    pub(super) modules: Vec<Module>,
    module_ix: HashMap<String, u32>,
    files: Vec<SourceFile>,
    file_ix: HashMap<String, u32>,
    pub(super) functions: Vec<Function>,
    function_ix: HashMap<(Option<u32>, String, Option<u64>), u32>,
    pub(super) structs: Vec<StructModule>,
    /// Module index -> struct module index.
    pub(super) struct_of_module: HashMap<u32, Option<usize>>,
    /// `kernel_symbols/*` files of the folder (path, bytes source), read when a module names one.
    pub(super) kernel_files: Vec<(String, Source)>,
    pub(super) kernel_of_module: HashMap<u32, Option<KernelSymbols>>,
    /// Contexts whose load module id their load map does not list.
    unmapped_lm: usize,
    /// Contexts whose parent is missing from their tree (or on a parent cycle).
    dangling: usize,
    pub(super) warnings: Vec<Warning>,
}

/// One profile merged into the tree.
pub(super) struct MergedProfile {
    /// File context id -> (node of the full context, node of its call context) in the builder.
    pub(super) ctx: HashMap<u32, (u32, u32)>,
    /// Point values: (builder node, merged metric index, value times the metric period).
    pub(super) points: Vec<(u32, u16, f64)>,
}

/// The finished tree and its name tables.
pub(super) struct MergedTree {
    pub(super) cct: Cct,
    pub(super) modules: Vec<Module>,
    pub(super) source_files: Vec<SourceFile>,
    pub(super) functions: Vec<Function>,
}

impl Merger {
    /// A merger naming frames through `structs` and the folder's `kernel_symbols/*` files.
    pub(super) fn new(structs: Vec<StructModule>, kernel_files: Vec<(String, Source)>) -> Merger {
        Merger {
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
            kernel_files,
            kernel_of_module: HashMap::new(),
            unmapped_lm: 0,
            dangling: 0,
            warnings: Vec::new(),
        }
    }

    pub(super) fn module(&mut self, path: &str) -> u32 {
        intern(&mut self.module_ix, &mut self.modules, path, || Module {
            path: path.into(),
        })
    }
    pub(super) fn file(&mut self, path: &str) -> Option<u32> {
        if path.is_empty() {
            return None;
        }
        Some(intern(&mut self.file_ix, &mut self.files, path, || {
            SourceFile { path: path.into() }
        }))
    }
    pub(super) fn function(
        &mut self,
        name: &str,
        module: Option<u32>,
        offset: Option<u64>,
        file: Option<u32>,
        line: Option<u32>,
    ) -> u32 {
        let key = (module, name.to_string(), offset);
        intern(&mut self.function_ix, &mut self.functions, &key, || {
            Function {
                name: name.into(),
                module,
                offset,
                file,
                line,
            }
        })
    }
    pub(super) fn child(&mut self, parent: u32, key: Key, frame: Frame) -> u32 {
        if let Some(&c) = self.children.get(&(parent, key)) {
            return c;
        }
        let ctx = self.builder.len() as u32;
        let c = self.builder.add(parent, ctx, frame);
        self.children.insert((parent, key), c);
        c
    }

    /// Merges every epoch of profile `p`; `metric_ix` gives the merged index of each raw metric
    /// name.
    pub(super) fn merge_profile(
        &mut self,
        p: &RunProfile,
        metric_ix: &HashMap<String, u16>,
    ) -> MergedProfile {
        let mut out = MergedProfile {
            ctx: HashMap::new(),
            points: Vec::new(),
        };
        for e in &p.epochs {
            self.merge_epoch(e, p.layout, metric_ix, &mut out);
        }
        out
    }

    fn merge_epoch(
        &mut self,
        e: &Epoch,
        layout: ProfileLayout,
        metric_ix: &HashMap<String, u16>,
        out: &mut MergedProfile,
    ) {
        let lm_to_module: HashMap<u16, u32> = e
            .loadmap
            .iter()
            .map(|l| (l.id, self.module(&l.name)))
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
                work::add(Work::TreeNodes, 1);
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
                            self.dangling += 1;
                            None
                        }
                    }
                };
                let v2_root = layout == ProfileLayout::V2 && n.parent == 0;
                let module = lm_to_module.get(&n.lm_id).copied();
                let under = parent_node.unwrap_or(0);
                let (rel, merged) = self.node(&n, under, v2_root, module, has_children[i]);
                mapped[i] = Some(merged);
                rel_of[i] = rel;
                out.ctx.insert(n.id, (merged, rel));
            }
        }
        for &(ni, mi, v) in &e.values {
            let (Some(Some(full)), Some(d)) = (mapped.get(ni as usize), e.metrics.get(mi as usize))
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
                    out.points.push((*node, gm, v * d.period as f64));
                }
            }
        }
    }

    /// Adds file node `n` under merged node `under`; `module` is its load module's index when the
    /// load map lists it. Returns its (call context, full context) nodes.
    fn node(
        &mut self,
        n: &CctNode,
        under: u32,
        v2_root: bool,
        module: Option<u32>,
        has_children: bool,
    ) -> (u32, u32) {
        if n.lm_id == 0 {
            let ip = n.ip;
            let n = if (v2_root && ip == 0) || ip == PH_ROOT_PRIMARY {
                0
            } else if ip == PH_NO_ACTIVITY {
                under
            } else if (v2_root && ip == 1) || ip == PH_ROOT_PARTIAL {
                self.placeholder(under, PH_ROOT_PARTIAL)
            } else if ip == PH_UNNORMALIZED {
                self.placeholder(under, PH_UNNORMALIZED)
            } else {
                self.placeholder(under, ip)
            };
            (n, n)
        } else if let Some(module) = module {
            self.address(under, module, n.ip, has_children, n.unwound)
        } else if let Some(kind) = gpu_range_node(n.lm_id) {
            // hpcrun's outlined GPU range trees (root, context, range nodes) use reserved load
            // module ids; hpcprof moves them into synthetic GPU context profiles, we keep them in
            // place under a named node.
            let f = self.function(&format!("<gpu {kind} {}>", n.ip), None, None, None, None);
            let c = self.child(under, Key::Unmapped(n.lm_id, n.ip), Frame::call(f));
            (c, c)
        } else {
            self.unmapped_lm += 1;
            let frame = Frame::instruction(None, n.ip);
            let c = self.child(under, Key::Unmapped(n.lm_id, n.ip), frame);
            (c, c)
        }
    }

    /// Finishes the tree; the merge's warnings (unmapped load modules, dangling parents, kernel
    /// symbol tables) go to `warnings`, named after the folder `root`.
    pub(super) fn finish(self, root: &str, warnings: &mut Vec<Warning>) -> Result<MergedTree> {
        for (n, what) in [
            (
                self.unmapped_lm,
                "contexts name load modules missing from their load map",
            ),
            (
                self.dangling,
                "contexts have a parent missing from their tree (put under the root)",
            ),
        ] {
            warnings.extend(Error::count(n as u64, root, None, what));
        }
        warnings.extend(self.warnings);
        Ok(MergedTree {
            cct: self.builder.finish(root)?,
            modules: self.modules,
            source_files: self.files,
            functions: self.functions,
        })
    }
}
