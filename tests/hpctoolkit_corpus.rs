//! HPCToolkit v4 databases of ../shared/corpus: every final-layout transcript equals, value for
//! value, the golden YAML written by HPCToolkit's hpctesttool; drafts open and report their layout;
//! truncated and bit-flipped files give errors or warnings, never panics or hangs.

use hpcscope::bytes::Source;
use hpcscope::formats::{self, hpctoolkit, DatasetGroup, InputFile};
use serde_json::{json, Value};
use std::io::Read;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let p = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpus/hpctoolkit"
    ));
    if p.is_dir() {
        Some(p.to_path_buf())
    } else {
        eprintln!("skipping: ../shared/corpus absent");
        None
    }
}

fn dirs(sub: &str) -> Vec<PathBuf> {
    let Some(c) = corpus() else { return Vec::new() };
    let mut v: Vec<PathBuf> = std::fs::read_dir(c.join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

fn group_of(dir: &Path) -> DatasetGroup {
    let inputs = hpcscope::cli::read_inputs(dir).unwrap();
    let (mut groups, _) = formats::group(inputs);
    assert_eq!(groups.len(), 1, "{}", dir.display());
    groups.remove(0)
}

fn transcript(g: &DatasetGroup) -> Value {
    let mut out = Vec::new();
    hpcscope::cli::dump::write_json(g, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

// ---------------------------------------------------------------------------------------------
// A YAML reader for exactly what hpctesttool (ruamel.yaml) writes: block maps and sequences
// (sequences may sit at their key's indent), !tags, &anchors, *aliases, # comments, flow [] / {}
// possibly over several lines, plain scalars continued on deeper lines, quoted scalars.

#[derive(Debug, Clone)]
enum Y {
    Null,
    Plain(String),
    Quoted(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
    Alias(String),
}

#[derive(Debug, Clone)]
struct Node {
    anchor: Option<String>,
    v: Y,
}

struct Line {
    indent: usize,
    text: String,
}

fn strip_comment(s: &str) -> &str {
    let b = s.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(b'\'') => {
                if c == b'\'' {
                    if b.get(i + 1) == Some(&b'\'') {
                        i += 1;
                    } else {
                        quote = None;
                    }
                }
            }
            Some(_) => {
                if c == b'\\' {
                    i += 1;
                } else if c == b'"' {
                    quote = None;
                }
            }
            None => {
                let prev = if i == 0 { b' ' } else { b[i - 1] };
                if (c == b'\'' || c == b'"') && matches!(prev, b' ' | b'[' | b',' | b'{') {
                    quote = Some(c);
                } else if c == b'#' && prev == b' ' {
                    return s[..i].trim_end();
                }
            }
        }
        i += 1;
    }
    s.trim_end()
}

fn lines_of(text: &str) -> Vec<Line> {
    text.lines()
        .filter_map(|l| {
            let indent = l.len() - l.trim_start().len();
            let t = strip_comment(l.trim_start());
            (!t.is_empty()).then(|| Line {
                indent,
                text: t.to_string(),
            })
        })
        .collect()
}

/// Splits `key: rest` (or `key:`); `None` when the text is not a mapping entry.
fn split_key(t: &str) -> Option<(&str, &str)> {
    if t.starts_with(['\'', '"', '[', '{', '!', '&', '*']) {
        return None;
    }
    if let Some(k) = t.strip_suffix(':') {
        if !k.contains(": ") {
            return Some((k, ""));
        }
    }
    let i = t.find(": ")?;
    Some((&t[..i], t[i + 2..].trim_start()))
}

struct P {
    lines: Vec<Line>,
    i: usize,
}

impl P {
    /// Anchor and tag in front of a value; returns the anchor and the rest.
    fn props(mut t: &str) -> (Option<String>, &str) {
        let mut anchor = None;
        loop {
            t = t.trim_start();
            if let Some(r) = t.strip_prefix('&') {
                let end = r.find(' ').unwrap_or(r.len());
                anchor = Some(r[..end].to_string());
                t = &r[end..];
            } else if t.starts_with('!') {
                let end = t.find(' ').unwrap_or(t.len());
                t = &t[end..];
            } else {
                return (anchor, t);
            }
        }
    }

    /// The value of a `key:` or `-` whose inline text is `rest`, at parent indent `indent`.
    fn value(&mut self, rest: &str, indent: usize, in_map: bool) -> Node {
        let (anchor, rest) = Self::props(rest);
        let v = if rest.is_empty() {
            match self.lines.get(self.i) {
                Some(l) if l.indent > indent => self.block(l.indent),
                Some(l)
                    if in_map
                        && l.indent == indent
                        && (l.text.starts_with("- ") || l.text == "-") =>
                {
                    Y::Seq(self.seq(indent))
                }
                _ => Y::Null,
            }
        } else {
            self.scalar_or_flow(rest.to_string(), indent)
        };
        Node { anchor, v }
    }

    fn scalar_or_flow(&mut self, mut text: String, indent: usize) -> Y {
        if let Some(a) = text.strip_prefix('*') {
            return Y::Alias(a.to_string());
        }
        if text.starts_with('[') || text.starts_with('{') {
            let depth = |s: &str| {
                s.matches(['[', '{']).count() as i64 - s.matches([']', '}']).count() as i64
            };
            while depth(&text) > 0 {
                let l = &self.lines[self.i];
                text.push(' ');
                text.push_str(&l.text);
                self.i += 1;
            }
            return flow(&text);
        }
        // Plain or quoted scalars continue on deeper lines (folded with one space).
        while let Some(l) = self.lines.get(self.i) {
            if l.indent <= indent || split_key(&l.text).is_some() || l.text.starts_with("- ") {
                break;
            }
            text.push(' ');
            text.push_str(&l.text);
            self.i += 1;
        }
        scalar(&text)
    }

    fn block(&mut self, indent: usize) -> Y {
        let l = &self.lines[self.i];
        if l.text.starts_with("- ") || l.text == "-" {
            Y::Seq(self.seq(indent))
        } else if split_key(&l.text).is_some() {
            Y::Map(self.map(indent))
        } else {
            let t = l.text.clone();
            self.i += 1;
            self.scalar_or_flow(t, indent - 1)
        }
    }

    fn seq(&mut self, indent: usize) -> Vec<Node> {
        let mut out = Vec::new();
        while let Some(l) = self.lines.get(self.i) {
            if l.indent != indent || !(l.text.starts_with("- ") || l.text == "-") {
                break;
            }
            let item = l.text.get(2..).unwrap_or("").trim_start().to_string();
            let (anchor, rest) = Self::props(&item);
            if split_key(rest).is_some() {
                // `- key: v`: a map whose first entry sits on the dash line.
                let rest = rest.to_string();
                self.lines[self.i] = Line {
                    indent: indent + 2,
                    text: rest,
                };
                out.push(Node {
                    anchor,
                    v: Y::Map(self.map(indent + 2)),
                });
            } else {
                self.i += 1;
                let mut n = self.value(rest, indent, false);
                if n.anchor.is_none() {
                    n.anchor = anchor;
                }
                out.push(n);
            }
        }
        out
    }

    fn map(&mut self, indent: usize) -> Vec<(String, Node)> {
        let mut out = Vec::new();
        while let Some(l) = self.lines.get(self.i) {
            if l.indent != indent || l.text.starts_with("- ") {
                break;
            }
            let Some((k, rest)) = split_key(&l.text) else {
                break;
            };
            let (k, rest) = (k.to_string(), rest.to_string());
            self.i += 1;
            let v = self.value(&rest, indent, true);
            out.push((k, v));
        }
        out
    }
}

fn scalar(t: &str) -> Y {
    if let Some(s) = t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return Y::Quoted(s.replace("''", "'"));
    }
    if let Some(s) = t.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        let mut out = String::new();
        let mut it = s.chars();
        while let Some(c) = it.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match it.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('x') => {
                    let h: String = it.by_ref().take(2).collect();
                    out.push(u8::from_str_radix(&h, 16).unwrap() as char);
                }
                Some('u') => {
                    let h: String = it.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&h, 16).unwrap()).unwrap());
                }
                Some(c) => out.push(c),
                None => {}
            }
        }
        return Y::Quoted(out);
    }
    if t == "~" || t == "null" {
        return Y::Null;
    }
    Y::Plain(t.to_string())
}

fn flow(t: &str) -> Y {
    let inner = t.trim();
    let (open, body) = (inner.as_bytes()[0], &inner[1..inner.len() - 1]);
    let items: Vec<Node> = body
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| Node {
            anchor: None,
            v: scalar(s),
        })
        .collect();
    if open == b'{' {
        assert!(items.is_empty(), "only empty flow maps are expected: {t}");
        Y::Map(Vec::new())
    } else {
        Y::Seq(items)
    }
}

fn parse_yaml(text: &str) -> Node {
    let mut p = P {
        lines: lines_of(text),
        i: 0,
    };
    let first = p.lines[0].text.clone();
    // The document starts with a tag line (`!db/v4`) followed by the root map.
    if first.starts_with('!') && split_key(&first).is_none() {
        p.i = 1;
    }
    let v = p.block(0);
    assert_eq!(p.i, p.lines.len(), "unparsed YAML from line {}", p.i);
    Node { anchor: None, v }
}

impl Node {
    fn get(&self, k: &str) -> &Node {
        match &self.v {
            Y::Map(m) => {
                &m.iter()
                    .find(|(kk, _)| kk == k)
                    .unwrap_or_else(|| panic!("no key {k}"))
                    .1
            }
            other => panic!("not a map looking for {k}: {other:?}"),
        }
    }
    fn text(&self) -> Option<String> {
        match &self.v {
            Y::Plain(s) | Y::Quoted(s) => Some(s.clone()),
            Y::Null => None,
            other => panic!("not a scalar: {other:?}"),
        }
    }
    fn str_or_null(&self) -> Value {
        self.text().map(Value::String).unwrap_or(Value::Null)
    }
    fn int(&self) -> Value {
        match self.text() {
            Some(s) => Value::from(
                s.parse::<u64>()
                    .unwrap_or_else(|_| panic!("not an integer: {s}")),
            ),
            None => Value::Null,
        }
    }
    fn u64(&self) -> u64 {
        self.text().unwrap().parse().unwrap()
    }
    fn float(&self) -> f64 {
        let s = self.text().unwrap();
        match s.as_str() {
            ".inf" | ".Inf" => f64::INFINITY,
            "-.inf" | "-.Inf" => f64::NEG_INFINITY,
            ".nan" | ".NaN" => f64::NAN,
            _ => s.parse().unwrap_or_else(|_| panic!("not a float: {s}")),
        }
    }
    fn seq(&self) -> &[Node] {
        match &self.v {
            Y::Seq(s) => s,
            Y::Null => &[],
            other => panic!("not a sequence: {other:?}"),
        }
    }
    fn entries(&self) -> &[(String, Node)] {
        match &self.v {
            Y::Map(m) => m,
            other => panic!("not a map: {other:?}"),
        }
    }
    fn alias(&self) -> Option<&str> {
        match &self.v {
            Y::Alias(a) => Some(a),
            Y::Null => None,
            other => panic!("not an alias: {other:?}"),
        }
    }
    fn flags(&self) -> Vec<String> {
        self.seq().iter().filter_map(|n| n.text()).collect()
    }
}

fn index_of(list: &[Node], alias: Option<&str>) -> Value {
    match alias {
        None => Value::Null,
        Some(a) => Value::from(
            list.iter()
                .position(|n| n.anchor.as_deref() == Some(a))
                .unwrap_or_else(|| panic!("alias *{a} designates nothing")),
        ),
    }
}

/// The transcript HPCToolkit's own reader implies, built from its YAML.
fn expected(golden: &Node) -> Value {
    let meta = golden.get("meta");
    let scopes = meta.get("metrics").get("scopes").seq();
    let scope_name = |n: &Node| -> Value {
        let a = n.alias().unwrap();
        let s = scopes
            .iter()
            .find(|s| s.anchor.as_deref() == Some(a))
            .unwrap();
        s.get("scope_name").str_or_null()
    };
    let modules = meta.get("modules").get("modules").seq();
    let files = meta.get("files").get("files").seq();
    let functions = meta.get("functions").get("functions").seq();
    let metrics: Vec<Value> = meta
        .get("metrics")
        .get("metrics")
        .seq()
        .iter()
        .map(|m| {
            json!({
                "name": m.get("name").str_or_null(),
                "scopes": m.get("scope_insts").seq().iter().map(|i| json!({
                    "scope": scope_name(i.get("scope")),
                    "prop_metric_id": i.get("prop_metric_id").int(),
                })).collect::<Vec<_>>(),
                "summaries": m.get("summaries").seq().iter().map(|s| json!({
                    "scope": scope_name(s.get("scope")),
                    "formula": s.get("formula").str_or_null(),
                    "combine": s.get("combine").str_or_null(),
                    "stat_metric_id": s.get("stat_metric_id").int(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut contexts = Vec::new();
    for ep in meta.get("context").get("entry_points").seq() {
        contexts.push(json!({
            "ctx_id": ep.get("ctx_id").int(), "parent": null,
            "entry_point": ep.get("entry_point").str_or_null(),
            "relation": null, "lexical_type": null, "function": null, "file": null,
            "line": null, "module": null, "offset": null,
        }));
        // Preorder, iteratively: (node, parent ctx_id), children pushed in reverse.
        let mut stack: Vec<(&Node, u64)> = ep
            .get("children")
            .seq()
            .iter()
            .rev()
            .map(|c| (c, ep.get("ctx_id").u64()))
            .collect();
        while let Some((c, parent)) = stack.pop() {
            contexts.push(json!({
                "ctx_id": c.get("ctx_id").int(), "parent": parent, "entry_point": null,
                "relation": c.get("relation").str_or_null(),
                "lexical_type": c.get("lexical_type").str_or_null(),
                "function": index_of(functions, c.get("function").alias()),
                "file": index_of(files, c.get("file").alias()),
                "line": c.get("line").int(),
                "module": index_of(modules, c.get("module").alias()),
                "offset": c.get("offset").int(),
            }));
            let id = c.get("ctx_id").u64();
            stack.extend(c.get("children").seq().iter().rev().map(|k| (k, id)));
        }
    }
    let profiles: Vec<Value> = golden
        .get("profile")
        .get("profile_infos")
        .get("profiles")
        .seq()
        .iter()
        .map(|p| {
            let id_tuple = match &p.get("id_tuple").v {
                Y::Null => Value::Null,
                _ => Value::Array(p.get("id_tuple").get("ids").seq().iter().map(|id| json!({
                    "kind": id.get("kind").int(),
                    "logical_id": id.get("logical_id").int(),
                    "physical_id": id.get("physical_id").int(),
                    "physical": id.get("flags").flags().iter().any(|f| f == "is_physical"),
                })).collect()),
            };
            let mut values = Vec::new();
            for (ctx, ms) in p.get("values").entries() {
                for (mid, v) in ms.entries() {
                    values.push(json!([
                        ctx.parse::<u64>().unwrap(),
                        mid.parse::<u64>().unwrap(),
                        v.float()
                    ]));
                }
            }
            json!({
                "summary": p.get("flags").flags().iter().any(|f| f == "is_summary"),
                "id_tuple": id_tuple,
                "values": values,
            })
        })
        .collect();
    let mut context_values = Vec::new();
    for (i, c) in golden
        .get("context")
        .get("ctx_infos")
        .get("contexts")
        .seq()
        .iter()
        .enumerate()
    {
        for (mid, ps) in c.get("values").entries() {
            for (p, v) in ps.entries() {
                context_values.push(json!([
                    i,
                    mid.parse::<u64>().unwrap(),
                    p.parse::<u64>().unwrap(),
                    v.float()
                ]));
            }
        }
    }
    let trace = match &golden.get("trace").v {
        Y::Null => Value::Null,
        _ => {
            let t = golden.get("trace").get("ctx_traces");
            json!({
                "min": t.get("timestamp_range").get("min").int(),
                "max": t.get("timestamp_range").get("max").int(),
                "lines": t.get("traces").seq().iter().map(|l| json!({
                    "prof_index": l.get("prof_index").int(),
                    "samples": l.get("line").seq().iter().map(|e| json!([e.get("timestamp").u64(), e.get("ctx_id").u64()])).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        }
    };
    json!({
        "format": "hpctoolkit",
        "title": meta.get("general").get("title").str_or_null(),
        "id_names": meta.get("id_names").get("names").seq().iter().map(|n| n.str_or_null()).collect::<Vec<_>>(),
        "metrics": metrics,
        "modules": modules.iter().map(|m| m.get("path").str_or_null()).collect::<Vec<_>>(),
        "files": files.iter().map(|m| m.get("path").str_or_null()).collect::<Vec<_>>(),
        "functions": functions.iter().map(|f| json!({
            "name": f.get("name").str_or_null(),
            "module": index_of(modules, f.get("module").alias()),
            "offset": f.get("offset").int(),
            "file": index_of(files, f.get("file").alias()),
            "line": f.get("line").int(),
        })).collect::<Vec<_>>(),
        "contexts": contexts,
        "profiles": profiles,
        "context_values": context_values,
        "trace": trace,
    })
}

/// Exact comparison; floats by bit pattern. Reports the first difference with its path.
fn diff(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let same = match (x.as_u64(), y.as_u64()) {
                (Some(p), Some(q)) => p == q,
                _ => match (x.as_f64(), y.as_f64()) {
                    (Some(p), Some(q)) => p.to_bits() == q.to_bits(),
                    _ => false,
                },
            };
            (!same).then(|| format!("{path}: {x} != {y}"))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: length {} != {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| diff(&format!("{path}[{i}]"), p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            let kx: Vec<_> = x.keys().collect();
            let ky: Vec<_> = y.keys().collect();
            if kx != ky {
                return Some(format!("{path}: keys {kx:?} != {ky:?}"));
            }
            x.iter()
                .find_map(|(k, p)| diff(&format!("{path}.{k}"), p, &y[k]))
        }
        _ => (a != b).then(|| format!("{path}: {a} != {b}")),
    }
}

fn golden_of(name: &str) -> Option<Node> {
    let path = corpus()?.join("golden").join(format!("{name}.yaml.xz"));
    let mut xz = std::io::BufReader::new(std::fs::File::open(&path).ok()?);
    let mut raw = Vec::new();
    lzma_rs::xz_decompress(&mut xz, &mut raw).unwrap();
    let mut text = String::new();
    raw.as_slice().read_to_string(&mut text).unwrap();
    // Deep context trees: parse on a thread with room for the recursion.
    Some(
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || parse_yaml(&text))
            .unwrap()
            .join()
            .unwrap(),
    )
}

#[test]
fn transcripts_match_golden_yaml() {
    let dbs = dirs("v4");
    let mut checked = 0;
    for dir in &dbs {
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        let golden = golden_of(&name).unwrap_or_else(|| panic!("no golden for {name}"));
        let want = expected(&golden);
        let got = transcript(&group_of(dir));
        if let Some(d) = diff(&name, &got, &want) {
            panic!("transcript differs from golden: {d}");
        }
        checked += 1;
    }
    if !dbs.is_empty() {
        assert_eq!(checked, 23);
    }
}

#[test]
fn small_transcript_has_exact_values() {
    let Some(c) = corpus() else { return };
    let t = transcript(&group_of(&c.join("v4/hpctoolkit-tests-small.d")));
    assert_eq!(t["title"], "testmeas-small");
    assert_eq!(
        t["contexts"][0],
        json!({"ctx_id":1,"parent":null,"entry_point":"main_thread","relation":null,"lexical_type":null,"function":null,"file":null,"line":null,"module":null,"offset":null})
    );
    assert_eq!(t["contexts"][1]["function"], 2); // main
    assert_eq!(t["profiles"][0]["values"][0], json!([0, 3, 1.210259]));
    assert_eq!(
        t["profiles"][1]["id_tuple"][0],
        json!({"kind":1,"logical_id":0,"physical_id":296485632u64,"physical":true})
    );
    assert_eq!(
        t["trace"]["lines"][0]["samples"].as_array().unwrap().len(),
        13
    );
}

#[test]
fn model_of_small_database() {
    let Some(c) = corpus() else { return };
    let ds = formats::open(&group_of(&c.join("v4/hpctoolkit-tests-small.d"))).unwrap();
    assert_eq!(
        (ds.format.as_str(), ds.layout.as_str()),
        ("hpctoolkit", "v4.0 final")
    );
    ds.cct.check().unwrap();
    assert_eq!(ds.cct.len(), 14); // root + 1 entry point + 12 contexts
    assert_eq!(ds.summary_profile, Some(0));
    assert_eq!(
        ds.profiles[1].label(&ds.id_names),
        "NODE 0 / CORE 0 / THREAD 0"
    );
    let m = &ds.metrics[0];
    assert_eq!(
        (
            m.inclusive(true),
            m.exclusive(true),
            m.inclusive(false),
            m.exclusive(false)
        ),
        (Some(3), Some(1), Some(3), Some(1))
    );
    // Inclusive cost of main (ctx 4) and exclusive cost of the spinsleep loop line (ctx 2).
    let main = ds.cct.node_of_ctx(4).unwrap();
    let line = ds.cct.node_of_ctx(2).unwrap();
    assert_eq!(ds.frame_name(main), "main");
    let summary = ds.data.profile_values(0).unwrap();
    assert_eq!(summary.get(main, 3), 1.210259);
    assert_eq!(summary.get(line, 1), 0.605316);
    let thread = ds.data.profile_values(1).unwrap();
    assert_eq!(thread.get(main, 3), 1.210259);
    assert_eq!(
        ds.data.context_values(main).unwrap(),
        vec![(1, 3, 1.210259)]
    );
    let t = ds.trace.as_ref().unwrap();
    assert_eq!(
        (t.min_time, t.max_time),
        (Some(1714021984008891000), Some(1714021985220628000))
    );
    assert_eq!((t.lines[0].prof_index, t.lines[0].samples), (1, 13));
    let s = ds.data.trace_samples(0, 1, 2).unwrap();
    assert_eq!(s[0].time, 1714021984109735000);
    assert_eq!(ds.cct.ctx_id[s[0].node as usize], 9);
    assert_eq!(ds.data.trace_find(0, 1714021984109735000).unwrap(), Some(1));
    assert_eq!(ds.data.trace_find(0, 1714021984109734999).unwrap(), Some(0));
    assert_eq!(ds.data.trace_find(0, 0).unwrap(), None);
    assert!(ds
        .facts
        .iter()
        .any(|(k, v)| k == "trace samples" && v == "13"));
}

#[test]
fn empty_trace_sentinels_become_none() {
    let Some(c) = corpus() else { return };
    let ds = formats::open(&group_of(&c.join("v4/hpcviewer-d.x"))).unwrap();
    let t = ds.trace.as_ref().unwrap();
    assert_eq!((t.min_time, t.max_time), (None, None));
}

#[test]
fn drafts_open_and_report_layout() {
    let want = [
        ("hpcviewer-loop-inline", "v4.0 draft (April 2022)"),
        ("small-apr2022", "v4.0 draft (April 2022)"),
        ("small-may2022", "v4.0 draft (May 2022)"),
    ];
    let dbs = dirs("v4-draft");
    for dir in &dbs {
        let name = dir.file_name().unwrap().to_str().unwrap();
        let layout = want
            .iter()
            .find(|w| w.0 == name)
            .map(|w| w.1)
            .unwrap_or_else(|| panic!("unexpected draft {name}"));
        let g = group_of(dir);
        assert_eq!(hpctoolkit::detect_layout(&g).unwrap(), layout);
        let ds = formats::open(&g).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ds.layout, layout);
        ds.cct.check().unwrap();
        assert!(ds.cct.len() > 1 && !ds.metrics.is_empty() && ds.summary_profile == Some(0));
        // Every profile reads, and the summary's root value is the sum of the threads'.
        for p in 0..ds.profiles.len() {
            ds.data.profile_values(p).unwrap();
        }
        let _ = transcript(&g);
    }
    if !dbs.is_empty() {
        let ds = formats::open(&group_of(&dirs("v4-draft")[1])).unwrap();
        assert_eq!(ds.title, "foo");
    }
}

#[test]
fn every_final_database_reports_final_layout() {
    for dir in dirs("v4") {
        assert_eq!(
            hpctoolkit::detect_layout(&group_of(&dir)).unwrap(),
            "v4.0 final",
            "{}",
            dir.display()
        );
    }
}

fn files_of(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = ["meta.db", "profile.db", "cct.db", "trace.db"]
        .iter()
        .filter_map(|f| {
            std::fs::read(dir.join(f))
                .ok()
                .map(|b| (format!("db/{f}"), b))
        })
        .collect();
    v.sort();
    v
}

fn open_files(files: &[(String, Vec<u8>)]) -> hpcscope::Result<hpcscope::model::Dataset> {
    let inputs = files
        .iter()
        .map(|(p, b)| InputFile {
            path: p.clone(),
            source: Source::from_vec(p.as_str(), b.clone()),
        })
        .collect();
    let (groups, _) = formats::group(inputs);
    let g = groups
        .into_iter()
        .next()
        .ok_or_else(|| hpcscope::Error::unrecognized("db", "no group"))?;
    let ds = hpctoolkit::open(&g)?;
    // Touch every lazy part a viewer would.
    for p in 0..ds.profiles.len().min(4) {
        let _ = ds.data.profile_values(p);
    }
    for n in 0..ds.cct.len().min(8) as u32 {
        let _ = ds.data.context_values(n);
    }
    if let Some(t) = &ds.trace {
        for l in 0..t.lines.len().min(4) {
            let _ = ds.data.trace_samples(l, 0, 100);
            let _ = ds.data.trace_find(l, u64::MAX / 2);
        }
    }
    Ok(ds)
}

#[test]
fn truncated_and_flipped_files_never_panic() {
    let Some(c) = corpus() else { return };
    let start = std::time::Instant::now();
    for name in [
        "v4/hpctoolkit-tests-small.d",
        "v4/hpcviewer-d.x",
        "v4-draft/small-apr2022",
        "v4-draft/small-may2022",
    ] {
        let files = files_of(&c.join(name));
        assert!(open_files(&files).is_ok(), "{name}");
        for k in 0..files.len() {
            let len = files[k].1.len();
            // Truncations at many lengths (every length for the first 256 bytes, then a stride).
            let cuts: Vec<usize> = (0..len.min(256)).chain((256..len).step_by(37)).collect();
            for cut in cuts {
                let mut f = files.clone();
                f[k].1.truncate(cut);
                let _ = open_files(&f);
            }
            // Flipped bytes: every byte of the headers, then a stride through the rest.
            let flips: Vec<usize> = (0..len.min(0x100))
                .chain((0x100..len).step_by(13))
                .collect();
            for at in flips {
                for mask in [0xffu8, 0x80] {
                    let mut f = files.clone();
                    f[k].1[at] ^= mask;
                    let _ = open_files(&f);
                }
            }
        }
    }
    assert!(
        start.elapsed().as_secs() < 60,
        "robustness sweep too slow: {:?}",
        start.elapsed()
    );
}

#[test]
fn huge_counts_fail_fast() {
    let Some(c) = corpus() else { return };
    let files = files_of(&c.join("v4/hpctoolkit-tests-small.d"));
    let start = std::time::Instant::now();
    // profile.db: nProfiles = 2^32-1 at pProfileInfos+8; meta.db: nMetrics; cct.db: nCtxs.
    for (file, ptr_at, field) in [
        ("db/profile.db", 0x18usize, 8usize),
        ("db/meta.db", 0x38, 8),
        ("db/cct.db", 0x18, 8),
    ] {
        let mut f = files.clone();
        let k = f.iter().position(|x| x.0 == file).unwrap();
        let sec = u64::from_le_bytes(f[k].1[ptr_at..ptr_at + 8].try_into().unwrap()) as usize;
        f[k].1[sec + field..sec + field + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let r = open_files(&f);
        if file == "db/cct.db" {
            // A damaged cct.db is left out with a warning.
            assert!(r
                .unwrap()
                .warnings
                .iter()
                .any(|w| w.to_string().contains("cct.db")));
        } else {
            assert!(r.is_err(), "{file}");
        }
    }
    // A value block claiming 2^60 values.
    let mut f = files.clone();
    let k = f.iter().position(|x| x.0 == "db/profile.db").unwrap();
    let sec = u64::from_le_bytes(f[k].1[0x18..0x20].try_into().unwrap()) as usize;
    let p_profiles = u64::from_le_bytes(f[k].1[sec..sec + 8].try_into().unwrap()) as usize;
    f[k].1[p_profiles..p_profiles + 8].copy_from_slice(&(1u64 << 60).to_le_bytes());
    assert!(open_files(&f).is_err());
    assert!(start.elapsed().as_millis() < 2000);
}

#[test]
fn files_of_different_runs_are_refused() {
    let Some(c) = corpus() else { return };
    let a = files_of(&c.join("v4/hpctoolkit-tests-small.d"));
    let loops = files_of(&c.join("v4/hpctoolkit-tests-loops-cputime-t.d"));
    let nostruct = files_of(&c.join("v4/hpctoolkit-tests-small.nostruct.d"));
    let mut accepted = Vec::new();
    for (donor_name, donor) in [("loops", &loops), ("nostruct", &nostruct)] {
        for name in ["db/profile.db", "db/cct.db", "db/trace.db"] {
            let mut f = a.clone();
            let k = f.iter().position(|x| x.0 == name).unwrap();
            f[k].1 = donor.iter().find(|x| x.0 == name).unwrap().1.clone();
            match open_files(&f) {
                Err(e) => {
                    assert_eq!(e.kind, hpcscope::ErrorKind::Mismatch, "{name}: {e}");
                    assert!(e.to_string().contains("different runs"), "{e}");
                }
                Ok(_) => accepted.push(format!("{name} from {donor_name}")),
            }
        }
    }
    // The one swap that cannot be told: the trace of another analysis of the same measurement
    // (same threads) whose samples happen to name ids (1, 2) that this meta.db also has.
    assert_eq!(accepted, vec!["db/trace.db from nostruct".to_string()]);
}

#[test]
fn summary_metric_ids_must_be_declared_by_meta_db() {
    let Some(c) = corpus() else { return };
    let files = files_of(&c.join("v4/hpctoolkit-tests-small.d"));
    let k = files.iter().position(|x| x.0 == "db/profile.db").unwrap();
    let p = &files[k].1;
    let u64_at = |o: usize| u64::from_le_bytes(p[o..o + 8].try_into().unwrap());
    let sec = u64_at(0x18) as usize;
    let (p_profiles, n_profiles, sz) = (
        u64_at(sec) as usize,
        u32::from_le_bytes(p[sec + 8..sec + 12].try_into().unwrap()) as usize,
        p[sec + 0x0c] as usize,
    );
    // The summary profile's record (flags bit 0), its first and last stored values.
    let rec = (0..n_profiles)
        .map(|i| p_profiles + i * sz)
        .find(|&r| p[r + 0x28] & 1 != 0)
        .unwrap();
    let (n_values, p_values) = (u64_at(rec) as usize, u64_at(rec + 8) as usize);
    assert!(n_values > 1);
    assert!(open_files(&files).is_ok());
    for value in [0, n_values - 1] {
        let mut f = files.clone();
        let at = p_values + value * 10;
        f[k].1[at..at + 2].copy_from_slice(&0xfffeu16.to_le_bytes());
        let Err(e) = open_files(&f) else {
            panic!("value {value} with an undeclared metric id was accepted")
        };
        assert_eq!(e.kind, hpcscope::ErrorKind::Mismatch, "{e}");
        assert!(
            e.to_string()
                .contains("metric id 65534, which meta.db does not declare"),
            "{e}"
        );
    }
}
