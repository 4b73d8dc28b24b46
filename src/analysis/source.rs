//! Per-line metric values of source files, aggregated from the calling-context tree as hpcviewer
//! attributes costs to source: statement and loop-header lines get their exclusive and (counted
//! once per line) inclusive cost; inlined code keeps its own file and line.

use crate::model::{Dataset, LexicalType, NodeKind, Relation};
use std::collections::HashMap;

// Statement (line) scopes give their line their exclusive cost and, with loop scopes at their
// header line, their inclusive cost counted once per line (a scope nested in another at the same
// file and line, as in recursion, adds nothing more). Inlined code keeps the file and line of its
// own statements; its call site's line in the caller holds the inclusive cost through the
// statement that encloses the inlined call.

/// A statement scope (line or instruction with a line) is at this line.
pub const LINE_STATEMENT: u8 = 1;
/// A loop's header is at this line.
pub const LINE_LOOP: u8 = 2;
/// A statement at this line calls a function.
pub const LINE_CALL: u8 = 4;
/// A statement at this line holds inlined code.
pub const LINE_INLINED_CALL: u8 = 8;
/// A function of the profile is defined at this line.
pub const LINE_FUNCTION: u8 = 16;

/// Metric values of one source line.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LineValue {
    pub line: u32,
    /// Cost of the scopes at this line and what they call, each context counted once.
    pub inclusive: f64,
    /// Cost spent at this line itself (statement scopes' exclusive values).
    pub exclusive: f64,
    /// `LINE_*` bits: which kinds of scope sit at this line.
    pub flags: u8,
}

/// Per-line values of every source file of a dataset for one metric and profile selection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineTable {
    /// File index of each entry of `values`; both sorted by file then line.
    files: Vec<u32>,
    values: Vec<LineValue>,
}

/// Where a context points in the sources: its own file and line (statements, loops), or for a
/// function its definition. `None` for the root, entry points and contexts without a line.
pub fn node_location(ds: &Dataset, node: u32) -> Option<(u32, u32)> {
    let f = ds.cct.frame.get(node as usize)?;
    if f.kind != NodeKind::Context {
        return None;
    }
    let func = f.code.function.and_then(|i| ds.functions.get(i as usize));
    let own = f.code.file.zip(f.code.line.filter(|&l| l > 0));
    let def = func.and_then(|func| func.file.zip(func.line.filter(|&l| l > 0)));
    match f.lexical_type {
        LexicalType::Function => def.or(own),
        _ => own.or(def),
    }
}

/// The line key a context adds its values to, with the kind of scope it is there.
fn anchor(ds: &Dataset, node: usize) -> Option<(u32, u32, u8)> {
    let f = ds.cct.frame.get(node)?;
    let (file, line) = (f.code.file?, f.code.line.filter(|&l| l > 0)?);
    match (f.kind, f.lexical_type) {
        (NodeKind::Context, LexicalType::Line | LexicalType::Instruction) => {
            Some((file, line, LINE_STATEMENT))
        }
        (NodeKind::Context, LexicalType::Loop) => Some((file, line, LINE_LOOP)),
        _ => None,
    }
}

/// Aggregates `inclusive` and `exclusive` (one value per CCT node) to source lines.
pub fn line_table(ds: &Dataset, inclusive: &[f64], exclusive: &[f64]) -> LineTable {
    let cct = &ds.cct;
    let mut acc: HashMap<(u32, u32), LineValue> = HashMap::new();
    // Lines of the anchored ancestors of the current node: (subtree end, key), and how many of
    // them hold each key (a key held already means an enclosing scope counted this cost).
    let mut open: Vec<(u32, (u32, u32))> = Vec::new();
    let mut held: HashMap<(u32, u32), u32> = HashMap::new();
    for n in 0..cct.tree.len() {
        while let Some(&(end, key)) = open.last() {
            if end as usize > n {
                break;
            }
            open.pop();
            if let Some(c) = held.get_mut(&key) {
                *c -= 1;
            }
        }
        let frame = &cct.frame[n];
        if frame.kind == NodeKind::Context && frame.lexical_type == LexicalType::Function {
            // Calls and inlined calls mark their call site line (the enclosing statement) and
            // the definition line of the function.
            let parent = cct.tree.parent[n] as usize;
            if let Some((file, line, LINE_STATEMENT)) = anchor(ds, parent) {
                let bit = match frame.relation {
                    Relation::InlinedCall => LINE_INLINED_CALL,
                    _ => LINE_CALL,
                };
                entry(&mut acc, file, line).flags |= bit;
            }
            if let Some((file, line)) = node_location(ds, n as u32) {
                entry(&mut acc, file, line).flags |= LINE_FUNCTION;
            }
            continue;
        }
        let Some((file, line, kind)) = anchor(ds, n) else {
            continue;
        };
        let key = (file, line);
        let outer = held.get(&key).copied().unwrap_or(0) > 0;
        let v = entry(&mut acc, file, line);
        v.flags |= kind;
        if !outer {
            v.inclusive += inclusive.get(n).copied().unwrap_or(0.0);
        }
        if kind == LINE_STATEMENT {
            v.exclusive += exclusive.get(n).copied().unwrap_or(0.0);
        }
        *held.entry(key).or_insert(0) += 1;
        open.push((cct.tree.subtree_end[n], key));
    }
    let mut entries: Vec<(u32, LineValue)> = acc.into_iter().map(|((f, _), v)| (f, v)).collect();
    crate::sort::sort_by_key(&mut entries, |(f, v)| (*f, v.line));
    let (files, values) = entries.into_iter().unzip();
    LineTable { files, values }
}

fn entry(acc: &mut HashMap<(u32, u32), LineValue>, file: u32, line: u32) -> &mut LineValue {
    acc.entry((file, line)).or_insert(LineValue {
        line,
        inclusive: 0.0,
        exclusive: 0.0,
        flags: 0,
    })
}

impl LineTable {
    /// Values of the lines of file `file`, by line.
    pub fn file(&self, file: u32) -> &[LineValue] {
        let a = self.files.partition_point(|&f| f < file);
        let b = self.files.partition_point(|&f| f <= file);
        &self.values[a..b]
    }

    /// The statement with the largest exclusive value (ties: the first by file and line), as
    /// (file index, line); `None` when no statement has a non-zero exclusive value.
    pub fn hottest_statement(&self) -> Option<(u32, u32)> {
        let mut best: Option<(u32, &LineValue)> = None;
        for (f, v) in self.files.iter().zip(&self.values) {
            if v.flags & LINE_STATEMENT == 0 || v.exclusive <= 0.0 {
                continue;
            }
            if best.is_none_or(|(_, b)| v.exclusive > b.exclusive) {
                best = Some((*f, v));
            }
        }
        best.map(|(f, v)| (f, v.line))
    }
}

#[cfg(test)]
mod tests;
