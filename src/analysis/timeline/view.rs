//! What the trace view asks of a dataset, in shapes that cross to JavaScript as they are: times as
//! f64 ns offsets from the run start (epoch ns do not fit a JS number), rows and keys as u32 arrays,
//! names once. Row labels come from profile id tuples; rows are filtered and grouped here.

use super::progressive::{FrameJob, ReadCost, RowState};
use super::{
    call_path_at, depth_view, nice_ticks, summarize, FrameIndex, Summary, TimelineFrame, Window,
};
use crate::error::Result;
use crate::model::{Dataset, TraceSample};

/// One trace line as the view lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RowInfo {
    /// Index into `TraceInfo::lines`.
    pub line: u32,
    /// "NODE 0 / RANK 3 / THREAD 1".
    pub label: String,
    pub samples: f64,
    /// (identifier kind name, logical id) pairs of the id tuple.
    pub ids: Vec<(String, u32)>,
    /// Position of the line's profile in rank, thread order (`model::profile_order`): rows are
    /// listed so, not in file order.
    pub order: u32,
}

/// What the view needs once per dataset.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TimelineMeta {
    /// "ok", "no-trace" (the dataset has no trace) or "no-samples" (a trace with no samples, e.g.
    /// HPCToolkit's sentinel min/max).
    pub status: String,
    /// Absolute start of the run in the format's unit (ns), as text: it does not fit an f64.
    pub start_text: String,
    /// Length of the run in ns (max - min).
    pub duration_ns: f64,
    pub rows: Vec<RowInfo>,
    /// Identifier kinds present in the rows, for the group-by selector ("NODE", "RANK" ...).
    pub id_kinds: Vec<String>,
    /// Deepest call path in frames: the depth selector goes from 0 to max_depth - 1.
    pub max_depth: u32,
    /// Name of colour key k at names[k - 1].
    pub names: Vec<String>,
}

/// Per-dataset state the engine keeps for the view: the frame index (built on first use), the
/// last sampled frame (for summaries and hit tests without resampling), and the frames being
/// refined progressively, one per slot (0: the main view, 1: the minimap).
pub struct TimelineCache {
    index: Option<FrameIndex>,
    meta: Option<TimelineMeta>,
    /// What reads of this dataset's trace cost: chooses between scanning and probing rows.
    pub cost: ReadCost,
    jobs: [Option<FrameJob>; 2],
    pub last: Option<TimelineFrame>,
    /// The last time-order layout, for its tooltips (`order_view::call_detail`).
    pub calls: Option<super::calls::Layout>,
    /// Bounds of clipped calls found for tooltips, by line and depth (a call that spans many
    /// windows, `main`, is searched for once).
    pub call_bounds: Vec<(u32, u32, super::calls::Bounds)>,
    /// Every call of the line the time-order view shows, when it is small enough to keep.
    pub line_calls: Option<super::calls::LineCalls>,
}

impl Default for TimelineCache {
    fn default() -> Self {
        TimelineCache {
            index: None,
            meta: None,
            cost: ReadCost::MEMORY,
            jobs: [None, None],
            last: None,
            calls: None,
            call_bounds: Vec::new(),
            line_calls: None,
        }
    }
}

impl TimelineCache {
    pub fn with_cost(cost: ReadCost) -> TimelineCache {
        TimelineCache {
            cost,
            ..TimelineCache::default()
        }
    }
    pub fn index(&mut self, ds: &Dataset) -> &FrameIndex {
        self.index.get_or_insert_with(|| FrameIndex::new(ds))
    }
    pub fn meta(&mut self, ds: &Dataset) -> &TimelineMeta {
        if self.meta.is_none() {
            let m = meta(ds, self.index(ds));
            self.meta = Some(m);
        }
        self.meta.as_ref().expect("set above")
    }
}

/// Rows chosen by the view's filter and grouping, as `{rows, groups}`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RowSelection {
    pub rows: Vec<u32>,
    pub groups: Vec<u32>,
}

pub fn rows(
    ds: &Dataset,
    cache: &mut TimelineCache,
    pattern: &str,
    min_samples: f64,
    group_by: &str,
) -> RowSelection {
    let (rows, groups) = select_rows(cache.meta(ds), pattern, min_samples, group_by);
    RowSelection { rows, groups }
}

/// Absolute start of the run (its trace's first time).
pub(super) fn start(ds: &Dataset) -> u64 {
    ds.trace.as_ref().and_then(|t| t.min_time).unwrap_or(0)
}

/// Absolute time of an offset from the run start (negative and NaN offsets clamp to the start).
pub fn abs_time(ds: &Dataset, offset_ns: f64) -> u64 {
    let off = if offset_ns.is_finite() && offset_ns > 0.0 {
        offset_ns as u64
    } else {
        0
    };
    start(ds).saturating_add(off)
}

/// The window over offsets [t0, t1) ns from the run start, `width` columns wide.
pub fn offset_window(ds: &Dataset, t0_off: f64, t1_off: f64, width: u32) -> Window {
    Window::new(abs_time(ds, t0_off), abs_time(ds, t1_off), width)
}

/// A trace frame: colour keys of `rows` over offsets [t0_ns, t1_ns) from the run start, `width`
/// columns, at most `height` rows shown, at call depth `depth`. The page sends it as a plain
/// object with these field names, the rows apart (a typed array).
#[derive(Clone, Copy, Debug, serde::Deserialize)]
pub struct FrameRequest<'a> {
    #[serde(skip)]
    pub rows: &'a [u32],
    pub t0_ns: f64,
    pub t1_ns: f64,
    pub width: u32,
    pub height: u32,
    pub depth: u32,
}

/// One trace line over offsets [t0_ns, t1_ns) from the run start, `width` columns wide: the
/// window of the time-order chart and of the depth view, sent by the page as a plain object.
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
pub struct LineWindow {
    pub line: u32,
    pub t0_ns: f64,
    pub t1_ns: f64,
    pub width: u32,
}

impl LineWindow {
    pub(super) fn window(&self, ds: &Dataset) -> Window {
        offset_window(ds, self.t0_ns, self.t1_ns, self.width)
    }
}

impl FrameRequest<'_> {
    fn window(&self, ds: &Dataset) -> Window {
        offset_window(ds, self.t0_ns, self.t1_ns, self.width)
    }
}

pub fn meta(ds: &Dataset, ix: &FrameIndex) -> TimelineMeta {
    let mut kinds: Vec<String> = Vec::new();
    let order = crate::model::profile_order(&ds.profiles, &ds.id_names);
    let rows: Vec<RowInfo> = ds
        .trace
        .iter()
        .flat_map(|t| t.lines.iter().enumerate())
        .map(|(i, l)| {
            let prof = ds.profiles.get(l.prof_index as usize);
            let ids: Vec<(String, u32)> = prof
                .map(|p| {
                    p.id_tuple
                        .iter()
                        .map(|id| {
                            let name = ds
                                .id_names
                                .get(id.kind as usize)
                                .cloned()
                                .unwrap_or_else(|| format!("KIND{}", id.kind));
                            (name, id.logical_id)
                        })
                        .collect()
                })
                .unwrap_or_default();
            for (k, _) in &ids {
                if !kinds.contains(k) {
                    kinds.push(k.clone());
                }
            }
            RowInfo {
                line: i as u32,
                label: prof
                    .map(|p| p.label(&ds.id_names))
                    .unwrap_or_else(|| format!("line {i}")),
                samples: l.samples as f64,
                ids,
                order: order
                    .get(l.prof_index as usize)
                    .copied()
                    .unwrap_or(u32::MAX),
            }
        })
        .collect();
    let (status, duration) = match &ds.trace {
        None => ("no-trace", 0),
        Some(t) => match (t.min_time, t.max_time) {
            (Some(a), Some(b)) if b >= a && t.lines.iter().any(|l| l.samples > 0) => ("ok", b - a),
            _ => ("no-samples", 0),
        },
    };
    TimelineMeta {
        status: status.into(),
        start_text: start(ds).to_string(),
        duration_ns: duration as f64,
        rows,
        id_kinds: kinds,
        max_depth: ix.max_depth(),
        names: ix.names.clone(),
    }
}

/// Case-insensitive match of `label` against `pattern`: `*` matches any run of characters; a
/// pattern without `*` matches anywhere in the label. Iterative, linear in practice.
pub fn label_matches(label: &str, pattern: &str) -> bool {
    let p = pattern.trim().to_lowercase();
    if p.is_empty() {
        return true;
    }
    let l = label.to_lowercase();
    if !p.contains('*') {
        return l.contains(&p);
    }
    // Glob with '*' only, anchored at both ends: pieces must appear in order.
    let pieces: Vec<&str> = p.split('*').collect();
    let mut rest = l.as_str();
    for (i, piece) in pieces.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(piece) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == pieces.len() - 1 {
            return rest.ends_with(piece);
        } else {
            match rest.find(piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
    }
    true
}

/// Rows to show, in display order, with a group number per row: filtered by label pattern and
/// minimum sample count, then (when `group_by` names an id kind such as "NODE") ordered stably by
/// that identifier's value, each distinct value forming a group.
pub fn select_rows(
    meta: &TimelineMeta,
    pattern: &str,
    min_samples: f64,
    group_by: &str,
) -> (Vec<u32>, Vec<u32>) {
    let mut rows: Vec<(Option<u32>, &RowInfo)> = meta
        .rows
        .iter()
        .filter(|r| r.samples >= min_samples && label_matches(&r.label, pattern))
        .map(|r| {
            let key = r
                .ids
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(group_by))
                .map(|&(_, v)| v);
            (key, r)
        })
        .collect();
    let grouping = !group_by.is_empty() && group_by != "none";
    if grouping {
        // Rows without the identifier go last; within a group, rank and thread order.
        crate::sort::sort_by_key(&mut rows, |&(k, r)| (k.is_none(), k, r.order));
    } else {
        crate::sort::sort_by_key(&mut rows, |&(_, r)| r.order);
    }
    let mut groups = Vec::with_capacity(rows.len());
    let mut g = 0u32;
    for i in 0..rows.len() {
        if grouping && i > 0 && rows[i].0 != rows[i - 1].0 {
            g += 1;
        }
        groups.push(g);
    }
    (rows.iter().map(|(_, r)| r.line).collect(), groups)
}

fn pack(f: &TimelineFrame) -> Vec<u32> {
    let mut out = Vec::with_capacity(2 + f.lines.len() + f.keys.len());
    out.push(f.width);
    out.push(f.lines.len() as u32);
    out.extend_from_slice(&f.lines);
    out.extend_from_slice(&f.keys);
    out
}

/// The main view's exact frame `req`, packed for the page:
/// `[width, shown rows, line of each shown row..., keys row-major...]`.
pub fn frame_packed(
    ds: &Dataset,
    cache: &mut TimelineCache,
    req: &FrameRequest,
) -> Result<Vec<u32>> {
    cache.index(ds);
    let ix = cache.index.as_ref().expect("built above");
    let r = req;
    let f = FrameJob::new(r.rows, r.window(ds), r.height, r.depth, cache.cost).exact(ds, ix)?;
    let out = pack(&f);
    cache.last = Some(f);
    Ok(out)
}

/// How far a progressive frame is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Progress {
    /// Every row holds `sample_frame`'s exact answer: the picture is final.
    pub exact: bool,
    pub rows_exact: u32,
    pub rows: u32,
    /// Per shown row: 0 not read yet (shows a neighbour), 1 sampled (coarse pass), 2 exact. The
    /// page may show something better than a neighbour for rows at 0 (the last picture moved).
    pub states: Vec<u8>,
}

/// Rows a coarse pass samples at most, and samples per row per this many columns.
const COARSE_ROWS: usize = 256;
const COARSE_COLUMNS_PER_POINT: u32 = 8;

/// Starts the progressive frame `req` in `slot` (0: main view, whose shown frame becomes the one
/// the summary describes; 1: minimap) and works on it until `stop()`: a coarse pass first where
/// the source batches small reads, then exact rows (past a row whose read failed, more rows while
/// `ahead()` says so: see `FrameJob::refine_ahead`). Returns the frame to show, packed as
/// [`frame_packed`], and its progress.
pub fn frame_begin(
    ds: &Dataset,
    cache: &mut TimelineCache,
    slot: usize,
    req: &FrameRequest,
    stop: &mut dyn FnMut() -> bool,
    ahead: &mut dyn FnMut() -> bool,
) -> Result<(Vec<u32>, Progress)> {
    let slot = slot.min(1);
    let r = req;
    let mut job = FrameJob::new(r.rows, r.window(ds), r.height, r.depth, cache.cost);
    let batched = cache.cost.batched;
    if batched {
        let points = (r.width / COARSE_COLUMNS_PER_POINT).clamp(16, 512);
        job.sample_coarse(ds, cache.index(ds), COARSE_ROWS, points)?;
    }
    // Kept before refining: a failed read leaves it ready for `frame_refine` to go on.
    cache.jobs[slot] = Some(job);
    if batched {
        return Ok(frame_shown(cache, slot));
    }
    frame_refine(ds, cache, slot, stop, ahead)
}

/// Works on the progressive frame of `slot` until `stop()` (at least one row while any is left;
/// `ahead` as for [`frame_begin`]).
pub fn frame_refine(
    ds: &Dataset,
    cache: &mut TimelineCache,
    slot: usize,
    stop: &mut dyn FnMut() -> bool,
    ahead: &mut dyn FnMut() -> bool,
) -> Result<(Vec<u32>, Progress)> {
    let slot = slot.min(1);
    cache.index(ds);
    let ix = cache.index.as_ref().expect("built above");
    if let Some(job) = cache.jobs[slot].as_mut() {
        job.refine_ahead(ds, ix, stop, ahead)?;
    }
    Ok(frame_shown(cache, slot))
}

/// The progressive frame of `slot` as it should be shown now, packed as [`frame_packed`], and
/// its progress (without working on it).
pub fn frame_shown(cache: &mut TimelineCache, slot: usize) -> (Vec<u32>, Progress) {
    let slot = slot.min(1);
    let Some(job) = cache.jobs[slot].as_ref() else {
        return (
            vec![0, 0],
            Progress {
                exact: true,
                rows_exact: 0,
                rows: 0,
                states: Vec::new(),
            },
        );
    };
    let f = job.shown();
    let p = Progress {
        exact: job.is_exact(),
        rows_exact: job.exact_rows() as u32,
        rows: job.rows() as u32,
        states: job
            .state
            .iter()
            .map(|s| match s {
                RowState::Empty => 0,
                RowState::Sampled => 1,
                RowState::Exact => 2,
            })
            .collect(),
    };
    let out = pack(&f);
    if slot == 0 {
        cache.last = Some(f);
    }
    if p.exact {
        // Nothing left to do: keep the shown frame only.
        cache.jobs[slot] = None;
    }
    (out, p)
}

/// One frame of a call path as the side panel lists it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PathFrame {
    pub depth: u32,
    pub name: String,
    pub key: u32,
    /// The frame's context (a model node), for its source location.
    pub node: u32,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CallPathInfo {
    pub line: u32,
    #[serde(flatten)]
    pub sample: InForce,
    pub frames: Vec<PathFrame>,
}

/// The sample in force (every field `None` before the line's first sample).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct InForce {
    /// Its index and offset from the run start (ns).
    pub sample_index: Option<f64>,
    pub sample_offset_ns: Option<f64>,
    /// Its node's own name (a source line or loop when the sample sits in one), and the node:
    /// the source line the innermost frame was at.
    pub context: Option<String>,
    pub context_node: Option<u32>,
}

impl InForce {
    fn of(ds: &Dataset, sample: Option<(u64, TraceSample)>) -> InForce {
        let Some((i, s)) = sample else {
            return InForce::default();
        };
        InForce {
            sample_index: Some(i as f64),
            sample_offset_ns: Some(s.time.saturating_sub(start(ds)) as f64),
            context: Some(ds.frame_name(s.node)),
            context_node: Some(s.node),
        }
    }
}

pub fn call_path(
    ds: &Dataset,
    cache: &mut TimelineCache,
    line: u32,
    offset_ns: f64,
) -> Result<CallPathInfo> {
    let ix = cache.index(ds);
    let cp = call_path_at(ds, ix, line as usize, abs_time(ds, offset_ns))?;
    Ok(CallPathInfo {
        line,
        sample: InForce::of(ds, cp.sample),
        frames: cp
            .frames
            .iter()
            .enumerate()
            .map(|(d, &f)| PathFrame {
                depth: d as u32,
                name: ix.name(ix.key_of(f)).to_string(),
                key: ix.key_of(f),
                node: f,
            })
            .collect(),
    })
}

/// Depth view rectangles packed as `[depth, x0, x1, key]` quads.
pub fn depth_packed(
    ds: &Dataset,
    cache: &mut TimelineCache,
    w: &LineWindow,
    max_depth: u32,
) -> Result<Vec<u32>> {
    let rects = depth_view(
        ds,
        cache.index(ds),
        w.line as usize,
        w.window(ds),
        max_depth,
    )?;
    Ok(rects
        .iter()
        .flat_map(|r| [r.depth, r.x0, r.x1, r.key])
        .collect())
}

/// One function in the summary's statistics list.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ShareInfo {
    pub key: u32,
    pub name: String,
    /// Fraction of the visible cells.
    pub share: f64,
}

/// Summary of the last sampled frame: stacked counts packed as
/// `[width, col_start (width + 1 values)..., (key, count) pairs...]`, and the statistics list.
pub fn summary_packed(cache: &mut TimelineCache) -> (Vec<u32>, Vec<ShareInfo>) {
    let Some(f) = cache.last.as_ref() else {
        return (vec![0, 0], Vec::new());
    };
    let s: Summary = summarize(f);
    let mut out = Vec::with_capacity(2 + s.col_start.len() + 2 * s.keys.len());
    out.push(f.width);
    out.extend_from_slice(&s.col_start);
    for (k, c) in s.keys.iter().zip(&s.counts) {
        out.push(*k);
        out.push(*c);
    }
    let cells = s.cells.max(1) as f64;
    let names = cache.index.as_ref();
    let shares = s
        .totals
        .iter()
        .map(|&(k, n)| ShareInfo {
            key: k,
            name: match (k, names) {
                (0, _) => "(no activity)".into(),
                (_, Some(ix)) => ix.name(k).to_string(),
                _ => String::new(),
            },
            share: n as f64 / cells,
        })
        .collect();
    (out, shares)
}

/// Time-axis ticks over offsets [a, b] ns as (offset, label) pairs.
pub fn ticks(a_off: f64, b_off: f64, max_ticks: u32) -> Vec<(f64, String)> {
    let clamp = |x: f64| {
        if x.is_finite() && x > 0.0 {
            x as u64
        } else {
            0
        }
    };
    nice_ticks(clamp(a_off), clamp(b_off), max_ticks.min(1000))
        .1
        .into_iter()
        .map(|t| (t.offset_ns as f64, t.label))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of the test meta: label, duration, (function, colour) pairs.
    type RowSpec<'a> = (&'a str, f64, &'a [(&'a str, u32)]);

    fn meta_of(rows: &[RowSpec]) -> TimelineMeta {
        TimelineMeta {
            status: "ok".into(),
            start_text: "0".into(),
            duration_ns: 1.0,
            rows: rows
                .iter()
                .enumerate()
                .map(|(i, (l, n, ids))| RowInfo {
                    line: i as u32,
                    label: l.to_string(),
                    samples: *n,
                    ids: ids.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                    order: i as u32,
                })
                .collect(),
            id_kinds: vec![],
            max_depth: 0,
            names: vec![],
        }
    }

    #[test]
    fn label_patterns() {
        assert!(label_matches("NODE 0 / RANK 3 / THREAD 1", "rank 3"));
        assert!(!label_matches("NODE 0 / RANK 3 / THREAD 1", "rank 4"));
        assert!(label_matches("NODE 0 / RANK 3 / THREAD 1", "*thread 1"));
        assert!(!label_matches("NODE 0 / RANK 3 / THREAD 12", "*thread 1"));
        assert!(label_matches(
            "NODE 0 / RANK 3 / THREAD 1",
            "node 0*thread*"
        ));
        assert!(!label_matches("NODE 1 / RANK 3", "node 0*"));
        assert!(label_matches("anything", ""));
        assert!(label_matches("a", "*"));
    }

    #[test]
    fn filter_and_group_rows() {
        let m = meta_of(&[
            ("NODE 1 / RANK 0", 10.0, &[("NODE", 1), ("RANK", 0)]),
            ("NODE 0 / RANK 1", 0.0, &[("NODE", 0), ("RANK", 1)]),
            ("NODE 0 / RANK 2", 5.0, &[("NODE", 0), ("RANK", 2)]),
            ("NODE 1 / RANK 3", 7.0, &[("NODE", 1), ("RANK", 3)]),
            ("GPU", 7.0, &[]),
        ]);
        assert_eq!(
            select_rows(&m, "", 0.0, "none"),
            (vec![0, 1, 2, 3, 4], vec![0; 5])
        );
        assert_eq!(
            select_rows(&m, "", 1.0, "NODE"),
            (vec![2, 0, 3, 4], vec![0, 1, 1, 2])
        );
        assert_eq!(select_rows(&m, "rank *", 0.0, ""), (vec![], vec![]));
        assert_eq!(
            select_rows(&m, "node 1", 0.0, "rank"),
            (vec![0, 3], vec![0, 1])
        );
    }

    #[test]
    fn rows_come_in_profile_order() {
        // Lines in file order THREAD 5, 0, 4: listed 0, 4, 5, also within a group.
        let mut m = meta_of(&[
            ("THREAD 5", 1.0, &[("THREAD", 5)]),
            ("THREAD 0", 1.0, &[("THREAD", 0)]),
            ("THREAD 4", 1.0, &[("THREAD", 4)]),
        ]);
        for (r, o) in m.rows.iter_mut().zip([2, 0, 1]) {
            r.order = o;
        }
        assert_eq!(select_rows(&m, "", 0.0, "none").0, vec![1, 2, 0]);
        assert_eq!(select_rows(&m, "", 0.0, "node").0, vec![1, 2, 0]);
    }

    #[test]
    fn ticks_cross_as_offsets() {
        let t = ticks(0.0, 1e9, 5);
        assert_eq!(t[1], (2e8, "200 ms".to_string()));
        assert_eq!(ticks(f64::NAN, -5.0, 3), vec![(0.0, "0 ns".to_string())]);
    }
}
