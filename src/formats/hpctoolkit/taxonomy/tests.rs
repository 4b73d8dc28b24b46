//! Unit tests of the METRICS.yaml reader: what hpcprof writes, the format's own example, damaged
//! files as errors or warnings with their line, and aliases that cannot multiply work.

use super::*;
use crate::model::taxonomy::Op;
use crate::model::{MetricScope, ScopeKind};

/// A metric with every scope, its unit the one its name implies.
fn metric(name: &str) -> Metric {
    let scope = |s: &str, kind, id| MetricScope {
        scope: s.into(),
        kind,
        prop_metric_id: id,
    };
    Metric {
        scopes: vec![
            scope("point", ScopeKind::Point, 0),
            scope("function", ScopeKind::Function, 1),
            scope("lex_aware", ScopeKind::Custom, 2),
            scope("execution", ScopeKind::Execution, 3),
        ],
        ..Metric::named(name)
    }
}

fn val(metric: u32, exclusive: bool) -> Box<Expr> {
    Box::new(Expr::Value { metric, exclusive })
}

/// What hpcprof writes: anchored inputs, `standard`/`custom` formulas, a ratio with only an
/// exclusive formula, hidden metrics, and a parent summing its children.
const HPCPROF: &str = r#"version: 0
inputs:
  - &T-execution
    metric: GKER (sec)
    scope: execution
    formula: $$
    combine: sum
  - &T-lex_aware
    metric: GKER (sec)
    scope: lex_aware
    formula: $$
    combine: sum
  - &T-function
    metric: GKER (sec)
    scope: function
    formula: $$
    combine: sum
  - &C-function
    metric: GKER:COUNT
    scope: function
  - &C-execution
    metric: GKER:COUNT
    scope: execution
  - &S-execution
    metric: GSYNC (sec)
    scope: execution
  - &S-function
    metric: GSYNC (sec)
    scope: function
roots:
  - name: GPU
    description: GPU time. All of it.
    variants:
      Sum:
        render: [number, percent, colorbar]
        formula: sum
    children:
      - name: Kernel
        description: "kernels"
        variants:
          Sum:
            render: [number, percent]
            formula:
              inclusive:
                standard: *T-execution
              exclusive:
                custom: *T-lex_aware
                standard: *T-function
      - name: Sync
        visible by default: false
        variants:
          Sum:
            render: number
            formula:
              inclusive: *S-execution
              exclusive: *S-function
  - name: GKER:PER
    short description: Seconds per launch
    format: "%6.2f"
    variants:
      "":
        render: [number]
        formula:
          exclusive:
            custom: {/: [*T-lex_aware, *C-function]}
            standard: {/: [*T-function, *C-function]}
  - name: Other
    variants:
      Sum:
        render: hidden
    children:
      - name: GKER:COUNT
        variants:
          Sum:
            render: [number, percent]
            formula:
              inclusive: *C-execution
              exclusive: *C-function
"#;

#[test]
fn reads_what_hpcprof_writes() {
    let metrics = ["GKER:COUNT", "GKER (sec)", "GSYNC (sec)"].map(metric);
    let (t, w) = read("db/metrics/default.yaml", HPCPROF, &metrics).unwrap();
    assert!(w.is_empty(), "{w:?}");
    let names: Vec<&str> = t.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        ["GPU", "Kernel", "Sync", "GKER:PER", "Other", "GKER:COUNT"]
    );
    assert_eq!(t.roots, [0, 3, 4]);
    assert_eq!(t.nodes[0].children, [1, 2]);
    assert_eq!(t.nodes[4].children, [5]);
    assert!(t.nodes[0].visible && !t.nodes[2].visible);
    assert_eq!(t.nodes[0].short_description, "GPU time");
    assert_eq!(t.nodes[3].description, "Seconds per launch");
    // Plain inputs are the dataset's metrics themselves (the standard exclusive formula).
    assert_eq!(t.nodes[1].variants[0].metric, Some(1));
    assert_eq!(t.nodes[2].variants[0].metric, Some(2));
    assert_eq!(t.nodes[5].variants[0].metric, Some(0));
    // Formula metrics are numbered after the dataset's, a parent's after its children's: GPU's
    // sum is formula metric 0 (view metric 3), the ratio 1 (4).
    assert_eq!(t.nodes[0].variants[0].metric, Some(3));
    assert_eq!(t.nodes[3].variants[0].metric, Some(4));
    let per = &t.derived[1];
    assert_eq!(per.name, "GKER:PER");
    assert_eq!(per.inclusive, None);
    assert_eq!(
        per.exclusive,
        Some(Expr::Op(Op::Div, val(1, true), val(0, true)))
    );
    let gpu = &t.derived[0];
    assert_eq!((gpu.name.as_str(), gpu.unit.as_str()), ("GPU", "s"));
    assert_eq!(
        gpu.inclusive,
        Some(Expr::Call(Func::Sum, vec![*val(1, false), *val(2, false)]))
    );
    let r = t.nodes[0].variants[0].render;
    assert!(r.number && r.percent && r.colorbar && !r.hidden);
    assert!(t.nodes[4].variants[0].render.hidden);
    assert_eq!(t.nodes[4].variants[0].metric, None);
    assert_eq!(t.nodes[3].variants[0].format.as_deref(), Some("%6.2f"));
}

/// The format's own example (doc/METRICS.yaml): merge keys, the infix sequence form, a repeated
/// key (the last wins), `first`, and statistics other than the sum of values. The example writes
/// a minus as `[*a,-,*b]`, which YAML 1.2 does not allow in a flow sequence (a plain scalar may
/// not start with `-` followed by `,`): here it is quoted.
const SPEC: &str = r#"%YAML 1.2
---
version: !!int 0
inputs: !!seq
  - &in-cycles-E
    metric: !!str perf::cycles
    scope: !!str function
    formula: !!str $$
    combine: !!str sum
  - &in-cycles-I
    <<: *in-cycles-E
    scope: execution
  - &in-cycles-I-cnt
    <<: *in-cycles-I
    formula: 1
  - &in-l1-E
    metric: perf::l1
    scope: function
  - &in-l1-I
    <<: *in-l1-E
    scope: execution
  - &in-l2-E
    metric: perf::l2
    scope: function
  - &in-l2-I
    <<: *in-l2-E
    scope: execution
roots:
  - name: !!str CPU Cycles
    description: >
      Cycles spent:
       - In the CPU doing actual work
    children: !!seq
    - name: L2 Bound
      variants: !!map
        !!str Sum:
          render: !!seq [number, percent]
          render: !!str 'number'
          formula: !!map
            inclusive:
              custom: [4*,[*in-l1-I,'-',*in-l2-I]]
              standard: [4*,[*in-l1-I,'-',*in-l2-I]]
            exclusive:
              standard: [4*,[*in-l1-E, ' - ',*in-l2-E]]
    variants:
      Sum:
        render: number
        formula:
          inclusive: *in-cycles-I
          exclusive: *in-cycles-E
      Mean:
        render: [number, colorbar]
        formula:
          inclusive: [*in-cycles-I,/,*in-cycles-I-cnt]
  - name: First
    variants:
      Sum:
        formula: first
    children:
      - name: copy
        variants:
          Sum:
            formula:
              inclusive: [2 ^ 3 ^ 2, '-', -1]
"#;

#[test]
fn reads_the_format_example() {
    let metrics = ["perf::l2", "perf::cycles", "perf::l1"].map(metric);
    let (t, w) = read("m.yaml", SPEC, &metrics).unwrap();
    // The mean's count input (`formula: 1`) is not a value hpcscope shows: one warning, at the
    // input's line, and the mean has no metric.
    assert_eq!(w.len(), 1, "{w:?}");
    let msg = w[0].to_string();
    assert!(
        msg.contains("line 13") && msg.contains("formula '1'") && msg.contains("m.yaml"),
        "{msg}"
    );
    let root = &t.nodes[t.roots[0] as usize];
    assert_eq!(root.name, "CPU Cycles");
    assert_eq!(root.short_description, "Cycles spent:");
    assert_eq!(root.variants.len(), 2);
    assert_eq!(root.variants[0].metric, Some(1));
    assert_eq!(root.variants[1].name, "Mean");
    assert_eq!(root.variants[1].metric, None);
    let l2 = &t.nodes[root.children[0] as usize];
    // `render:` given twice: the last one counts.
    assert!(l2.variants[0].render.number && !l2.variants[0].render.percent);
    let d = &t.derived[0];
    assert_eq!(d.name, "L2 Bound");
    let four_times = |x: bool| {
        Expr::Op(
            Op::Mul,
            Box::new(Expr::Number(4.0)),
            Box::new(Expr::Op(Op::Sub, val(2, x), val(0, x))),
        )
    };
    assert_eq!(d.inclusive, Some(four_times(false)));
    assert_eq!(d.exclusive, Some(four_times(true)));
    // `first`: the child's metric; 2^3^2 is 2^9 (right-associative) and minus -1 adds one.
    let first = &t.nodes[t.roots[1] as usize];
    let copy = &t.derived[1];
    assert_eq!(first.variants[0].metric, Some(4));
    let mut none = |_: u32, _: bool| 0.0;
    assert_eq!(copy.inclusive.as_ref().unwrap().eval(&mut none), 513.0);
}

#[test]
fn damaged_files_are_errors_or_warnings_with_their_line() {
    let metrics = [metric("cycles")];
    let e = read(
        "d/metrics/default.yaml",
        "roots:\n  - name: a\n    variants: [1, 2\n",
        &metrics,
    )
    .unwrap_err();
    let s = e.to_string();
    assert!(
        s.contains("d/metrics/default.yaml") && s.contains("line "),
        "{s}"
    );
    let e = read("x.yaml", "version: 3\nroots: []\n", &metrics).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.to_string().contains("line 1"), "{e}");
    assert!(read("x.yaml", "- just\n- a list\n", &metrics).is_err());
    assert!(read("x.yaml", "roots:\n  - variants: {}\n", &metrics)
        .unwrap_err()
        .to_string()
        .contains("line 2: a metric without a name"));
    // An input meta.db lacks and an unknown function: warnings at their lines; the rest stays.
    let text = "inputs:\n  - &a\n    metric: nosuch\n    scope: execution\n  - &c\n    metric: cycles\n    scope: execution\nroots:\n  - name: A\n    variants:\n      Sum:\n        formula:\n          inclusive: *a\n  - name: B\n    variants:\n      Sum:\n        formula:\n          inclusive: {frobnicate: [*c]}\n  - name: C\n    variants:\n      Sum:\n        formula:\n          inclusive: *c\n";
    let (t, w) = read("x.yaml", text, &metrics).unwrap();
    let w: Vec<String> = w.iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w.iter()
            .any(|m| m.contains("line 2") && m.contains("'nosuch' is not in meta.db")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|m| m.contains("line 18") && m.contains("unknown function 'frobnicate'")),
        "{w:?}"
    );
    assert_eq!(t.nodes.len(), 3);
    assert_eq!(t.nodes[0].variants[0].metric, None);
    assert_eq!(t.nodes[2].variants[0].metric, Some(0));
}

#[test]
fn aliases_cannot_multiply_work() {
    // Each level's formula names the previous level twice: 2^40 terms if expanded.
    let mut text = String::from(
        "inputs:\n  - &c\n    metric: cycles\n    scope: execution\nf0: &f0 {+: [*c, *c]}\n",
    );
    for i in 1..40 {
        text += &format!("f{i}: &f{i} {{+: [*f{}, *f{}]}}\n", i - 1, i - 1);
    }
    text += "roots:\n  - name: big\n    variants:\n      Sum:\n        formula:\n          inclusive: *f39\n";
    let metrics = [metric("cycles")];
    let (r, terms) = crate::work::count(crate::work::Work::FormulaTerms, || {
        read("x.yaml", &text, &metrics)
    });
    // The taxonomy stops at its term budget, not after 2^40.
    assert!(
        terms <= super::formula::MAX_EXPR_NODES as u64 + 1,
        "{terms} terms"
    );
    assert!(terms > 0 || !crate::work::COUNTED);
    let e = r.unwrap_err().to_string();
    assert!(e.contains("more than") || e.contains("deeper"), "{e}");
}
