//! What the profile views (flame graph, top-down / bottom-up / flat tables, distribution) ask of a
//! dataset, with the per-dataset state the engine keeps between calls: loaded metric columns for
//! the chosen profiles, the flame tree and its child order, the three tables' rows, the search.
//! Answers are flat vectors (typed arrays in the browser) for what is visible, plus small records.

use super::bottomup::BottomUp;
use super::flame::{child_order, layout, ChildOrder, FlameTree, Viewport};
use super::flat::Flat;
use super::frames::Names;
use super::search::{matching_names, matching_nodes, outermost_total};
use super::table::{row_value, Col, Ctx, TableTree, TableView};
use super::topdown::TopDown;
use super::values::{
    columns_from_values, node_distribution, selection_profiles, Columns, Selection,
};
use crate::error::{Error, Result};
use crate::model::{Dataset, EntryKind, LexicalType, NodeKind, Relation, SparseValues, NONE};

mod answers;
pub use answers::*;

struct FlameState {
    metric: usize,
    merged: bool,
    heavy: bool,
    tree: FlameTree,
    incl: Vec<f64>,
    excl: Vec<f64>,
    order: ChildOrder,
    max_depth: u32,
}

struct Table {
    tree: Box<dyn TableTree>,
    view: TableView,
}

/// Per-dataset state of the profile views.
pub struct ProfileView {
    pub names: Names,
    selection: Selection,
    /// Profile values of the selection, read once per selection.
    loaded: Option<(Vec<SparseValues>, bool)>,
    /// Columns by metric; `None` until used.
    cols: Vec<Option<Columns>>,
    flame: Option<FlameState>,
    tables: [Option<Table>; 3],
    search: Option<(String, Vec<bool>)>,
    empty: Columns,
}

fn kind_name(ds: &Dataset, node: u32) -> &'static str {
    match ds
        .cct
        .frame
        .get(node as usize)
        .map(|f| (f.kind, f.lexical_type))
    {
        Some((NodeKind::Root, _)) => "root",
        Some((NodeKind::EntryPoint(_), _)) => "entry",
        Some((_, LexicalType::Function)) => "function",
        Some((_, LexicalType::Loop)) => "loop",
        Some((_, LexicalType::Line)) => "line",
        Some((_, LexicalType::Instruction)) => "instruction",
        None => "",
    }
}

impl ProfileView {
    pub fn new(ds: &Dataset) -> ProfileView {
        ProfileView {
            names: Names::same_named_merged(ds),
            selection: Selection::Summary,
            loaded: None,
            cols: vec![None; ds.view_metrics()],
            flame: None,
            tables: [None, None, None],
            search: None,
            empty: Columns::default(),
        }
    }

    pub fn meta(&self, ds: &Dataset) -> ProfileMeta {
        ProfileMeta {
            metrics: super::derived::metric_infos(ds),
            taxonomy: ds.taxonomy.as_ref().map(|t| TaxonomyInfo {
                source: t.source.clone(),
                nodes: t.nodes.clone(),
                roots: t.roots.clone(),
                default_columns: super::derived::default_columns(t),
            }),
            profiles: profile_entries(ds),
            has_summary: ds.summary_profile.is_some(),
            contexts: ds.cct.tree.len() as u32,
            default_metric: super::values::default_metric(ds) as u32,
            tables: NameTables {
                names: self.names.names.clone(),
                modules: ds
                    .modules
                    .iter()
                    .map(|m| crate::model::short_path(&m.path).to_string())
                    .collect(),
            },
        }
    }

    /// Chooses the profiles the views sum: "summary", "profile" with one index, or "subset".
    pub fn set_selection(&mut self, ds: &Dataset, sel: Selection) -> Result<()> {
        selection_profiles(ds, &sel)?;
        if sel != self.selection {
            self.selection = sel;
            self.loaded = None;
            self.cols = vec![None; ds.view_metrics()];
            self.flame = None;
            for t in self.tables.iter_mut().flatten() {
                t.tree.clear_values();
            }
            self.refresh_tables(ds)?;
        }
        Ok(())
    }

    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    fn ensure(&mut self, ds: &Dataset, metric: usize) -> Result<()> {
        let n = ds.view_metrics();
        if metric >= n {
            return Err(Error::invalid(
                &ds.title,
                0,
                format!("metric {metric} out of range ({n} metrics)"),
            ));
        }
        if self.cols.len() != n {
            self.cols = vec![None; n];
        }
        if self.cols[metric].is_some() {
            return Ok(());
        }
        if let Some(d) = ds.derived_metric(metric) {
            // A formula metric from the (cached) columns of the metrics it reads, all numbered
            // before it.
            let mut ins = Vec::new();
            for f in [&d.inclusive, &d.exclusive].into_iter().flatten() {
                f.inputs(&mut ins);
            }
            for &(m, _) in &ins {
                if (m as usize) < metric {
                    self.ensure(ds, m as usize)?;
                }
            }
            let cols = &self.cols;
            let col = |m: u32| cols.get(m as usize).and_then(Option::as_ref);
            let c = super::derived::derived_columns(ds.cct.tree.len(), d, &col);
            self.cols[metric] = Some(c);
            return Ok(());
        }
        if self.loaded.is_none() {
            let (profs, summary) = selection_profiles(ds, &self.selection)?;
            let mut vals = Vec::with_capacity(profs.len());
            for p in profs {
                vals.push(ds.data.profile_values(p)?);
            }
            self.loaded = Some((vals, summary));
        }
        let (vals, summary) = self.loaded.as_ref().expect("loaded above");
        let refs: Vec<&SparseValues> = vals.iter().collect();
        self.cols[metric] = Some(columns_from_values(ds, metric, &refs, *summary)?);
        Ok(())
    }

    fn ensure_all(&mut self, ds: &Dataset) -> Result<()> {
        for m in 0..ds.view_metrics() {
            self.ensure(ds, m)?;
        }
        Ok(())
    }

    /// Columns of a metric (loading them on first use).
    pub fn columns(&mut self, ds: &Dataset, metric: usize) -> Result<&Columns> {
        self.ensure(ds, metric)?;
        Ok(self.cols[metric].as_ref().unwrap_or(&self.empty))
    }

    // ---------------------------------------------------------------------------------------
    // Flame graph

    /// Sets the metric, the lexical merge and the ordering of the flame graph.
    pub fn flame_config(
        &mut self,
        ds: &Dataset,
        metric: usize,
        merged: bool,
        heavy: bool,
    ) -> Result<()> {
        self.ensure(ds, metric)?;
        if let Some(f) = &self.flame {
            if f.metric == metric && f.merged == merged && f.heavy == heavy {
                return Ok(());
            }
        }
        // Reuse the tree when only the metric or the order changes.
        let tree = match self.flame.take() {
            Some(f) if f.merged == merged => f.tree,
            _ if merged => FlameTree::merged_lexical(ds, &self.names),
            _ => FlameTree::from_cct(ds),
        };
        let cols = self.cols[metric].as_ref().expect("ensured");
        let incl = tree.inclusive(&cols.inclusive);
        let excl = tree.exclusive(&cols.exclusive, &incl);
        let order = child_order(&tree.tree, &incl, heavy);
        let max_depth = tree.tree.depth.iter().copied().max().unwrap_or(0);
        self.flame = Some(FlameState {
            metric,
            merged,
            heavy,
            tree,
            incl,
            excl,
            order,
            max_depth,
        });
        Ok(())
    }

    fn flame_state(&self, ds: &Dataset) -> Result<&FlameState> {
        self.flame
            .as_ref()
            .ok_or_else(|| Error::invalid(&ds.title, 0, "flame graph not configured"))
    }

    /// Deepest flame frame (root = 0).
    pub fn flame_max_depth(&self) -> u32 {
        self.flame.as_ref().map(|f| f.max_depth).unwrap_or(0)
    }

    /// Flame node standing for CCT node `cct` (its function's frame when lexical levels merge).
    fn flame_node(&self, cct: u32) -> Option<u32> {
        let f = self.flame.as_ref()?;
        f.tree
            .of_cct
            .get(cct as usize)
            .copied()
            .filter(|&n| n != NONE)
    }

    /// The visible rectangles of the subtree of `zoom_cct`.
    pub fn flame_layout(&self, ds: &Dataset, zoom_cct: u32, vp: &Viewport) -> Result<FlameWindow> {
        let f = self.flame_state(ds)?;
        let zoom = self.flame_node(zoom_cct).unwrap_or(0);
        let r = layout(&f.tree.tree, &f.order, &f.incl, zoom, vp);
        let matched = self.search.as_ref().map(|(_, m)| m);
        let mut out = FlameWindow::default();
        for n in &r.node {
            let rep = f.tree.rep[*n as usize];
            let frame = ds.cct.frame.get(rep as usize);
            let name = self.names.node_name.get(rep as usize).copied().unwrap_or(0);
            let module = frame
                .and_then(|fr| {
                    fr.code.module.or_else(|| {
                        fr.code
                            .function
                            .and_then(|fi| ds.functions.get(fi as usize))
                            .and_then(|func| func.module)
                    })
                })
                .unwrap_or(NONE);
            let mut flags = 0u8;
            if matched.is_some_and(|m| m.get(name as usize).copied().unwrap_or(false)) {
                flags |= 1;
            }
            if frame.is_some_and(|fr| fr.relation == Relation::InlinedCall) {
                flags |= 2;
            }
            if !self.names.head.get(rep as usize).copied().unwrap_or(false)
                && frame.is_some_and(|fr| fr.kind == NodeKind::Context)
            {
                flags |= 4;
            }
            out.frames.labels.push(name, module);
            out.values.inclusive.push(f.incl[*n as usize]);
            out.values.exclusive.push(f.excl[*n as usize]);
            out.flags.push(flags);
        }
        // Rectangles stand for their flame node's representative CCT node.
        out.frames.rects = r;
        for n in &mut out.frames.rects.node {
            *n = f.tree.rep[*n as usize];
        }
        Ok(out)
    }

    /// CCT nodes (representatives) from the flame root down to the frame of `cct`, for the
    /// breadcrumb.
    pub fn flame_path(&self, cct: u32) -> Vec<u32> {
        let Some(f) = &self.flame else {
            return Vec::new();
        };
        match self.flame_node(cct) {
            Some(n) => f
                .tree
                .tree
                .path(n)
                .iter()
                .map(|&p| f.tree.rep[p as usize])
                .collect(),
            None => Vec::new(),
        }
    }

    /// Tooltip record of a context, with the flame graph's values (merged frames sum their
    /// members) for its configured metric.
    pub fn node_info(&mut self, ds: &Dataset, cct: u32, metric: usize) -> Result<NodeInfo> {
        if cct as usize >= ds.cct.tree.len() {
            return Err(Error::invalid(&ds.title, 0, format!("no context {cct}")));
        }
        self.ensure(ds, metric)?;
        let (inclusive, exclusive, root) = match (&self.flame, self.flame_node(cct)) {
            (Some(f), Some(n)) if f.metric == metric => {
                (f.incl[n as usize], f.excl[n as usize], f.incl[0])
            }
            _ => {
                let c = self.cols[metric].as_ref().expect("ensured");
                (
                    c.inclusive[cct as usize],
                    c.exclusive[cct as usize],
                    c.inclusive[0],
                )
            }
        };
        let fr = ds.cct.frame[cct as usize];
        let func = fr.code.function.and_then(|i| ds.functions.get(i as usize));
        let offset = fr.code.offset.or(func.and_then(|f| f.offset));
        let (metric_name, unit) = ds.metric_label(metric);
        let path = match self.flame.as_ref().filter(|f| f.merged) {
            Some(_) => self.flame_path(cct),
            None => ds.cct.tree.path(cct),
        };
        Ok(NodeInfo {
            node: cct,
            ctx_id: ds.cct.ctx_id[cct as usize],
            name: self.names.of(cct).to_string(),
            kind: match fr.kind {
                NodeKind::EntryPoint(EntryKind::MainThread) => "entry".into(),
                _ => kind_name(ds, cct).into(),
            },
            relation: match fr.relation {
                Relation::Call => "call",
                Relation::InlinedCall => "inlined call",
                Relation::Lexical => "lexical",
            }
            .into(),
            inlined: fr.relation == Relation::InlinedCall,
            place: Place::of(ds, cct),
            offset_hex: offset.map(|o| format!("{o:#x}")),
            depth: ds.cct.tree.depth[cct as usize],
            metric: metric_name.to_string(),
            unit: unit.to_string(),
            inclusive,
            exclusive,
            root_inclusive: root,
            path: path.iter().map(|&p| self.names.of(p).to_string()).collect(),
        })
    }

    /// Searches frame names; an empty pattern clears the search.
    pub fn search(
        &mut self,
        ds: &Dataset,
        pattern: &str,
        regex: bool,
        ignore_case: bool,
    ) -> SearchInfo {
        let mut info = SearchInfo {
            pattern: pattern.to_string(),
            frames: 0,
            names: 0,
            total: 0.0,
            root_total: 0.0,
            error: None,
        };
        if pattern.is_empty() {
            self.search = None;
            return info;
        }
        let matched = match matching_names(&self.names, pattern, regex, ignore_case) {
            Ok(m) => m,
            Err(e) => {
                info.error = Some(e);
                self.search = None;
                return info;
            }
        };
        info.names = matched.iter().filter(|&&m| m).count() as u32;
        if let Some(f) = &self.flame {
            let ids: Vec<u32> = f
                .tree
                .rep
                .iter()
                .map(|&r| self.names.node_name.get(r as usize).copied().unwrap_or(0))
                .collect();
            let nodes = matching_nodes(&ids, &matched);
            info.frames = nodes.len() as u32;
            info.total = outermost_total(&f.tree.tree.subtree_end, &nodes, &f.incl);
            info.root_total = f.incl.first().copied().unwrap_or(0.0);
        } else {
            let _ = ds;
        }
        self.search = Some((pattern.to_string(), matched));
        info
    }

    /// The hottest flame frame matching the search (largest inclusive value of the flame's
    /// metric; the first in preorder among equals), as a CCT node, for "go to match".
    pub fn search_first(&self) -> Option<u32> {
        let (_, m) = self.search.as_ref()?;
        let f = self.flame.as_ref()?;
        let mut best: Option<(u32, f64)> = None;
        for (i, &r) in f.tree.rep.iter().enumerate() {
            let name = self.names.node_name.get(r as usize);
            if !name.is_some_and(|&id| m.get(id as usize).copied().unwrap_or(false)) {
                continue;
            }
            let v = f.incl.get(i).copied().unwrap_or(0.0);
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((r, v));
            }
        }
        best.map(|(r, _)| r)
    }

    // ---------------------------------------------------------------------------------------
    // Tables

    fn with_table<T>(
        &mut self,
        ds: &Dataset,
        kind: TableKind,
        f: impl FnOnce(&mut Table, &Ctx) -> T,
    ) -> Result<T> {
        self.ensure_all(ds)?;
        let cols: Vec<Columns> = std::mem::take(&mut self.cols)
            .into_iter()
            .map(|c| c.unwrap_or_default())
            .collect();
        let names = std::mem::take(&mut self.names);
        let out = {
            let ctx = Ctx {
                ds,
                names: &names,
                cols: &cols,
            };
            let slot = &mut self.tables[kind as usize];
            if slot.is_none() {
                let mut tree: Box<dyn TableTree> = match kind {
                    TableKind::TopDown => Box::new(TopDown),
                    TableKind::BottomUp => Box::new(BottomUp::new(ds, &names)),
                    TableKind::Flat => Box::new(Flat::new(ds, &names)),
                };
                let view = TableView::new(
                    tree.as_mut(),
                    &ctx,
                    Col {
                        slot: 0,
                        exclusive: false,
                    },
                );
                *slot = Some(Table { tree, view });
            }
            f(slot.as_mut().expect("created above"), &ctx)
        };
        self.names = names;
        self.cols = cols.into_iter().map(Some).collect();
        Ok(out)
    }

    fn refresh_tables(&mut self, ds: &Dataset) -> Result<()> {
        for k in [TableKind::TopDown, TableKind::BottomUp, TableKind::Flat] {
            if self.tables[k as usize].is_some() {
                self.with_table(ds, k, |t, ctx| t.view.refresh(t.tree.as_mut(), ctx))?;
            }
        }
        Ok(())
    }

    /// Number of visible rows.
    pub fn table_len(&mut self, ds: &Dataset, kind: TableKind) -> Result<u32> {
        self.with_table(ds, kind, |t, _| t.view.len() as u32)
    }

    /// Rows `start..start+count` with labels and all metric values.
    pub fn table_window(
        &mut self,
        ds: &Dataset,
        kind: TableKind,
        start: usize,
        count: usize,
    ) -> Result<TableWindow> {
        let n_metrics = ds.view_metrics();
        let matched = self.search.as_ref().map(|(_, m)| m.clone());
        self.with_table(ds, kind, |t, ctx| {
            let mut rows = t.view.window(t.tree.as_mut(), ctx, start, count);
            let n_rows = rows.node.len();
            let mut values = Vec::with_capacity(n_rows * n_metrics * 2);
            let mut cct = Vec::with_capacity(n_rows);
            let mut labels = Vec::with_capacity(n_rows);
            for (i, &n) in rows.node.iter().enumerate() {
                for m in 0..n_metrics {
                    for exclusive in [false, true] {
                        let col = Col { slot: m, exclusive };
                        values.push(row_value(t.tree.as_mut(), ctx, n, col));
                    }
                }
                let c = t.tree.cct_node(ctx, n);
                cct.push(c.unwrap_or(NONE));
                labels.push(t.tree.label(ctx, n));
                if let (Some(m), Some(c)) = (&matched, c) {
                    let id = ctx.names.node_name.get(c as usize).copied().unwrap_or(0);
                    // Bottom-up rows stand for their caller's function; flat and top-down rows
                    // for their own frame.
                    if m.get(id as usize).copied().unwrap_or(false) {
                        rows.flags[i] |= 4;
                    }
                }
            }
            TableWindow {
                rows,
                cct,
                labels,
                values,
            }
        })
    }

    pub fn table_expand(&mut self, ds: &Dataset, kind: TableKind, row: usize) -> Result<u32> {
        self.with_table(ds, kind, |t, ctx| {
            t.view.expand_row(t.tree.as_mut(), ctx, row);
            t.view.len() as u32
        })
    }

    pub fn table_collapse(&mut self, ds: &Dataset, kind: TableKind, row: usize) -> Result<u32> {
        self.with_table(ds, kind, |t, _| {
            t.view.collapse_row(row);
            t.view.len() as u32
        })
    }

    pub fn table_expand_all(
        &mut self,
        ds: &Dataset,
        kind: TableKind,
        max_rows: usize,
    ) -> Result<u32> {
        self.with_table(ds, kind, |t, ctx| {
            t.view.expand_all(t.tree.as_mut(), ctx, max_rows);
            t.view.len() as u32
        })
    }

    /// Hot-path expansion from `row`; returns the row where it stopped.
    pub fn table_hot_path(
        &mut self,
        ds: &Dataset,
        kind: TableKind,
        row: usize,
        share: f64,
    ) -> Result<u32> {
        self.with_table(ds, kind, |t, ctx| {
            t.view.hot_path(t.tree.as_mut(), ctx, row, share) as u32
        })
    }

    pub fn table_sort(
        &mut self,
        ds: &Dataset,
        kind: TableKind,
        metric: usize,
        exclusive: bool,
        descending: bool,
    ) -> Result<()> {
        if metric >= ds.view_metrics() {
            return Err(Error::invalid(&ds.title, 0, format!("no metric {metric}")));
        }
        self.with_table(ds, kind, |t, ctx| {
            t.view.sort_by(
                t.tree.as_mut(),
                ctx,
                Col {
                    slot: metric,
                    exclusive,
                },
                descending,
            )
        })
    }

    /// Expands the rows down to the one showing CCT node `cct`; its row, or `None`.
    pub fn table_reveal(&mut self, ds: &Dataset, kind: TableKind, cct: u32) -> Result<Option<u32>> {
        self.with_table(ds, kind, |t, ctx| {
            t.view.reveal(t.tree.as_mut(), ctx, cct).map(|r| r as u32)
        })
    }

    // ---------------------------------------------------------------------------------------
    // Distribution

    /// Value of `cct` for `metric` in every non-summary profile: (profile indexes, values).
    pub fn distribution(
        &self,
        ds: &Dataset,
        metric: usize,
        cct: u32,
        exclusive: bool,
    ) -> Result<(Vec<u32>, Vec<f64>)> {
        if cct as usize >= ds.cct.tree.len() {
            return Err(Error::invalid(&ds.title, 0, format!("no context {cct}")));
        }
        let d = node_distribution(ds, metric, cct, exclusive)?;
        Ok(d.into_iter().unzip())
    }
}

#[cfg(test)]
mod tests;
