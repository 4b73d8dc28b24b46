//! Trace timeline sampling: for each shown row (trace line) and pixel column, the sample in force at
//! the column's time and the call frame active at a chosen call depth on its path, as a colour key.
//! Cost follows pixels, not data: each line is read through `LazyData::trace_find`/`trace_samples`
//! with a galloping cursor, so a 1,000-px frame reads a few kB of a multi-GB trace.db.

// Rules (compared with hpcviewer's trace view, `ImageTraceAttributes`/`TraceDataByRank`/`CallPath`):
// - Depth counts *call frames* only, as hpcviewer's `CallPath.isTraceScope` does (procedure, call
//   site, instruction scopes): a node is a frame when it is a context reached by a call or inlined
//   call, or names a function. Lexical nodes (loops, lines, lexical instructions), entry points and
//   the root are not frames; they show the frame that encloses them. Depth 0 is the outermost frame.
//   When the stack is shallower than the chosen depth, its deepest frame is shown.
// - A column stands for the time at its left edge, `t0 + (t1 - t0) * col / width`, and shows the
//   sample *in force* then (the last sample at or before it). hpcviewer picks the sample closest to
//   the pixel's time instead; "in force" is what a sample means (the thread is in that context from
//   its time on) and keeps a column's colour independent of samples after it.
// - More rows than pixel rows: pixel row `y` shows row `y * rows / height` (hpcviewer's
//   `convertPixelToRank`): rows are picked, not aggregated, so every colour shown is a real sample.
// - Colour keys: 0 = no frame (before the first sample, an empty line, a sample at the root or an
//   entry point). Key `k > 0` names `FrameIndex::names[k - 1]`: one key per distinct frame name, so a
//   function keeps its colour across rows, depths and zoom levels, as hpcviewer colours by name.

use crate::error::Result;
use crate::model::{Dataset, LazyData, NodeKind, Relation, TraceSample, NONE};
use std::collections::HashMap;

pub mod calls;
pub mod order_view;
pub mod progressive;
pub mod view;

/// Per-dataset tables for mapping a context to the frame at a call depth in O(log depth), built once
/// in one preorder pass (no recursion: paths may be 100,000 frames deep).
#[derive(Clone, Debug, Default)]
pub struct FrameIndex {
    /// Nearest call frame at or above each node, `NONE` when there is none.
    frame_of: Vec<u32>,
    /// For frames: depth among frames (0 = outermost). Undefined for other nodes.
    call_depth: Vec<u32>,
    /// For frames: the next frame above, `NONE` for an outermost frame.
    up: Vec<u32>,
    /// For frames: a skew-binary jump pointer up the frame chain (Myers 1983), giving level-ancestor
    /// queries in O(log depth) with one word per node.
    jump: Vec<u32>,
    /// Colour key of each frame node (0 for non-frames).
    key: Vec<u32>,
    /// Display name of key `k` at `names[k - 1]`.
    pub names: Vec<String>,
}

/// Whether a model node counts as a call frame for depths (see the module comment).
fn is_frame(ds: &Dataset, node: usize) -> bool {
    match ds.cct.frame.get(node) {
        Some(f) => {
            f.kind == NodeKind::Context
                && (f.relation != Relation::Lexical || f.code.function.is_some())
        }
        None => false,
    }
}

impl FrameIndex {
    pub fn new(ds: &Dataset) -> FrameIndex {
        let cct = &ds.cct;
        let n = cct.tree.len();
        let mut ix = FrameIndex {
            frame_of: vec![NONE; n],
            call_depth: vec![0; n],
            up: vec![NONE; n],
            jump: vec![NONE; n],
            key: vec![0; n],
            names: Vec::new(),
        };
        let mut by_name: HashMap<String, u32> = HashMap::new();
        let mut by_function: Vec<u32> = vec![0; ds.functions.len()];
        for i in 0..n {
            // Preorder: the parent's entries are final before its children are visited.
            let parent = cct.tree.parent.get(i).copied().unwrap_or(NONE);
            let above = if (parent as usize) < i {
                ix.frame_of[parent as usize]
            } else {
                NONE
            };
            if !is_frame(ds, i) {
                ix.frame_of[i] = above;
                continue;
            }
            ix.frame_of[i] = i as u32;
            ix.up[i] = above;
            if above == NONE {
                ix.call_depth[i] = 0;
                ix.jump[i] = i as u32;
            } else {
                let a = above as usize;
                ix.call_depth[i] = ix.call_depth[a] + 1;
                let j = ix.jump[a] as usize;
                let jj = ix.jump[j] as usize;
                ix.jump[i] = if ix.call_depth[a] - ix.call_depth[j]
                    == ix.call_depth[j] - ix.call_depth[jj]
                {
                    jj as u32
                } else {
                    above
                };
            }
            let func = cct.frame[i].code.function;
            let cached = func
                .and_then(|f| by_function.get(f as usize))
                .copied()
                .unwrap_or(0);
            let key = if cached != 0 {
                cached
            } else {
                let name = ds.frame_name(i as u32);
                let next = ix.names.len() as u32 + 1;
                let k = *by_name.entry(name).or_insert(next);
                if k == next {
                    ix.names.push(ds.frame_name(i as u32));
                }
                if let Some(slot) = func.and_then(|f| by_function.get_mut(f as usize)) {
                    *slot = k;
                }
                k
            };
            ix.key[i] = key;
        }
        ix
    }

    /// Number of frames on the path of `node` (0 when it has none or is out of range).
    pub fn path_depth(&self, node: u32) -> u32 {
        match self.frame_of.get(node as usize) {
            Some(&f) if f != NONE => self.call_depth[f as usize] + 1,
            _ => 0,
        }
    }

    /// The frame node at call depth `depth` on the path of `node`, or the deepest frame when the
    /// path is shallower; `NONE` when the path has no frame.
    pub fn frame_at(&self, node: u32, depth: u32) -> u32 {
        let mut v = match self.frame_of.get(node as usize) {
            Some(&f) if f != NONE => f,
            _ => return NONE,
        };
        while self.call_depth[v as usize] > depth {
            let j = self.jump[v as usize];
            v = if self.call_depth[j as usize] >= depth {
                j
            } else {
                self.up[v as usize]
            };
        }
        v
    }

    /// Colour key of the frame at `depth` on the path of `node` (0 = no frame).
    pub fn key_at(&self, node: u32, depth: u32) -> u32 {
        match self.frame_at(node, depth) {
            NONE => 0,
            f => self.key[f as usize],
        }
    }

    /// Colour key of a frame node (0 for a node that is not a frame).
    pub fn key_of(&self, frame: u32) -> u32 {
        self.key.get(frame as usize).copied().unwrap_or(0)
    }

    /// Frame nodes on the path of `node`, outermost first.
    pub fn frames(&self, node: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut f = self.frame_of.get(node as usize).copied().unwrap_or(NONE);
        while f != NONE {
            out.push(f);
            f = self.up[f as usize];
        }
        out.reverse();
        out
    }

    /// Name of colour key `k` ("" for 0 or unknown keys).
    pub fn name(&self, key: u32) -> &str {
        match key.checked_sub(1) {
            Some(i) => self.names.get(i as usize).map(String::as_str).unwrap_or(""),
            None => "",
        }
    }

    /// Largest path depth (number of frames) over the tree: the depth selector's range.
    pub fn max_depth(&self) -> u32 {
        self.frame_of
            .iter()
            .filter(|&&f| f != NONE)
            .map(|&f| self.call_depth[f as usize] + 1)
            .max()
            .unwrap_or(0)
    }
}

/// A time window [t0, t1) drawn over `width` pixel columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub t0: u64,
    pub t1: u64,
    pub width: u32,
}

impl Window {
    pub fn new(t0: u64, t1: u64, width: u32) -> Window {
        Window { t0, t1, width }
    }
    /// Time of column `col`: its left edge.
    pub fn time(&self, col: u32) -> u64 {
        column_time(self.t0, self.t1, self.width, col)
    }
    fn is_empty(&self) -> bool {
        self.t1 <= self.t0 || self.width == 0
    }
}

/// Time of pixel column `col` of `width` over [t0, t1): its left edge.
pub fn column_time(t0: u64, t1: u64, width: u32, col: u32) -> u64 {
    let span = t1.saturating_sub(t0) as u128;
    t0 + (span * col as u128 / width.max(1) as u128) as u64
}

/// Counts of what a cursor did, for tests and the benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CursorStats {
    /// `trace_find` calls (binary searches through the whole line).
    pub finds: u64,
    /// Single samples read by the galloping search.
    pub probes: u64,
}

/// Walks one trace line at increasing times, reusing the previous position: a time before the next
/// sample costs nothing, a short move gallops (1, 2, 4 ... samples ahead, then bisects), a long one
/// falls back to `trace_find`. Work per call is O(log gap), never O(samples).
pub struct LineCursor<'a> {
    data: &'a dyn LazyData,
    line: usize,
    samples: u64,
    /// Index of the sample in force, `None` before the first sample (or not positioned yet).
    pos: Option<u64>,
    cur: Option<TraceSample>,
    /// Time of sample `pos + 1` (of sample 0 when `pos` is `None`), `u64::MAX` when there is none.
    next_time: u64,
    positioned: bool,
    /// Samples moved by the last move, the guess for the next one.
    last_gap: u64,
    /// Samples read during the current seek.
    memo: Vec<(u64, TraceSample)>,
    pub stats: CursorStats,
}

/// Gallop at most this many steps before a full binary search is cheaper.
const GALLOP_STEPS: u32 = 8;

impl<'a> LineCursor<'a> {
    pub fn new(data: &'a dyn LazyData, line: usize, samples: u64) -> LineCursor<'a> {
        LineCursor {
            data,
            line,
            samples,
            pos: None,
            cur: None,
            next_time: u64::MAX,
            positioned: false,
            last_gap: 0,
            memo: Vec::new(),
            stats: CursorStats::default(),
        }
    }

    /// Sample `i`, read together with its successor (the next question is nearly always about
    /// it), remembered for the rest of this seek: a steady scroll costs one 24-byte read per column.
    fn sample(&mut self, i: u64) -> Result<Option<TraceSample>> {
        if i >= self.samples {
            return Ok(None);
        }
        if let Some(&(_, s)) = self.memo.iter().find(|&&(j, _)| j == i) {
            return Ok(Some(s));
        }
        self.stats.probes += 1;
        let got = self.data.trace_samples(self.line, i, 2)?;
        for (k, s) in got.iter().enumerate() {
            self.memo.push((i + k as u64, *s));
        }
        Ok(got.first().copied())
    }

    fn time_of(&mut self, i: u64) -> Result<u64> {
        Ok(self.sample(i)?.map(|s| s.time).unwrap_or(u64::MAX))
    }

    fn settle(&mut self, pos: Option<u64>) -> Result<()> {
        self.pos = pos;
        self.cur = match pos {
            Some(p) => self.sample(p)?,
            None => None,
        };
        let next = pos.map(|p| p + 1).unwrap_or(0);
        self.next_time = self.time_of(next)?;
        if let (Some(c), true) = (self.cur, self.next_time < u64::MAX) {
            // A line out of time order (a damaged file) must not make the cursor loop or go back.
            if self.next_time < c.time {
                self.next_time = c.time;
            }
        }
        self.positioned = true;
        Ok(())
    }

    /// The sample in force at `time` (the last with time <= `time`), `None` before the first
    /// sample. Times should not decrease between calls; a smaller time restarts with a search.
    pub fn seek(&mut self, time: u64) -> Result<Option<TraceSample>> {
        if self.samples == 0 {
            return Ok(None);
        }
        self.memo.clear();
        let behind = match self.cur {
            Some(c) => time < c.time,
            None => false,
        };
        if !self.positioned || behind {
            self.stats.finds += 1;
            let p = self.data.trace_find(self.line, time)?;
            self.settle(p.filter(|&p| p < self.samples))?;
            return Ok(self.cur);
        }
        if time < self.next_time {
            return Ok(self.cur);
        }
        // Sample `lo` is known to be at or before `time`. Guess that the line moves as far as it
        // did last time (columns are evenly spaced in time), then gallop from the guess towards
        // the target: steady scrolling costs a couple of probes per column.
        let old = self.pos;
        let mut lo = old.map(|p| p + 1).unwrap_or(0);
        let guess = old
            .map(|p| p.saturating_add(self.last_gap))
            .unwrap_or(lo)
            .clamp(lo, self.samples - 1);
        let mut hi = None;
        if guess > lo {
            if self.time_of(guess)? <= time {
                lo = guess;
            } else {
                // Gallop back from the guess: the target is in [lo, guess).
                let mut step = 1u64;
                let mut h = guess;
                loop {
                    let probe = h.saturating_sub(step);
                    if probe <= lo {
                        break;
                    }
                    if self.time_of(probe)? > time {
                        h = probe;
                        step *= 2;
                    } else {
                        lo = probe;
                        break;
                    }
                }
                hi = Some(h);
            }
        }
        if hi.is_none() {
            let mut step = 1u64;
            for _ in 0..GALLOP_STEPS {
                let probe = lo.saturating_add(step);
                if probe >= self.samples {
                    hi = Some(self.samples);
                    break;
                }
                if self.time_of(probe)? > time {
                    hi = Some(probe);
                    break;
                }
                lo = probe;
                step *= 2;
            }
        }
        let Some(mut hi) = hi else {
            self.stats.finds += 1;
            let p = self.data.trace_find(self.line, time)?;
            // trace_find may disagree with the gallop on a damaged (unsorted) line; never go back.
            let p = p.filter(|&p| p >= lo && p < self.samples).unwrap_or(lo);
            self.last_gap = p - old.unwrap_or(0);
            self.settle(Some(p))?;
            return Ok(self.cur);
        };
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.time_of(mid)? > time {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        self.last_gap = lo - old.unwrap_or(0);
        self.settle(Some(lo))?;
        Ok(self.cur)
    }
}

/// One sampled frame of the main view: `keys[r * width + c]` is the colour key of shown row `r`
/// (trace line `lines[r]`) at column `c`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimelineFrame {
    pub width: u32,
    /// Trace line index of each shown row.
    pub lines: Vec<u32>,
    pub keys: Vec<u32>,
    /// Model node of the sample in force per cell (`NONE` where none), for hit tests and summaries.
    pub nodes: Vec<u32>,
    pub stats: CursorStats,
}

/// The rows shown when `rows` trace lines go into `height` pixel rows: all of them when they fit,
/// else row `y * len / height` for each pixel row `y` (hpcviewer's rule).
pub fn pick_rows(rows: &[u32], height: u32) -> Vec<u32> {
    let h = height as usize;
    if rows.len() <= h || h == 0 {
        return rows.to_vec();
    }
    (0..h)
        .filter_map(|y| rows.get(y * rows.len() / h).copied())
        .collect()
}

/// Samples the main view: for each shown row and column over [t0, t1), the key of the frame at
/// `depth` on the path of the sample in force.
pub fn sample_frame(
    ds: &Dataset,
    ix: &FrameIndex,
    rows: &[u32],
    win: Window,
    height: u32,
    depth: u32,
) -> Result<TimelineFrame> {
    let lines = pick_rows(rows, height);
    let width = win.width;
    let w = width as usize;
    let cells = lines.len().saturating_mul(w);
    let mut out = TimelineFrame {
        width,
        lines,
        keys: vec![0; cells],
        nodes: vec![NONE; cells],
        stats: CursorStats::default(),
    };
    let Some(trace) = ds.trace.as_ref() else {
        return Ok(out);
    };
    if win.is_empty() {
        return Ok(out);
    }
    // Keys repeat a lot (few contexts per line): memoize node -> key for this depth.
    let mut memo: HashMap<u32, u32> = HashMap::new();
    for (r, &line) in out.lines.iter().enumerate() {
        let samples = trace.samples(line as usize);
        let row = r * w;
        let mut cur = LineCursor::new(ds.data.as_ref(), line as usize, samples);
        for c in 0..width {
            if let Some(s) = cur.seek(win.time(c))? {
                let key = *memo
                    .entry(s.node)
                    .or_insert_with(|| ix.key_at(s.node, depth));
                out.keys[row + c as usize] = key;
                out.nodes[row + c as usize] = s.node;
            }
        }
        out.stats.finds += cur.stats.finds;
        out.stats.probes += cur.stats.probes;
    }
    Ok(out)
}

/// What the crosshair shows at (line, time).
#[derive(Clone, Debug, PartialEq)]
pub struct CallPathAt {
    /// Index of the sample in force and its time; `None` before the first sample.
    pub sample: Option<(u64, TraceSample)>,
    /// Frame nodes of its path, outermost first.
    pub frames: Vec<u32>,
}

/// The sample in force on `line` at `time` and the frames of its call path.
pub fn call_path_at(ds: &Dataset, ix: &FrameIndex, line: usize, time: u64) -> Result<CallPathAt> {
    let samples = ds.trace_line_samples(line);
    if samples == 0 {
        return Ok(CallPathAt {
            sample: None,
            frames: Vec::new(),
        });
    }
    let found = ds
        .data
        .trace_find(line, time)?
        .filter(|&i| i < samples)
        .map(|i| Ok::<_, crate::Error>((i, ds.data.trace_samples(line, i, 1)?)))
        .transpose()?
        .and_then(|(i, s)| s.first().map(|&s| (i, s)));
    let frames = found.map(|(_, s)| ix.frames(s.node)).unwrap_or_default();
    Ok(CallPathAt {
        sample: found,
        frames,
    })
}

/// One rectangle of the depth view (a flame chart over time): frame `node` with colour `key` at
/// call depth `depth` over columns [`x0`, `x1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthRect {
    pub depth: u32,
    pub x0: u32,
    pub x1: u32,
    pub node: u32,
    pub key: u32,
}

/// The depth view of one line: the frames at depths `0..max_depth` of the sample in force at each
/// column, merged into rectangles where the same frame node continues. Cost O(width * max_depth).
pub fn depth_view(
    ds: &Dataset,
    ix: &FrameIndex,
    line: usize,
    win: Window,
    max_depth: u32,
) -> Result<Vec<DepthRect>> {
    let mut out = Vec::new();
    let samples = ds.trace_line_samples(line);
    if win.is_empty() || max_depth == 0 || samples == 0 {
        return Ok(out);
    }
    let mut cur = LineCursor::new(ds.data.as_ref(), line, samples);
    // Open rectangle per depth (index into `out`).
    let mut open: Vec<Option<usize>> = vec![None; max_depth as usize];
    let mut column: Vec<u32> = Vec::with_capacity(max_depth as usize);
    let mut last_node = NONE;
    for c in 0..win.width {
        let node = cur.seek(win.time(c))?.map(|s| s.node).unwrap_or(NONE);
        if node != last_node || c == 0 {
            column.clear();
            let deepest = ix.frame_at(node, max_depth - 1);
            let mut f = deepest;
            while f != NONE {
                column.push(f);
                f = ix.up[f as usize];
            }
            column.reverse();
            last_node = node;
        }
        for (d, slot) in open.iter_mut().enumerate() {
            let frame = column.get(d).copied();
            match (frame, *slot) {
                (Some(f), Some(i)) if out[i].node == f && out[i].x1 == c => out[i].x1 = c + 1,
                (Some(f), _) => {
                    out.push(DepthRect {
                        depth: d as u32,
                        x0: c,
                        x1: c + 1,
                        node: f,
                        key: ix.key_of(f),
                    });
                    *slot = Some(out.len() - 1);
                }
                (None, _) => *slot = None,
            }
        }
    }
    Ok(out)
}

/// Summary of a sampled frame: per column, how many shown rows have each key (a stacked chart),
/// and the share of each key over the whole visible area.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Column `c` owns entries `col_start[c]..col_start[c + 1]` of `keys`/`counts`, keys ascending.
    pub col_start: Vec<u32>,
    pub keys: Vec<u32>,
    pub counts: Vec<u32>,
    /// (key, cells) over the visible area, most cells first (ties by key); key 0 included when
    /// some cells have no frame.
    pub totals: Vec<(u32, u64)>,
    /// Number of cells (rows x columns).
    pub cells: u64,
}

pub fn summarize(frame: &TimelineFrame) -> Summary {
    let w = frame.width as usize;
    let rows = frame.lines.len();
    let mut s = Summary {
        col_start: Vec::with_capacity(w + 1),
        cells: (rows * w) as u64,
        ..Summary::default()
    };
    let mut totals: HashMap<u32, u64> = HashMap::new();
    let mut col: Vec<u32> = Vec::with_capacity(rows);
    for c in 0..w {
        s.col_start.push(s.keys.len() as u32);
        col.clear();
        col.extend((0..rows).filter_map(|r| frame.keys.get(r * w + c).copied()));
        col.sort_unstable();
        let mut i = 0;
        while i < col.len() {
            let k = col[i];
            let mut j = i;
            while j < col.len() && col[j] == k {
                j += 1;
            }
            s.keys.push(k);
            s.counts.push((j - i) as u32);
            *totals.entry(k).or_insert(0) += (j - i) as u64;
            i = j;
        }
    }
    s.col_start.push(s.keys.len() as u32);
    s.totals = totals.into_iter().collect();
    // One entry per distinct key (a few hundred at most): the shared sort (src/sort.rs).
    crate::sort::sort_by(&mut s.totals, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    s
}

/// A time-axis tick: offset from the run start in ns and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub offset_ns: u64,
    pub label: String,
}

/// Unit for a step in ns: the largest of ns/us/ms/s not above it.
fn unit_for(step_ns: u64) -> (u64, &'static str) {
    if step_ns >= 1_000_000_000 {
        (1_000_000_000, "s")
    } else if step_ns >= 1_000_000 {
        (1_000_000, "ms")
    } else if step_ns >= 1_000 {
        (1_000, "us")
    } else {
        (1, "ns")
    }
}

/// "1.25 ms": `ns` in `unit` with as many decimals as `step_ns` needs.
pub fn format_offset(ns: u64, step_ns: u64) -> String {
    let (div, unit) = unit_for(step_ns.max(1));
    let mut decimals = 0usize;
    let mut s = step_ns.max(1);
    while !s.is_multiple_of(div) && decimals < 9 {
        // Each decimal digit resolves a factor of 10 finer than the unit.
        s *= 10;
        decimals += 1;
    }
    let whole = ns / div;
    if decimals == 0 {
        return format!("{whole} {unit}");
    }
    let frac = ns % div;
    let scale = 10u128.pow(decimals as u32);
    let frac_digits = (frac as u128 * scale / div as u128) as u64;
    format!("{whole}.{frac_digits:0width$} {unit}", width = decimals)
}

/// Ticks over the offsets [a, b] ns from the run start: a 1-2-5 step giving at most `max_ticks`
/// ticks, labelled in the unit of the step.
pub fn nice_ticks(a: u64, b: u64, max_ticks: u32) -> (u64, Vec<Tick>) {
    let span = b.saturating_sub(a).max(1);
    let raw = span.div_ceil(max_ticks.max(1) as u64).max(1);
    let mut step = 1u64;
    'outer: loop {
        for m in [1u64, 2, 5] {
            let s = step.saturating_mul(m);
            if s >= raw {
                step = s;
                break 'outer;
            }
        }
        if step > u64::MAX / 10 {
            break;
        }
        step *= 10;
    }
    let mut ticks = Vec::new();
    let mut t = a.div_ceil(step).saturating_mul(step);
    while t <= b && ticks.len() <= max_ticks as usize {
        ticks.push(Tick {
            offset_ns: t,
            label: format_offset(t, step),
        });
        match t.checked_add(step) {
            Some(n) => t = n,
            None => break,
        }
    }
    (step, ticks)
}

#[cfg(test)]
mod tests;
