//! The union tree of a comparison as a dataset of its own, for the tables: one context per union
//! node (frames taken from the base run where it has the path, else the new run), modules and
//! files by basename, and three metrics in one summary profile: the base run's value, the new
//! run's and their delta (new - base), normalised, each with inclusive and exclusive scopes.

use super::view::Comparison;
use crate::error::{Error, Result};
use crate::model::IdMap;
use crate::model::{
    CctBuilder, CodeRef, Dataset, Frame, Function, LazyData, Metric, Module, ProfileInfo,
    ScopeKind, SourceFile, SparseValues, NONE,
};

/// Metric indexes of the union dataset.
pub const BASE: usize = 0;
pub const NEW: usize = 1;
pub const DELTA: usize = 2;

/// The union dataset's values: inclusive and exclusive of base, new and delta, by union node.
struct UnionValues {
    columns: [Vec<f64>; 6],
}

impl LazyData for UnionValues {
    fn profile_values(&self, prof: usize) -> Result<SparseValues> {
        if prof != 0 {
            return Err(Error::invalid(
                "comparison",
                0,
                format!("no profile {prof}"),
            ));
        }
        let n = self.columns[0].len();
        let mut v = SparseValues::default();
        for node in 0..n {
            let start = v.ids.len();
            for (id, col) in self.columns.iter().enumerate() {
                let x = col[node];
                if x != 0.0 {
                    v.ids.push(id as u16);
                    v.values.push(x);
                }
            }
            if v.ids.len() > start {
                v.nodes.push(node as u32);
                v.starts.push(start as u32);
            }
        }
        v.starts.push(v.ids.len() as u32);
        Ok(v)
    }
}

fn metric(name: String, unit: &str, id: u16) -> Metric {
    let scopes = [
        ("execution", ScopeKind::Execution, id),
        ("function", ScopeKind::Function, id + 1),
    ];
    Metric::summed(name, unit, &scopes)
}

impl Comparison {
    /// The union tree with the metric pair in force as a dataset (node `i` is union node `i`).
    pub fn union_dataset(&self, base: &Dataset, new: &Dataset) -> Result<Dataset> {
        let info = self.totals_info(base, new);
        let u = &self.union;
        let mut functions: Vec<Function> = Vec::new();
        let mut function_ids: IdMap<(u32, u32, u32), u32> = IdMap::default();
        let mut b = CctBuilder::with_capacity(0, u.len());
        for i in 0..u.len() {
            let (br, nr) = (u.base.rep[i], u.new.rep[i]);
            let (ds, rep) = if br != NONE { (base, br) } else { (new, nr) };
            let src = ds
                .cct
                .frame
                .get(rep as usize)
                .copied()
                .unwrap_or(Frame::root());
            let func = src.code.function.and_then(|x| ds.functions.get(x as usize));
            let path_id = |p: Option<&str>| -> Option<u32> {
                p.and_then(|p| self.paths.find(crate::model::short_path(p)))
            };
            let (file, _, module) = ds.frame_place(rep);
            let (module, file) = (path_id(module), path_id(file));
            let function = func.map(|f| {
                let key = (
                    u.labels.name[i],
                    module.unwrap_or(NONE),
                    file.unwrap_or(NONE),
                );
                *function_ids.entry(key).or_insert_with(|| {
                    functions.push(Function {
                        name: f.name.clone(),
                        module,
                        offset: None,
                        file,
                        line: f.line,
                    });
                    functions.len() as u32 - 1
                })
            });
            let frame = Frame {
                code: CodeRef {
                    function,
                    module: src.code.module.and(module),
                    file: src.code.file.and(file),
                    ..src.code
                },
                ..src
            };
            if i == 0 {
                continue;
            }
            b.add(u.parent(i as u32), i as u32, frame);
        }
        let cct = b.finish("comparison")?;
        let (bf, nf) = (info.base_factor, info.new_factor);
        let c = self.columns();
        let scaled = |v: &[f64], f: f64| v.iter().map(|x| x * f).collect::<Vec<f64>>();
        let delta = |n: &[f64], b: &[f64]| {
            n.iter()
                .zip(b)
                .map(|(n, b)| n * nf - b * bf)
                .collect::<Vec<f64>>()
        };
        let columns = [
            scaled(&c.base.inclusive, bf),
            scaled(&c.base.exclusive, bf),
            scaled(&c.new.inclusive, nf),
            scaled(&c.new.exclusive, nf),
            delta(&c.new.inclusive, &c.base.inclusive),
            delta(&c.new.exclusive, &c.base.exclusive),
        ];
        let title = format!("{} vs {}", base.title, new.title);
        let paths: Vec<String> = self.paths.to_vec();
        Ok(Dataset {
            format: "comparison".into(),
            layout: format!("{} vs {}", base.format, new.format),
            title,
            files: Vec::new(),
            facts: Vec::new(),
            id_names: vec!["SUMMARY".into()],
            modules: paths.iter().map(|p| Module { path: p.clone() }).collect(),
            source_files: paths.into_iter().map(|path| SourceFile { path }).collect(),
            functions,
            cct,
            metrics: vec![
                metric(format!("base: {}", info.base_metric), &info.unit, 0),
                metric(format!("new: {}", info.new_metric), &info.unit, 2),
                metric(format!("delta: {}", info.new_metric), &info.unit, 4),
            ],
            profiles: vec![ProfileInfo {
                summary: true,
                id_tuple: Vec::new(),
            }],
            summary_profile: Some(0),
            trace: None,
            warnings: Vec::new(),
            taxonomy: None,
            data: Box::new(UnionValues { columns }),
        })
    }
}
