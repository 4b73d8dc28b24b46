//! Program structure files (`structs/*.hpcstruct`, HPCToolkit Structure DTD 4.x): load modules
//! containing files, procedures (P), inlined "alien" code (A), loops (L), statements (S) and call
//! sites (C), each with address ranges `v="{[0xlo-0xhi) ...}"`, read with the shared tokenizer
//! ([`crate::formats::xml`]); an address lookup gives the procedure -> inline -> loop -> statement chain.

use crate::error::Result;
use crate::formats::xml::{Reader, Tag, Token};
use crate::work::{self, Work};
use std::sync::Arc;

/// "No parent" in `StructScope::parent`.
const NO_PARENT: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructKind {
    Proc,
    /// Inlined code of another function (an `A` element with a name).
    Alien,
    Loop,
    Stmt,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructScope {
    pub kind: StructKind,
    /// Procedure or inlined function name; empty for loops and statements.
    pub name: String,
    /// Source file of the scope (procedure: its `F`; alien and loop: their `f`; statement: the
    /// nearest enclosing one). Shared: every statement of a file names the same path, and a
    /// hostile 1 MB path must not be copied once per statement.
    pub file: Arc<str>,
    pub line: u32,
    /// Entry address of a procedure (first address of its `v`).
    pub entry: Option<u64>,
    pub parent: u32,
}

/// One load module's structure.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StructModule {
    pub path: String,
    pub scopes: Vec<StructScope>,
    /// Statement address ranges (lo, hi, scope index), sorted by lo.
    ranges: Vec<(u64, u64, u32)>,
}

impl StructModule {
    /// Scope chain for an address, outermost first (procedure, aliens, loops, statement).
    pub fn lookup(&self, addr: u64) -> Vec<u32> {
        let i = self.ranges.partition_point(|r| r.0 <= addr);
        // Ranges may nest (inlined code): look back a few entries for the innermost containing one.
        let hit = self.ranges[..i]
            .iter()
            .rev()
            .take(16)
            .filter(|r| addr < r.1)
            .max_by_key(|r| r.0)
            .map(|r| r.2);
        let mut chain = Vec::new();
        let mut s = match hit {
            Some(s) => s,
            None => return chain,
        };
        while let Some(scope) = self.scopes.get(s as usize) {
            chain.push(s);
            if chain.len() > self.scopes.len() {
                break;
            }
            s = scope.parent;
        }
        chain.reverse();
        chain
    }
}

/// Parses one .hpcstruct file. Statements outside a procedure are ignored.
pub fn parse(text: &str, file: &str) -> Result<Vec<StructModule>> {
    parse_bytes(text.as_bytes(), file)
}

/// [`parse`] of the file's bytes.
pub fn parse_bytes(bytes: &[u8], file: &str) -> Result<Vec<StructModule>> {
    let mut s = StructReader {
        modules: Vec::new(),
        stack: Vec::new(),
        no_file: Arc::from(""),
    };
    for token in Reader::new(bytes, file) {
        match token? {
            Token::Start(tag) => s.start(&tag),
            Token::End(tag) => s.end(tag.name),
            Token::Text(_) => {}
        }
    }
    let mut modules = s.modules;
    for m in &mut modules {
        crate::sort::sort_by(&mut m.ranges, |a, b| a.cmp(b));
    }
    Ok(modules)
}

/// How many open elements a close tag looks through for its match.
const MAX_CLOSE_SEARCH: usize = 256;

struct StructReader<'a> {
    modules: Vec<StructModule>,
    /// Open elements: (tag, scope index or NO_PARENT, file name in force).
    stack: Vec<(&'a str, u32, Arc<str>)>,
    no_file: Arc<str>,
}

impl<'a> StructReader<'a> {
    fn start(&mut self, tag: &Tag<'a>) {
        let parent_scope = self.stack.last().map(|s| s.1).unwrap_or(NO_PARENT);
        let file_in_force = self
            .stack
            .last()
            .map(|s| s.2.clone())
            .unwrap_or_else(|| self.no_file.clone());
        let pushed = match tag.name {
            "LM" => {
                self.modules.push(StructModule {
                    path: tag.value("n").unwrap_or_default().into_owned(),
                    ..StructModule::default()
                });
                self.stack.clear();
                Some((NO_PARENT, file_in_force))
            }
            "F" => Some((NO_PARENT, Arc::from(&*tag.value("n").unwrap_or_default()))),
            "P" | "A" | "L" | "S" | "C" => self.scope(tag, parent_scope, file_in_force),
            _ => Some((NO_PARENT, file_in_force)),
        };
        if let (Some((scope, file)), false) = (pushed, tag.empty) {
            self.stack.push((tag.name, scope, file));
        }
    }

    /// A scope element of the innermost load module: the (scope, file in force) its children
    /// see; None (and nothing left open) before any load module.
    fn scope(
        &mut self,
        tag: &Tag,
        parent_scope: u32,
        file_in_force: Arc<str>,
    ) -> Option<(u32, Arc<str>)> {
        let m = self.modules.last_mut()?;
        let name = tag.name;
        let line = tag
            .value("l")
            .and_then(|l| l.split('-').next().and_then(|l| l.trim().parse().ok()))
            .unwrap_or(0);
        let ranges = tag.value("v").map(|v| parse_ranges(&v)).unwrap_or_default();
        let kind = match name {
            "P" => Some(StructKind::Proc),
            "A" if tag.value("n").is_some_and(|n| !n.is_empty()) => Some(StructKind::Alien),
            // An alien without a name is the source line that calls inlined code
            // (hpcprof shows it as a line context above the inlined function).
            "A" if line > 0 => Some(StructKind::Stmt),
            "L" => Some(StructKind::Loop),
            "S" | "C" => Some(StructKind::Stmt),
            _ => None,
        };
        let scope_file = match name {
            "A" | "L" => tag
                .value("f")
                .map(|f| Arc::from(&*f))
                .unwrap_or(file_in_force),
            _ => file_in_force,
        };
        match kind {
            Some(kind) if kind == StructKind::Proc || parent_scope != NO_PARENT => {
                let idx = m.scopes.len() as u32;
                let proc = kind == StructKind::Proc;
                m.scopes.push(StructScope {
                    kind,
                    name: tag.value("n").unwrap_or_default().into_owned(),
                    file: scope_file.clone(),
                    line,
                    entry: if proc {
                        ranges.first().map(|r| r.0)
                    } else {
                        None
                    },
                    parent: if proc { NO_PARENT } else { parent_scope },
                });
                if kind == StructKind::Stmt {
                    m.ranges
                        .extend(ranges.iter().map(|&(lo, hi)| (lo, hi, idx)));
                }
                Some((idx, scope_file))
            }
            _ => Some((parent_scope, scope_file)),
        }
    }

    /// A close tag ends the innermost open element of its name; only the top MAX_CLOSE_SEARCH
    /// elements are looked at, so a hostile file of deep opens and unmatched closes stays linear
    /// (real structure nests a few dozen levels). A close tag matching none is ignored.
    fn end(&mut self, name: &str) {
        let low = self.stack.len().saturating_sub(MAX_CLOSE_SEARCH);
        let found = self.stack[low..].iter().rposition(|(t, _, _)| *t == name);
        let open = self.stack.len() - low;
        work::add(Work::StructScopes, found.map_or(open, |k| open - k));
        if let Some(k) = found {
            self.stack.truncate(low + k);
        }
    }
}

/// `{[0x1129-0x1131) [0x1140-0x1150)}` -> [(0x1129, 0x1131), (0x1140, 0x1150)].
fn parse_ranges(v: &str) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    for part in v.split('[').skip(1) {
        let part = part.split(')').next().unwrap_or("");
        let mut it = part.split('-');
        let lo = it.next().and_then(hex);
        let hi = it.next().and_then(hex);
        if let (Some(lo), Some(hi)) = (lo, hi) {
            if lo < hi {
                out.push((lo, hi));
            }
        }
    }
    out
}

fn hex(s: &str) -> Option<u64> {
    let s = s.trim();
    let s = s.strip_prefix("0x").unwrap_or(s);
    u64::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"<?xml version="1.0"?>
<!DOCTYPE HPCToolkitStructure [
<!ELEMENT LM (F|P)*>
  <!-- comment with <tags> -->
]>
<HPCToolkitStructure i="0" version="4.9" n="">
<LM i="2" n="/bin/small" has-calls="0" v="{}">
<F i="3" n="/src/small.c">
<P i="4" n="spin&amp;sleep" l="1" v="{[0x1129-0x112a)}">
<S i="5" l="1" v="{[0x1129-0x1131)}"/>
<L i="9" l="3" f="/src/small.c" v="{[0x1169-0x116a)}">
<S i="10" l="3" v="{[0x1147-0x1172)}"/>
</L>
<A i="11" l="7" f="/src/small.c" n="" v="{}">
<A i="12" l="20" f="/src/inl.h" n="helper" v="{}">
<S i="13" l="21" v="{[0x1180-0x1190)}"/>
</A>
</A>
</P>
</F>
</LM>
</HPCToolkitStructure>
"#;

    #[test]
    fn parses_scopes_and_looks_up_addresses() {
        let mods = parse(SMALL, "s").unwrap();
        assert_eq!(mods.len(), 1);
        let m = &mods[0];
        assert_eq!(m.path, "/bin/small");
        let chain = m.lookup(0x1150);
        let kinds: Vec<_> = chain.iter().map(|&s| m.scopes[s as usize].kind).collect();
        assert_eq!(
            kinds,
            vec![StructKind::Proc, StructKind::Loop, StructKind::Stmt]
        );
        let p = &m.scopes[chain[0] as usize];
        assert_eq!(
            (p.name.as_str(), p.line, p.entry),
            ("spin&sleep", 1, Some(0x1129))
        );
        assert_eq!(&*p.file, "/src/small.c");
        assert_eq!(m.scopes[chain[2] as usize].line, 3);
        let inl = m.lookup(0x1185);
        let site = &m.scopes[inl[1] as usize];
        assert_eq!((site.kind, site.line), (StructKind::Stmt, 7));
        let a = &m.scopes[inl[2] as usize];
        assert_eq!(
            (a.kind, a.name.as_str(), &*a.file),
            (StructKind::Alien, "helper", "/src/inl.h")
        );
        assert_eq!(&*m.scopes[inl[3] as usize].file, "/src/inl.h");
        assert!(m.lookup(0x1000).is_empty());
        assert!(m.lookup(0x1172).is_empty());
    }

    #[test]
    fn garbage_does_not_panic() {
        for s in [
            "<",
            "<LM n=\"x",
            "<!DOCTYPE [",
            "<S v=\"{[0x-)}\"/>",
            "&&&<<>>",
        ] {
            let _ = parse(s, "g");
        }
        assert_eq!(
            parse_ranges("{[0x10-0x20) [0x30-0x28)}"),
            vec![(0x10, 0x20)]
        );
        assert_eq!(
            crate::formats::xml::decode(b"a&lt;b&#x41;&#66;&bogus;"),
            "a<bAB&bogus;"
        );
    }

    /// Hostile shapes that made the reader quadratic in the file size (each took minutes or
    /// exhausted memory at these sizes before the fix); now twice the file is twice the work.
    #[test]
    fn hostile_shapes_stay_linear() {
        use crate::work::{assert_scales, Work::XmlBytes};
        // n opens, then n closes matching none of them: each close looks at a bounded number.
        assert_scales(Work::StructScopes, "unmatched closes", 100_000, 2.2, |n| {
            let deep = format!("{}{}", "<x>".repeat(n), "</y>".repeat(n));
            assert!(parse(&deep, "deep").unwrap().is_empty());
        });
        // `<!x>` declarations and no '[' anywhere after them.
        assert_scales(XmlBytes, "declarations", 150_000, 2.2, |n| {
            let decls = format!("{}<LM n=\"m\">", "<!x>".repeat(n));
            assert_eq!(parse(&decls, "decls").unwrap().len(), 1);
        });
        // An attribute of '&' and no ';'.
        assert_scales(XmlBytes, "'&' in a value", 500_000, 2.2, |n| {
            let amps = format!("<LM n=\"{}\">", "&".repeat(n));
            assert_eq!(parse(&amps, "amps").unwrap()[0].path.len(), n);
        });
        // A 1 MB file name in force for 200,000 statements: shared, not copied per statement.
        let long = format!(
            "<LM n=\"m\"><F n=\"{}\"><P n=\"p\" v=\"{{[0x1-0x2)}}\">{}</P></F></LM>",
            "f".repeat(1 << 20),
            "<S l=\"1\" v=\"{[0x1-0x2)}\"/>".repeat(200_000)
        );
        let m = parse(&long, "long").unwrap();
        assert_eq!(m[0].scopes.len(), 200_001);
        assert_eq!(m[0].scopes[200_000].file.len(), 1 << 20);
        let first = &m[0].scopes[0].file;
        assert!(m[0].scopes.iter().all(|s| Arc::ptr_eq(&s.file, first)));
    }
}
