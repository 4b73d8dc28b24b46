//! prof2 `experiment.xml` (version "4.0", the FORMATS.md shipped in real prof2 databases): the
//! identifier names, metric, load-module, file and procedure tables and the calling-context tree
//! (`PF`/`Pr`/`A` frames, `C` call sites, `L` loops, `S` statements). A small tokenizer reads tags
//! and attributes (entities decoded) and ignores text, comments, processing instructions and DTDs.

use super::Prof2Tree;
use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::model::{
    CctBuilder, Combine, Frame, Function, LexicalType, Metric, MetricScope, Module, NodeKind,
    Relation, ScopeKind, SourceFile, SummaryStat,
};
use std::collections::{HashMap, HashSet};

/// A start or end tag. Attribute values are entity-decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum XmlTag<'a> {
    Start {
        name: &'a str,
        attrs: Vec<(&'a str, String)>,
        /// `<x/>`: no end tag follows.
        empty: bool,
        offset: usize,
    },
    End {
        name: &'a str,
        offset: usize,
    },
}

/// Iterates over the tags of an XML document; stops for good at the first error.
pub struct XmlTags<'a> {
    text: &'a str,
    pos: usize,
    file: &'a str,
    failed: bool,
}

impl<'a> XmlTags<'a> {
    pub fn new(text: &'a str, file: &'a str) -> XmlTags<'a> {
        XmlTags {
            text,
            pos: 0,
            file,
            failed: false,
        }
    }

    fn err(&self, at: usize, what: impl Into<String>) -> Error {
        Error::invalid(self.file, at as u64, what)
    }

    /// Moves past `end` after `from`, or fails naming what was left open.
    fn skip_past(&mut self, from: usize, end: &str, what: &str) -> Result<()> {
        match self.text[from..].find(end) {
            Some(i) => {
                self.pos = from + i + end.len();
                Ok(())
            }
            None => Err(Error::truncated(
                self.file,
                from as u64,
                format!("XML {what} (no `{end}`)"),
            )),
        }
    }

    fn next_tag(&mut self) -> Result<Option<XmlTag<'a>>> {
        let t = self.text;
        let b = t.as_bytes();
        loop {
            let Some(lt) = t[self.pos..].find('<') else {
                self.pos = t.len();
                return Ok(None);
            };
            let start = self.pos + lt;
            let rest = &t[start..];
            if rest.starts_with("<?") {
                self.skip_past(start, "?>", "processing instruction")?;
            } else if rest.starts_with("<!--") {
                self.skip_past(start, "-->", "comment")?;
            } else if rest.starts_with("<![CDATA[") {
                self.skip_past(start, "]]>", "CDATA section")?;
            } else if rest.starts_with("<!") {
                // A DOCTYPE with an internal subset: brackets nest, quoted text may hold '>'.
                let mut depth = 0i32;
                let mut quote = 0u8;
                let mut i = start + 2;
                loop {
                    let Some(&c) = b.get(i) else {
                        return Err(Error::truncated(
                            self.file,
                            start as u64,
                            "XML declaration (no `>`)",
                        ));
                    };
                    if quote != 0 {
                        if c == quote {
                            quote = 0;
                        }
                    } else if c == b'"' || c == b'\'' {
                        quote = c;
                    } else if c == b'[' {
                        depth += 1;
                    } else if c == b']' {
                        depth -= 1;
                    } else if c == b'>' && depth <= 0 {
                        break;
                    }
                    i += 1;
                }
                self.pos = i + 1;
            } else if let Some(after) = rest.strip_prefix("</") {
                let Some(gt) = after.find('>') else {
                    return Err(Error::truncated(
                        self.file,
                        start as u64,
                        "XML end tag (no `>`)",
                    ));
                };
                self.pos = start + 2 + gt + 1;
                return Ok(Some(XmlTag::End {
                    name: after[..gt].trim(),
                    offset: start,
                }));
            } else {
                return self.start_tag(start).map(Some);
            }
        }
    }

    fn start_tag(&mut self, start: usize) -> Result<XmlTag<'a>> {
        let t = self.text;
        let b = t.as_bytes();
        let is_space = |c: u8| c == b' ' || c == b'\t' || c == b'\n' || c == b'\r';
        let mut i = start + 1;
        while i < b.len() && !is_space(b[i]) && b[i] != b'/' && b[i] != b'>' {
            i += 1;
        }
        let name = &t[start + 1..i];
        if name.is_empty() {
            return Err(self.err(start, "XML tag without a name"));
        }
        let mut attrs = Vec::new();
        loop {
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            match b.get(i) {
                None => {
                    return Err(Error::truncated(
                        self.file,
                        start as u64,
                        format!("XML tag <{name}> (no `>`)"),
                    ))
                }
                Some(b'>') => {
                    self.pos = i + 1;
                    return Ok(XmlTag::Start {
                        name,
                        attrs,
                        empty: false,
                        offset: start,
                    });
                }
                Some(b'/') => {
                    if b.get(i + 1) != Some(&b'>') {
                        return Err(
                            self.err(i, format!("XML tag <{name}>: `/` not followed by `>`"))
                        );
                    }
                    self.pos = i + 2;
                    return Ok(XmlTag::Start {
                        name,
                        attrs,
                        empty: true,
                        offset: start,
                    });
                }
                Some(_) => {}
            }
            let a = i;
            while i < b.len() && !is_space(b[i]) && b[i] != b'=' && b[i] != b'>' && b[i] != b'/' {
                i += 1;
            }
            let key = &t[a..i];
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            if b.get(i) != Some(&b'=') {
                return Err(self.err(
                    i,
                    format!("XML tag <{name}>: attribute `{key}` without a value"),
                ));
            }
            i += 1;
            while i < b.len() && is_space(b[i]) {
                i += 1;
            }
            let q = match b.get(i) {
                Some(&q) if q == b'"' || q == b'\'' => q,
                _ => {
                    return Err(self.err(
                        i,
                        format!("XML tag <{name}>: attribute `{key}` value not quoted"),
                    ))
                }
            };
            let v0 = i + 1;
            let Some(len) = b[v0..].iter().position(|&c| c == q) else {
                return Err(Error::truncated(
                    self.file,
                    a as u64,
                    format!("XML attribute `{key}` (no closing quote)"),
                ));
            };
            attrs.push((key, decode_entities(&t[v0..v0 + len])));
            i = v0 + len + 1;
        }
    }
}

impl<'a> Iterator for XmlTags<'a> {
    type Item = Result<XmlTag<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_tag() {
            Ok(t) => t.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Replaces the five named XML entities and numeric character references; anything else is kept.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        // Only the next bytes may hold the ';': searching the whole rest made a value of many
        // '&' and no ';' quadratic in its length.
        let semi = rest.bytes().take(13).position(|c| c == b';');
        let decoded = semi.and_then(|i| {
            let ent = &rest[1..i];
            let c = match ent {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let n = if let Some(h) = ent.strip_prefix("#x").or(ent.strip_prefix("#X")) {
                        u32::from_str_radix(h, 16).ok()?
                    } else {
                        ent.strip_prefix('#')?.parse().ok()?
                    };
                    char::from_u32(n)?
                }
            };
            Some((c, i))
        });
        match decoded {
            Some((c, i)) => {
                out.push(c);
                rest = &rest[i + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn attr<'x>(attrs: &'x [(&str, String)], key: &str) -> Option<&'x str> {
    attrs
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.as_str())
}

/// "0x400666" or "4195942".
fn parse_addr(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or(v.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// Where a metric value id sits: a MetricDB column (raw, per-thread) or a summary partial.
struct XmlMetricDb {
    id: u16,
    base: String,
    kind: ScopeKind,
    scope: &'static str,
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

/// Reads the tree, tables and metrics of an experiment.xml.
pub fn read(src: &Source, warnings: &mut Vec<Warning>) -> Result<Prof2Tree> {
    let file = src.name().to_string();
    let bytes = src.bytes(0, src.len(), "experiment.xml")?;
    let text = String::from_utf8_lossy(&bytes);
    let mut tree = Prof2Tree::default();
    let mut version = String::new();
    let mut id_names: Vec<(u32, String)> = Vec::new();
    let mut module_ix: HashMap<i64, u32> = HashMap::new();
    let mut file_ix: HashMap<i64, u32> = HashMap::new();
    let mut proc_ix: HashMap<i64, u32> = HashMap::new();
    let mut dbs: Vec<XmlMetricDb> = Vec::new();
    // (id, kind from t=, combine, formula, name) of stored summary partials; views for facts.
    let mut partials: Vec<(u16, ScopeKind, Combine, String, String)> = Vec::new();
    let mut views: Vec<String> = Vec::new();
    let mut pending_metric: Option<(i64, String, String, String)> = None; // id, name, t, md
    let mut units: HashMap<String, String> = HashMap::new();

    let mut b = CctBuilder::new(0);
    let mut used: HashSet<u32> = HashSet::from([0]);
    let mut next_synthetic = 0x8000_0000u32;
    let mut merged_call_sites = 0u64;
    let mut renumbered = 0u64;
    // Open elements: (name, node pushed by it, enclosing load module).
    let mut open: Vec<(&str, Option<u32>, Option<u32>)> = Vec::new();
    let mut in_data = false;
    let mut in_metric_table = false;

    for tag in XmlTags::new(&text, &file) {
        match tag? {
            XmlTag::Start {
                name,
                attrs,
                empty,
                offset,
            } => {
                let a = |k: &str| attr(&attrs, k);
                let int = |k: &str| a(k).and_then(|v| v.trim().parse::<i64>().ok());
                let mut node = None;
                let parent_node = open.iter().rev().find_map(|o| o.1).unwrap_or(0);
                let mut module = open.last().and_then(|o| o.2);
                match name {
                    "HPCToolkitExperiment" => version = a("version").unwrap_or("").to_string(),
                    "Header" => tree.title = a("n").unwrap_or("").to_string(),
                    "SecCallPathProfile" if tree.title.is_empty() => {
                        tree.title = a("n").unwrap_or("").to_string()
                    }
                    "Identifier" => {
                        if let (Some(i), Some(n)) = (int("i"), a("n")) {
                            if let Ok(i) = u32::try_from(i) {
                                id_names.push((i, n.to_string()));
                            }
                        }
                    }
                    "MetricTable" => in_metric_table = true,
                    "Metric" if in_metric_table => {
                        pending_metric = int("i").map(|i| {
                            (
                                i,
                                a("n").unwrap_or("").to_string(),
                                a("t").unwrap_or("").to_string(),
                                a("md").unwrap_or("").to_string(),
                            )
                        });
                    }
                    "MetricFormula" => {
                        if let Some((id, n, t, _)) = &pending_metric {
                            let frm = a("frm").unwrap_or("").to_string();
                            match (a("t"), u16::try_from(*id)) {
                                (Some("combine"), Ok(id)) => {
                                    let combine = if frm.starts_with("min(") {
                                        Combine::Min
                                    } else if frm.starts_with("max(") {
                                        Combine::Max
                                    } else {
                                        Combine::Sum
                                    };
                                    let kind = match t.as_str() {
                                        "exclusive" => ScopeKind::Function,
                                        "inclusive" => ScopeKind::Execution,
                                        _ => ScopeKind::Point,
                                    };
                                    partials.push((id, kind, combine, frm, n.clone()));
                                }
                                _ => views.push(format!("{n} = {frm}")),
                            }
                        }
                    }
                    "NV" => {
                        if let (Some((_, _, _, md)), Some("units"), Some(v)) =
                            (&pending_metric, a("n"), a("v"))
                        {
                            units.insert(md.clone(), v.to_string());
                        }
                    }
                    "MetricDB" => match (int("i").and_then(|i| u16::try_from(i).ok()), a("n")) {
                        (Some(id), Some(n)) => {
                            let (base, kind, scope) = scope_of(n);
                            dbs.push(XmlMetricDb {
                                id,
                                base,
                                kind,
                                scope,
                            });
                        }
                        _ => warnings.push(Error::invalid(
                            &file,
                            offset as u64,
                            "MetricDB without a 16-bit id or a name",
                        )),
                    },
                    "LoadModule" | "File" | "Procedure" => match (int("i"), a("n")) {
                        (Some(i), Some(n)) if name == "LoadModule" => {
                            module_ix.insert(i, tree.modules.len() as u32);
                            tree.modules.push(Module {
                                path: n.to_string(),
                            });
                        }
                        (Some(i), Some(n)) if name == "File" => {
                            file_ix.insert(i, tree.source_files.len() as u32);
                            tree.source_files.push(SourceFile {
                                path: n.to_string(),
                            });
                        }
                        (Some(i), Some(n)) => {
                            proc_ix.insert(i, tree.functions.len() as u32);
                            tree.functions.push(Function {
                                name: n.to_string(),
                                module: None,
                                offset: a("v").and_then(parse_addr).filter(|&v| v != 0),
                                file: None,
                                line: None,
                            });
                        }
                        _ => warnings.push(Error::invalid(
                            &file,
                            offset as u64,
                            format!("<{name}> without i or n"),
                        )),
                    },
                    "SecCallPathProfileData" => in_data = true,
                    "PF" | "Pr" | "A" | "C" | "L" | "S" if in_data => {
                        let id = int("i");
                        let file_of = int("f").and_then(|f| file_ix.get(&f).copied());
                        let line = int("l")
                            .and_then(|l| u32::try_from(l).ok())
                            .filter(|&l| l != 0);
                        let offset_v = a("v").and_then(parse_addr).filter(|&v| v != 0);
                        if let Some(lm) = int("lm").and_then(|m| module_ix.get(&m).copied()) {
                            module = Some(lm);
                        }
                        // A call site with a negative id carries no values of its own (profile.db
                        // ids are unsigned): its callee frame takes its place.
                        if name == "C" && id.is_some_and(|i| i < 0) {
                            merged_call_sites += 1;
                        } else {
                            let frame = match name {
                                "PF" | "Pr" | "A" => Frame {
                                    kind: NodeKind::Context,
                                    relation: if name == "A" {
                                        Relation::InlinedCall
                                    } else {
                                        Relation::Call
                                    },
                                    lexical_type: LexicalType::Function,
                                    function: int("n").and_then(|n| proc_ix.get(&n).copied()),
                                    file: file_of,
                                    line,
                                    module,
                                    offset: offset_v,
                                },
                                "L" => Frame {
                                    kind: NodeKind::Context,
                                    relation: Relation::Lexical,
                                    lexical_type: LexicalType::Loop,
                                    function: None,
                                    file: file_of,
                                    line,
                                    module,
                                    offset: offset_v,
                                },
                                _ => Frame {
                                    kind: NodeKind::Context,
                                    relation: Relation::Lexical,
                                    lexical_type: if file_of.is_some() && line.is_some()
                                        || offset_v.is_none()
                                    {
                                        LexicalType::Line
                                    } else {
                                        LexicalType::Instruction
                                    },
                                    function: None,
                                    file: file_of,
                                    line,
                                    module,
                                    offset: offset_v,
                                },
                            };
                            let ctx = match id.and_then(|i| u32::try_from(i).ok()) {
                                Some(c) if used.insert(c) => c,
                                _ => {
                                    renumbered += 1;
                                    while !used.insert(next_synthetic) {
                                        next_synthetic = next_synthetic.wrapping_add(1);
                                    }
                                    next_synthetic
                                }
                            };
                            node = Some(b.add(parent_node, ctx, frame));
                        }
                    }
                    _ => {}
                }
                if !empty {
                    open.push((name, node, module));
                }
            }
            XmlTag::End { name, offset } => {
                match name {
                    "SecCallPathProfileData" => in_data = false,
                    "MetricTable" => in_metric_table = false,
                    "Metric" => pending_metric = None,
                    _ => {}
                }
                match open.pop() {
                    Some((open_name, _, _)) if open_name == name => {}
                    Some((open_name, _, _)) => {
                        return Err(Error::invalid(
                            &file,
                            offset as u64,
                            format!("XML end tag </{name}> closes <{open_name}>"),
                        ))
                    }
                    None => {
                        return Err(Error::invalid(
                            &file,
                            offset as u64,
                            format!("XML end tag </{name}> with nothing open"),
                        ))
                    }
                }
            }
        }
    }
    if let Some((name, _, _)) = open.last() {
        warnings.push(Error::truncated(
            &file,
            src.len(),
            format!("experiment.xml ends inside <{name}>"),
        ));
    }
    if !version.starts_with("4.") {
        warnings.push(Error::unsupported(
            &file,
            None,
            format!("experiment.xml version {version:?}: this reader follows the prof2 layout, version 4.0"),
        ));
    }

    id_names.sort();
    for (i, n) in id_names {
        while tree.id_names.len() < i as usize && tree.id_names.len() < 1 << 16 {
            tree.id_names.push(format!("KIND {}", tree.id_names.len()));
        }
        if tree.id_names.len() == i as usize {
            tree.id_names.push(n);
        }
    }
    tree.cct = b.finish(&file)?;
    tree.metrics = build_metrics(&dbs, &partials, &units);
    tree.facts.push((
        "tree from".into(),
        format!("experiment.xml (version {version})"),
    ));
    if merged_call_sites > 0 {
        tree.facts.push((
            "call sites with negative ids".into(),
            format!("{merged_call_sites} (no values of their own: shown as their callee)"),
        ));
    }
    if renumbered > 0 {
        warnings.push(Error::invalid(
            &file,
            0,
            format!("{renumbered} scopes had a missing, zero or repeated id and were given new ones (no values attach to them)"),
        ));
    }
    if !views.is_empty() {
        tree.facts
            .push(("derived columns".into(), views.join("; ")));
    }
    Ok(tree)
}

/// Groups MetricDB columns (per-thread values) and summary partials into model metrics. prof2
/// numbers a partial `(raw id << 8) | partial index`, which ties each partial to its column.
fn build_metrics(
    dbs: &[XmlMetricDb],
    partials: &[(u16, ScopeKind, Combine, String, String)],
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
    for (id, kind, combine, formula, name) in partials {
        let raw = id >> 8;
        let base = match dbs.iter().find(|d| d.id == raw) {
            Some(d) => d.base.clone(),
            None => scope_of(name.split(':').next().unwrap_or(name)).0,
        };
        let i = index_of(&mut metrics, &base);
        let scope = match kind {
            ScopeKind::Execution => "execution",
            ScopeKind::Function => "function",
            _ => "point",
        };
        metrics[i].summaries.push(SummaryStat {
            scope: scope.into(),
            kind: *kind,
            formula: formula.clone(),
            combine: *combine,
            stat_metric_id: *id,
        });
    }
    metrics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_ampersands_decode_in_one_pass() {
        // 1,000,000 '&' without ';': each used to search the rest of the value (quadratic).
        let t = std::time::Instant::now();
        let s = "&".repeat(1_000_000);
        assert_eq!(decode_entities(&s), s);
        assert_eq!(decode_entities("a&lt;b&#x41;&#66;&bogus;"), "a<bAB&bogus;");
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    }

    #[test]
    fn tokenizer_tags_attributes_entities() {
        let doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE x [ <!ELEMENT a (b)> <!ATTLIST a n CDATA \"]>\"> ]>\n<!-- <C i='9'/> -->\n<a n=\"&lt;program root&gt; &amp; &#65;&#x42; &bogus;\" v='1'>text<b/></a >";
        let tags: Vec<_> = XmlTags::new(doc, "t.xml").collect::<Result<_>>().unwrap();
        assert_eq!(tags.len(), 3);
        match &tags[0] {
            XmlTag::Start {
                name, attrs, empty, ..
            } => {
                assert_eq!(*name, "a");
                assert!(!empty);
                assert_eq!(attrs[0], ("n", "<program root> & AB &bogus;".to_string()));
                assert_eq!(attrs[1], ("v", "1".to_string()));
            }
            t => panic!("{t:?}"),
        }
        assert!(matches!(
            tags[1],
            XmlTag::Start {
                name: "b",
                empty: true,
                ..
            }
        ));
        assert!(matches!(tags[2], XmlTag::End { name: "a", .. }));
        let bad: Vec<_> = XmlTags::new("<a n=\"x><b>", "t.xml").collect();
        assert!(bad.last().unwrap().is_err());
    }

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
        assert_eq!(t.cct.parent, vec![crate::model::NONE, 0, 1, 2, 1]);
        assert_eq!(t.cct.frame[2].function, Some(1));
        assert_eq!(t.cct.frame[2].module, Some(0));
        assert_eq!(t.cct.frame[3].line, Some(9));
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
