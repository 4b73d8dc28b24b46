//! Expressions inside template arguments, decltypes and array bounds, walked as uftrace's simple
//! demangler walks them (`dd_expression` and the unresolved names it reaches): only to be
//! skipped, nothing here is printed but through the names it parses.

use super::{in_set, Fail, Res, Simple, OPERATORS, UNARY_OPS};

impl Simple<'_> {
    pub(super) fn expression(&mut self) -> Res {
        self.nested(Self::expression_inner)
    }
    fn expression_inner(&mut self) -> Res {
        let (mut c0, mut c1) = (self.cur(), self.peek(1));
        // uftrace matches unary operators at the expression's start, even after `gs`.
        let start = self.pos;
        if c0 == b'g' && c1 == b's' {
            self.consume_n(2);
            (c0, c1) = (self.cur(), self.peek(1));
        }
        if c0 == b'L' {
            return self.expr_primary();
        }
        if let Some(op) = UNARY_OPS
            .iter()
            .find(|op| self.bytes_at(start, op.len()) == **op)
        {
            self.consume_n(op.len() as isize);
            return self.expression();
        }
        let two = [c0, c1];
        if &two == b"qu" {
            self.consume_n(2);
            self.expression()?;
            self.expression()?;
            return self.expression();
        }
        // Binary operators: every code of the operator table but those starting with `c` or
        // ending with `v` (`pt` and `nw` are therefore read as binary operators).
        if OPERATORS
            .iter()
            .any(|(k, _)| **k == two && c0 != b'c' && c1 != b'v')
        {
            self.consume_n(2);
            self.expression()?;
            return self.expression();
        }
        match &two {
            b"cl" | b"il" => {
                self.consume_n(2);
                return self.expr_list();
            }
            b"cv" => {
                self.consume_n(2);
                self.ty()?;
                if self.cur() == b'_' {
                    self.consume();
                    return self.expr_list();
                }
                return self.expression();
            }
            b"tl" => {
                self.consume_n(2);
                self.ty()?;
                return self.expr_list();
            }
            _ => {}
        }
        if in_set(b"dscr", c0) && c1 == b'c' {
            self.consume_n(2);
            self.ty()?;
            return self.expression();
        }
        match &two {
            b"ti" | b"st" | b"at" => {
                self.consume_n(2);
                self.ty()
            }
            [b'T', c] if *c == b'_' || c.is_ascii_digit() => self.template_param(),
            b"fp" | b"fL" => self.function_param(),
            b"dt" => {
                self.consume_n(2);
                self.expression()?;
                self.unresolved_name()
            }
            b"ds" => {
                self.consume_n(2);
                self.expression()?;
                self.expression()
            }
            b"sZ" => {
                self.consume_n(2);
                match self.cur() {
                    b'T' => self.template_param(),
                    b'f' => self.function_param(),
                    _ => Err(Fail),
                }
            }
            b"sP" => {
                self.consume_n(2);
                self.template_args_to_end()
            }
            b"tr" => {
                self.consume_n(2);
                Ok(())
            }
            _ => self.unresolved_name(),
        }
    }

    /// `L <type> <value> E` or `L _Z <encoding> E`.
    pub(super) fn expr_primary(&mut self) -> Res {
        self.lead(b'L')?;
        self.in_type += 1;
        self.level += 1;
        if self.cur() == b'_' && self.peek(1) == b'Z' {
            self.consume_n(2);
            self.encoding()?;
            self.expect(b'E')?;
        } else {
            let _ = self.ty();
            self.number();
            if self.cur() == b'_' {
                self.consume();
                self.number();
            }
            self.expect(b'E')?;
        }
        self.level -= 1;
        self.in_type -= 1;
        Ok(())
    }

    /// Expressions up to an `E` or `_`, which is consumed.
    fn expr_list(&mut self) -> Res {
        let mut c = self.cur();
        if self.eof() {
            return Err(Fail);
        }
        self.level += 1;
        while c != b'E' && c != b'_' {
            self.expression()?;
            c = self.cur();
        }
        self.consume_n(1);
        self.level -= 1;
        Ok(())
    }

    /// `fp [<cv>] [<n>] _` or `fL <n> p [<cv>] [<n>] _`.
    fn function_param(&mut self) -> Res {
        let (_, c1) = self.code2(|c0, c1| c0 == b'f' && (c1 == b'p' || c1 == b'L'))?;
        if self.cur().is_ascii_digit() {
            self.number();
            if c1 == b'L' {
                self.expect(b'p')?;
            }
        }
        let _ = self.qualifier();
        if self.cur().is_ascii_digit() {
            self.number();
        }
        self.expect(b'_')
    }

    fn unresolved_name(&mut self) -> Res {
        let (mut c0, mut c1) = (self.cur(), self.peek(1));
        if self.eof() {
            return Err(Fail);
        }
        if c0 == b'g' && c1 == b's' {
            self.consume_n(2);
            (c0, c1) = (self.cur(), self.peek(1));
        }
        if c0 == b's' && c1 == b'r' {
            self.consume_n(2);
            let c = self.cur();
            if matches!(c, b'T' | b'D' | b'S') {
                self.ty()?;
                self.base_unresolved_name()?;
                if self.cur() == b'I' {
                    let _ = self.template_args();
                }
                return Ok(());
            }
            if c == b'N' {
                self.consume();
                self.ty()?;
            }
            while self.cur() != b'E' {
                if self.simple_id().is_err() {
                    return Ok(());
                }
            }
            self.expect(b'E')?;
        }
        self.base_unresolved_name()
    }

    fn base_unresolved_name(&mut self) -> Res {
        let (c0, c1) = (self.cur(), self.peek(1));
        if self.eof() {
            return Err(Fail);
        }
        match (c0, c1) {
            (b'o', b'n') => {
                self.consume_n(2);
                self.operator_name()?;
                if self.cur() == b'I' {
                    return self.template_args();
                }
                Ok(())
            }
            (b'd', b'n') => {
                self.consume_n(2);
                self.destructor_name()
            }
            _ => self.simple_id(),
        }
    }

    fn simple_id(&mut self) -> Res {
        if self.eof() {
            return Err(Fail);
        }
        if !self.cur().is_ascii_digit() {
            return self.fail_at(-1);
        }
        self.source_name()?;
        if self.cur() == b'I' {
            return self.template_args();
        }
        Ok(())
    }

    fn destructor_name(&mut self) -> Res {
        let c = self.cur();
        if self.eof() {
            return Err(Fail);
        }
        if c.is_ascii_digit() {
            return self.source_name();
        }
        match c {
            b'T' => self.template_param(),
            b'D' => self.decltype(),
            b'S' => {
                self.substitution()?;
                if self.cur() == b'I' {
                    return self.template_args();
                }
                if self.cur().is_ascii_digit() {
                    return self.unqualified_name();
                }
                Ok(())
            }
            _ => Err(Fail),
        }
    }
}
