//! `hpcscope summary DIR`: what a dataset is, in a few human-readable lines: format and layout,
//! header facts, metrics, the metric taxonomy and its formula metrics, profiles, and the contexts
//! with the largest value of the first inclusive metric in the summary (or first) profile (with a
//! taxonomy, of its first time metric).

use crate::formats;
use crate::model::Dataset;
use std::path::Path;

/// How many profiles and contexts are listed.
const SHOWN: usize = 10;

pub fn run(args: &[String]) -> Result<(), String> {
    let [dir] = args else {
        return Err("usage: hpcscope summary DIR".into());
    };
    let inputs = super::read_inputs(Path::new(dir))?;
    let (groups, unknown) = formats::group(inputs);
    for f in unknown {
        eprintln!("skipped {f}");
    }
    if groups.is_empty() {
        return Err(format!("{dir}: no dataset recognised"));
    }
    for g in groups {
        let ds = formats::open(&g).map_err(|e| e.to_string())?;
        print!("{}", render(&g.root, &ds));
    }
    Ok(())
}

/// The summary text of one dataset.
pub fn render(root: &str, ds: &Dataset) -> String {
    let mut out = format!("{root} ({} {})\n", ds.format, ds.layout);
    if !ds.title.is_empty() {
        out += &format!("  title: {}\n", ds.title);
    }
    for (k, v) in ds
        .facts
        .iter()
        .filter(|(k, _)| k != "title" && k != "layout")
    {
        out += &format!("  {k}: {v}\n");
    }
    if !ds.metrics.is_empty() {
        out += "  metrics:\n";
        for m in &ds.metrics {
            let scopes: Vec<&str> = m.scopes.iter().map(|s| s.scope.as_str()).collect();
            out += &format!("    {} [{}]\n", m.name, scopes.join(", "));
        }
    }
    if let Some(t) = &ds.taxonomy {
        out += &format!(
            "  metric taxonomy ({}): {} roots, {} metrics, {} formula metrics\n",
            t.source,
            t.roots.len(),
            t.nodes.len(),
            t.derived.len()
        );
        let name = |m: u32, x: bool| {
            let n = ds.metric_label(m as usize).0;
            format!("{n} ({})", if x { "E" } else { "I" })
        };
        // The root's values from the summary profile (else the first), as the views compute them.
        let prof = ds
            .summary_profile
            .or_else(|| (0..ds.profiles.len()).find(|&p| !ds.profiles[p].summary));
        let vals = prof.and_then(|p| ds.data.profile_values(p).ok());
        for (j, d) in t.derived.iter().enumerate() {
            out += &format!("    {}:", d.name);
            for (label, f) in [("inclusive", &d.inclusive), ("exclusive", &d.exclusive)] {
                if let Some(f) = f {
                    out += &format!(" {label} = {};", f.text(&name));
                }
            }
            out.pop();
            let m = ds.metrics.len() + j;
            let summary = prof.is_some_and(|p| ds.profiles[p].summary);
            let cols = vals.as_ref().and_then(|v| {
                crate::analysis::values::columns_from_values(ds, m, &[v], summary).ok()
            });
            if let Some(c) = cols {
                let at_root = |v: &[f64]| v.first().copied().unwrap_or(0.0);
                out += &format!(
                    " (root: {} inclusive, {} exclusive)",
                    at_root(&c.inclusive),
                    at_root(&c.exclusive)
                );
            }
            out += "\n";
        }
    }
    let real: Vec<_> = ds.profiles.iter().filter(|p| !p.summary).collect();
    if !real.is_empty() {
        out += &format!("  profiles ({}):\n", real.len());
        for p in real.iter().take(SHOWN) {
            out += &format!("    {}\n", p.label(&ds.id_names));
        }
        if real.len() > SHOWN {
            out += &format!("    ... {} more\n", real.len() - SHOWN);
        }
    }
    out += &top_contexts(ds);
    for w in &ds.warnings {
        out += &format!("  warning: {w}\n");
    }
    out
}

/// The contexts with the largest inclusive value of the first metric that has one (with a
/// taxonomy, of its first time metric).
fn top_contexts(ds: &Dataset) -> String {
    let prof = ds.summary_profile.unwrap_or(0);
    if prof >= ds.profiles.len() {
        return String::new();
    }
    let summary = ds.summary_profile.is_some();
    let preferred = crate::analysis::derived::taxonomy_default(ds, true)
        .and_then(|m| ds.metrics.get(m))
        .and_then(|m| m.inclusive(summary).map(|id| (m, id)));
    let Some((metric, id)) = preferred.or_else(|| {
        ds.metrics
            .iter()
            .find_map(|m| m.inclusive(summary).map(|id| (m, id)))
    }) else {
        return String::new();
    };
    let values = match ds.data.profile_values(prof) {
        Ok(v) => v,
        Err(e) => return format!("  values unreadable: {e}\n"),
    };
    let mut rows: Vec<(f64, u32)> = values
        .iter()
        .filter(|&(n, i, _)| i == id && n != 0)
        .map(|(n, _, v)| (v, n))
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let total = values.get(0, id);
    let mut out = format!("  top contexts by {} (inclusive):\n", metric.name);
    for (v, n) in rows.into_iter().take(SHOWN) {
        let pct = if total != 0.0 {
            format!(" {:5.1}%", 100.0 * v / total)
        } else {
            String::new()
        };
        out += &format!("    {v:>14.6}{pct}  {}\n", ds.frame_name(n));
    }
    out
}
