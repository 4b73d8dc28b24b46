//! The Itanium-ABI productions as uftrace's simple demangler walks them (names, types,
//! expressions, special names), with its choices of what to print, what to skip and which
//! failures to ignore; a `Fail` that uftrace ignores is ignored here at the same place.

use super::{in_set, Fail, Res, Simple, BUILTIN_TYPES, OPERATORS, RUST_ESCAPES, STD_ABBREVS};

fn digit(c: u8) -> bool {
    c.is_ascii_digit()
}

impl Simple<'_> {
    /// `<encoding>`: a special name, or a name and its parameter types (skipped); the parameters
    /// end at `E` (local names), `.` (clone suffix) or `@` (symbol version).
    pub(super) fn encoding(&mut self) -> Res {
        self.nested(Self::encoding_inner)
    }
    fn encoding_inner(&mut self) -> Res {
        if self.pos == 0 {
            self.consume_n(2); // "_Z"
        }
        self.level += 1;
        if matches!(self.cur(), b'T' | b'G') {
            let r = self.special_name();
            self.level -= 1;
            return r;
        }
        self.name()?;
        while !self.eof() && !in_set(b"E.@", self.cur()) {
            if self.ty().is_err() {
                break;
            }
        }
        if matches!(self.cur(), b'.' | b'@') {
            self.len = self.pos;
        }
        self.level -= 1;
        Ok(())
    }

    pub(super) fn name(&mut self) -> Res {
        self.nested(Self::name_inner)
    }
    fn name_inner(&mut self) -> Res {
        match self.cur() {
            b'N' => return self.nested_name(),
            b'Z' => return self.local_name(),
            b'S' => {
                self.substitution()?;
                if self.cur() == b'I' {
                    return self.template_args();
                }
            }
            _ => {}
        }
        self.unqualified_name()?;
        if self.cur() == b'I' {
            return self.template_args();
        }
        Ok(())
    }

    fn nested_name(&mut self) -> Res {
        self.lead(b'N')?;
        self.level += 1;
        let mut ret = Ok(());
        while self.cur() != b'E' && !self.eof() && ret.is_ok() {
            let (c0, c1) = (self.cur(), self.peek(1));
            ret = match c0 {
                b'D' if matches!(c1, b'T' | b't') => self.decltype(),
                b'C' | b'D' => self.ctor_dtor_name(),
                b'U' => self.unqualified_name(),
                c if c.is_ascii_lowercase() || digit(c) => self.unqualified_name(),
                b'T' => self.template_param(),
                b'I' => self.template_args(),
                b'S' => self.substitution(),
                b'M' | b'L' => {
                    self.consume();
                    Ok(())
                }
                c if in_set(b"rVKRO", c) => {
                    let _ = self.qualifier();
                    Ok(())
                }
                _ => break,
            };
        }
        self.expect(b'E')?;
        self.level -= 1;
        ret
    }

    /// `Z <encoding> E <entity name> [<discriminator>]`: the function's name, then the local one.
    fn local_name(&mut self) -> Res {
        self.lead(b'Z')?;
        self.level += 1;
        let _ = self.encoding();
        self.expect(b'E')?;
        self.level -= 1;
        let c = self.cur();
        if c == b'd' {
            self.consume();
            if self.cur() != b'_' && self.number() < 0 {
                return Err(Fail);
            }
            self.expect(b'_')?;
            return self.name();
        }
        if c == b's' {
            self.consume();
        } else {
            let _ = self.name();
        }
        if self.cur() == b'_' && !self.ignore_disc {
            let _ = self.discriminator();
        }
        Ok(())
    }

    fn discriminator(&mut self) -> Res {
        self.lead(b'_')?;
        let c = self.cur();
        if digit(c) {
            return if self.number() > 0 { Ok(()) } else { Err(Fail) };
        }
        if c == b'_' {
            self.consume();
            if self.number() < 0 {
                return Err(Fail);
            }
            self.expect(b'_')?;
        }
        Ok(())
    }

    pub(super) fn unqualified_name(&mut self) -> Res {
        if self.eof() {
            return Err(Fail);
        }
        let (c0, c1) = (self.cur(), self.peek(1));
        let mut ret = if c0 == b'C' || c0 == b'D' {
            self.ctor_dtor_name()
        } else if c0 == b'U' {
            match c1 {
                b't' => {
                    // Unnamed type: nothing printed.
                    self.in_type += 1;
                    self.consume_n(2);
                    self.number();
                    self.expect(b'_')?;
                    self.in_type -= 1;
                    Ok(())
                }
                b'l' => match self.closure_name() {
                    // Inside a type uftrace returns before looking for an ABI tag.
                    Ok(true) => return Ok(()),
                    Ok(false) => Ok(()),
                    Err(f) => return Err(f),
                },
                _ => Err(Fail),
            }
        } else if c0.is_ascii_lowercase() {
            self.operator_name()
        } else {
            if c0 == b'L' {
                self.consume();
            }
            self.source_name()
        };
        if self.cur() == b'B' {
            ret = self.abi_tag();
        }
        ret
    }

    /// A lambda `Ul <types> E [n] _`, printed `$_<n+1>` (`$_0` for the first); true when it
    /// was inside a type (nothing printed).
    fn closure_name(&mut self) -> Result<bool, Fail> {
        self.consume_n(2);
        self.level += 1;
        while self.cur() != b'E' {
            if self.ty().is_err() {
                break;
            }
        }
        self.expect(b'E')?;
        self.level -= 1;
        let mut n = -1;
        if self.cur() != b'_' {
            n = self.number();
            if n < 0 {
                return Err(Fail);
            }
        }
        self.expect(b'_')?;
        if self.in_type > 0 {
            return Ok(true);
        }
        self.separator();
        let text = format!("$_{}", (n as i32).wrapping_add(1));
        self.append(text.as_bytes());
        Ok(false)
    }

    /// A constructor or destructor repeats the last printed name (after its last `:`).
    fn ctor_dtor_name(&mut self) -> Res {
        let (c0, mut c1) = self.code2(|c0, _| c0 == b'C' || c0 == b'D')?;
        let inheriting = c1 == b'I';
        if inheriting {
            c1 = self.consume();
        }
        if !digit(c1) {
            return self.fail_at(if inheriting { -3 } else { -2 });
        }
        let ret = if inheriting { self.ty() } else { Ok(()) };
        if self.in_type > 0 {
            return ret;
        }
        let last = match self.out.iter().rposition(|&b| b == b':') {
            Some(i) => self.out[i + 1..].to_vec(),
            None => self.out.clone(),
        };
        self.append(if c0 == b'C' { b"::" } else { b"::~" });
        self.append(&last);
        ret
    }

    pub(super) fn operator_name(&mut self) -> Res {
        let (c0, c1) = self.code2(|_, _| true)?;
        let code = [c0, c1];
        if self.in_type > 0 {
            self.operator_tail(&code);
            return Ok(());
        }
        if let Some((_, text)) = OPERATORS.iter().find(|(k, _)| **k == code) {
            self.separator();
            self.append(b"operator");
            self.append(text.as_bytes());
            self.in_type += 1;
            self.operator_tail(&code);
            self.in_type -= 1;
            return Ok(());
        }
        if c0 == b'v' && digit(c1) {
            // Vendor operator: its name is read, then the name fails anyway.
            self.in_type += 1;
            let _ = self.source_name();
            self.in_type -= 1;
        }
        self.fail_at(-2)
    }
    /// The type of a cast operator, the suffix of a literal operator.
    fn operator_tail(&mut self, code: &[u8; 2]) {
        match code {
            b"cv" => {
                let _ = self.ty();
            }
            b"li" => {
                let _ = self.source_name();
            }
            _ => {}
        }
    }

    fn abi_tag(&mut self) -> Res {
        self.lead(b'B')?;
        self.source_name()
    }

    /// `<length> <identifier>`, printed unless inside a type or template arguments; a Rust hash
    /// (`h` + 16 hex digits) is dropped and Rust `$..$` escapes are replaced.
    pub(super) fn source_name(&mut self) -> Res {
        let num = self.number();
        if num < 0 {
            return Err(Fail);
        }
        if self.eof() || self.pos + num as isize > self.len {
            return self.fail_at(0);
        }
        let num = num as isize;
        let skip = (self.in_type > 0 && !self.type_info)
            || self.templates > 0
            || (num == 17
                && self.at(self.pos) == b'h'
                && (1..17).all(|i| self.at(self.pos + i).is_ascii_hexdigit()));
        if skip {
            self.consume_n(num);
            return Ok(());
        }
        self.separator();
        let start = self.pos;
        let end = start + num;
        let mut p = start;
        // uftrace looks for `$` in the rest of the whole symbol, not only in this name.
        let mut dollar = self.find_dollar(p);
        if dollar.is_some_and(|d| d <= end) {
            while let Some(d) = dollar.filter(|&d| d < end) {
                self.append_range(p, d);
                let Some((code, text)) = RUST_ESCAPES
                    .iter()
                    .find(|(code, _)| self.bytes_at(d + 1, code.len()) == code.as_bytes())
                else {
                    // An unknown escape: the text before it is printed again with the rest.
                    break;
                };
                self.append(text.as_bytes());
                let step = (d - p) + code.len() as isize + 2;
                self.consume_n(step);
                p += step;
                dollar = self.find_dollar(p);
            }
        }
        self.append_range(p, end);
        self.consume_n(end - p);
        Ok(())
    }
    /// The first `$` at or after `from`. uftrace searches the rest of the symbol for every name,
    /// quadratic in the names of a long symbol; the last search is remembered instead, and
    /// answers while it started at or before `from` and its `$` (if any) still lies ahead.
    fn find_dollar(&mut self, from: isize) -> Option<isize> {
        let from = usize::try_from(from).ok()?;
        if let Some((searched, found)) = self.dollar {
            if searched <= from && found.is_none_or(|d| d >= from) && from <= self.s.len() {
                return found.map(|d| d as isize);
            }
        }
        let rest = self.s.get(from..)?;
        let at = rest.iter().position(|&b| b == b'$').map(|i| from + i);
        let searched = at.map_or(rest.len(), |d| d - from + 1);
        crate::work::add(crate::work::Work::Demangle, searched);
        self.dollar = Some((from, at));
        at.map(|d| d as isize)
    }
    /// Bytes `[from, from + n)` of the text, shorter at its end.
    pub(super) fn bytes_at(&self, from: isize, n: usize) -> &[u8] {
        let Ok(from) = usize::try_from(from) else {
            return &[];
        };
        let end = from.saturating_add(n).min(self.s.len());
        self.s.get(from..end).unwrap_or(&[])
    }
    /// Appends bytes `[from, to)`; even an empty range counts as appended (see `run`).
    fn append_range(&mut self, from: isize, to: isize) {
        let b = self.bytes_at(from, (to - from).max(0) as usize).to_vec();
        self.append(&b);
    }

    /// `S_`, `S<seq>_` (printed as nothing) or a standard abbreviation (printed outside types).
    pub(super) fn substitution(&mut self) -> Res {
        self.lead(b'S')?;
        let c = self.cur();
        if let Some((_, text)) = STD_ABBREVS.iter().find(|(k, _)| *k == c) {
            self.consume();
            if self.in_type == 0 || self.type_info {
                self.separator();
                self.append(text.as_bytes());
            }
            if self.cur() == b'B' {
                let _ = self.abi_tag();
            }
            return Ok(());
        }
        self.seq_id();
        self.expect(b'_')
    }

    pub(super) fn template_param(&mut self) -> Res {
        self.lead(b'T')?;
        self.number();
        self.expect(b'_')
    }

    /// `I <arg>+ E`: nothing inside is printed.
    pub(super) fn template_args(&mut self) -> Res {
        self.lead(b'I')?;
        self.templates += 1;
        self.template_args_to_end()?;
        self.templates -= 1;
        Ok(())
    }

    /// Template arguments one level down, up to an `E`, which is consumed.
    pub(super) fn template_args_to_end(&mut self) -> Res {
        self.level += 1;
        while self.cur() != b'E' {
            self.template_arg()?;
        }
        self.expect(b'E')?;
        self.level -= 1;
        Ok(())
    }

    pub(super) fn template_arg(&mut self) -> Res {
        self.nested(Self::template_arg_inner)
    }
    fn template_arg_inner(&mut self) -> Res {
        match self.cur() {
            b'X' => {
                self.consume();
                self.level += 1;
                let _ = self.expression();
                self.expect(b'E')?;
                self.level -= 1;
                Ok(())
            }
            b'L' => self.expr_primary(),
            b'J' => {
                self.consume();
                self.template_args_to_end()
            }
            _ => self.ty(),
        }
    }

    /// `<type>`, parsed only to be skipped (names inside are not printed).
    pub(super) fn ty(&mut self) -> Res {
        self.nested(Self::ty_inner)
    }
    fn ty_inner(&mut self) -> Res {
        self.in_type += 1;
        self.level += 1;
        let mut ret = Err(Fail);
        while !self.eof() {
            let c = self.cur();
            if in_set(b"rVK", c) {
                let _ = self.qualifier();
                continue;
            }
            if in_set(b"PROCG", c) {
                self.consume();
                continue;
            }
            match c {
                b'F' => ret = self.function_type(),
                b'T' => {
                    let c1 = self.peek(1);
                    if in_set(b"sue", c1) {
                        self.consume_n(2);
                        ret = self.name();
                    } else if c1 == b'_' || digit(c1) {
                        ret = self.template_param();
                        if self.cur() == b'I' {
                            ret = self.template_args();
                        }
                    }
                }
                b'A' => ret = self.array_type(),
                b'M' => ret = self.ptr_to_member_type(),
                b'D' => {
                    let c1 = self.peek(1);
                    if in_set(b"defhisacnu", c1) {
                        self.consume_n(2);
                        ret = Ok(());
                    } else if c1 == b'p' {
                        self.consume_n(2); // pack expansion
                        continue;
                    } else if c1 == b'v' {
                        let _ = self.vector_type();
                        continue;
                    } else if c1 == b't' || c1 == b'T' {
                        ret = self.decltype();
                    }
                }
                b'S' => {
                    let c1 = self.peek(1);
                    ret = self.substitution();
                    if ret.is_ok() && c1 == b't' && digit(self.cur()) {
                        ret = self.unqualified_name();
                    }
                    if self.cur() == b'I' {
                        ret = self.template_args();
                    }
                }
                b'u' => {
                    self.consume();
                    ret = self.source_name();
                }
                b'U' => {
                    // A vendor qualifier, then the qualified type.
                    self.consume();
                    ret = self.source_name();
                    if ret.is_ok() && self.cur() == b'I' {
                        ret = self.template_args();
                    }
                    if ret.is_ok() {
                        continue;
                    }
                }
                b'I' => ret = self.template_args(),
                c if digit(c) || c == b'N' || c == b'Z' => ret = self.name(),
                c => {
                    if BUILTIN_TYPES.contains(&c) {
                        self.consume();
                        ret = Ok(());
                    }
                }
            }
            break;
        }
        self.level -= 1;
        self.in_type -= 1;
        ret
    }

    pub(super) fn qualifier(&mut self) -> Res {
        if self.eof() {
            return Err(Fail);
        }
        if in_set(b"rVKRO", self.cur()) {
            self.consume();
        }
        Ok(())
    }

    fn function_type(&mut self) -> Res {
        self.lead(b'F')?;
        if self.cur() == b'Y' {
            self.consume();
        }
        self.in_type += 1;
        self.level += 1;
        let mut c = self.cur();
        while c != b'E' {
            let before = self.pos;
            if self.ty().is_err() {
                self.pos = before;
                break;
            }
            c = self.cur();
        }
        if c == b'R' || c == b'O' {
            let _ = self.qualifier();
        }
        self.expect(b'E')?;
        self.level -= 1;
        self.in_type -= 1;
        Ok(())
    }

    fn array_type(&mut self) -> Res {
        self.lead(b'A')?;
        let c = self.cur();
        if digit(c) {
            self.number();
        } else if c != b'_' {
            let _ = self.expression();
        }
        self.expect(b'_')?;
        self.ty()
    }

    fn ptr_to_member_type(&mut self) -> Res {
        self.lead(b'M')?;
        self.ty()?;
        self.ty()
    }

    pub(super) fn decltype(&mut self) -> Res {
        self.code2(|c0, c1| c0 == b'D' && (c1 == b'T' || c1 == b't'))?;
        self.in_type += 1;
        self.level += 1;
        let _ = self.expression();
        self.expect(b'E')?;
        self.level -= 1;
        self.in_type -= 1;
        Ok(())
    }

    fn vector_type(&mut self) -> Res {
        self.code2(|c0, c1| c0 == b'D' && c1 == b'v')?;
        self.in_type += 1;
        if self.cur() == b'_' {
            self.consume();
            let _ = self.expression();
        } else if self.number() < 0 {
            return Err(Fail);
        }
        self.expect(b'_')?;
        self.in_type -= 1;
        Ok(())
    }

    /// `T`, `G` special names: vtables and type info print their type after a `__kind__`
    /// prefix; thunks, clones and aliases print the function they stand for.
    fn special_name(&mut self) -> Res {
        const KINDS: &[u8; 6] = b"VTISFJ";
        const KIND_NAMES: [&str; 6] = [
            "vtable",
            "VTT",
            "typeinfo_name",
            "typeinfo",
            "typeinfo_fn",
            "java_class",
        ];
        let (c0, c1) = (self.cur(), self.peek(1));
        if self.eof() {
            return Err(Fail);
        }
        match (c0, c1) {
            (b'T', c1) if c1 != 0 && KINDS.contains(&c1) => {
                let idx = KINDS.iter().position(|&k| k == c1).unwrap_or(0);
                self.consume_n(2);
                self.type_info = true;
                self.append(b"__");
                self.append(KIND_NAMES[idx].as_bytes());
                self.append(b"__");
                self.ty()
            }
            (b'T', b'h' | b'v') => {
                self.consume();
                self.call_offset()?;
                self.encoding()
            }
            (b'T', b'c') => {
                self.consume_n(2);
                self.call_offset()?;
                self.call_offset()?;
                self.encoding()
            }
            (b'T', b'C') => {
                self.consume_n(2);
                self.append(b"__construction_vtable__");
                self.type_info = true;
                self.ty()?;
                if self.number() < 0 {
                    return Err(Fail);
                }
                if self.eof() {
                    return Ok(());
                }
                self.expect(b'_')?;
                self.type_info = false;
                self.ty()
            }
            (b'T', b'H' | b'W') => {
                self.consume_n(2);
                self.separator();
                self.append(if c1 == b'H' { b"TLS_init" } else { b"TLS_wrap" });
                self.name()
            }
            (b'G', b'V') => {
                self.consume_n(2);
                self.append(b"__guard_variable__");
                self.name()
            }
            (b'G', b'R') => {
                self.consume_n(2);
                self.append(b"__ref_temp__");
                self.ignore_disc = true;
                self.name()?;
                if self.cur() != b'_' {
                    self.seq_id();
                }
                self.expect(b'_')
            }
            (b'G', b'A') => {
                self.consume_n(2);
                self.encoding()
            }
            (b'G', b'T') => {
                self.consume_n(2);
                if matches!(self.cur(), b't' | b'n') {
                    self.consume();
                    return self.encoding();
                }
                Err(Fail)
            }
            // `T` with a NUL after it would index past uftrace's table; fail instead.
            (b'T', 0) => Err(Fail),
            _ => self.fail_at(0),
        }
    }

    /// `h <offset> _` or `v <offset> _ <offset> _` of a thunk.
    fn call_offset(&mut self) -> Res {
        if self.eof() {
            return Err(Fail);
        }
        let c = self.cur();
        if c != b'h' && c != b'v' {
            return Err(Fail);
        }
        self.consume();
        let parts = if c == b'h' { 1 } else { 2 };
        for _ in 0..parts {
            if self.number() < 0 {
                return Err(Fail);
            }
            self.expect(b'_')?;
        }
        Ok(())
    }
}
