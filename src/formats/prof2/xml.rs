//! prof2 `experiment.xml` (version "4.0", the FORMATS.md shipped in real prof2 databases): the
//! identifier names, metric, load-module, file and procedure tables and the calling-context tree
//! (`PF`/`Pr`/`A` frames, `C` call sites, `L` loops, `S` statements), read with the shared
//! tokenizer ([`crate::formats::xml`]); text is ignored.

use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::formats::ctx_ids::CtxIds;
use crate::formats::xml::{EndTag, Reader, Tag, Token};
use crate::model::{
    CctBuilder, CodeRef, Combine, Dataset, Frame, Function, LexicalType, Metric, MetricScope,
    Module, Relation, ScopeKind, SourceFile, SummaryStat,
};
use std::collections::HashMap;

/// The decoded value of attribute `key`, or "" without one.
fn text(tag: &Tag, key: &str) -> String {
    tag.value(key).map(|v| v.into_owned()).unwrap_or_default()
}

/// Attribute `key` as an integer (surrounding space allowed).
fn int(tag: &Tag, key: &str) -> Option<i64> {
    tag.value(key).and_then(|v| v.trim().parse().ok())
}

/// "0x400666" or "4195942".
fn parse_addr(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or(v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// Attribute `key` as an address.
fn addr(tag: &Tag, key: &str) -> Option<u64> {
    tag.value(key).and_then(|v| parse_addr(&v))
}

/// Where a metric value id sits: a MetricDB column (raw, per-thread) or a summary partial.
struct XmlMetricDb {
    id: u16,
    base: String,
    kind: ScopeKind,
    scope: &'static str,
}

/// A summary partial the MetricTable stores (a `combine` formula): its id, kind from `t=`, how
/// it combines, its formula and the metric's name.
struct Partial {
    id: u16,
    kind: ScopeKind,
    combine: Combine,
    formula: String,
    name: String,
}

/// The `<Metric>` being read: its id, name, `t=` and `md=` (which units are keyed by).
struct PendingMetric {
    id: i64,
    name: String,
    t: String,
    md: String,
}

fn scope_of(name: &str) -> (String, ScopeKind, &'static str) {
    if let Some(b) = name.strip_suffix(" (I)") {
        (b.to_string(), ScopeKind::Execution, "execution")
    } else if let Some(b) = name.strip_suffix(" (E)") {
        (b.to_string(), ScopeKind::Function, "function")
    } else {
        (name.to_string(), ScopeKind::Point, "point")
    }
}

/// Reads the tree, tables and metrics of an experiment.xml: a dataset with its title, identifier
/// names, names, tree, metrics and the facts about them.
pub fn read(src: &Source, warnings: &mut Vec<Warning>) -> Result<Dataset> {
    let file = src.name().to_string();
    let bytes = src.bytes(0, src.len(), "experiment.xml")?;
    let mut x = XmlTree::new(&file, warnings);
    for token in Reader::new(&bytes, &file) {
        match token? {
            Token::Start(tag) => x.start(&tag),
            Token::End(tag) => x.end(&tag)?,
            Token::Text(_) => {}
        }
    }
    x.finish(src.len())
}

/// What has been read of an experiment.xml so far.
struct XmlTree<'a, 'w> {
    file: &'a str,
    warnings: &'w mut Vec<Warning>,
    tree: Dataset,
    version: String,
    id_names: Vec<(u32, String)>,
    module_ix: HashMap<i64, u32>,
    file_ix: HashMap<i64, u32>,
    proc_ix: HashMap<i64, u32>,
    dbs: Vec<XmlMetricDb>,
    partials: Vec<Partial>,
    /// "name = formula" of the derived (non-combine) formulas, for the facts.
    views: Vec<String>,
    pending_metric: Option<PendingMetric>,
    /// Units by metric description (`md=`).
    units: HashMap<String, String>,
    b: CctBuilder,
    ids: CtxIds,
    merged_call_sites: u64,
    /// Open elements: (name, node pushed by it, enclosing load module).
    open: Vec<(&'a str, Option<u32>, Option<u32>)>,
    in_data: bool,
    in_metric_table: bool,
}

impl<'a, 'w> XmlTree<'a, 'w> {
    fn new(file: &'a str, warnings: &'w mut Vec<Warning>) -> Self {
        XmlTree {
            file,
            warnings,
            tree: Dataset::default(),
            version: String::new(),
            id_names: Vec::new(),
            module_ix: HashMap::new(),
            file_ix: HashMap::new(),
            proc_ix: HashMap::new(),
            dbs: Vec::new(),
            partials: Vec::new(),
            views: Vec::new(),
            pending_metric: None,
            units: HashMap::new(),
            b: CctBuilder::new(0),
            ids: CtxIds::default(),
            merged_call_sites: 0,
            open: Vec::new(),
            in_data: false,
            in_metric_table: false,
        }
    }

    fn start(&mut self, tag: &Tag<'a>) {
        let mut module = self.open.last().and_then(|o| o.2);
        let node = match tag.name {
            "PF" | "Pr" | "A" | "C" | "L" | "S" if self.in_data => self.scope(tag, &mut module),
            "Metric" | "MetricFormula" | "NV" | "MetricDB" => {
                self.metric_tag(tag);
                None
            }
            "LoadModule" | "File" | "Procedure" => {
                self.table_entry(tag);
                None
            }
            _ => {
                self.section_tag(tag);
                None
            }
        };
        if !tag.empty {
            self.open.push((tag.name, node, module));
        }
    }

    /// The document's and sections' own tags: version, title, identifier names, where the metric
    /// table and the tree start.
    fn section_tag(&mut self, tag: &Tag) {
        match tag.name {
            "HPCToolkitExperiment" => self.version = text(tag, "version"),
            "Header" => self.tree.title = text(tag, "n"),
            "SecCallPathProfile" if self.tree.title.is_empty() => self.tree.title = text(tag, "n"),
            "Identifier" => {
                if let (Some(i), Some(n)) = (int(tag, "i"), tag.value("n")) {
                    if let Ok(i) = u32::try_from(i) {
                        self.id_names.push((i, n.into_owned()));
                    }
                }
            }
            "MetricTable" => self.in_metric_table = true,
            "SecCallPathProfileData" => self.in_data = true,
            _ => {}
        }
    }

    /// `<Metric>` and its `<MetricFormula>`s and units (`<NV n="units">`), and `<MetricDB>`.
    fn metric_tag(&mut self, tag: &Tag) {
        match tag.name {
            "Metric" if self.in_metric_table => {
                self.pending_metric = int(tag, "i").map(|id| PendingMetric {
                    id,
                    name: text(tag, "n"),
                    t: text(tag, "t"),
                    md: text(tag, "md"),
                });
            }
            "MetricFormula" => {
                let Some(m) = &self.pending_metric else {
                    return;
                };
                let formula = text(tag, "frm");
                match (tag.value("t").as_deref(), u16::try_from(m.id)) {
                    (Some("combine"), Ok(id)) => {
                        let combine = if formula.starts_with("min(") {
                            Combine::Min
                        } else if formula.starts_with("max(") {
                            Combine::Max
                        } else {
                            Combine::Sum
                        };
                        let kind = match m.t.as_str() {
                            "exclusive" => ScopeKind::Function,
                            "inclusive" => ScopeKind::Execution,
                            _ => ScopeKind::Point,
                        };
                        self.partials.push(Partial {
                            id,
                            kind,
                            combine,
                            formula,
                            name: m.name.clone(),
                        });
                    }
                    _ => self.views.push(format!("{} = {formula}", m.name)),
                }
            }
            "NV" => {
                if let (Some(m), Some("units"), Some(v)) = (
                    &self.pending_metric,
                    tag.value("n").as_deref(),
                    tag.value("v"),
                ) {
                    self.units.insert(m.md.clone(), v.into_owned());
                }
            }
            "MetricDB" => match (
                int(tag, "i").and_then(|i| u16::try_from(i).ok()),
                tag.value("n"),
            ) {
                (Some(id), Some(n)) => {
                    let (base, kind, scope) = scope_of(&n);
                    self.dbs.push(XmlMetricDb {
                        id,
                        base,
                        kind,
                        scope,
                    });
                }
                _ => self.warnings.push(Error::invalid(
                    self.file,
                    tag.offset as u64,
                    "MetricDB without a 16-bit id or a name",
                )),
            },
            _ => {}
        }
    }

    /// One entry of the LoadModule, File or Procedure table.
    fn table_entry(&mut self, tag: &Tag) {
        let t = &mut self.tree;
        match (int(tag, "i"), tag.value("n")) {
            (Some(i), Some(n)) if tag.name == "LoadModule" => {
                self.module_ix.insert(i, t.modules.len() as u32);
                t.modules.push(Module {
                    path: n.into_owned(),
                });
            }
            (Some(i), Some(n)) if tag.name == "File" => {
                self.file_ix.insert(i, t.source_files.len() as u32);
                t.source_files.push(SourceFile {
                    path: n.into_owned(),
                });
            }
            (Some(i), Some(n)) => {
                self.proc_ix.insert(i, t.functions.len() as u32);
                t.functions.push(Function {
                    offset: addr(tag, "v").filter(|&v| v != 0),
                    ..Function::named(n)
                });
            }
            _ => self.warnings.push(Error::invalid(
                self.file,
                tag.offset as u64,
                format!("<{}> without i or n", tag.name),
            )),
        }
    }

    /// A scope of the tree; its node, None for a call site merged into its callee. `module` is
    /// the enclosing load module, replaced by the scope's own `lm`.
    fn scope(&mut self, tag: &Tag, module: &mut Option<u32>) -> Option<u32> {
        let name = tag.name;
        let id = int(tag, "i");
        if let Some(lm) = int(tag, "lm").and_then(|m| self.module_ix.get(&m).copied()) {
            *module = Some(lm);
        }
        // A call site with a negative id carries no values of its own (profile.db ids are
        // unsigned): its callee frame takes its place.
        if name == "C" && id.is_some_and(|i| i < 0) {
            self.merged_call_sites += 1;
            return None;
        }
        let file = int(tag, "f").and_then(|f| self.file_ix.get(&f).copied());
        let line = int(tag, "l")
            .and_then(|l| u32::try_from(l).ok())
            .filter(|&l| l != 0);
        let offset = addr(tag, "v").filter(|&v| v != 0);
        let (relation, lexical_type, function) = match name {
            "PF" | "Pr" | "A" => (
                if name == "A" {
                    Relation::InlinedCall
                } else {
                    Relation::Call
                },
                LexicalType::Function,
                int(tag, "n").and_then(|n| self.proc_ix.get(&n).copied()),
            ),
            "L" => (Relation::Lexical, LexicalType::Loop, None),
            _ if file.is_some() && line.is_some() || offset.is_none() => {
                (Relation::Lexical, LexicalType::Line, None)
            }
            _ => (Relation::Lexical, LexicalType::Instruction, None),
        };
        let code = CodeRef {
            function,
            file,
            line,
            module: *module,
            offset,
        };
        let frame = Frame::context(relation, lexical_type, code);
        let ctx = self.ids.claim(id.and_then(|i| u32::try_from(i).ok()));
        let parent = self.open.iter().rev().find_map(|o| o.1).unwrap_or(0);
        Some(self.b.add(parent, ctx, frame))
    }

    fn end(&mut self, tag: &EndTag) -> Result<()> {
        let name = tag.name;
        match name {
            "SecCallPathProfileData" => self.in_data = false,
            "MetricTable" => self.in_metric_table = false,
            "Metric" => self.pending_metric = None,
            _ => {}
        }
        match self.open.pop() {
            Some((open_name, _, _)) if open_name == name => Ok(()),
            Some((open_name, _, _)) => Err(Error::invalid(
                self.file,
                tag.offset as u64,
                format!("XML end tag </{name}> closes <{open_name}>"),
            )),
            None => Err(Error::invalid(
                self.file,
                tag.offset as u64,
                format!("XML end tag </{name}> with nothing open"),
            )),
        }
    }

    /// The tree, once the whole document (`len` bytes) is read.
    fn finish(mut self, len: u64) -> Result<Dataset> {
        let file = self.file;
        if let Some((name, _, _)) = self.open.last() {
            self.warnings.push(Error::truncated(
                file,
                len,
                format!("experiment.xml ends inside <{name}>"),
            ));
        }
        let version = self.version;
        if !version.starts_with("4.") {
            self.warnings.push(Error::unsupported(
                file,
                None,
                format!("experiment.xml version {version:?}: this reader follows the prof2 layout, version 4.0"),
            ));
        }
        let mut tree = self.tree;
        crate::sort::sort_by(&mut self.id_names, |a, b| a.cmp(b));
        for (i, n) in self.id_names {
            while tree.id_names.len() < i as usize && tree.id_names.len() < 1 << 16 {
                tree.id_names.push(format!("KIND {}", tree.id_names.len()));
            }
            if tree.id_names.len() == i as usize {
                tree.id_names.push(n);
            }
        }
        tree.cct = self.b.finish(file)?;
        tree.metrics = build_metrics(&self.dbs, &self.partials, &self.units);
        tree.facts.push((
            "tree from".into(),
            format!("experiment.xml (version {version})"),
        ));
        if self.merged_call_sites > 0 {
            tree.facts.push((
                "call sites with negative ids".into(),
                format!(
                    "{} (no values of their own: shown as their callee)",
                    self.merged_call_sites
                ),
            ));
        }
        if self.ids.renumbered > 0 {
            self.warnings.push(Error::invalid(
                file,
                0,
                format!("{} scopes had a missing, zero or repeated id and were given new ones (no values attach to them)", self.ids.renumbered),
            ));
        }
        if !self.views.is_empty() {
            tree.facts
                .push(("derived columns".into(), self.views.join("; ")));
        }
        Ok(tree)
    }
}

/// Groups MetricDB columns (per-thread values) and summary partials into model metrics. prof2
/// numbers a partial `(raw id << 8) | partial index`, which ties each partial to its column.
fn build_metrics(
    dbs: &[XmlMetricDb],
    partials: &[Partial],
    units: &HashMap<String, String>,
) -> Vec<Metric> {
    let mut metrics: Vec<Metric> = Vec::new();
    let index_of = |metrics: &mut Vec<Metric>, base: &str| -> usize {
        if let Some(i) = metrics.iter().position(|m| m.name == base) {
            return i;
        }
        let unit = if base.ends_with("(sec)") {
            "s".to_string()
        } else {
            units.get(base).cloned().unwrap_or_default()
        };
        metrics.push(Metric {
            name: base.to_string(),
            unit,
            scopes: Vec::new(),
            summaries: Vec::new(),
        });
        metrics.len() - 1
    };
    for d in dbs {
        let i = index_of(&mut metrics, &d.base);
        metrics[i].scopes.push(MetricScope {
            scope: d.scope.to_string(),
            kind: d.kind,
            prop_metric_id: d.id,
        });
    }
    for p in partials {
        let raw = p.id >> 8;
        let base = match dbs.iter().find(|d| d.id == raw) {
            Some(d) => d.base.clone(),
            None => scope_of(p.name.split(':').next().unwrap_or(&p.name)).0,
        };
        let i = index_of(&mut metrics, &base);
        let scope = match p.kind {
            ScopeKind::Execution => "execution",
            ScopeKind::Function => "function",
            _ => "point",
        };
        metrics[i].summaries.push(SummaryStat {
            scope: scope.into(),
            kind: p.kind,
            formula: p.formula.clone(),
            combine: p.combine,
            stat_metric_id: p.id,
        });
    }
    metrics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tree_with_merged_call_site() {
        let doc = r#"<HPCToolkitExperiment version="4.0"><Header n="t"/>
<SecCallPathProfile i="0" n="t"><SecHeader>
<MetricTable>
<Metric i="512" n="T:PARTIAL:0 (I)" md="T" t="inclusive"><MetricFormula t="combine" frm="sum($512, $512)"/></Metric>
<Metric i="767" n="T:Sum (I)" md="T" t="inclusive"><MetricFormula t="view" frm="$512"/></Metric>
</MetricTable>
<MetricDBTable><MetricDB i="2" n="T (I)"/><MetricDB i="1" n="T (E)"/></MetricDBTable>
<LoadModuleTable><LoadModule i="7" n="/bin/a"/></LoadModuleTable>
<FileTable><File i="0" n="a.c"/></FileTable>
<ProcedureTable><Procedure i="3" n="main" v="0x40"/><Procedure i="4" n="f"/></ProcedureTable>
</SecHeader><SecCallPathProfileData>
<PF i="1" n="3" f="0" l="5" lm="7"><C i="-2" f="0" l="6"><PF i="3" n="4" lm="7"><S i="4" f="0" l="9"/></PF></C><L i="5" f="0" l="7"/></PF>
</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>"#;
        let mut w = Vec::new();
        let t = read(
            &Source::from_vec("experiment.xml", doc.as_bytes().to_vec()),
            &mut w,
        )
        .unwrap();
        assert!(w.is_empty(), "{w:?}");
        t.cct.check().unwrap();
        assert_eq!(t.cct.ctx_id, vec![0, 1, 3, 4, 5]);
        assert_eq!(t.cct.tree.parent, vec![crate::model::NONE, 0, 1, 2, 1]);
        assert_eq!(t.cct.frame[2].code.function, Some(1));
        assert_eq!(t.cct.frame[2].code.module, Some(0));
        assert_eq!(t.cct.frame[3].code.line, Some(9));
        assert_eq!(t.cct.frame[4].lexical_type, LexicalType::Loop);
        assert_eq!(t.metrics.len(), 1);
        let m = &t.metrics[0];
        assert_eq!((m.name.as_str(), m.unit.as_str()), ("T", ""));
        assert_eq!(m.inclusive(false), Some(2));
        assert_eq!(m.exclusive(false), Some(1));
        assert_eq!(m.inclusive(true), Some(512));
        assert!(t
            .facts
            .iter()
            .any(|(k, v)| k == "derived columns" && v == "T:Sum (I) = $512"));
    }
}
