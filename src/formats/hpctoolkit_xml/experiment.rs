//! experiment.xml of an XML-era database (DTD at the head of each file, versions 2.0-2.2): the
//! `SecHeader` tables (MetricTable, MetricDBTable, LoadModuleTable, FileTable, ProcedureTable;
//! traces are found by file name), read in one pass with the shared tokenizer, which hands the
//! `SecCallPathProfileData` elements to [`super::tree`]. DTD entities are never expanded.

use super::tree::{BuiltTree, TreeBuilder};
use crate::bytes::Source;
use crate::error::{Error, Result, Warning};
use crate::formats::xml::{Reader, Tag, Token};
use crate::model::{Function, Module, SourceFile};
use std::collections::HashMap;

/// `t=` of a Metric or MetricDB: which propagation its values have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricType {
    Inclusive,
    Exclusive,
    /// `nil`: a raw metric with no propagation (the DTD's default).
    Nil,
}

impl MetricType {
    fn parse(v: Option<&str>) -> MetricType {
        match v {
            Some("inclusive") => MetricType::Inclusive,
            Some("exclusive") => MetricType::Exclusive,
            _ => MetricType::Nil,
        }
    }
}

/// One `<Metric>` of the MetricTable: a summary column whose values the tree carries as `M`.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricDef {
    /// `i`: the id `M n=` refers to.
    pub id: u32,
    pub name: String,
    /// `v`: raw, final, derived-incr or derived.
    pub value_type: String,
    pub t: MetricType,
    pub partner: Option<u32>,
    /// `show`: 1 shown (default), 0 hidden, 2 inclusive only, 3 exclusive only, 4 never shown.
    pub show: u8,
    /// `MetricFormula` elements as (`t`, `frm`): combine, finalize or view.
    pub formulas: Vec<(String, String)>,
    /// `<NV n="units">` inside the metric.
    pub units: Option<String>,
    /// `o`: hpcrun's order of the metric, what `#n` in a view formula names (-1, or absent, for
    /// none: exclusive columns carry -1).
    pub order: Option<i64>,
    /// `fmt`: printf-like number format (`%6.2f %%`).
    pub format: Option<String>,
    /// `show-percent`: cells show the percent of the root's value (the DTD's default: yes).
    pub show_percent: bool,
}

/// One `<MetricDB>`: a column of the per-thread metric databases.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricDbDef {
    pub id: u32,
    pub name: String,
    pub t: MetricType,
    /// `db-id`: the column inside each thread's rows.
    pub db_id: u32,
    pub db_glob: String,
    pub num_metrics: Option<u32>,
}

/// Everything experiment.xml says: the header tables, and the tree with its summary values.
pub struct Experiment {
    pub version: String,
    pub title: String,
    pub tables: Tables,
    pub tree: BuiltTree,
}

/// An unsigned decimal attribute (space around it allowed), without decoding.
pub(super) fn uint(raw: &[u8]) -> Option<u64> {
    // Up to 19 digits alone (what hpcprof writes) cannot overflow: no UTF-8 check, trim or parse.
    if !raw.is_empty() && raw.len() <= 19 && raw.iter().all(u8::is_ascii_digit) {
        return Some(raw.iter().fold(0, |v, &d| v * 10 + u64::from(d - b'0')));
    }
    let s = std::str::from_utf8(raw).ok()?.trim();
    s.parse().ok()
}

/// A u32 attribute.
pub(super) fn u32_of(raw: &[u8]) -> Option<u32> {
    uint(raw).and_then(|v| u32::try_from(v).ok())
}

/// "0x400666" or "4195942".
pub(super) fn addr(raw: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(raw).ok()?.trim();
    match s.strip_prefix("0x").or(s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Line number of byte `offset` in `bytes` (1-based), for error messages.
pub fn line_of(bytes: &[u8], offset: u64) -> usize {
    let end = (offset as usize).min(bytes.len());
    1 + memchr::memchr_iter(b'\n', &bytes[..end]).count()
}

/// The header tables: load modules, files and procedures (with their ids' indexes), metric
/// descriptions and metric databases.
#[derive(Default)]
pub struct Tables {
    pub modules: Vec<Module>,
    pub source_files: Vec<SourceFile>,
    pub functions: Vec<Function>,
    pub module_ix: HashMap<u32, u32>,
    pub file_ix: HashMap<u32, u32>,
    pub proc_ix: HashMap<u32, u32>,
    /// Procedure `f=` features: 1 placeholder, 2 root of another view, 3 trace-only, 4 root.
    pub proc_feature: HashMap<u32, u8>,
    pub metrics: Vec<MetricDef>,
    pub metric_dbs: Vec<MetricDbDef>,
    /// Entries without a usable `i` or `n`, counted for one warning.
    pub bad_entries: u64,
}

impl Tables {
    /// A `<LoadModule>`, `<File>` or `<Procedure>`.
    fn entry(&mut self, tag: &Tag) {
        let (mut id, mut name, mut v, mut feature) = (None, None, None, None);
        for a in tag.attrs() {
            match a.name {
                "i" => id = u32_of(a.raw),
                "n" => name = Some(a.value().into_owned()),
                "v" => v = addr(a.raw),
                "f" => feature = uint(a.raw).and_then(|f| u8::try_from(f).ok()),
                _ => {}
            }
        }
        let (Some(id), Some(name)) = (id, name) else {
            self.bad_entries += 1;
            return;
        };
        match tag.name {
            "LoadModule" => {
                self.module_ix.insert(id, self.modules.len() as u32);
                self.modules.push(Module { path: name });
            }
            "File" => {
                self.file_ix.insert(id, self.source_files.len() as u32);
                self.source_files.push(SourceFile { path: name });
            }
            _ => {
                self.proc_ix.insert(id, self.functions.len() as u32);
                if let Some(f) = feature {
                    self.proc_feature.insert(id, f);
                }
                self.functions.push(Function {
                    offset: v.filter(|&v| v != 0),
                    ..Function::named(name)
                });
            }
        }
    }

    fn metric(&mut self, tag: &Tag) {
        let mut m = MetricDef {
            id: u32::MAX,
            name: String::new(),
            value_type: "raw".into(),
            t: MetricType::Nil,
            partner: None,
            show: 1,
            formulas: Vec::new(),
            units: None,
            order: None,
            format: None,
            show_percent: true,
        };
        let mut id = None;
        for a in tag.attrs() {
            match a.name {
                "i" => id = u32_of(a.raw),
                "n" => m.name = a.value().into_owned(),
                "v" => m.value_type = a.value().into_owned(),
                "t" => m.t = MetricType::parse(Some(&a.value())),
                "partner" => m.partner = u32_of(a.raw),
                "show" => m.show = uint(a.raw).and_then(|s| u8::try_from(s).ok()).unwrap_or(1),
                "o" => m.order = a.value().trim().parse().ok().filter(|&o: &i64| o >= 0),
                "fmt" => m.format = Some(a.value().into_owned()),
                "show-percent" => m.show_percent = a.value().trim() != "0",
                _ => {}
            }
        }
        match id {
            Some(i) => {
                m.id = i;
                self.metrics.push(m);
            }
            None => self.bad_entries += 1,
        }
    }

    fn metric_db(&mut self, tag: &Tag) {
        let (mut id, mut db_id, mut name, mut t, mut glob, mut num) =
            (None, None, None, None, String::new(), None);
        for a in tag.attrs() {
            match a.name {
                "i" => id = u32_of(a.raw),
                "n" => name = Some(a.value().into_owned()),
                "t" => t = Some(a.value().into_owned()),
                "db-id" => db_id = u32_of(a.raw),
                "db-glob" => glob = a.value().into_owned(),
                "db-num-metrics" => num = u32_of(a.raw),
                _ => {}
            }
        }
        match (id, name) {
            (Some(id), Some(name)) => self.metric_dbs.push(MetricDbDef {
                id,
                name,
                t: MetricType::parse(t.as_deref()),
                db_id: db_id.unwrap_or(id),
                db_glob: glob,
                num_metrics: num,
            }),
            _ => self.bad_entries += 1,
        }
    }

    /// A header element; `in_metric` tells whether a `<Metric>` is open (for its formulas and
    /// units).
    fn tag(&mut self, tag: &Tag, in_metric: bool) {
        match tag.name {
            "LoadModule" | "File" | "Procedure" => self.entry(tag),
            "Metric" => self.metric(tag),
            "MetricDB" => self.metric_db(tag),
            "MetricFormula" if in_metric => {
                if let Some(m) = self.metrics.last_mut() {
                    let t = tag.value("t").map_or("finalize".into(), |t| t.into_owned());
                    let f = tag.value("frm").map(|f| f.into_owned()).unwrap_or_default();
                    m.formulas.push((t, f));
                }
            }
            "NV" if in_metric && tag.value("n").as_deref() == Some("units") => {
                if let (Some(m), Some(v)) = (self.metrics.last_mut(), tag.value("v")) {
                    m.units = Some(v.into_owned());
                }
            }
            _ => {}
        }
    }
}

/// Reads experiment.xml; errors name the file, the byte offset and the line.
pub fn read(src: &Source, warnings: &mut Vec<Warning>) -> Result<Experiment> {
    let file = src.name().to_string();
    let bytes = src.bytes(0, src.len(), "experiment.xml")?;
    read_bytes(&bytes, &file, warnings).map_err(|e| match e.offset {
        Some(off) if off <= bytes.len() as u64 => {
            let line = line_of(&bytes, off);
            e.context(format!("line {line}"))
        }
        _ => e,
    })
}

/// The document driver: which part of the document an element belongs to.
fn read_bytes(bytes: &[u8], file: &str, warnings: &mut Vec<Warning>) -> Result<Experiment> {
    let mut version = None;
    let mut title = String::new();
    let mut tables = Tables::default();
    let mut tree = TreeBuilder::new(file, bytes.len());
    // Open elements outside the tree, by name; the tree keeps its own stack.
    let mut open: Vec<&str> = Vec::new();
    let mut in_data = false;
    let mut reader = Reader::new(bytes, file);
    while let Some(token) = reader.next_token()? {
        match token {
            Token::Start(tag) if in_data => tree.start(&tag, &tables)?,
            Token::End(end) if in_data && !tree.at_top() => tree.end(&end)?,
            Token::Start(tag) => {
                match tag.name {
                    "HPCToolkitExperiment" => {
                        version = Some(tag.value("version").unwrap_or_default().into_owned())
                    }
                    "Header" => title = tag.value("n").unwrap_or_default().into_owned(),
                    "SecCallPathProfile" if title.is_empty() => {
                        title = tag.value("n").unwrap_or_default().into_owned()
                    }
                    "SecCallPathProfileData" => in_data = !tag.empty,
                    "SecFlatProfileData" => warnings.push(Error::unsupported(
                        file,
                        Some(tag.offset as u64),
                        "a flat-profile section (SecFlatProfile) is skipped: the call-path profile is read",
                    )),
                    _ => tables.tag(&tag, open.last() == Some(&"Metric") || open.ends_with(&["Metric", "Info"])),
                }
                if !tag.empty {
                    open.push(tag.name);
                }
            }
            Token::End(end) => {
                in_data = false;
                match open.pop() {
                    Some(name) if name == end.name => {}
                    Some(name) => {
                        return Err(Error::invalid(
                            file,
                            end.offset as u64,
                            format!("XML end tag </{}> closes <{name}>", end.name),
                        ))
                    }
                    None => {
                        return Err(Error::invalid(
                            file,
                            end.offset as u64,
                            format!("XML end tag </{}> with nothing open", end.name),
                        ))
                    }
                }
            }
            Token::Text(_) => {}
        }
    }
    if let Some(name) = open.last() {
        return Err(Error::truncated(
            file,
            bytes.len() as u64,
            format!("experiment.xml ends inside <{name}>"),
        ));
    }
    let Some(version) = version else {
        return Err(Error::invalid(
            file,
            0,
            "experiment.xml without an <HPCToolkitExperiment version=...> element",
        ));
    };
    if !version.starts_with("2.") {
        warnings.push(Error::unsupported(
            file,
            None,
            format!("experiment.xml version {version:?}: read as the XML-era layout (2.0-2.2)"),
        ));
    }
    let bad_entries = "table entries without a usable i or n were left out";
    warnings.extend(Error::count(tables.bad_entries, file, Some(0), bad_entries));
    Ok(Experiment {
        version,
        title,
        tables,
        tree: tree.finish(warnings)?,
    })
}
