//! Frame identity shared by the views: which nodes are function instances ("heads": a called or
//! inlined function, as opposed to the loops and lines inside one), and one name id per node so
//! that every view, the colours and the search agree on "the same function".

use super::names::{FrameTexts, Interner};
use crate::model::{Dataset, LexicalType, NodeKind, Relation};
use std::collections::HashMap;

/// True for a node that stands for an entered function (called or inlined), false for the root,
/// entry points and the lexical levels (loops, lines, instructions) inside a function.
pub fn is_head(ds: &Dataset, node: u32) -> bool {
    match ds.cct.frame.get(node as usize) {
        Some(f) => {
            f.kind == NodeKind::Context
                && (f.lexical_type == LexicalType::Function || f.relation != Relation::Lexical)
        }
        None => false,
    }
}

/// Names of the nodes, interned: ids `0..functions.len()` are the dataset's functions, larger ids
/// are the other distinct frame names (loops, lines, bare addresses, entry points).
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// Name id of each node.
    pub node_name: Vec<u32>,
    pub names: Vec<String>,
    /// Per node: is it a function instance (see [`is_head`]).
    pub head: Vec<bool>,
}

impl Names {
    /// One name id per function of the dataset.
    pub fn new(ds: &Dataset) -> Names {
        Names::build(ds, false)
    }

    /// As [`Names::new`], but functions that print the same (name, load module and source file)
    /// share one id, the first one's: the views show them as one function, as `uftrace report`
    /// shows C++ overloads its demangler names alike (three `std::__cxx11::basic_string::
    /// basic_string` constructors of recorded-cxx are one row of 3 calls).
    pub fn same_named_merged(ds: &Dataset) -> Names {
        Names::build(ds, true)
    }

    fn build(ds: &Dataset, merge: bool) -> Names {
        let n = ds.cct.tree.len();
        let canon: Vec<u32> = if merge {
            let mut first: HashMap<(&str, Option<u32>, Option<u32>), u32> = HashMap::new();
            ds.functions
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    *first
                        .entry((f.name.as_str(), f.module, f.file))
                        .or_insert(i as u32)
                })
                .collect()
        } else {
            (0..ds.functions.len() as u32).collect()
        };
        let mut names: Vec<String> = ds.functions.iter().map(|f| f.name.clone()).collect();
        // Frames that name no function (loops, lines, addresses, entry points): their own ids
        // after the functions', one per distinct text, in first-seen order.
        let mut texts = FrameTexts::new(ds);
        let mut others = Interner::default();
        let mut node_name = Vec::with_capacity(n);
        let mut head = Vec::with_capacity(n);
        let n_funcs = ds.functions.len();
        let first_other = names.len() as u32;
        for (i, f) in ds.cct.frame.iter().enumerate() {
            let id = match f.code.function {
                Some(fi) if (fi as usize) < n_funcs && f.kind == NodeKind::Context => {
                    canon[fi as usize]
                }
                _ => first_other + texts.id(&mut others, i as u32),
            };
            node_name.push(id);
            head.push(is_head(ds, i as u32));
        }
        names.extend(others.into_strings());
        Names {
            node_name,
            names,
            head,
        }
    }

    /// Name of node `node` ("" when out of range).
    pub fn of(&self, node: u32) -> &str {
        self.node_name
            .get(node as usize)
            .and_then(|&id| self.names.get(id as usize))
            .map(String::as_str)
            .unwrap_or("")
    }

    /// Nearest function instance at or above `node` (`None` above every function).
    pub fn enclosing_head(&self, ds: &Dataset, node: u32) -> Option<u32> {
        let mut n = node;
        while (n as usize) < ds.cct.tree.len() {
            if self.head[n as usize] {
                return Some(n);
            }
            n = ds.cct.tree.parent[n as usize];
        }
        None
    }
}
