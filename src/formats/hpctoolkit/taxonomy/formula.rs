//! METRICS.yaml formulas (`variants:formula:inclusive|exclusive`) as [`Expr`]s: an input alias,
//! a number, an operator or function as a one-pair mapping (`{/: [a, b]}`, `{max: [0, x]}`), or the
//! infix form of the format's text, a sequence of terms and operators standing for a parenthesised
//! group (`[4*, [*a, -, *b]]`), parsed by [`formula_text`] as experiment.xml's formulas are.

use super::yaml::{Doc, Value, YamlError};
use crate::model::formula_text::{self, NoNames, Syntax, Tok};
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
    formula_text::lex(text, Syntax::Yaml, out).map_err(|e| YamlError::new(line, e))
}

/// The precedence parse of the tokens ([`formula_text::parse`]).
fn infix(toks: &[Tok], line: usize) -> Result<Expr, YamlError> {
    formula_text::parse(toks, &mut NoNames).map_err(|e| YamlError::new(line, e))
}
