//! A YAML 1.2 document as a tree of nodes, built from saphyr-parser's events. An alias stays a
//! reference to its anchored node (never a copy), so a file of nested aliases cannot blow up
//! memory; aliases can only name finished nodes, so the graph has no cycles. Every node keeps its
//! line for messages. Mapping lookups follow YAML merge keys (`<<`), as METRICS.yaml uses them.

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

/// Deepest nesting of sequences and mappings accepted.
pub const MAX_NESTING: usize = 128;
/// Most nodes a document may hold (a METRICS.yaml of 2,000 lines holds about 10,000).
pub const MAX_NODES: usize = 2_000_000;

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A scalar's text; `plain` when unquoted (only plain scalars are numbers, nulls, booleans).
    Scalar {
        text: String,
        plain: bool,
    },
    Seq(Vec<usize>),
    /// Key and value node ids, in file order.
    Map(Vec<(usize, usize)>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    /// 1-based line where the node starts.
    pub line: usize,
}

/// A parsed document: nodes by id (shared by every alias of them) and the root.
#[derive(Debug, Default)]
pub struct Doc {
    pub nodes: Vec<Node>,
    pub root: Option<usize>,
}

/// A problem at a line: the reader turns it into a warning naming the file.
#[derive(Clone, Debug, PartialEq)]
pub struct YamlError {
    pub line: usize,
    pub what: String,
}

impl YamlError {
    pub fn new(line: usize, what: impl Into<String>) -> YamlError {
        YamlError {
            line,
            what: what.into(),
        }
    }
}

/// A collection being built: its node id and children so far (a mapping's alternate keys and
/// values).
struct Open {
    id: usize,
    anchor: usize,
    items: Vec<usize>,
}

/// Parses the first document of `text`.
pub fn parse(text: &str) -> Result<Doc, YamlError> {
    let mut doc = Doc::default();
    let mut anchors: std::collections::HashMap<usize, usize> = Default::default();
    let mut stack: Vec<Open> = Vec::new();
    let mut parser = Parser::new_from_str(text);
    while let Some(next) = parser.next_event() {
        let (ev, span): (Event, Span) =
            next.map_err(|e| YamlError::new(e.marker().line(), e.info().to_string()))?;
        let line = span.start.line();
        // The id of a finished node to add to the open collection.
        let done = match ev {
            Event::StreamStart | Event::DocumentStart(_) | Event::Nothing => None,
            Event::DocumentEnd | Event::StreamEnd => break,
            Event::Scalar(text, style, anchor, _tag) => {
                let id = push(
                    &mut doc,
                    Value::Scalar {
                        text: text.into_owned(),
                        plain: style == ScalarStyle::Plain,
                    },
                    line,
                )?;
                if anchor != 0 {
                    anchors.insert(anchor, id);
                }
                Some(id)
            }
            Event::Alias(anchor) => Some(
                *anchors
                    .get(&anchor)
                    .ok_or_else(|| YamlError::new(line, "alias of an unknown anchor"))?,
            ),
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if stack.len() >= MAX_NESTING {
                    return Err(YamlError::new(
                        line,
                        format!("nesting deeper than {MAX_NESTING} levels"),
                    ));
                }
                let value = if matches!(ev, Event::SequenceStart(..)) {
                    Value::Seq(Vec::new())
                } else {
                    Value::Map(Vec::new())
                };
                let id = push(&mut doc, value, line)?;
                stack.push(Open {
                    id,
                    anchor,
                    items: Vec::new(),
                });
                None
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let open = stack
                    .pop()
                    .ok_or_else(|| YamlError::new(line, "unbalanced collection end"))?;
                let node = &mut doc.nodes[open.id];
                match &mut node.value {
                    Value::Seq(items) => *items = open.items,
                    Value::Map(pairs) => {
                        *pairs = open.items.chunks_exact(2).map(|p| (p[0], p[1])).collect()
                    }
                    Value::Scalar { .. } => {}
                }
                // Anchored when finished: an alias inside its own anchor's node is unknown.
                if open.anchor != 0 {
                    anchors.insert(open.anchor, open.id);
                }
                Some(open.id)
            }
        };
        if let Some(id) = done {
            match stack.last_mut() {
                Some(open) => open.items.push(id),
                None if doc.root.is_none() => doc.root = Some(id),
                None => {}
            }
        }
    }
    Ok(doc)
}

fn push(doc: &mut Doc, value: Value, line: usize) -> Result<usize, YamlError> {
    if doc.nodes.len() >= MAX_NODES {
        return Err(YamlError::new(
            line,
            format!("more than {MAX_NODES} YAML nodes"),
        ));
    }
    doc.nodes.push(Node { value, line });
    Ok(doc.nodes.len() - 1)
}

impl Doc {
    pub fn node(&self, id: usize) -> &Node {
        &self.nodes[id]
    }
    pub fn line(&self, id: usize) -> usize {
        self.nodes.get(id).map_or(0, |n| n.line)
    }

    /// The text of a scalar node that is not a null.
    pub fn str(&self, id: usize) -> Option<&str> {
        match &self.nodes.get(id)?.value {
            Value::Scalar { text, plain } if !(*plain && is_null(text)) => Some(text),
            _ => None,
        }
    }

    /// A plain scalar read as a number (YAML 1.2 core schema: integers, decimal, octal `0o`,
    /// hexadecimal `0x`, floats, `.inf`, `.nan`).
    pub fn number(&self, id: usize) -> Option<f64> {
        match &self.nodes.get(id)?.value {
            Value::Scalar { text, plain: true } => core_number(text),
            _ => None,
        }
    }

    /// A plain `true` / `false` (any case the core schema allows).
    pub fn bool(&self, id: usize) -> Option<bool> {
        match &self.nodes.get(id)?.value {
            Value::Scalar { text, plain: true } => match text.as_str() {
                "true" | "True" | "TRUE" => Some(true),
                "false" | "False" | "FALSE" => Some(false),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn seq(&self, id: usize) -> Option<&[usize]> {
        match &self.nodes.get(id)?.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn map(&self, id: usize) -> Option<&[(usize, usize)]> {
        match &self.nodes.get(id)?.value {
            Value::Map(pairs) => Some(pairs),
            _ => None,
        }
    }

    pub fn is_null(&self, id: usize) -> bool {
        matches!(&self.nodes.get(id).map(|n| &n.value), Some(Value::Scalar { text, plain: true }) if is_null(text))
    }

    /// The value of `key` in mapping `id`: its own entry (the last one when the key repeats),
    /// else the first merged mapping (`<<: *anchor` or `<<: [*a, *b]`) that has it.
    pub fn get(&self, id: usize, key: &str) -> Option<usize> {
        self.get_depth(id, key, 0)
    }

    fn get_depth(&self, id: usize, key: &str, depth: usize) -> Option<usize> {
        let pairs = self.map(id)?;
        if let Some(&(_, v)) = pairs.iter().rev().find(|&&(k, _)| self.key_is(k, key)) {
            return Some(v);
        }
        // Merged mappings may themselves merge others; the chain is as deep as the nesting.
        if depth >= MAX_NESTING {
            return None;
        }
        let merged = pairs
            .iter()
            .rev()
            .find(|&&(k, _)| self.key_is(k, "<<"))
            .map(|&(_, v)| v)?;
        let sources: Vec<usize> = match self.seq(merged) {
            Some(items) => items.to_vec(),
            None => vec![merged],
        };
        sources
            .into_iter()
            .find_map(|m| self.get_depth(m, key, depth + 1))
    }

    fn key_is(&self, k: usize, key: &str) -> bool {
        matches!(&self.nodes[k].value, Value::Scalar { text, .. } if text == key)
    }
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// A number of the YAML 1.2 core schema.
fn core_number(t: &str) -> Option<f64> {
    let (sign, body) = match t.as_bytes().first()? {
        b'-' => (-1.0, &t[1..]),
        b'+' => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    match body {
        ".inf" | ".Inf" | ".INF" => return Some(sign * f64::INFINITY),
        ".nan" | ".NaN" | ".NAN" if sign > 0.0 && !t.starts_with('+') => return Some(f64::NAN),
        _ => {}
    }
    if let Some(oct) = t.strip_prefix("0o") {
        return u64::from_str_radix(oct, 8).ok().map(|v| v as f64);
    }
    if let Some(hex) = t.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok().map(|v| v as f64);
    }
    // [0-9]+ | (\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mant_ok = match mant.split_once('.') {
        Some((a, b)) => (a.is_empty() || digits(a)) && (b.is_empty() || digits(b)) && mant != ".",
        None => digits(mant),
    };
    let exp_ok = exp.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    if !mant_ok || !exp_ok {
        return None;
    }
    body.parse::<f64>().ok().map(|v| sign * v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_are_references_and_merges_resolve() {
        let doc = parse(
            "inputs:\n  - &a\n    metric: cycles\n    scope: function\n  - &b\n    <<: *a\n    scope: execution\nuse: [*a, *b, 2.5e1, '7', 0x10, ~]\n",
        )
        .unwrap();
        let root = doc.root.unwrap();
        let inputs = doc.seq(doc.get(root, "inputs").unwrap()).unwrap().to_vec();
        let uses = doc.seq(doc.get(root, "use").unwrap()).unwrap().to_vec();
        // The aliases name the anchored nodes themselves.
        assert_eq!(&uses[..2], &inputs[..]);
        let b = inputs[1];
        assert_eq!(doc.str(doc.get(b, "scope").unwrap()), Some("execution"));
        assert_eq!(doc.str(doc.get(b, "metric").unwrap()), Some("cycles"));
        assert_eq!(doc.line(b), 5);
        assert_eq!(doc.number(uses[2]), Some(25.0));
        // A quoted scalar is a string, not a number.
        assert_eq!(doc.number(uses[3]), None);
        assert_eq!(doc.str(uses[3]), Some("7"));
        assert_eq!(doc.number(uses[4]), Some(16.0));
        assert!(doc.is_null(uses[5]));
        assert_eq!(doc.str(uses[5]), None);
    }

    #[test]
    fn core_schema_numbers() {
        for (t, v) in [
            ("12", 12.0),
            ("-3.5", -3.5),
            (".5", 0.5),
            ("1e3", 1000.0),
            ("-.inf", f64::NEG_INFINITY),
        ] {
            assert_eq!(core_number(t), Some(v), "{t}");
        }
        for t in ["1,5", "e3", "inf", "1e", "0x", "$$", "4*", "."] {
            assert_eq!(core_number(t), None, "{t}");
        }
        assert!(core_number(".nan").unwrap().is_nan());
    }

    #[test]
    fn errors_name_the_line_and_nothing_recurses() {
        let e = parse("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(e.line >= 2, "{e:?}");
        // An alias of an anchor not finished yet (itself) is refused rather than looped over.
        assert!(parse("a: &x [1, *x]\n").is_err());
        let deep = "[".repeat(MAX_NESTING + 1) + &"]".repeat(MAX_NESTING + 1);
        assert!(parse(&deep).unwrap_err().what.contains("nesting"));
        // A billion laughs is a handful of nodes: aliases are not copied.
        let mut text = String::from("a0: &a0 [x, x]\n");
        for i in 1..40 {
            text += &format!("a{i}: &a{i} [*a{}, *a{}]\n", i - 1, i - 1);
        }
        let doc = parse(&text).unwrap();
        assert!(doc.nodes.len() < 200);
    }
}
