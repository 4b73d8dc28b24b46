//! METRICS.yaml metric taxonomies (HPCToolkit doc/METRICS.yaml; hpcprof writes one as
//! `metrics/default.yaml` beside meta.db) into the model's [`MetricTaxonomy`]: `inputs:` name
//! meta.db metrics by name, scope, formula and combine; `roots:` and `children:` make the tree;
//! each variant's `formula:` becomes a dataset metric, a formula metric, or a sum of its children.

pub mod formula;
pub mod yaml;

use crate::error::{Error, ErrorKind, Warning};
use crate::formats::{DatasetGroup, InputFile};
use crate::model::taxonomy::{DerivedMetric, Expr, Func, MetricVariant, Render, TaxonomyNode};
use crate::model::{Metric, MetricTaxonomy, ScopeKind};
use formula::{Builder, Inputs};
use std::collections::HashMap;
use yaml::{Doc, YamlError};

/// Most taxonomy nodes (aliases could repeat a subtree many times over).
const MAX_TAXONOMY_NODES: usize = 100_000;
/// Largest taxonomy file read (hpcprof's are tens of kilobytes).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// The taxonomy of a database group: `metrics/default.yaml` (the file hpcviewer reads), else the
/// only other `metrics/*.yaml`. A file that cannot be read gives a warning and no taxonomy.
pub fn from_group(
    group: &DatasetGroup,
    metrics: &[Metric],
    warnings: &mut Vec<Warning>,
) -> Option<MetricTaxonomy> {
    let in_metrics = |f: &&InputFile| {
        let rel = f
            .path
            .strip_prefix(group.root.as_str())
            .unwrap_or(&f.path)
            .trim_start_matches('/');
        rel.starts_with("metrics/") && rel.ends_with(".yaml") && rel.matches('/').count() == 1
    };
    let yamls: Vec<&InputFile> = group
        .files
        .iter()
        .map(|(_, f)| f)
        .filter(in_metrics)
        .collect();
    let file = yamls
        .iter()
        .find(|f| f.path.ends_with("/default.yaml") || f.path == "metrics/default.yaml")
        .or(if yamls.len() == 1 {
            yamls.first()
        } else {
            None
        })?;
    let src = &file.source;
    if src.len() > MAX_FILE_BYTES {
        warnings.push(Error::too_large(
            src.name(),
            0,
            format!("metric taxonomy of {} bytes not read", src.len()),
        ));
        return None;
    }
    let text = match src.bytes(0, src.len(), "metric taxonomy") {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            warnings.push(e.context("metric taxonomy not read"));
            return None;
        }
    };
    match read(&file.path, &text, metrics) {
        Ok((t, w)) => {
            warnings.extend(w);
            Some(t)
        }
        Err(e) => {
            warnings.push(e.context("the metrics are shown as a flat list"));
            None
        }
    }
}

/// Reads the taxonomy in `text` (file `file`) over the dataset's `metrics`. A file that cannot be
/// read as a taxonomy at all is an error (the dataset keeps its flat metric list); problems with
/// single metrics (an input meta.db does not have, a formula hpcscope cannot compute) leave those
/// out and are returned as warnings.
pub fn read(
    file: &str,
    text: &str,
    metrics: &[Metric],
) -> Result<(MetricTaxonomy, Vec<Warning>), Error> {
    let err = |e: YamlError| at_line(file, e, ErrorKind::Invalid);
    let doc = yaml::parse(text).map_err(err)?;
    let root = doc
        .root
        .filter(|&r| doc.map(r).is_some())
        .ok_or_else(|| err(YamlError::new(1, "the document is not a mapping")))?;
    if let Some(v) = doc.get(root, "version") {
        if doc.number(v) != Some(0.0) {
            return Err(at_line(
                file,
                YamlError::new(doc.line(v), "METRICS.yaml version other than 0"),
                ErrorKind::Unsupported,
            ));
        }
    }
    let mut r = Reader {
        file,
        doc: &doc,
        inputs: InputTable::new(metrics),
        tax: MetricTaxonomy {
            source: file.to_string(),
            ..MetricTaxonomy::default()
        },
        n_metrics: metrics.len(),
        units: metrics.iter().map(|m| m.unit.clone()).collect(),
        warnings: Vec::new(),
        built: 0,
    };
    let roots = match doc.get(root, "roots") {
        None => Vec::new(),
        Some(n) if doc.is_null(n) => Vec::new(),
        Some(n) => match (doc.seq(n), doc.map(n)) {
            (Some(items), _) => items.to_vec(),
            (None, Some(_)) => vec![n],
            _ => return Err(err(YamlError::new(doc.line(n), "roots: is not a sequence"))),
        },
    };
    for n in roots {
        let id = r.node(n, 0).map_err(err)?;
        r.tax.roots.push(id);
    }
    let mut warnings = r.warnings;
    for (line, what) in r.inputs.problems {
        warnings.push(at_line(
            file,
            YamlError::new(line, what),
            ErrorKind::Invalid,
        ));
    }
    Ok((r.tax, warnings))
}

fn at_line(file: &str, e: YamlError, kind: ErrorKind) -> Error {
    Error::new(
        kind,
        file,
        None,
        format!("metric taxonomy, line {}: {}", e.line, e.what),
    )
}

/// The `inputs:` entries met in formulas, resolved once each to a dataset metric's value.
struct InputTable<'a> {
    metrics: &'a [Metric],
    resolved: HashMap<usize, Result<Expr, YamlError>>,
    /// One message per input that could not be resolved.
    problems: Vec<(usize, String)>,
}

impl<'a> InputTable<'a> {
    fn new(metrics: &'a [Metric]) -> InputTable<'a> {
        InputTable {
            metrics,
            resolved: HashMap::new(),
            problems: Vec::new(),
        }
    }

    /// An input's value: the `$$` sum of a meta.db metric in the execution (inclusive) or
    /// function (exclusive) scope, the values every view has. Other statistics and custom scopes
    /// (`lex_aware`, which only hpcviewer's top-down view uses in `custom:` formulas) are refused.
    fn resolve(&self, doc: &Doc, node: usize) -> Result<Expr, YamlError> {
        let line = doc.line(node);
        let text = |key: &str, default: &'static str| -> Result<String, YamlError> {
            match doc.get(node, key) {
                None => Ok(default.to_string()),
                Some(v) => doc
                    .str(v)
                    .map(|s| s.trim().to_string())
                    .or_else(|| doc.number(v).map(|n| n.to_string()))
                    .ok_or_else(|| {
                        YamlError::new(doc.line(v), format!("input {key}: is not text"))
                    }),
            }
        };
        let name = text("metric", "")?;
        let scope = text("scope", "")?;
        let stat = text("formula", "$$")?.replace(' ', "");
        let combine = text("combine", "sum")?;
        let m = self
            .metrics
            .iter()
            .position(|m| m.name == name)
            .or_else(|| {
                self.metrics
                    .iter()
                    .position(|m| m.name.eq_ignore_ascii_case(&name))
            })
            .ok_or_else(|| {
                YamlError::new(line, format!("input metric '{name}' is not in meta.db"))
            })?;
        let exclusive = match scope.as_str() {
            "execution" => false,
            "function" => true,
            _ => {
                return Err(YamlError::new(
                    line,
                    format!("input '{name}' in scope '{scope}': only execution and function scopes are shown"),
                ))
            }
        };
        if stat != "$$" || !combine.eq_ignore_ascii_case("sum") {
            return Err(YamlError::new(
                line,
                format!("input '{name}' with formula '{stat}' and combine '{combine}': only the sum of values ($$) is shown"),
            ));
        }
        let kind = if exclusive {
            ScopeKind::Function
        } else {
            ScopeKind::Execution
        };
        if !self.metrics[m].scopes.iter().any(|s| s.kind == kind) {
            return Err(YamlError::new(
                line,
                format!("input '{name}': meta.db has no {scope} scope for it"),
            ));
        }
        Ok(Expr::Value {
            metric: m as u32,
            exclusive,
        })
    }
}

impl Inputs for InputTable<'_> {
    fn input(&mut self, doc: &Doc, node: usize) -> Result<Expr, YamlError> {
        if !self.resolved.contains_key(&node) {
            let r = self.resolve(doc, node);
            if let Err(e) = &r {
                self.problems.push((e.line, e.what.clone()));
            }
            self.resolved.insert(node, r);
        }
        self.resolved[&node].clone()
    }
}

struct Reader<'a> {
    file: &'a str,
    doc: &'a Doc,
    inputs: InputTable<'a>,
    tax: MetricTaxonomy,
    n_metrics: usize,
    /// Unit of each view metric so far (the dataset's, then the formula metrics').
    units: Vec<String>,
    warnings: Vec<Warning>,
    built: usize,
}

impl Reader<'_> {
    /// Reads taxonomy node `n` and its children; returns its index in `tax.nodes`. Children are
    /// read first so that a parent's formula metric only refers to metrics numbered before it.
    fn node(&mut self, n: usize, depth: u32) -> Result<u32, YamlError> {
        let doc = self.doc;
        let line = doc.line(n);
        if doc.map(n).is_none() {
            return Err(YamlError::new(line, "a metric must be a mapping"));
        }
        if depth > crate::model::taxonomy::MAX_DEPTH {
            return Err(YamlError::new(line, "metrics nested too deeply"));
        }
        if self.tax.nodes.len() >= MAX_TAXONOMY_NODES {
            return Err(YamlError::new(
                line,
                format!("more than {MAX_TAXONOMY_NODES} metrics"),
            ));
        }
        let text = |key: &str| doc.get(n, key).and_then(|v| doc.str(v)).map(str::to_string);
        let name = text("name").ok_or_else(|| YamlError::new(line, "a metric without a name"))?;
        let long = text("description");
        let short = text("short description");
        let description = long.clone().or(short.clone()).unwrap_or_default();
        let short_description = short.unwrap_or_else(|| {
            let d = description.trim_start();
            let end = d.find(['.', '\n']).unwrap_or(d.len());
            d[..end].trim().to_string()
        });
        // hpcprof writes `format:` beside the variants, the format's text inside each variant.
        let node_format = text("format");
        let visible = doc
            .get(n, "visible by default")
            .and_then(|v| doc.bool(v))
            .unwrap_or(true);
        let id = self.tax.nodes.len() as u32;
        self.tax.nodes.push(TaxonomyNode {
            name,
            description,
            short_description,
            visible,
            ..TaxonomyNode::default()
        });
        let children: Vec<usize> = match doc.get(n, "children") {
            None => Vec::new(),
            Some(c) if doc.is_null(c) => Vec::new(),
            Some(c) => doc.seq(c).map(<[usize]>::to_vec).unwrap_or_else(|| vec![c]),
        };
        let mut kids = Vec::with_capacity(children.len());
        for c in children {
            kids.push(self.node(c, depth + 1)?);
        }
        self.tax.nodes[id as usize].children = kids;
        let variants = match doc.get(n, "variants") {
            None => Vec::new(),
            Some(v) => doc
                .map(v)
                .ok_or_else(|| YamlError::new(doc.line(v), "variants: is not a mapping"))?
                .to_vec(),
        };
        for (k, v) in variants {
            let vname = doc
                .str(k)
                .or_else(|| doc.is_null(k).then_some(""))
                .ok_or_else(|| YamlError::new(doc.line(k), "a variant name must be text"))?
                .to_string();
            let variant = self.variant(id, &vname, v, node_format.as_deref())?;
            self.tax.nodes[id as usize].variants.push(variant);
        }
        Ok(id)
    }

    /// One variant of node `id`: its render options and the metric holding its values.
    fn variant(
        &mut self,
        id: u32,
        vname: &str,
        v: usize,
        node_format: Option<&str>,
    ) -> Result<MetricVariant, YamlError> {
        let doc = self.doc;
        if doc.map(v).is_none() {
            return Err(YamlError::new(doc.line(v), "a variant must be a mapping"));
        }
        let mut render = Render::default();
        let items: Vec<usize> = match doc.get(v, "render") {
            None => Vec::new(),
            Some(r) => doc.seq(r).map(<[usize]>::to_vec).unwrap_or_else(|| vec![r]),
        };
        for r in items {
            match doc.str(r).unwrap_or("") {
                "number" => render.number = true,
                "percent" => render.percent = true,
                "hidden" => render.hidden = true,
                "colorbar" => render.colorbar = true,
                other => self.warn(doc.line(r), format!("unknown render option '{other}'")),
            }
        }
        if !(render.number || render.percent || render.hidden || render.colorbar) {
            render.number = true;
        }
        let format = doc
            .get(v, "format")
            .and_then(|f| doc.str(f))
            .or(node_format)
            .map(str::to_string);
        let metric = match doc.get(v, "formula") {
            None => None,
            Some(f) if doc.is_null(f) => None,
            Some(f) => match doc.str(f).map(str::trim) {
                Some("first") => self.child_metric(id, vname, v, 0),
                Some("sum") => self.sum_of_children(id, vname, v),
                _ if doc.map(f).is_some() => self.vector(id, vname, f)?,
                _ => {
                    self.warn(doc.line(f), "formula: is neither 'first', 'sum' nor a mapping of inclusive and exclusive formulas".into());
                    None
                }
            },
        };
        Ok(MetricVariant {
            name: vname.to_string(),
            render,
            format,
            metric,
        })
    }

    fn warn(&mut self, line: usize, what: String) {
        self.warnings.push(at_line(
            self.file,
            YamlError::new(line, what),
            ErrorKind::Invalid,
        ));
    }

    /// The variant of child `k` named by `child variant:` (one name for all children or one per
    /// child; default: the variant's own name), else the child's first variant with a metric.
    fn child_metric(&self, id: u32, vname: &str, v: usize, k: usize) -> Option<u32> {
        let doc = self.doc;
        let child = *self.tax.nodes[id as usize].children.get(k)?;
        let wanted = match doc.get(v, "child variant") {
            Some(cv) => match doc.seq(cv) {
                Some(items) => items.get(k).and_then(|&i| doc.str(i)).unwrap_or(vname),
                None => doc.str(cv).unwrap_or(vname),
            },
            None => vname,
        };
        let variants = &self.tax.nodes[child as usize].variants;
        variants
            .iter()
            .find(|x| x.name == wanted)
            .and_then(|x| x.metric)
            .or_else(|| variants.iter().find_map(|x| x.metric))
    }

    /// `formula: sum`: each of inclusive and exclusive is the sum over the children that have
    /// values; a child with values but none of that kind makes the parent's none (METRICS.yaml:
    /// null child values give null parent values).
    fn sum_of_children(&mut self, id: u32, vname: &str, v: usize) -> Option<u32> {
        let n = self.tax.nodes[id as usize].children.len();
        let kids: Vec<u32> = (0..n)
            .filter_map(|k| self.child_metric(id, vname, v, k))
            .collect();
        if kids.is_empty() {
            return None;
        }
        let part = |exclusive: bool| -> Option<Expr> {
            let mut terms = Vec::with_capacity(kids.len());
            for &m in &kids {
                if !self.has_values(m, exclusive) {
                    return None;
                }
                terms.push(Expr::Value {
                    metric: m,
                    exclusive,
                });
            }
            Some(Expr::Call(Func::Sum, terms))
        };
        let (inclusive, exclusive) = (part(false), part(true));
        let unit = self.common_unit(&kids);
        self.derive(id, vname, inclusive, exclusive, unit)
    }

    /// Whether view metric `m` has inclusive (or exclusive) values.
    fn has_values(&self, m: u32, exclusive: bool) -> bool {
        match (m as usize).checked_sub(self.n_metrics) {
            None => true,
            Some(d) => self
                .tax
                .derived
                .get(d)
                .is_some_and(|d| d.formula(exclusive).is_some()),
        }
    }

    fn common_unit(&self, ms: &[u32]) -> String {
        let units: Vec<&String> = ms
            .iter()
            .filter_map(|&m| self.units.get(m as usize))
            .collect();
        match units.first() {
            Some(u) if units.iter().all(|x| x == u) => (*u).clone(),
            _ => String::new(),
        }
    }

    /// `formula: {inclusive: ..., exclusive: ...}`, each a formula or a mapping of `standard:`
    /// and `custom:` formulas. The standard formula is taken (it refers only to non-custom
    /// scopes, what every view can show); `custom:` when it is the only one.
    fn vector(&mut self, id: u32, vname: &str, f: usize) -> Result<Option<u32>, YamlError> {
        let doc = self.doc;
        let mut parts: [Option<Expr>; 2] = [None, None];
        for (k, key) in ["inclusive", "exclusive"].into_iter().enumerate() {
            let Some(e) = doc.get(f, key).filter(|&e| !doc.is_null(e)) else {
                continue;
            };
            let pick = if doc.get(e, "metric").is_none()
                && (doc.get(e, "standard").is_some() || doc.get(e, "custom").is_some())
            {
                doc.get(e, "standard").or_else(|| doc.get(e, "custom"))
            } else {
                Some(e)
            };
            let Some(pick) = pick.filter(|&p| !doc.is_null(p)) else {
                continue;
            };
            let mut b = Builder {
                doc,
                inputs: &mut self.inputs,
                built: self.built,
            };
            let r = b.expr(pick, 0);
            self.built = b.built;
            match r {
                Ok(x) => parts[k] = Some(x),
                Err(e) if e.what.contains("more than") => return Err(e),
                Err(e) => {
                    // An input problem is reported once with the input; a formula's own here.
                    if !self.inputs.problems.iter().any(|p| p.1 == e.what) {
                        self.warn(e.line, e.what);
                    }
                }
            }
        }
        let [inclusive, exclusive] = parts;
        // A variant that is one dataset metric's inclusive and exclusive values is that metric.
        let plain = |e: &Option<Expr>, x: bool| match e {
            None => Some(None),
            Some(Expr::Value { metric, exclusive }) if *exclusive == x => Some(Some(*metric)),
            _ => None,
        };
        if let (Some(a), Some(b)) = (plain(&inclusive, false), plain(&exclusive, true)) {
            match (a, b) {
                (Some(a), Some(b)) if a == b => return Ok(Some(a)),
                (Some(m), None) | (None, Some(m)) => return Ok(Some(m)),
                (None, None) => return Ok(None),
                _ => {}
            }
        }
        Ok(self.derive(id, vname, inclusive, exclusive, String::new()))
    }

    /// A new formula metric for variant `vname` of node `id`.
    fn derive(
        &mut self,
        id: u32,
        vname: &str,
        inclusive: Option<Expr>,
        exclusive: Option<Expr>,
        unit: String,
    ) -> Option<u32> {
        if inclusive.is_none() && exclusive.is_none() {
            return None;
        }
        let node = &self.tax.nodes[id as usize];
        let name = if vname.is_empty() || vname == "Sum" {
            node.name.clone()
        } else {
            format!("{}: {vname}", node.name)
        };
        self.tax.derived.push(DerivedMetric {
            name,
            description: node.description.clone(),
            unit: unit.clone(),
            inclusive,
            exclusive,
        });
        self.units.push(unit);
        Some((self.n_metrics + self.tax.derived.len() - 1) as u32)
    }
}

#[cfg(test)]
mod tests;
