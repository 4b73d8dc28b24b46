//! A YAML document as a tree that keeps what HPCToolkit's golden transcripts (hpctesttool,
//! ruamel.yaml) carry: `!tags`, anchors and aliases (by anchor id, so an alias names one list
//! entry), scalars as their text. Scanning and parsing are saphyr-parser's (YAML 1.2), the
//! null/float rules saphyr's core schema; this file only assembles its events into nodes.

use saphyr::{parse_core_schema_fp, Scalar};
use saphyr_parser::{Event, Parser};
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub enum Value {
    Null,
    /// A scalar's text (plain or quoted, escapes resolved, folded lines joined).
    Scalar(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
    /// An alias: the anchor id of the node it designates.
    Alias(usize),
}

#[derive(Debug, Clone)]
pub struct Node {
    /// Anchor id (`&id001`), 0 when the node has none; ids count from 1 in document order.
    pub anchor: usize,
    /// The tag as written (`!meta.db/v4/Metric`), if any.
    pub tag: Option<String>,
    pub value: Value,
}

/// Parses a one-document YAML text. Errors carry saphyr's message and position.
pub fn parse(text: &str) -> Result<Node, String> {
    // Open collections, each with a map's pending key; nodes are attached when complete, so
    // nesting depth costs heap, not stack.
    let mut open: Vec<(Node, Option<String>)> = Vec::new();
    let mut root: Option<Node> = None;
    for ev in Parser::new_from_str(text) {
        let (ev, span) = ev.map_err(|e| e.to_string())?;
        let node = |anchor, tag: Option<std::borrow::Cow<'_, saphyr_parser::Tag>>, value| Node {
            anchor,
            tag: tag.map(|t| t.to_string()),
            value,
        };
        let done = match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let null = tag.is_none()
                    && Scalar::parse_from_cow_and_metadata(text.clone(), style, None)
                        == Some(Scalar::Null);
                let v = if null {
                    Value::Null
                } else {
                    Value::Scalar(text.into_owned())
                };
                node(anchor, tag, v)
            }
            Event::Alias(id) => node(0, None, Value::Alias(id)),
            Event::SequenceStart(anchor, tag) => {
                open.push((node(anchor, tag, Value::Seq(Vec::new())), None));
                continue;
            }
            Event::MappingStart(anchor, tag) => {
                open.push((node(anchor, tag, Value::Map(Vec::new())), None));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match open.pop() {
                Some((n, None)) => n,
                _ => return Err(format!("unbalanced collection at {:?}", span.start)),
            },
            _ => continue,
        };
        match open.last_mut() {
            None if root.is_none() => root = Some(done),
            None => return Err(format!("a second document at {:?}", span.start)),
            Some((
                Node {
                    value: Value::Seq(items),
                    ..
                },
                _,
            )) => items.push(done),
            Some((
                Node {
                    value: Value::Map(entries),
                    ..
                },
                key,
            )) => match key.take() {
                Some(k) => entries.push((k, done)),
                None => match done.value {
                    Value::Scalar(k) => *key = Some(k),
                    Value::Null => *key = Some(String::new()),
                    other => return Err(format!("non-scalar key {other:?} at {:?}", span.start)),
                },
            },
            Some(_) => unreachable!("only collections are open"),
        }
    }
    root.ok_or_else(|| "no document".to_string())
}

impl Node {
    /// The value at `key` of a map; panics naming the key when absent.
    pub fn get(&self, key: &str) -> &Node {
        self.opt(key)
            .unwrap_or_else(|| panic!("no key {key} in {:?}", self.tag))
    }

    /// The value at `key` of a map, if present.
    pub fn opt(&self, key: &str) -> Option<&Node> {
        self.entries()
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// A scalar's text, None for null.
    pub fn str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            Value::Null => None,
            other => panic!("not a scalar: {other:?}"),
        }
    }

    /// An unsigned integer (any u64, unlike YAML's i64 core schema), None for null.
    pub fn u64(&self) -> Option<u64> {
        self.str().map(|s| {
            s.parse()
                .unwrap_or_else(|_| panic!("not an unsigned integer: {s}"))
        })
    }

    /// A float by YAML's core schema (`.inf`, `.nan`, decimal and exponent forms), parsed by
    /// saphyr, whose decimal conversion is correctly rounded (tests/yaml_reader.rs checks it).
    pub fn f64(&self) -> f64 {
        let s = self.str().expect("a number, not null");
        parse_core_schema_fp(s).unwrap_or_else(|| panic!("not a float: {s}"))
    }

    /// A sequence's items; null reads as an empty sequence.
    pub fn seq(&self) -> &[Node] {
        match &self.value {
            Value::Seq(s) => s,
            Value::Null => &[],
            other => panic!("not a sequence: {other:?}"),
        }
    }

    /// A map's entries in document order.
    pub fn entries(&self) -> &[(String, Node)] {
        match &self.value {
            Value::Map(m) => m,
            other => panic!("not a map: {other:?}"),
        }
    }

    /// The anchor id an alias designates, None for null.
    pub fn alias(&self) -> Option<usize> {
        match &self.value {
            Value::Alias(a) => Some(*a),
            Value::Null => None,
            other => panic!("not an alias: {other:?}"),
        }
    }

    /// The texts of a sequence of scalars (a flags list such as `[is_summary]`).
    pub fn flags(&self) -> Vec<&str> {
        self.seq().iter().filter_map(Node::str).collect()
    }

    /// Every anchored node of the tree by anchor id.
    pub fn anchors(&self) -> HashMap<usize, &Node> {
        let mut out = HashMap::new();
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            if n.anchor != 0 {
                out.insert(n.anchor, n);
            }
            match &n.value {
                Value::Seq(items) => stack.extend(items),
                Value::Map(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
                _ => {}
            }
        }
        out
    }
}

/// Where in `list` the node an alias designates sits; None for a null alias.
pub fn position(list: &[Node], alias: Option<usize>) -> Option<usize> {
    let a = alias?;
    Some(
        list.iter()
            .position(|n| n.anchor == a)
            .unwrap_or_else(|| panic!("alias to anchor {a} designates nothing in the list")),
    )
}
