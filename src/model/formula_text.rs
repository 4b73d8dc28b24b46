//! Formula text as [`Expr`]s for both places HPCToolkit writes formulas: the infix text of
//! METRICS.yaml (`4*`, `-`, `(3+4)`) and experiment.xml's `<MetricFormula frm="100*(#47/#48)">`
//! (`$n`, `#n`, `@n`, `name(a, b)`). One lexer, one precedence parser: `+ -` below `* /` below
//! `^` (right-associative); a term may carry a leading sign.

use super::taxonomy::{Expr, Op, MAX_DEPTH};

/// Which text a formula is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// METRICS.yaml scalar text: numbers, operators and parentheses only (commas separate
    /// YAML items and are skipped).
    Yaml,
    /// experiment.xml (hpcviewer): also `$n` / `#n` / `@n` variables, names and commas.
    Hpcviewer,
}

#[derive(Clone, Debug)]
pub enum Tok {
    Num(f64),
    Op(char),
    Open,
    Close,
    Comma,
    /// A function name.
    Name(String),
    /// A variable: its sigil (`$`, `#`, `@`) and number.
    Var(char, u32),
    /// A term the caller built (a METRICS.yaml input or nested formula).
    Term(Expr),
}

/// What the parser cannot know: the value a variable stands for and how a function applies.
pub trait Resolve {
    fn var(&mut self, sigil: char, n: u32) -> Result<Expr, String> {
        Err(format!("unexpected variable '{sigil}{n}' in formula"))
    }
    fn call(&mut self, name: &str, _args: Vec<Expr>) -> Result<Expr, String> {
        Err(format!("unexpected function '{name}' in formula"))
    }
}

/// A resolver for text without variables or calls (METRICS.yaml).
pub struct NoNames;
impl Resolve for NoNames {}

/// Splits `text` into tokens, appended to `out`.
pub fn lex(text: &str, syntax: Syntax, out: &mut Vec<Tok>) -> Result<(), String> {
    let b = text.as_bytes();
    let xml = syntax == Syntax::Hpcviewer;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b',' if !xml => i += 1,
            b',' => {
                out.push(Tok::Comma);
                i += 1;
            }
            b'+' | b'-' | b'*' | b'/' | b'^' => {
                out.push(Tok::Op(c as char));
                i += 1;
            }
            b'(' => {
                out.push(Tok::Open);
                i += 1;
            }
            b')' => {
                out.push(Tok::Close);
                i += 1;
            }
            b'0'..=b'9' | b'.' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                    i += 1;
                }
                if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                    let mut j = i + 1;
                    if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                        j += 1;
                    }
                    if j < b.len() && b[j].is_ascii_digit() {
                        i = j;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
                let n: f64 = text[start..i]
                    .parse()
                    .map_err(|_| format!("bad number '{}'", &text[start..i]))?;
                out.push(Tok::Num(n));
            }
            b'$' | b'#' | b'@' if xml => {
                let start = i + 1;
                i = start;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let n: u32 = text[start..i].parse().map_err(|_| {
                    format!(
                        "'{}' must be followed by a metric number in formula '{text}'",
                        c as char
                    )
                })?;
                out.push(Tok::Var(c as char, n));
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' if xml => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Tok::Name(text[start..i].to_string()));
            }
            _ => {
                return Err(format!(
                    "unexpected '{}' in formula '{text}'",
                    text[i..].chars().next().unwrap_or(' ')
                ))
            }
        }
    }
    Ok(())
}

/// Parses the tokens of one formula.
pub fn parse(toks: &[Tok], resolve: &mut dyn Resolve) -> Result<Expr, String> {
    let mut p = Parser {
        toks,
        at: 0,
        resolve,
    };
    let e = p.sum(0)?;
    if p.at != toks.len() {
        return Err("unexpected operator or term in formula".into());
    }
    Ok(e)
}

/// Lexes and parses `text` in one step.
pub fn parse_text(text: &str, syntax: Syntax, resolve: &mut dyn Resolve) -> Result<Expr, String> {
    let mut toks = Vec::new();
    lex(text, syntax, &mut toks)?;
    parse(&toks, resolve)
}

struct Parser<'a> {
    toks: &'a [Tok],
    at: usize,
    resolve: &'a mut dyn Resolve,
}

impl Parser<'_> {
    fn op(&self) -> Option<char> {
        match self.toks.get(self.at) {
            Some(Tok::Op(c)) => Some(*c),
            _ => None,
        }
    }
    /// Operands read by `operand`, joined left to right by the two operators of one precedence
    /// level (`ops`: the characters and their operations).
    fn left_assoc(
        &mut self,
        depth: u32,
        ops: [(char, Op); 2],
        operand: fn(&mut Self, u32) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        let mut a = operand(self, depth)?;
        while let Some(&(_, op)) = self.op().and_then(|c| ops.iter().find(|o| o.0 == c)) {
            self.at += 1;
            let b = operand(self, depth)?;
            a = Expr::Op(op, Box::new(a), Box::new(b));
        }
        Ok(a)
    }
    fn sum(&mut self, depth: u32) -> Result<Expr, String> {
        self.left_assoc(depth, [('+', Op::Add), ('-', Op::Sub)], Self::product)
    }
    fn product(&mut self, depth: u32) -> Result<Expr, String> {
        self.left_assoc(depth, [('*', Op::Mul), ('/', Op::Div)], Self::power)
    }
    fn power(&mut self, depth: u32) -> Result<Expr, String> {
        let a = self.term(depth)?;
        if self.op() == Some('^') {
            self.at += 1;
            let b = self.power(depth + 1)?;
            return Ok(Expr::Op(Op::Pow, Box::new(a), Box::new(b)));
        }
        Ok(a)
    }
    fn close(&mut self) -> Result<(), String> {
        match self.toks.get(self.at) {
            Some(Tok::Close) => {
                self.at += 1;
                Ok(())
            }
            _ => Err("missing ')' in formula".into()),
        }
    }
    fn term(&mut self, depth: u32) -> Result<Expr, String> {
        if depth > MAX_DEPTH {
            return Err("formula nested too deeply".into());
        }
        let tok = self.toks.get(self.at).cloned();
        self.at += 1;
        match tok {
            Some(Tok::Num(n)) => Ok(Expr::Number(n)),
            Some(Tok::Term(e)) => Ok(e),
            Some(Tok::Var(sigil, n)) => self.resolve.var(sigil, n),
            Some(Tok::Op('-')) => Ok(Expr::Neg(Box::new(self.term(depth + 1)?))),
            Some(Tok::Op('+')) => self.term(depth + 1),
            Some(Tok::Open) => {
                let e = self.sum(depth + 1)?;
                self.close()?;
                Ok(e)
            }
            Some(Tok::Name(name)) => {
                if !matches!(self.toks.get(self.at), Some(Tok::Open)) {
                    return Err(format!("unknown name '{name}' in formula"));
                }
                self.at += 1;
                let mut args = Vec::new();
                if !matches!(self.toks.get(self.at), Some(Tok::Close)) {
                    loop {
                        args.push(self.sum(depth + 1)?);
                        match self.toks.get(self.at) {
                            Some(Tok::Comma) => self.at += 1,
                            _ => break,
                        }
                    }
                }
                self.close()?;
                self.resolve.call(&name, args)
            }
            _ => Err("a term is missing in formula".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::taxonomy::Func;

    /// `$n` is metric n's inclusive value, `#n` its exclusive one; `max`/`sqrt` only.
    struct Vars;
    impl Resolve for Vars {
        fn var(&mut self, sigil: char, n: u32) -> Result<Expr, String> {
            match sigil {
                '$' | '#' => Ok(Expr::Value {
                    metric: n,
                    exclusive: sigil == '#',
                }),
                _ => Err(format!("no {sigil}")),
            }
        }
        fn call(&mut self, name: &str, args: Vec<Expr>) -> Result<Expr, String> {
            let f = Func::from_name(name).ok_or_else(|| format!("unknown function '{name}'"))?;
            Ok(Expr::Call(f, args))
        }
    }

    fn eval(text: &str, vals: &[f64]) -> Result<f64, String> {
        let e = parse_text(text, Syntax::Hpcviewer, &mut Vars)?;
        Ok(e.eval(&mut |m, x| vals[m as usize * 2 + x as usize]))
    }

    #[test]
    fn hpcviewer_text() {
        // metric 0: incl 6 excl 2; metric 1: incl 4 excl 0.
        let v = [6.0, 2.0, 4.0, 0.0];
        assert_eq!(eval("$0/$1", &v), Ok(1.5));
        assert_eq!(eval("100*($0/$1)", &v), Ok(150.0));
        assert_eq!(eval("#0/#1", &v), Ok(0.0), "division by zero is 0");
        assert_eq!(eval("2^3^2", &v), Ok(512.0), "power is right-associative");
        assert_eq!(eval("-$0 + 10", &v), Ok(4.0));
        assert_eq!(eval("max($0, $1, 7) - sqrt(16)", &v), Ok(3.0));
        assert_eq!(eval(" 1.5e1 - $1 ", &v), Ok(11.0));
        for bad in [
            "$", "$0 +", "max($0", "foo", "avg($0)", "$0 $1", "@0", "(1", "1 % 2",
        ] {
            assert!(eval(bad, &v).is_err(), "{bad}");
        }
        assert!(eval(&"(".repeat(200), &v).is_err());
    }

    #[test]
    fn yaml_text_has_no_names() {
        let mut toks = Vec::new();
        lex("4*, (3+4)", Syntax::Yaml, &mut toks).unwrap();
        assert_eq!(toks.len(), 7, "the comma is a YAML separator: {toks:?}");
        let e = parse(&toks[..1], &mut NoNames).unwrap();
        assert_eq!(e, Expr::Number(4.0));
        assert!(lex("$1", Syntax::Yaml, &mut Vec::new()).is_err());
        assert!(lex("max", Syntax::Yaml, &mut Vec::new()).is_err());
    }
}
