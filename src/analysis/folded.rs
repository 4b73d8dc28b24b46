//! Small in-memory datasets for tests and benchmarks: folded stacks as text (`main;solve;mpi_wait
//! 30`, one path and its point value per line) and a synthetic tree of any size. Frame tokens:
//! `name`, `name[module]`, `name[module:file]` (a called function), `inline@name` (an inlined
//! call), `loop@file:line` and `line@file:line` (lexical levels inside the enclosing function).

use crate::error::{Error, Result};
use crate::model::{
    intern, CctBuilder, CodeRef, Combine, Dataset, Frame, Function, LazyData, LexicalType, Metric,
    MetricScope, Module, ProfileInfo, Relation, ScopeKind, SourceFile, SparseValues, SummaryStat,
};
use std::collections::HashMap;

/// Profiles' values held in memory.
pub struct MemData {
    pub profiles: Vec<SparseValues>,
}

impl LazyData for MemData {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        self.profiles
            .get(prof)
            .cloned()
            .ok_or_else(|| Error::invalid("memory", 0, format!("no profile {prof}")))
    }
}

/// Which propagation scopes the built dataset stores (the others are left to the analysis).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldedScopes {
    Point,
    Inclusive,
    Exclusive,
    Both,
}

#[derive(Default)]
struct Interner {
    modules: Vec<Module>,
    files: Vec<SourceFile>,
    functions: Vec<Function>,
    module_ids: HashMap<String, u32>,
    file_ids: HashMap<String, u32>,
    function_ids: HashMap<(String, Option<u32>, Option<u32>), u32>,
}

impl Interner {
    fn module(&mut self, m: &str) -> u32 {
        intern(&mut self.module_ids, &mut self.modules, m, || Module {
            path: m.into(),
        })
    }
    fn file(&mut self, f: &str) -> u32 {
        intern(&mut self.file_ids, &mut self.files, f, || SourceFile {
            path: f.into(),
        })
    }
    fn function(&mut self, name: &str, module: Option<u32>, file: Option<u32>) -> u32 {
        let key = (name.to_string(), module, file);
        intern(&mut self.function_ids, &mut self.functions, &key, || {
            Function {
                name: name.into(),
                module,
                offset: None,
                file,
                line: None,
            }
        })
    }

    /// The frame a token stands for.
    fn frame(&mut self, tok: &str) -> Result<Frame> {
        let bad = || Error::invalid("folded", 0, format!("bad frame token {tok:?}"));
        let lexical = |this: &mut Interner, rest: &str, ty: LexicalType| -> Result<Frame> {
            let (file, line) = rest.rsplit_once(':').ok_or_else(bad)?;
            let line: u32 = line.parse().map_err(|_| bad())?;
            let code = CodeRef::at_line(Some(this.file(file)), Some(line));
            Ok(Frame::context(Relation::Lexical, ty, code))
        };
        if let Some(rest) = tok.strip_prefix("loop@") {
            return lexical(self, rest, LexicalType::Loop);
        }
        if let Some(rest) = tok.strip_prefix("line@") {
            return lexical(self, rest, LexicalType::Line);
        }
        let (inlined, tok) = match tok.strip_prefix("inline@") {
            Some(rest) => (true, rest),
            None => (false, tok),
        };
        let (name, module, file) = match tok.split_once('[') {
            Some((name, rest)) => {
                let inner = rest.strip_suffix(']').ok_or_else(bad)?;
                let (m, f) = match inner.split_once(':') {
                    Some((m, f)) => (m, Some(f)),
                    None => (inner, None),
                };
                (name, Some(self.module(m)), f.map(|f| self.file(f)))
            }
            None => (tok, None, None),
        };
        if name.is_empty() {
            return Err(bad());
        }
        let code = CodeRef {
            module,
            file,
            ..CodeRef::of_function(self.function(name, module, file))
        };
        let relation = if inlined {
            Relation::InlinedCall
        } else {
            Relation::Call
        };
        Ok(Frame::context(relation, LexicalType::Function, code))
    }
}

/// The display label a token gets from `Dataset::frame_name`.
fn token_label(tok: &str) -> String {
    if let Some(rest) = tok.strip_prefix("loop@") {
        let (f, l) = rest.rsplit_once(':').unwrap_or((rest, "0"));
        return format!("loop at {}:{l}", crate::model::short_path(f));
    }
    if let Some(rest) = tok.strip_prefix("line@") {
        let (f, l) = rest.rsplit_once(':').unwrap_or((rest, "0"));
        return format!("{}:{l}", crate::model::short_path(f));
    }
    let tok = tok.strip_prefix("inline@").unwrap_or(tok);
    tok.split('[').next().unwrap_or(tok).to_string()
}

/// Node reached from the root by following a `;`-separated path of tokens.
pub fn node_of_path(ds: &Dataset, path: &str) -> Option<u32> {
    let mut node = 0u32;
    for tok in path.split(';') {
        let want = token_label(tok);
        node = ds
            .cct
            .tree
            .children(node)
            .find(|&c| ds.frame_name(c) == want)?;
    }
    Some(node)
}

/// Parses folded text into a tree and one point value per line (summed over equal paths).
fn parse(text: &str) -> Result<(Interner, crate::model::Cct, Vec<f64>)> {
    let mut int = Interner::default();
    let mut b = CctBuilder::new(0);
    let mut child: HashMap<(u32, String), u32> = HashMap::new();
    let mut point: Vec<f64> = vec![0.0];
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || Error::invalid("folded", ln as u64, format!("line {}: {line:?}", ln + 1));
        let (path, value) = line.rsplit_once(char::is_whitespace).ok_or_else(bad)?;
        let value: f64 = value.parse().map_err(|_| bad())?;
        let mut node = 0u32;
        for tok in path.trim().split(';') {
            node = match child.get(&(node, tok.to_string())) {
                Some(&c) => c,
                None => {
                    let frame = int.frame(tok)?;
                    let c = b.add(node, b.len() as u32, frame);
                    child.insert((node, tok.to_string()), c);
                    point.push(0.0);
                    c
                }
            };
        }
        point[node as usize] += value;
    }
    let cct = b.finish("folded")?;
    // Builder index == ctx id; move the values to preorder positions.
    let mut by_node = vec![0.0; cct.tree.len()];
    for (n, &ctx) in cct.ctx_id.iter().enumerate() {
        by_node[n] = point[ctx as usize];
    }
    Ok((int, cct, by_node))
}

fn metric(scopes: &[(ScopeKind, u16)]) -> Metric {
    let name = |k: ScopeKind| match k {
        ScopeKind::Point => "point",
        ScopeKind::Execution => "execution",
        ScopeKind::Function => "function",
        ScopeKind::Custom => "custom",
    };
    Metric {
        name: "time".into(),
        unit: "s".into(),
        scopes: scopes
            .iter()
            .map(|&(k, id)| MetricScope {
                scope: name(k).into(),
                kind: k,
                prop_metric_id: id,
            })
            .collect(),
        summaries: scopes
            .iter()
            .map(|&(k, id)| SummaryStat {
                scope: name(k).into(),
                kind: k,
                formula: "$$".into(),
                combine: Combine::Sum,
                stat_metric_id: id,
            })
            .collect(),
    }
}

fn dataset(
    int: Interner,
    cct: crate::model::Cct,
    metrics: Vec<Metric>,
    profiles: Vec<ProfileInfo>,
    values: Vec<SparseValues>,
    summary: Option<usize>,
) -> Dataset {
    Dataset {
        format: "folded".into(),
        layout: "text".into(),
        title: "folded".into(),
        files: Vec::new(),
        facts: Vec::new(),
        id_names: vec!["SUMMARY".into(), "THREAD".into()],
        modules: int.modules,
        source_files: int.files,
        functions: int.functions,
        cct,
        metrics,
        profiles,
        summary_profile: summary,
        trace: None,
        taxonomy: None,
        warnings: Vec::new(),
        data: Box::new(MemData { profiles: values }),
    }
}

fn thread(k: u32) -> ProfileInfo {
    ProfileInfo {
        summary: false,
        id_tuple: vec![crate::model::Identifier {
            kind: 1,
            logical_id: k,
            physical_id: k as u64,
            physical: false,
        }],
    }
}

/// A dataset with one metric "time" stored in the given scopes, a summary profile (index 0) and
/// one thread profile (index 1) holding the same values.
pub fn from_folded(text: &str, scopes: FoldedScopes) -> Result<Dataset> {
    let (int, cct, point) = parse(text)?;
    let mut ds = dataset(int, cct, Vec::new(), Vec::new(), Vec::new(), None);
    let incl = super::values::inclusive_from_point(&ds, &point);
    let excl = super::values::exclusive_from_point(&ds, &point);
    let stored: Vec<(ScopeKind, u16, &Vec<f64>)> = match scopes {
        FoldedScopes::Point => vec![(ScopeKind::Point, 0, &point)],
        FoldedScopes::Inclusive => vec![(ScopeKind::Execution, 0, &incl)],
        FoldedScopes::Exclusive => vec![(ScopeKind::Function, 0, &excl)],
        FoldedScopes::Both => vec![
            (ScopeKind::Execution, 0, &incl),
            (ScopeKind::Function, 1, &excl),
        ],
    };
    let mut triples = Vec::new();
    for (_, id, col) in &stored {
        for (n, &v) in col.iter().enumerate() {
            triples.push((n as u32, *id, v));
        }
    }
    let values = SparseValues::from_triples(triples);
    ds.metrics = vec![metric(
        &stored.iter().map(|&(k, id, _)| (k, id)).collect::<Vec<_>>(),
    )];
    ds.profiles = vec![
        ProfileInfo {
            summary: true,
            id_tuple: Vec::new(),
        },
        thread(0),
    ];
    ds.summary_profile = Some(0);
    ds.data = Box::new(MemData {
        profiles: vec![values.clone(), values],
    });
    Ok(ds)
}

/// A dataset with `n` thread profiles and no summary profile: profile k holds the text's point
/// values times k + 1.
pub fn from_folded_profiles(text: &str, n: u32) -> Result<Dataset> {
    let (int, cct, point) = parse(text)?;
    let values = (0..n)
        .map(|k| {
            SparseValues::from_triples(
                point
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (i as u32, 0u16, v * (k + 1) as f64))
                    .collect(),
            )
        })
        .collect();
    Ok(dataset(
        int,
        cct,
        vec![metric(&[(ScopeKind::Point, 0)])],
        (0..n).map(thread).collect(),
        values,
        None,
    ))
}

/// A synthetic dataset of `n_contexts` contexts (plus the root): a random walk of call depth
/// (1..=64) over 4,000 function names, point values on about half the nodes. Deterministic for a
/// seed. Values are stored as execution and function scopes in a summary profile, as HPCToolkit
/// databases do.
pub fn synthetic(n_contexts: u32, seed: u64) -> Dataset {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut rnd = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    const N_FUNCS: u32 = 4000;
    let mut int = Interner::default();
    let module = int.module("/usr/lib/libsynth.so");
    let file = int.file("synth.c");
    for f in 0..N_FUNCS {
        int.function(&format!("func_{f:04}"), Some(module), Some(file));
    }
    let mut b = CctBuilder::new(0);
    let mut point = vec![0.0f64];
    let mut stack: Vec<u32> = vec![0];
    for i in 1..=n_contexts {
        let parent = *stack.last().unwrap_or(&0);
        // Skewed function choice so some functions recur often (hot callees).
        let f = (rnd() % N_FUNCS).min(rnd() % N_FUNCS);
        let node = b.add(parent, i, Frame::call(f));
        point.push(if rnd() % 2 == 0 {
            (1 + rnd() % 1000) as f64
        } else {
            0.0
        });
        match rnd() % 8 {
            0..=3 if stack.len() < 64 => stack.push(node),
            4 | 5 => {}
            _ => {
                let pops = 1 + rnd() % 3;
                for _ in 0..pops {
                    if stack.len() > 1 {
                        stack.pop();
                    }
                }
            }
        }
    }
    let cct = b
        .finish("synthetic")
        .expect("synthetic tree is well formed");
    let mut by_node = vec![0.0; cct.tree.len()];
    for (n, &ctx) in cct.ctx_id.iter().enumerate() {
        by_node[n] = point[ctx as usize];
    }
    let mut ds = dataset(int, cct, Vec::new(), Vec::new(), Vec::new(), None);
    let incl = super::values::inclusive_from_point(&ds, &by_node);
    let excl = super::values::exclusive_from_point(&ds, &by_node);
    let mut triples = Vec::with_capacity(2 * incl.len());
    for n in 0..incl.len() {
        triples.push((n as u32, 0u16, incl[n]));
        triples.push((n as u32, 1u16, excl[n]));
    }
    ds.metrics = vec![metric(&[
        (ScopeKind::Execution, 0),
        (ScopeKind::Function, 1),
    ])];
    ds.profiles = vec![ProfileInfo {
        summary: true,
        id_tuple: Vec::new(),
    }];
    ds.summary_profile = Some(0);
    ds.data = Box::new(MemData {
        profiles: vec![SparseValues::from_triples(triples)],
    });
    ds
}
