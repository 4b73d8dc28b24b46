//! The call-path tree of experiment.xml (`SecCallPathProfileData`, DTD versions 2.0-2.2): procedure
//! frames `PF`, static procedures `Pr` (`a="1"`: inlined, alien code), aliens `A`, loops `L`, call
//! sites `C` and statements `S`, with their ids, file, line, load module and address, and the
//! summary values written inline as `<M n="metric id" v="value"/>`.

use super::experiment::{addr, u32_of, Tables};
use crate::error::{Error, Result, Warning};
use crate::formats::ctx_ids::CtxIds;
use crate::formats::xml::{EndTag, Tag};
use crate::model::{Cct, CctBuilder, CodeRef, Frame, LexicalType, Relation, SparseValues};

/// What the tree gives the model.
pub struct BuiltTree {
    pub cct: Cct,
    pub summary: SparseValues,
    pub trace_ids: Vec<(u32, u32)>,
    pub facts: Vec<(String, String)>,
}

/// One open scope: the builder node it added (None for an element that is not a scope), and the
/// load module and source file its descendants inherit.
#[derive(Clone, Copy)]
struct Open {
    node: Option<u32>,
    module: Option<u32>,
    file: Option<u32>,
}

/// Builds the tree from the elements inside `SecCallPathProfileData`.
pub(super) struct TreeBuilder<'a> {
    file: &'a str,
    b: CctBuilder,
    stack: Vec<(&'a str, Open)>,
    ids: CtxIds,
    /// (builder node, metric id, value) of every `M`.
    values: Vec<(u32, u16, f64)>,
    bad_values: u64,
    /// (trace id, builder node) of every scope with an `it`.
    trace_ids: Vec<(u32, u32)>,
    inlined: u64,
}

/// The first line of a line attribute ("12" or the range "12-15"); 0 is no line.
fn first_line(raw: &[u8]) -> Option<u32> {
    let end = raw.iter().position(|&c| c == b'-').unwrap_or(raw.len());
    u32_of(&raw[..end]).filter(|&l| l != 0)
}

impl<'a> TreeBuilder<'a> {
    pub fn new(file: &'a str, doc_len: usize) -> TreeBuilder<'a> {
        TreeBuilder {
            file,
            // About one scope per 60 bytes of a real file; capped so a huge document reserves
            // no more than it is likely to use.
            b: CctBuilder::with_capacity(0, (doc_len / 60).min(1 << 22)),
            stack: Vec::new(),
            ids: CtxIds::default(),
            values: Vec::new(),
            bad_values: 0,
            trace_ids: Vec::new(),
            inlined: 0,
        }
    }

    /// True when no element of the tree is open.
    pub fn at_top(&self) -> bool {
        self.stack.is_empty()
    }

    fn top(&self) -> Open {
        self.stack.last().map_or(
            Open {
                node: Some(0),
                module: None,
                file: None,
            },
            |o| o.1,
        )
    }

    /// The innermost open scope's builder node (the root outside any).
    fn parent(&self) -> u32 {
        self.stack.iter().rev().find_map(|o| o.1.node).unwrap_or(0)
    }

    pub fn start(&mut self, tag: &Tag<'a>, tables: &Tables) -> Result<()> {
        let open = match tag.name {
            "PF" | "Pr" | "A" | "L" | "C" | "S" => self.scope(tag, tables),
            "M" => {
                self.value(tag);
                Open {
                    node: None,
                    ..self.top()
                }
            }
            _ => Open {
                node: None,
                ..self.top()
            },
        };
        if !tag.empty {
            self.stack.push((tag.name, open));
        }
        Ok(())
    }

    pub fn end(&mut self, tag: &EndTag) -> Result<()> {
        match self.stack.pop() {
            Some((name, _)) if name == tag.name => Ok(()),
            Some((name, _)) => Err(Error::invalid(
                self.file,
                tag.offset as u64,
                format!("XML end tag </{}> closes <{name}>", tag.name),
            )),
            None => Err(Error::invalid(
                self.file,
                tag.offset as u64,
                format!("XML end tag </{}> with nothing open", tag.name),
            )),
        }
    }

    /// `<M n v>`: a summary value of the innermost scope (the root outside any).
    fn value(&mut self, tag: &Tag) {
        let (mut id, mut v) = (None, None);
        for a in tag.attrs() {
            match a.name {
                "n" => id = u32_of(a.raw).and_then(|n| u16::try_from(n).ok()),
                "v" => {
                    v = std::str::from_utf8(a.raw)
                        .ok()
                        .and_then(|s| s.trim().parse::<f64>().ok())
                }
                _ => {}
            }
        }
        match (id, v) {
            (Some(id), Some(v)) => {
                let node = self.parent();
                self.values.push((node, id, v));
            }
            _ => self.bad_values += 1,
        }
    }

    /// A scope element: its frame under the innermost open scope.
    fn scope(&mut self, tag: &Tag, tables: &Tables) -> Open {
        let up = self.top();
        let (mut id, mut n, mut lm, mut f, mut line, mut v, mut it, mut alien) =
            (None, None, None, None, None, None, None, false);
        for a in tag.attrs() {
            match a.name {
                "i" => id = u32_of(a.raw),
                "n" => n = u32_of(a.raw),
                "lm" => lm = u32_of(a.raw),
                "f" => f = u32_of(a.raw),
                "l" => line = first_line(a.raw),
                "v" => v = addr(a.raw).filter(|&v| v != 0),
                "it" => it = u32_of(a.raw),
                "a" => alien = a.raw == b"1",
                _ => {}
            }
        }
        let module = lm
            .and_then(|m| tables.module_ix.get(&m).copied())
            .or(up.module);
        let file = f.and_then(|f| tables.file_ix.get(&f).copied());
        let (relation, lexical_type, function) = match tag.name {
            "PF" | "Pr" | "A" => {
                let inlined = tag.name == "A" || alien;
                self.inlined += inlined as u64;
                (
                    if inlined {
                        Relation::InlinedCall
                    } else {
                        Relation::Call
                    },
                    LexicalType::Function,
                    n.and_then(|n| tables.proc_ix.get(&n).copied()),
                )
            }
            "L" => (Relation::Lexical, LexicalType::Loop, None),
            _ => (Relation::Lexical, LexicalType::Line, None),
        };
        // Statements, call sites and loops without their own file are in their frame's file.
        let file = file.or(up.file);
        let code = CodeRef {
            function,
            file,
            line,
            module,
            offset: v,
        };
        let frame = Frame::context(relation, lexical_type, code);
        let ctx = self.ids.claim(id);
        let node = self.b.add(self.parent(), ctx, frame);
        if let Some(it) = it {
            self.trace_ids.push((it, node));
        }
        Open {
            node: Some(node),
            module,
            file,
        }
    }

    /// The tree in preorder, with the summary values and trace ids moved to its node numbers.
    pub fn finish(self, warnings: &mut Vec<Warning>) -> Result<BuiltTree> {
        let file = self.file;
        // Elements are read depth-first and children added in document order, so the builder's
        // insertion order is the preorder: builder indexes are the final node numbers.
        let cct = self.b.finish(file)?;
        let mut facts = Vec::new();
        let renumbered = "scopes had a missing, zero or repeated id and were given new ones (no per-thread values attach to them)";
        let bad_values = "<M> values without a 16-bit metric id or a number were left out";
        warnings.extend(Error::count(self.ids.renumbered, file, Some(0), renumbered));
        warnings.extend(Error::count(self.bad_values, file, Some(0), bad_values));
        facts.push(("inlined scopes".to_string(), self.inlined.to_string()));
        let mut trace_ids = self.trace_ids;
        crate::sort::sort_by(&mut trace_ids, |a, b| a.cmp(b));
        Ok(BuiltTree {
            summary: SparseValues::from_triples(self.values),
            cct,
            trace_ids,
            facts,
        })
    }
}
