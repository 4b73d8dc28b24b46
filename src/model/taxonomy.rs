//! Metric taxonomies: a dataset's metrics arranged as a tree for presentation, with the formula
//! (derived) metrics the tree defines over them. HPCToolkit writes one as METRICS.yaml
//! (`metrics/default.yaml` beside meta.db); formulas are evaluated the way hpcviewer evaluates its
//! derived metrics (edu.rice.cs.hpcdata `HierarchicalMetricDerivedFormula`, graphbuilder).

/// The tree: nodes in file order, the roots in display order, and the formula metrics. View metric
/// `i` is the dataset's metric `i` when `i < Dataset::metrics.len()`, else formula metric
/// `i - Dataset::metrics.len()` of `derived`.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MetricTaxonomy {
    /// The file it was read from ("db/metrics/default.yaml").
    pub source: String,
    pub nodes: Vec<TaxonomyNode>,
    /// Indexes into `nodes` of the top-level metrics.
    pub roots: Vec<u32>,
    pub derived: Vec<DerivedMetric>,
}

/// One metric of the tree (METRICS.yaml `roots:` and `children:` entries).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TaxonomyNode {
    pub name: String,
    /// Long description (Markdown in METRICS.yaml); empty when none.
    pub description: String,
    /// One-line description: `short description:`, else the description up to its first period
    /// or line end.
    pub short_description: String,
    /// Shown as a column unless the user asks (`visible by default:`, true when absent).
    pub visible: bool,
    /// Indexes into `MetricTaxonomy::nodes`.
    pub children: Vec<u32>,
    pub variants: Vec<MetricVariant>,
}

/// One variant of a metric ("Sum", "Mean", ""): how its values are computed and rendered.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MetricVariant {
    pub name: String,
    pub render: Render,
    /// printf-like number format (`%.2e`, `%6.2f %%`) when the file gives one.
    pub format: Option<String>,
    /// View metric holding the values; `None` for a node that only groups its children.
    pub metric: Option<u32>,
}

/// What a variant's cells show (METRICS.yaml `render:`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Render {
    pub number: bool,
    pub percent: bool,
    /// The variant hides inner values: hpcviewer hides such columns.
    pub hidden: bool,
    pub colorbar: bool,
}

/// A metric computed from others: the taxonomy's formulas, or a parent summing its children.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct DerivedMetric {
    pub name: String,
    pub description: String,
    /// Unit for display, when the inputs agree on one ("s"), else "".
    pub unit: String,
    /// Formula of the inclusive value; `None` when the metric has no inclusive value.
    pub inclusive: Option<Expr>,
    pub exclusive: Option<Expr>,
}

/// A formula over metric values.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum Expr {
    Number(f64),
    /// Inclusive (`exclusive` false: execution scope) or exclusive (function scope) value of a
    /// view metric; a formula metric only refers to metrics numbered before it.
    Value {
        metric: u32,
        exclusive: bool,
    },
    Neg(Box<Expr>),
    Op(Op, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
    /// `value` where `test` is non-zero, else 0: hpcviewer's `#n` in an exclusive view formula
    /// of experiment.xml reads metric n's value only where n's exclusive partner has one.
    Gated {
        test: Box<Expr>,
        value: Box<Expr>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// METRICS.yaml's functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Func {
    Sum,
    Prod,
    Pow,
    Sqrt,
    Log,
    Min,
    Max,
    Floor,
    StrictFloor,
    Ceil,
    StrictCeil,
}

impl Func {
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "sum" => Func::Sum,
            "prod" => Func::Prod,
            "pow" => Func::Pow,
            "sqrt" => Func::Sqrt,
            "log" => Func::Log,
            "min" => Func::Min,
            "max" => Func::Max,
            "floor" => Func::Floor,
            "strict floor" => Func::StrictFloor,
            "ceil" => Func::Ceil,
            "strict ceil" => Func::StrictCeil,
            _ => return None,
        })
    }
    /// Whether `n` arguments suit the function.
    pub fn takes(self, n: usize) -> bool {
        match self {
            Func::Pow => n == 2,
            Func::Log => n == 1 || n == 2,
            Func::Sqrt | Func::Floor | Func::StrictFloor | Func::Ceil | Func::StrictCeil => n == 1,
            Func::Sum | Func::Prod | Func::Min | Func::Max => n >= 1,
        }
    }
}

impl Expr {
    /// The value of the formula, `value(metric, exclusive)` giving its inputs (0 for a value the
    /// profile does not have, as hpcviewer's `MetricVarMap` answers). Division by zero gives 0
    /// (hpcviewer's graphbuilder `DivNode`). A result of 0 means "no value", as hpcviewer shows it.
    pub fn eval(&self, value: &mut dyn FnMut(u32, bool) -> f64) -> f64 {
        let v = self.eval_inner(value, 0);
        // hpcviewer: `Precision.equals(0.0, value)` (within one ulp) is MetricValue.NONE.
        if v.abs() <= f64::from_bits(1) {
            0.0
        } else {
            v
        }
    }

    fn eval_inner(&self, value: &mut dyn FnMut(u32, bool) -> f64, depth: u32) -> f64 {
        // Formulas come from files: their depth is bounded when read (MAX_DEPTH); this is a
        // second guard so a hand-built tree cannot exhaust the stack.
        if depth > MAX_DEPTH {
            return 0.0;
        }
        let mut ev = |e: &Expr| e.eval_inner(value, depth + 1);
        match self {
            Expr::Number(n) => *n,
            Expr::Value { metric, exclusive } => value(*metric, *exclusive),
            Expr::Neg(a) => -ev(a),
            Expr::Gated { test, value } => {
                if ev(test) != 0.0 {
                    ev(value)
                } else {
                    0.0
                }
            }
            Expr::Op(op, a, b) => {
                let (a, b) = (ev(a), ev(b));
                match op {
                    Op::Add => a + b,
                    Op::Sub => a - b,
                    Op::Mul => a * b,
                    Op::Div if b != 0.0 => a / b,
                    Op::Div => 0.0,
                    Op::Pow => a.powf(b),
                }
            }
            Expr::Call(f, args) => {
                let xs: Vec<f64> = args.iter().map(ev).collect();
                let x = xs.first().copied().unwrap_or(0.0);
                let y = xs.get(1).copied().unwrap_or(0.0);
                match f {
                    Func::Sum => xs.iter().sum(),
                    Func::Prod => xs.iter().product(),
                    Func::Pow => x.powf(y),
                    Func::Sqrt => x.sqrt(),
                    // hpcviewer hands `log(x)` to graphbuilder, whose one-argument log is base 10
                    // (METRICS.yaml's text says natural): the values follow hpcviewer.
                    Func::Log if xs.len() == 1 => x.log10(),
                    Func::Log => x.ln() / y.ln(),
                    Func::Min => xs.iter().copied().fold(f64::INFINITY, f64::min),
                    Func::Max => xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    Func::Floor => x.floor(),
                    Func::StrictFloor => {
                        let f = x.floor();
                        if f == x {
                            f - 1.0
                        } else {
                            f
                        }
                    }
                    Func::Ceil => x.ceil(),
                    Func::StrictCeil => {
                        let c = x.ceil();
                        if c == x {
                            c + 1.0
                        } else {
                            c
                        }
                    }
                }
            }
        }
    }

    /// The formula as text, `name(metric, exclusive)` naming the values it reads:
    /// `100 * (a / b)`, `max(0, a - b)`; parentheses only where precedence needs them.
    pub fn text(&self, name: &dyn Fn(u32, bool) -> String) -> String {
        self.text_prec(name, 0)
    }

    fn text_prec(&self, name: &dyn Fn(u32, bool) -> String, outer: u8) -> String {
        let (s, prec) = match self {
            Expr::Number(n) => (format!("{n}"), 4),
            Expr::Value { metric, exclusive } => (name(*metric, *exclusive), 4),
            Expr::Neg(a) => (format!("-{}", a.text_prec(name, 4)), 3),
            Expr::Gated { test, value } => (
                format!(
                    "({} if {} != 0)",
                    value.text_prec(name, 0),
                    test.text_prec(name, 0)
                ),
                4,
            ),
            Expr::Op(op, a, b) => {
                let (sym, p) = match op {
                    Op::Add => ("+", 1),
                    Op::Sub => ("-", 1),
                    Op::Mul => ("*", 2),
                    Op::Div => ("/", 2),
                    Op::Pow => ("^", 3),
                };
                // Left-associative operators need parentheses around a right operand of the same
                // precedence (a - (b - c)); the power, around a left one.
                let (lp, rp) = if *op == Op::Pow {
                    (p + 1, p)
                } else {
                    (p, p + 1)
                };
                let l = a.text_prec(name, lp);
                let r = b.text_prec(name, rp);
                (format!("{l} {sym} {r}"), p)
            }
            Expr::Call(f, args) => {
                let fname = match f {
                    Func::Sum => "sum",
                    Func::Prod => "prod",
                    Func::Pow => "pow",
                    Func::Sqrt => "sqrt",
                    Func::Log => "log",
                    Func::Min => "min",
                    Func::Max => "max",
                    Func::Floor => "floor",
                    Func::StrictFloor => "strict floor",
                    Func::Ceil => "ceil",
                    Func::StrictCeil => "strict ceil",
                };
                let xs: Vec<String> = args.iter().map(|a| a.text_prec(name, 0)).collect();
                (format!("{fname}({})", xs.join(", ")), 4)
            }
        };
        if prec < outer {
            format!("({s})")
        } else {
            s
        }
    }

    /// Every (metric, exclusive) value the formula reads, in order of appearance.
    pub fn inputs(&self, out: &mut Vec<(u32, bool)>) {
        match self {
            Expr::Number(_) => {}
            Expr::Value { metric, exclusive } => out.push((*metric, *exclusive)),
            Expr::Neg(a) => a.inputs(out),
            Expr::Gated { test, value } => {
                test.inputs(out);
                value.inputs(out);
            }
            Expr::Op(_, a, b) => {
                a.inputs(out);
                b.inputs(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.inputs(out)),
        }
    }
}

/// Deepest formula nesting read or evaluated.
pub const MAX_DEPTH: u32 = 64;

impl DerivedMetric {
    /// The formula of the inclusive (`exclusive` false) or exclusive value.
    pub fn formula(&self, exclusive: bool) -> Option<&Expr> {
        if exclusive {
            self.exclusive.as_ref()
        } else {
            self.inclusive.as_ref()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(metric: u32, exclusive: bool) -> Box<Expr> {
        Box::new(Expr::Value { metric, exclusive })
    }

    #[test]
    fn evaluates_as_hpcviewer() {
        let vals = |m: u32, x: bool| -> f64 {
            match (m, x) {
                (0, false) => 6.0,
                (1, false) => 4.0,
                (1, true) => 0.0,
                _ => 0.0,
            }
        };
        let mut f = vals;
        let ratio = Expr::Op(Op::Div, v(0, false), v(1, false));
        assert_eq!(ratio.eval(&mut f), 1.5);
        // Division by zero is 0 (graphbuilder DivNode), not NaN or infinity.
        let by_zero = Expr::Op(Op::Div, v(0, false), v(1, true));
        assert_eq!(by_zero.eval(&mut f), 0.0);
        let by_zero = Expr::Op(Op::Div, v(9, false), v(9, true));
        assert_eq!(by_zero.eval(&mut f), 0.0);
        // 100 * min(1, max(0, 6 / 4)) and the strict variants of floor and ceil.
        let clamp = Expr::Op(
            Op::Mul,
            Box::new(Expr::Number(100.0)),
            Box::new(Expr::Call(
                Func::Min,
                vec![
                    Expr::Number(1.0),
                    Expr::Call(Func::Max, vec![Expr::Number(0.0), ratio.clone()]),
                ],
            )),
        );
        assert_eq!(clamp.eval(&mut f), 100.0);
        let mut call = |func, x: f64| Expr::Call(func, vec![Expr::Number(x)]).eval(&mut f);
        assert_eq!(call(Func::StrictFloor, 3.0), 2.0);
        assert_eq!(call(Func::StrictFloor, 3.5), 3.0);
        assert_eq!(call(Func::StrictCeil, 3.0), 4.0);
        assert_eq!(call(Func::Log, 1000.0), 3.0);
        assert_eq!(
            Expr::Call(Func::Log, vec![Expr::Number(8.0), Expr::Number(2.0)]).eval(&mut f),
            3.0
        );
        assert_eq!(
            Expr::Op(Op::Pow, v(1, false), v(9, false)).eval(&mut f),
            1.0
        );
        // A result of exactly zero is no value, and so is -0.
        assert_eq!(
            Expr::Neg(v(1, true)).eval(&mut f).to_bits(),
            0.0f64.to_bits()
        );
        let mut ins = Vec::new();
        clamp.inputs(&mut ins);
        assert_eq!(ins, [(0, false), (1, false)]);
        let name =
            |m: u32, x: bool| format!("{}{}", ["a", "b"][m as usize % 2], if x { "E" } else { "" });
        assert_eq!(clamp.text(&name), "100 * min(1, max(0, a / b))");
        let nested = Expr::Op(
            Op::Sub,
            v(0, false),
            Box::new(Expr::Op(
                Op::Sub,
                v(1, true),
                Box::new(Expr::Neg(v(0, true))),
            )),
        );
        assert_eq!(nested.text(&name), "a - (bE - -aE)");
        let prod = Expr::Op(Op::Mul, Box::new(nested.clone()), v(1, false));
        assert_eq!(prod.text(&name), "(a - (bE - -aE)) * b");
        // A gated value: metric 0's inclusive value where metric 1's exclusive one is non-zero.
        let gated = |test| Expr::Gated {
            test,
            value: v(0, false),
        };
        assert_eq!(gated(v(1, true)).eval(&mut f), 0.0);
        assert_eq!(gated(v(1, false)).eval(&mut f), 6.0);
        let ratio = Expr::Op(Op::Div, Box::new(gated(v(1, false))), v(1, false));
        assert_eq!(ratio.eval(&mut f), 1.5);
        assert_eq!(ratio.text(&name), "(a if b != 0) / b");
        let mut ins = Vec::new();
        ratio.inputs(&mut ins);
        assert_eq!(ins, [(1, false), (0, false), (1, false)]);
    }
}
