//! metrics/default.yaml of a synthetic database: a METRICS.yaml taxonomy (HPCToolkit
//! doc/METRICS.yaml) over its metrics, written the way hpcprof writes one (anchored `inputs:`,
//! `standard` formulas as one-pair mappings).

// It also has what hpcprof's own files rarely have: a parent taking its first child's values, a
// grouping parent that hides its values, a ratio of two metrics, a sum of children, a metric
// hidden by default.

use crate::synth::values::{SCOPES, SCOPE_EXECUTION, SCOPE_FUNCTION};
use crate::synth::SynthDb;
use std::fmt::Write as _;

/// Where the taxonomy goes in the database folder.
pub const TAXONOMY_PATH: &str = "metrics/default.yaml";

impl SynthDb {
    /// The taxonomy's text. Roots: `Counters` (a hidden grouping of metrics 1.., the second of
    /// them hidden by default; with 6 metrics, metrics 3 and 5 (cache and branch misses) summed as
    /// `Misses`), `IPC` (metric 2 / metric 1, inclusive and exclusive; with 3 metrics or more) and
    /// `CPU`, which shows its only child, metric 0 (CPUTIME): the time metric is not the first
    /// root.
    pub fn metrics_yaml(&self) -> String {
        let names = &self.metric_names;
        let anchor = |m: usize, s: usize| format!("m{m}-{}", SCOPES[s].0);
        let mut y = String::from("version: 0\ninputs:\n");
        for (m, name) in names.iter().enumerate() {
            for s in [SCOPE_EXECUTION, SCOPE_FUNCTION] {
                let _ = write!(
                    y,
                    "  - &{}\n    metric: {}\n    scope: {}\n    formula: $$\n    combine: sum\n",
                    anchor(m, s),
                    quoted(name),
                    SCOPES[s].0
                );
            }
        }
        let leaf = |y: &mut String, m: usize, ind: &str, hidden: bool| {
            let _ = write!(
                y,
                "{ind}- name: {}\n{ind}  description: \"{} (synthetic)\"\n",
                quoted(&names[m]),
                names[m]
            );
            if hidden {
                let _ = writeln!(y, "{ind}  visible by default: false");
            }
            let _ = write!(
                y,
                "{ind}  variants:\n{ind}    Sum:\n{ind}      render: [number, percent]\n{ind}      formula:\n{ind}        inclusive:\n{ind}          standard: *{}\n{ind}        exclusive:\n{ind}          standard: *{}\n",
                anchor(m, SCOPE_EXECUTION),
                anchor(m, SCOPE_FUNCTION)
            );
        };
        y.push_str("roots:\n");
        let k = names.len();
        if k > 1 {
            y.push_str("  - name: Counters\n    description: Hardware counter events. Grouped here.\n    variants:\n      Sum:\n        render: hidden\n    children:\n");
            let misses = [3, 5];
            for m in (1..k).filter(|m| k < 6 || !misses.contains(m)) {
                leaf(&mut y, m, "      ", m == 2);
            }
            if k >= 6 {
                y.push_str("      - name: Misses\n        description: Cache and branch misses\n        variants:\n          Sum:\n            render: [number, percent]\n            formula: sum\n        children:\n");
                for m in misses {
                    leaf(&mut y, m, "          ", false);
                }
            }
        }
        if k > 2 {
            let ratio = |s: usize| format!("{{/: [*{}, *{}]}}", anchor(2, s), anchor(1, s));
            let _ = write!(
                y,
                "  - name: IPC\n    description: Instructions per cycle\n    format: \"%.3f\"\n    variants:\n      \"\":\n        render: [number]\n        formula:\n          inclusive:\n            standard: {}\n          exclusive:\n            custom: {}\n            standard: {}\n",
                ratio(SCOPE_EXECUTION),
                ratio(SCOPE_FUNCTION),
                ratio(SCOPE_FUNCTION)
            );
        }
        y.push_str("  - name: CPU\n    description: Time spent on the CPUs\n    variants:\n      Sum:\n        render: [number, percent]\n        formula: first\n    children:\n");
        leaf(&mut y, 0, "      ", false);
        y
    }
}

/// A YAML double-quoted scalar.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}
