//! Symbol names as `uftrace report` prints them: uftrace's "simple" demangler (`utils/demangle.c`,
//! the version in uftrace 0.13), reimplemented to give the same string for every input, quirks
//! included — scopes and function names only (`std::vector::vector`), ABI tags as a last scope
//! (`::cxx11`), lambdas as `$_N`, special names as `__vtable__X`, `_GLOBAL__sub_I_` kept as prefix.

use crate::work::{self, Work};

/// The name uftrace prints for symbol `sym`; names it cannot demangle come back unchanged.
pub fn demangle(sym: &str) -> String {
    const PREFIX: &str = "_GLOBAL__sub_I_";
    let (prefix, rest) = match sym.strip_prefix(PREFIX) {
        Some(r) => (PREFIX, r),
        None => ("", sym),
    };
    if !rest.starts_with("_Z") {
        return sym.to_string();
    }
    let mut d = Simple::new(rest.as_bytes());
    match d.run() {
        Some(out) => format!("{prefix}{}", String::from_utf8_lossy(&out)),
        None => sym.to_string(),
    }
}

/// A step failed (uftrace's `-1`). Callers decide, as uftrace does, whether that fails the name.
struct Fail;
type Res = Result<(), Fail>;

/// Operator codes and what uftrace prints after `operator`, in its matching order (0.13 has no
/// `ss` (<=>) nor `aw` (co_await): names with them are kept as they are).
const OPERATORS: [(&[u8; 2], &str); 49] = [
    (b"nw", " new"),
    (b"na", " new[]"),
    (b"dl", " delete"),
    (b"da", " delete[]"),
    (b"ps", "+"),
    (b"ng", "-"),
    (b"ad", "&"),
    (b"de", "*"),
    (b"co", "~"),
    (b"pl", "+"),
    (b"mi", "-"),
    (b"ml", "*"),
    (b"dv", "/"),
    (b"rm", "%"),
    (b"an", "&"),
    (b"or", "|"),
    (b"eo", "^"),
    (b"aS", "="),
    (b"pL", "+="),
    (b"mI", "-="),
    (b"mL", "*="),
    (b"dV", "/="),
    (b"rM", "%="),
    (b"aN", "&="),
    (b"oR", "|="),
    (b"eO", "^="),
    (b"ls", "<<"),
    (b"rs", ">>"),
    (b"lS", "<<="),
    (b"rS", ">>="),
    (b"eq", "=="),
    (b"ne", "!="),
    (b"lt", "<"),
    (b"gt", ">"),
    (b"le", "<="),
    (b"ge", ">="),
    (b"nt", "!"),
    (b"aa", "&&"),
    (b"oo", "||"),
    (b"pp", "++"),
    (b"mm", "--"),
    (b"cm", ","),
    (b"pm", "->*"),
    (b"pt", "->"),
    (b"cl", "()"),
    (b"ix", "[]"),
    (b"qu", "?"),
    (b"cv", "(cast)"),
    (b"li", "\"\""),
];

/// Builtin type codes (`types[]` of uftrace: only their letters matter, names are never shown).
const BUILTIN_TYPES: &[u8] = b"vwbcahstijlmxynofdegz";

/// Standard abbreviations after `S` and the names printed for them.
const STD_ABBREVS: [(u8, &str); 7] = [
    (b't', "std"),
    (b'a', "std::allocator"),
    (b'b', "std::basic_string"),
    (b's', "std::basic_string<>"),
    (b'i', "std::basic_istream"),
    (b'o', "std::basic_ostream"),
    (b'd', "std::basic_iostream"),
];

/// Rust legacy escapes `$code$` and their characters, in uftrace's matching order.
const RUST_ESCAPES: [(&str, &str); 19] = [
    ("SP", "@"),
    ("BP", "*"),
    ("RF", "&"),
    ("LT", "<"),
    ("GT", ">"),
    ("LP", "("),
    ("RP", ")"),
    ("C", ","),
    ("u20", " "),
    ("u22", "\""),
    ("u27", "'"),
    ("u2b", "+"),
    ("u3b", ";"),
    ("u3d", "="),
    ("u5b", "["),
    ("u5d", "]"),
    ("u7b", "{"),
    ("u7d", "}"),
    ("u7e", "~"),
];

/// Unary operator prefixes of expressions, matched in this order.
const UNARY_OPS: [&[u8]; 17] = [
    b"ps", b"ng", b"ad", b"de", b"pp_", b"mm_", b"pp", b"mm", b"dl", b"da", b"te", b"sz", b"az",
    b"nx", b"sp", b"tw", b"nt",
];

/// Nesting bound: uftrace recurses without one; hostile names get their own text back instead.
const MAX_DEPTH: u32 = 400;

/// C's `strchr(set, c)` as a test: the terminating NUL is part of every set.
fn in_set(set: &[u8], c: u8) -> bool {
    c == 0 || set.contains(&c)
}

/// The parser state of uftrace's `struct demangle_data`. Positions are signed because uftrace
/// steps back one byte when a check fails, even at the start.
struct Simple<'a> {
    s: &'a [u8],
    pos: isize,
    /// End of the part still read; a clone suffix (`.constprop.0`) or version (`@GLIBC`) ends it.
    len: isize,
    out: Vec<u8>,
    level: i32,
    /// Inside a type: names are parsed, not printed.
    in_type: i32,
    /// Inside template arguments: names are not printed.
    templates: i32,
    /// A special name (vtable, typeinfo) whose type is printed.
    type_info: bool,
    first_name: bool,
    ignore_disc: bool,
    /// A failure was already recorded (uftrace's `expected`): later failed checks stay in place.
    failed_once: bool,
    /// Something was appended, if only an empty name.
    appended: bool,
    steps_left: u64,
    depth: u32,
    aborted: bool,
    /// The last search for `$`: where it started, and the `$` it found.
    dollar: Option<(usize, Option<usize>)>,
}

impl<'a> Simple<'a> {
    fn new(s: &'a [u8]) -> Simple<'a> {
        Simple {
            s,
            pos: 0,
            len: s.len() as isize,
            out: Vec::new(),
            level: 0,
            in_type: 0,
            templates: 0,
            type_info: false,
            first_name: true,
            ignore_disc: false,
            failed_once: false,
            appended: false,
            steps_left: 1000 + 64 * s.len() as u64,
            depth: 0,
            aborted: false,
            dollar: None,
        }
    }

    /// uftrace's `demangle_simple` after the prefix: the name, or `None` to keep the symbol.
    fn run(&mut self) -> Option<Vec<u8>> {
        let ok = self.encoding().is_ok() && self.level == 0;
        if !ok || self.aborted {
            return None;
        }
        if !self.eof() && (!self.type_info || self.name().is_err() || self.aborted) {
            return None;
        }
        // uftrace crashes when nothing was ever appended (`_ZNE`, its buffer is still NULL); the
        // symbol is kept instead. An empty name appended (`_Z0K`) prints as empty, as there.
        if !self.appended {
            return None;
        }
        Some(std::mem::take(&mut self.out))
    }

    // --- reading -------------------------------------------------------------------------

    /// The byte at `i` of the text, NUL past either end (C reads the terminator).
    fn at(&self, i: isize) -> u8 {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.s.get(i))
            .copied()
            .unwrap_or(0)
    }
    fn eof(&self) -> bool {
        self.pos >= self.len
    }
    fn peek(&self, ahead: isize) -> u8 {
        if self.pos + ahead > self.len {
            0
        } else {
            self.at(self.pos + ahead)
        }
    }
    fn cur(&self) -> u8 {
        self.peek(0)
    }
    /// Moves `n` bytes on when they lie before `len` (else stays); the byte that was current.
    fn consume_n(&mut self, n: isize) -> u8 {
        let c = self.cur();
        if self.pos + n > self.len {
            return 0;
        }
        self.pos += n;
        c
    }
    fn consume(&mut self) -> u8 {
        self.consume_n(1)
    }
    /// A production's leading byte: fails at the end of the text, else as `expect`.
    fn lead(&mut self, c: u8) -> Res {
        if self.eof() {
            return Err(Fail);
        }
        self.expect(c)
    }
    /// Consumes `c` or fails; the first failure steps back one byte, as uftrace does.
    fn expect(&mut self, c: u8) -> Res {
        if self.consume() == c {
            return Ok(());
        }
        if !self.failed_once {
            self.pos -= 1;
            self.failed_once = true;
        }
        Err(Fail)
    }
    /// Consumes a two-byte code; fails at the end of the text, and steps back over both bytes
    /// when `fits` refuses them.
    fn code2(&mut self, fits: impl Fn(u8, u8) -> bool) -> Result<(u8, u8), Fail> {
        let c0 = self.consume();
        let c1 = self.consume();
        if self.eof() {
            return Err(Fail);
        }
        if !fits(c0, c1) {
            return self.fail_at(-2);
        }
        Ok((c0, c1))
    }
    /// A failed check that moves the position by `delta` first.
    fn fail_at<T>(&mut self, delta: isize) -> Result<T, Fail> {
        self.pos += delta;
        self.failed_once = true;
        Err(Fail)
    }
    /// Runs the production `inner` one nesting level down, counted as a step; it fails at the
    /// end of the text, and past the bounds every step fails for good.
    fn nested(&mut self, inner: fn(&mut Self) -> Res) -> Res {
        if self.aborted || self.steps_left == 0 || self.depth >= MAX_DEPTH {
            self.aborted = true;
            return Err(Fail);
        }
        self.steps_left -= 1;
        work::add(Work::Demangle, 1);
        self.depth += 1;
        let r = if self.eof() { Err(Fail) } else { inner(self) };
        self.depth -= 1;
        r
    }

    /// A number as C's `strtoul(.., 0)` reads it (octal after a leading 0, hex after 0x), cut to
    /// an `int`; a leading `n` (negative) is skipped. Negative means failure.
    fn number(&mut self) -> i64 {
        if self.eof() {
            return -1;
        }
        if self.at(self.pos) == b'n' {
            self.pos += 1;
        }
        if !self.at(self.pos).is_ascii_digit() {
            let _: Res = self.fail_at(0);
            return -1;
        }
        let mut i = self.pos;
        let hex = self.at(i) == b'0'
            && matches!(self.at(i + 1), b'x' | b'X')
            && self.at(i + 2).is_ascii_hexdigit();
        let radix: u64 = if hex {
            i += 2;
            16
        } else if self.at(i) == b'0' {
            8
        } else {
            10
        };
        let mut v: u64 = 0;
        let mut overflow = false;
        while let Some(d) = (self.at(i) as char).to_digit(radix as u32) {
            match v.checked_mul(radix).and_then(|x| x.checked_add(d as u64)) {
                Some(x) => v = x,
                None => overflow = true,
            }
            i += 1;
        }
        self.pos = i;
        let v = if overflow { u64::MAX } else { v };
        (v as u32 as i32) as i64
    }
    /// A sequence id (digits and capitals), skipped.
    fn seq_id(&mut self) {
        if self.eof() {
            return;
        }
        while self.at(self.pos).is_ascii_digit() || self.at(self.pos).is_ascii_uppercase() {
            self.pos += 1;
        }
    }

    // --- writing -------------------------------------------------------------------------

    fn append(&mut self, b: &[u8]) {
        work::add(Work::Demangle, b.len());
        self.out.extend_from_slice(b);
        self.appended = true;
    }
    /// `::` before every printed name but the first.
    fn separator(&mut self) {
        if !self.first_name {
            self.append(b"::");
        }
        self.first_name = false;
    }
}

mod expr;
mod grammar;

#[cfg(test)]
mod tests;
