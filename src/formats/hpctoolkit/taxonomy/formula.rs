//! METRICS.yaml formulas (`variants:formula:inclusive|exclusive`) as [`Expr`]s: an input (an
//! alias of an `inputs:` entry), a number, an operator or function as a one-pair mapping
//! (`{/: [a, b]}`, `{max: [0, x]}`, what hpcprof writes), or the infix form of the format's text: a
//! sequence of terms and operators standing for a parenthesised group (`[4*, [*a, -, *b]]`).

use super::yaml::{Doc, Value, YamlError};
use crate::model::taxonomy::{Expr, Func, Op, MAX_DEPTH};

/// Most formula nodes one taxonomy may build (aliases can share a sub-formula many times over).
pub const MAX_EXPR_NODES: usize = 200_000;

/// Turns the `inputs:` entries a formula names into values.
pub trait Inputs {
    /// The value an input mapping (`metric:`, `scope:` ...) stands for.
    fn input(&mut self, doc: &Doc, node: usize) -> Result<Expr, YamlError>;
}

/// Builds formulas, counting the nodes built.
pub struct Builder<'a, I: Inputs> {
    pub doc: &'a Doc,
    pub inputs: &'a mut I,
    pub built: usize,
}

#[derive(Clone, Debug)]
enum Tok {
    Num(f64),
    Op(char),
    Open,
    Close,
    Term(Expr),
}

impl<I: Inputs> Builder<'_, I> {
    /// The formula of node `id`.
    pub fn expr(&mut self, id: usize, depth: u32) -> Result<Expr, YamlError> {
        let doc = self.doc;
        let line = doc.line(id);
        if depth > MAX_DEPTH {
            return Err(YamlError::new(
                line,
                format!("formula nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.built += 1;
        crate::work::add(crate::work::Work::FormulaTerms, 1);
        if self.built > MAX_EXPR_NODES {
            return Err(YamlError::new(
                line,
                format!("formulas of more than {MAX_EXPR_NODES} terms"),
            ));
        }
        match &doc.node(id).value {
            Value::Map(_) if doc.get(id, "metric").is_some() => self.inputs.input(doc, id),
            Value::Map(pairs) => {
                let [(k, v)] = pairs[..] else {
                    return Err(YamlError::new(
                        line,
                        "a formula mapping must have exactly one operator or function",
                    ));
                };
                let name = doc
                    .str(k)
                    .ok_or_else(|| YamlError::new(line, "operator or function name expected"))?
                    .trim()
                    .to_string();
                let args: Vec<usize> = match doc.seq(v) {
                    Some(items) => items.to_vec(),
                    None => vec![v],
                };
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.expr(a, depth + 1)?);
                }
                apply(&name, xs, line)
            }
            Value::Seq(items) => {
                let mut toks = Vec::new();
                for &item in items {
                    match &doc.node(item).value {
                        Value::Scalar { text, plain } if !*plain || doc.number(item).is_none() => {
                            lex(text, &mut toks, doc.line(item))?
                        }
                        Value::Scalar { .. } => {
                            toks.push(Tok::Num(doc.number(item).unwrap_or(0.0)))
                        }
                        _ => toks.push(Tok::Term(self.expr(item, depth + 1)?)),
                    }
                }
                infix(&toks, line)
            }
            Value::Scalar { .. } => match doc.number(id) {
                Some(n) => Ok(Expr::Number(n)),
                None => {
                    let mut toks = Vec::new();
                    lex(doc.str(id).unwrap_or(""), &mut toks, line)?;
                    infix(&toks, line)
                }
            },
        }
    }
}

/// An operator or function applied to its arguments. One argument: `-` negates, `+` keeps it; two:
/// the binary operator (hpcviewer writes `(a op b)`); more: the operator folded from the left.
fn apply(name: &str, xs: Vec<Expr>, line: usize) -> Result<Expr, YamlError> {
    let op = match name {
        "+" => Some(Op::Add),
        "-" => Some(Op::Sub),
        "*" => Some(Op::Mul),
        "/" => Some(Op::Div),
        "^" => Some(Op::Pow),
        _ => None,
    };
    if let Some(op) = op {
        let mut it = xs.into_iter();
        let first = it
            .next()
            .ok_or_else(|| YamlError::new(line, format!("operator {name} without operands")))?;
        let rest: Vec<Expr> = it.collect();
        if rest.is_empty() {
            return match op {
                Op::Sub => Ok(Expr::Neg(Box::new(first))),
                Op::Add => Ok(first),
                _ => Err(YamlError::new(
                    line,
                    format!("operator {name} needs two operands"),
                )),
            };
        }
        return Ok(rest
            .into_iter()
            .fold(first, |a, b| Expr::Op(op, Box::new(a), Box::new(b))));
    }
    let f = Func::from_name(name)
        .ok_or_else(|| YamlError::new(line, format!("unknown function '{name}'")))?;
    if !f.takes(xs.len()) {
        return Err(YamlError::new(
            line,
            format!("function '{name}' given {} arguments", xs.len()),
        ));
    }
    Ok(Expr::Call(f, xs))
}

/// Splits scalar text of an infix formula into numbers and operators (`4*`, `3+4`, `-`).
fn lex(text: &str, out: &mut Vec<Tok>, line: usize) -> Result<(), YamlError> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => i += 1,
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
                let n: f64 = text[start..i].parse().map_err(|_| {
                    YamlError::new(line, format!("bad number '{}'", &text[start..i]))
                })?;
                out.push(Tok::Num(n));
            }
            _ => {
                return Err(YamlError::new(
                    line,
                    format!(
                        "unexpected '{}' in formula '{text}'",
                        &text[i..].chars().next().unwrap_or(' ')
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// Precedence parse of tokens: `+ -` below `* /` below `^` (right-associative); a term may carry
/// a leading sign.
fn infix(toks: &[Tok], line: usize) -> Result<Expr, YamlError> {
    let mut p = Infix { toks, at: 0, line };
    let e = p.sum(0)?;
    if p.at != toks.len() {
        return Err(YamlError::new(
            line,
            "unexpected operator or term in formula",
        ));
    }
    Ok(e)
}

struct Infix<'a> {
    toks: &'a [Tok],
    at: usize,
    line: usize,
}

impl Infix<'_> {
    fn err(&self, what: &str) -> YamlError {
        YamlError::new(self.line, what.to_string())
    }
    fn op(&self) -> Option<char> {
        match self.toks.get(self.at) {
            Some(Tok::Op(c)) => Some(*c),
            _ => None,
        }
    }
    fn sum(&mut self, depth: u32) -> Result<Expr, YamlError> {
        let mut a = self.product(depth)?;
        while let Some(c @ ('+' | '-')) = self.op() {
            self.at += 1;
            let b = self.product(depth)?;
            let op = if c == '+' { Op::Add } else { Op::Sub };
            a = Expr::Op(op, Box::new(a), Box::new(b));
        }
        Ok(a)
    }
    fn product(&mut self, depth: u32) -> Result<Expr, YamlError> {
        let mut a = self.power(depth)?;
        while let Some(c @ ('*' | '/')) = self.op() {
            self.at += 1;
            let b = self.power(depth)?;
            let op = if c == '*' { Op::Mul } else { Op::Div };
            a = Expr::Op(op, Box::new(a), Box::new(b));
        }
        Ok(a)
    }
    fn power(&mut self, depth: u32) -> Result<Expr, YamlError> {
        let a = self.term(depth)?;
        if self.op() == Some('^') {
            self.at += 1;
            let b = self.power(depth + 1)?;
            return Ok(Expr::Op(Op::Pow, Box::new(a), Box::new(b)));
        }
        Ok(a)
    }
    fn term(&mut self, depth: u32) -> Result<Expr, YamlError> {
        if depth > MAX_DEPTH {
            return Err(self.err("formula nested too deeply"));
        }
        let tok = self.toks.get(self.at).cloned();
        self.at += 1;
        match tok {
            Some(Tok::Num(n)) => Ok(Expr::Number(n)),
            Some(Tok::Term(e)) => Ok(e),
            Some(Tok::Op('-')) => Ok(Expr::Neg(Box::new(self.term(depth + 1)?))),
            Some(Tok::Op('+')) => self.term(depth + 1),
            Some(Tok::Open) => {
                let e = self.sum(depth + 1)?;
                match self.toks.get(self.at) {
                    Some(Tok::Close) => {
                        self.at += 1;
                        Ok(e)
                    }
                    _ => Err(self.err("missing ')' in formula")),
                }
            }
            _ => Err(self.err("a term is missing in formula")),
        }
    }
}
