//! A comparison of two runs as the compare view asks for it: the union tree of their calling
//! contexts, one metric of each run summed into it (normalised on output), the differential flame
//! graph's visible rectangles (width from either run, both runs' values per rectangle), a
//! context's details and the per-profile values of both runs behind a union node.

use super::functions::summary_columns;
use super::matching::{
    exclusive_from_inclusive, sum_into_union, union_tree, Interner, Side, UnionCounts, UnionTree,
    Walk,
};
use super::metrics::{default_pair, matched_metrics, no_common_metric, MetricPair, Normalize};
use crate::analysis::flame::{child_order, layout, ChildOrder, FlameFrames, Viewport};
use crate::analysis::profile::{profile_entries, MetricName, NameTables, Place, ProfileEntry};
use crate::analysis::values::node_distribution;
use crate::analysis::values::Columns;
use crate::error::{Error, Result};
use crate::model::{Dataset, LexicalType, NodeKind, Relation, NONE};

/// Flag bits of a rectangle or row: 4 a loop or line, 8 only in the new run (added), 16 only in
/// the base run (removed).
pub const LEXICAL: u8 = 4;
pub const ADDED: u8 = 8;
pub const REMOVED: u8 = 16;

/// What the compare view shows of each run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunMeta {
    pub title: String,
    pub metrics: Vec<MetricName>,
    /// Profiles (ranks, threads), for the distribution panel: its bars pair the runs' profiles by
    /// label.
    pub profiles: Vec<ProfileEntry>,
}

impl RunMeta {
    pub fn of(ds: &Dataset) -> RunMeta {
        RunMeta {
            title: ds.title.clone(),
            metrics: (ds.metrics.iter().enumerate())
                .map(|(i, m)| MetricName {
                    index: i as u32,
                    name: m.name.clone(),
                    unit: m.unit.clone(),
                })
                .collect(),
            profiles: profile_entries(ds),
        }
    }
}

/// What the compare view needs once per comparison.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CompareMeta {
    pub base: RunMeta,
    pub new: RunMeta,
    /// Metrics matched by name, and the pair shown first (`None`: no name in common).
    pub pairs: Vec<MetricPair>,
    pub default_pair: Option<MetricPair>,
    #[serde(flatten)]
    pub tables: NameTables,
    #[serde(flatten)]
    pub counts: UnionCounts,
    /// Whether loops and lines were folded into their functions and entry points into the root.
    #[serde(flatten)]
    pub walk: Walk,
}

/// Inclusive and exclusive values of one metric in each run: per union node as recorded
/// ([`Comparison::columns`]), per rectangle normalised ([`DiffWindow`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffColumns {
    pub base: Columns,
    pub new: Columns,
}

/// The metric pair and normalisation in force, with the runs' totals.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DiffTotals {
    pub base_metric: String,
    pub new_metric: String,
    pub unit: String,
    pub normalize: Normalize,
    /// Roots' inclusive values as recorded, and the factors applied to every value shown.
    pub base_total: f64,
    pub new_total: f64,
    pub base_factor: f64,
    pub new_factor: f64,
}

/// Visible rectangles of the differential flame graph, struct-of-arrays; values normalised.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffWindow {
    /// Each rectangle's `node` is its union node.
    pub frames: FlameFrames,
    pub values: DiffColumns,
    /// [`LEXICAL`], [`ADDED`], [`REMOVED`].
    pub flags: Vec<u8>,
}

/// A union node's details for a tooltip or side panel (values normalised).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DiffNodeInfo {
    pub node: u32,
    pub name: String,
    pub path: Vec<String>,
    #[serde(flatten)]
    pub place: Place,
    /// Contexts of each run merged into this node (0 when it is not in that run).
    pub base_contexts: u32,
    pub new_contexts: u32,
    pub base_inclusive: f64,
    pub new_inclusive: f64,
    pub base_exclusive: f64,
    pub new_exclusive: f64,
    pub base_root: f64,
    pub new_root: f64,
}

struct FlameState {
    width_new: bool,
    heavy: bool,
    order: ChildOrder,
    max_depth: u32,
}

/// Two runs compared. Methods take the two datasets it was made from.
pub struct Comparison {
    pub union: UnionTree,
    pub names: Interner,
    pub paths: Interner,
    pub pairs: Vec<MetricPair>,
    pair: Option<MetricPair>,
    normalize: Normalize,
    cols: DiffColumns,
    totals: (f64, f64),
    flame: Option<FlameState>,
}

fn not_comparable(ds: &Dataset, why: &str) -> Error {
    Error::invalid(&ds.title, 0, format!("'{}' {why}", ds.title))
}

impl Comparison {
    /// Matches the runs' calling contexts (function-level trees when `merged`). A run without
    /// metrics or calling contexts (a trace-only database) cannot be compared.
    pub fn new(base: &Dataset, new: &Dataset, merged: bool) -> Result<Comparison> {
        for ds in [base, new] {
            if ds.metrics.is_empty() {
                return Err(not_comparable(
                    ds,
                    "has no metrics to compare (a trace-only database?)",
                ));
            }
            if ds.cct.tree.len() < 2 {
                return Err(not_comparable(ds, "has no calling contexts to compare"));
            }
        }
        let mut names = Interner::default();
        let mut paths = Interner::default();
        let (union, pairs) = {
            let b = Side::new(base, &mut names, &mut paths);
            let n = Side::new(new, &mut names, &mut paths);
            (union_tree(&b, &n, merged), matched_metrics(base, new))
        };
        Ok(Comparison {
            union,
            names,
            paths,
            pairs,
            pair: None,
            normalize: Normalize::None,
            cols: DiffColumns::default(),
            totals: (0.0, 0.0),
            flame: None,
        })
    }

    pub fn meta(&self, base: &Dataset, new: &Dataset) -> CompareMeta {
        CompareMeta {
            base: RunMeta::of(base),
            new: RunMeta::of(new),
            pairs: self.pairs.clone(),
            default_pair: default_pair(base, &self.pairs),
            tables: NameTables {
                names: self.names.to_vec(),
                modules: self.paths.to_vec(),
            },
            counts: self.union.counts(),
            walk: self.union.walk,
        }
    }

    /// Chooses the metric of each run (`None`: the default pair) and the normalisation, and sums
    /// the metrics into the union tree.
    pub fn set_metric(
        &mut self,
        base: &Dataset,
        new: &Dataset,
        pair: Option<MetricPair>,
        normalize: Normalize,
    ) -> Result<DiffTotals> {
        let pair = match pair.or_else(|| default_pair(base, &self.pairs)) {
            Some(p) => p,
            None => return Err(Error::invalid(&new.title, 0, no_common_metric(base, new))),
        };
        for (ds, m) in [(base, pair.base), (new, pair.new)] {
            if m as usize >= ds.metrics.len() {
                return Err(not_comparable(ds, &format!("has no metric {m}")));
            }
        }
        if self.pair != Some(pair) {
            let u = &self.union;
            let b = summary_columns(base, pair.base as usize)?;
            let n = summary_columns(new, pair.new as usize)?;
            let sum = |of: &[u32], c: &Columns| {
                let inclusive = sum_into_union(u, of, &c.inclusive);
                let exclusive = if u.walk.merged {
                    exclusive_from_inclusive(u, &inclusive)
                } else {
                    sum_into_union(u, of, &c.exclusive)
                };
                Columns {
                    inclusive,
                    exclusive,
                }
            };
            self.totals = (
                b.inclusive.first().copied().unwrap_or(0.0),
                n.inclusive.first().copied().unwrap_or(0.0),
            );
            self.cols = DiffColumns {
                base: sum(&u.base.of, &b),
                new: sum(&u.new.of, &n),
            };
            self.pair = Some(pair);
            self.flame = None;
        }
        self.normalize = normalize;
        Ok(self.totals_info(base, new))
    }

    fn require_metric(&self, ds: &Dataset) -> Result<MetricPair> {
        self.pair
            .ok_or_else(|| Error::invalid(&ds.title, 0, "no metric chosen for the comparison"))
    }

    /// Factors applied to (base, new) values.
    pub fn factors(&self) -> (f64, f64) {
        self.normalize.factors(self.totals.0, self.totals.1)
    }

    /// Summed columns of the metric pair in force (not normalised).
    pub fn columns(&self) -> &DiffColumns {
        &self.cols
    }

    /// Summed columns of the new run (`new`) or of the base run.
    fn side(&self, new: bool) -> &Columns {
        if new {
            &self.cols.new
        } else {
            &self.cols.base
        }
    }

    pub fn totals_info(&self, base: &Dataset, new: &Dataset) -> DiffTotals {
        let pair = self.pair.unwrap_or(MetricPair { base: 0, new: 0 });
        let name = |ds: &Dataset, m: u32| {
            ds.metrics
                .get(m as usize)
                .map(|x| (x.name.clone(), x.unit.clone()))
                .unwrap_or_default()
        };
        let (bn, unit) = name(base, pair.base);
        let (nn, _) = name(new, pair.new);
        let (bf, nf) = self.factors();
        DiffTotals {
            base_metric: bn,
            new_metric: nn,
            unit: if self.normalize == Normalize::Percent {
                "%".into()
            } else {
                unit
            },
            normalize: self.normalize,
            base_total: self.totals.0,
            new_total: self.totals.1,
            base_factor: bf,
            new_factor: nf,
        }
    }

    /// Sets which run's inclusive value gives widths (`width_new`) and the children's order
    /// (heaviest first, else the base run's order); returns the deepest depth.
    pub fn flame_config(&mut self, ds: &Dataset, width_new: bool, heavy: bool) -> Result<u32> {
        self.require_metric(ds)?;
        if let Some(f) = &self.flame {
            if f.width_new == width_new && f.heavy == heavy {
                return Ok(f.max_depth);
            }
        }
        let incl = &self.side(width_new).inclusive;
        let shape = &self.union.tree;
        let order = child_order(shape, incl, heavy);
        let max_depth = shape.depth.iter().copied().max().unwrap_or(0);
        self.flame = Some(FlameState {
            width_new,
            heavy,
            order,
            max_depth,
        });
        Ok(max_depth)
    }

    /// The visible rectangles under union node `zoom`.
    pub fn flame_layout(
        &self,
        base: &Dataset,
        new: &Dataset,
        zoom: u32,
        vp: &Viewport,
    ) -> Result<DiffWindow> {
        let f = self.flame.as_ref().ok_or_else(|| {
            Error::invalid(&new.title, 0, "comparison flame graph not configured")
        })?;
        let incl = &self.side(f.width_new).inclusive;
        let zoom = if (zoom as usize) < self.union.len() {
            zoom
        } else {
            0
        };
        let r = layout(&self.union.tree, &f.order, incl, zoom, vp);
        let (bf, nf) = self.factors();
        let mut w = DiffWindow::default();
        for &u in &r.node {
            let i = u as usize;
            w.frames
                .labels
                .push(self.union.labels.name[i], self.union.labels.module[i]);
            for (out, cols, f) in [
                (&mut w.values.base, &self.cols.base, bf),
                (&mut w.values.new, &self.cols.new, nf),
            ] {
                out.inclusive.push(cols.inclusive[i] * f);
                out.exclusive.push(cols.exclusive[i] * f);
            }
            w.flags.push(self.flags(base, new, u));
        }
        w.frames.rects = r;
        Ok(w)
    }

    /// [`LEXICAL`], [`ADDED`], [`REMOVED`] of union node `u`.
    pub fn flags(&self, base: &Dataset, new: &Dataset, u: u32) -> u8 {
        let i = u as usize;
        let (b, n) = (self.union.base.rep[i], self.union.new.rep[i]);
        let mut flags = 0;
        if b == NONE {
            flags |= ADDED;
        }
        if n == NONE {
            flags |= REMOVED;
        }
        let frame = if b != NONE {
            base.cct.frame.get(b as usize)
        } else {
            new.cct.frame.get(n as usize)
        };
        if frame.is_some_and(|f| {
            f.kind == NodeKind::Context
                && f.relation == Relation::Lexical
                && f.lexical_type != LexicalType::Function
        }) {
            flags |= LEXICAL;
        }
        flags
    }

    /// Frame name of union node `u`.
    pub fn node_name(&self, u: u32) -> &str {
        self.union
            .labels
            .name
            .get(u as usize)
            .and_then(|&x| self.names.get(x))
            .unwrap_or("")
    }

    /// Module basename of union node `u` ("" when it names none).
    pub fn module_name(&self, u: u32) -> &str {
        self.union
            .labels
            .module
            .get(u as usize)
            .and_then(|&m| self.paths.get(m))
            .unwrap_or("")
    }

    /// Deepest depth of the flame graph (0 before it is configured).
    pub fn flame_max_depth(&self) -> u32 {
        self.flame.as_ref().map_or(0, |f| f.max_depth)
    }

    /// Details of union node `u`.
    pub fn node_info(&self, base: &Dataset, new: &Dataset, u: u32) -> Result<DiffNodeInfo> {
        let i = u as usize;
        if i >= self.union.len() {
            return Err(Error::invalid(&new.title, 0, format!("no union node {u}")));
        }
        self.require_metric(new)?;
        let (b, n) = (self.union.base.rep[i], self.union.new.rep[i]);
        let (ds, rep) = if b != NONE { (base, b) } else { (new, n) };
        let (bf, nf) = self.factors();
        let count = |base: bool| self.union.members(u, base).len() as u32;
        Ok(DiffNodeInfo {
            node: u,
            name: self.node_name(u).to_string(),
            path: self
                .union
                .path(u)
                .iter()
                .map(|&p| self.node_name(p).to_string())
                .collect(),
            place: Place::of(ds, rep),
            base_contexts: count(true),
            new_contexts: count(false),
            base_inclusive: self.cols.base.inclusive[i] * bf,
            new_inclusive: self.cols.new.inclusive[i] * nf,
            base_exclusive: self.cols.base.exclusive[i] * bf,
            new_exclusive: self.cols.new.exclusive[i] * nf,
            base_root: self.totals.0 * bf,
            new_root: self.totals.1 * nf,
        })
    }

    /// Values of union node `u` in every non-summary profile of each run, normalised: (base
    /// profile indexes, values, new profile indexes, values). A node merging several contexts
    /// of a run adds their values.
    pub fn distribution(
        &self,
        base: &Dataset,
        new: &Dataset,
        u: u32,
        exclusive: bool,
    ) -> Result<[(Vec<u32>, Vec<f64>); 2]> {
        if u as usize >= self.union.len() {
            return Err(Error::invalid(&new.title, 0, format!("no union node {u}")));
        }
        let pair = self.require_metric(new)?;
        let (bf, nf) = self.factors();
        let one = |ds: &Dataset, is_base: bool, metric: u32, f: f64| -> Result<_> {
            let mut profs: Vec<u32> = Vec::new();
            let mut vals: Vec<f64> = Vec::new();
            for c in self.union.members(u, is_base) {
                let d = node_distribution(ds, metric as usize, c, exclusive)?;
                if profs.is_empty() {
                    profs = d.iter().map(|x| x.0).collect();
                    vals = vec![0.0; d.len()];
                }
                for (k, (_, v)) in d.into_iter().enumerate() {
                    if let Some(slot) = vals.get_mut(k) {
                        *slot += v * f;
                    }
                }
            }
            if profs.is_empty() {
                profs = (0..ds.profiles.len() as u32)
                    .filter(|&p| !ds.profiles[p as usize].summary)
                    .collect();
                vals = vec![0.0; profs.len()];
            }
            Ok((profs, vals))
        };
        Ok([
            one(base, true, pair.base, bf)?,
            one(new, false, pair.new, nf)?,
        ])
    }
}
