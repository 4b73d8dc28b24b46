//! Progressive trace frames: a frame is answered in steps so the first picture comes fast and the
//! exact one follows without blocking the view. Rows are made exact in a coarse-to-fine order
//! (0, n/2, n/4, 3n/4, ...); until a row is exact it shows its nearest exact (or sampled) row above,
//! so every colour shown is a real sample of a real line, and the frame says whether it is final.

// How a row is made exact depends on what the byte source charges (`ReadCost`): a dropped File
// read through Blob slices costs ~0.35 ms per read whatever its size and streams ~2 GB/s, so a
// row whose window holds up to thousands of samples per column is *scanned* with a few large
// reads; sparse rows (zoomed out over a huge line) use the galloping `LineCursor` as
// `sample_frame` does. Both give `sample_frame`'s exact answer (the last sample at or before
// each column's time). Over HTTP, where bytes are the budget and many ranges cost one request,
// a first pass samples a few points of every row with batched reads (`sample_coarse`). Where
// every range costs a request (object stores), rows are made exact in order, several at once: a
// row waiting for its bytes does not stop the rows after it from asking for theirs.

use super::{pick_rows, CursorStats, FrameIndex, LineCursor, TimelineFrame, Window};
use crate::error::Result;
use crate::model::{Dataset, TraceSample, NONE};
use std::collections::HashMap;

/// What reads of the trace's byte source cost, for choosing how to sample a row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadCost {
    /// One read call, whatever its size, in ns.
    pub per_read_ns: f64,
    /// Each byte read, in ns (bandwidth, or the transfer budget over a network).
    pub per_byte_ns: f64,
    /// A probe reads at least this many bytes (the block size of the source's cache).
    pub block: u64,
    /// Whether many scattered small ranges cost about one read (HTTP multi-range requests).
    pub batched: bool,
}

impl ReadCost {
    /// Bytes in wasm or native memory. A random access is still not free: a reader may search
    /// or replay records to answer it (uftrace replays from a checkpoint, rebuilding the stack),
    /// while a scan decodes each record once.
    pub const MEMORY: ReadCost = ReadCost {
        per_read_ns: 20_000.0,
        per_byte_ns: 0.05,
        block: 64,
        batched: false,
    };
    /// A dropped File read with FileReaderSync in 64 KiB blocks (measured in headless Chromium:
    /// ~0.35 ms per read of 24 B or 64 KiB alike, ~2 GB/s for 4 MiB reads; a Blob built from
    /// many slices costs as much per slice, so nothing is gained by batching).
    pub const BLOB: ReadCost = ReadCost {
        per_read_ns: 350_000.0,
        per_byte_ns: 0.5,
        block: 64 << 10,
        batched: false,
    };
    /// HTTP Range requests in 16 KiB blocks, multi-range requests for batches.
    pub const RANGED: ReadCost = ReadCost {
        per_read_ns: 2_000_000.0,
        per_byte_ns: 10.0,
        block: 16 << 10,
        batched: true,
    };
    /// HTTP Range requests in 16 KiB blocks from a server that answers one range per request
    /// (S3 and other object stores, CDNs): 20-100 ms per request, so a row is read with one
    /// long range rather than many probes wherever the bytes allow.
    pub const RANGED_SINGLE: ReadCost = ReadCost {
        per_read_ns: 30_000_000.0,
        per_byte_ns: 10.0,
        block: 16 << 10,
        batched: false,
    };
}

/// Rows past the first one waiting for its bytes that a step may still try (see
/// [`FrameJob::refine_ahead`]).
const AHEAD_ROWS: usize = 24;

/// Samples per streamed read while scanning a row (the HPCToolkit reader's 4 MiB).
const SCAN_CHUNK: u64 = 1 << 18;
/// Bytes per sample assumed by the cost model (HPCToolkit's 12-byte samples).
const SAMPLE_BYTES: f64 = 12.0;
/// Decoding one scanned sample, in ns.
const SCAN_NS: f64 = 4.0;
/// Work per column of the cursor besides reads, in ns.
const CURSOR_NS: f64 = 300.0;

/// How far a row of a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowState {
    /// Nothing read yet: shows a neighbour.
    Empty,
    /// A few samples of the row's window (coarse pass): real samples, not yet the exact ones.
    Sampled,
    /// Equal to `sample_frame`'s answer.
    Exact,
}

/// One frame being answered progressively.
pub struct FrameJob {
    pub win: Window,
    pub depth: u32,
    cost: ReadCost,
    /// Lines, keys and nodes of the rows as far as they are known.
    frame: TimelineFrame,
    pub state: Vec<RowState>,
    /// Row indexes in refinement order.
    order: Vec<u32>,
    next: usize,
    memo: HashMap<u32, u32>,
}

/// Coarse-to-fine order of `n` rows: 0, then every n/2-th, n/4-th ... row (bit-reversal order),
/// so after any prefix the refined rows are spread evenly.
fn refine_order(n: usize) -> Vec<u32> {
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut step = n.next_power_of_two().max(1);
    loop {
        for r in (0..n).step_by(step) {
            if !seen[r] {
                seen[r] = true;
                order.push(r as u32);
            }
        }
        if step == 1 {
            break;
        }
        step /= 2;
    }
    order
}

impl FrameJob {
    /// A job for `rows` (picked to `height` pixel rows as `sample_frame` does) over `win`.
    pub fn new(rows: &[u32], win: Window, height: u32, depth: u32, cost: ReadCost) -> FrameJob {
        let lines = pick_rows(rows, height);
        let cells = lines.len().saturating_mul(win.width as usize);
        let n = lines.len();
        FrameJob {
            win,
            depth,
            cost,
            frame: TimelineFrame {
                width: win.width,
                lines,
                keys: vec![0; cells],
                nodes: vec![NONE; cells],
                stats: CursorStats::default(),
            },
            state: vec![RowState::Empty; n],
            order: refine_order(n),
            next: 0,
            memo: HashMap::new(),
        }
    }

    pub fn rows(&self) -> usize {
        self.state.len()
    }

    pub fn exact_rows(&self) -> usize {
        self.state.iter().filter(|&&s| s == RowState::Exact).count()
    }

    /// Whether every row holds `sample_frame`'s answer.
    pub fn is_exact(&self) -> bool {
        self.state.iter().all(|&s| s == RowState::Exact)
    }

    pub fn stats(&self) -> CursorStats {
        self.frame.stats
    }

    /// The job refined to the end: `sample_frame`'s answer (what the view uses when it needs an
    /// exact frame at once).
    pub fn exact(mut self, ds: &Dataset, ix: &FrameIndex) -> Result<TimelineFrame> {
        self.refine(ds, ix, &mut || false)?;
        Ok(self.frame)
    }

    /// Makes rows exact in refinement order until `stop()` says so (asked after each row; at
    /// least one row is refined per call while any is left). Returns the number refined.
    pub fn refine(
        &mut self,
        ds: &Dataset,
        ix: &FrameIndex,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<usize> {
        self.refine_ahead(ds, ix, stop, &mut || false)
    }

    /// `refine`, except that when a row's read fails and `ahead()` says so (the read was only
    /// deferred, and the source takes more), the next rows in order are tried too (up to
    /// `AHEAD_ROWS`), so their reads are asked for at once; rows that succeed meanwhile become
    /// exact. The first error is returned, the job staying at its row.
    pub fn refine_ahead(
        &mut self,
        ds: &Dataset,
        ix: &FrameIndex,
        stop: &mut dyn FnMut() -> bool,
        ahead: &mut dyn FnMut() -> bool,
    ) -> Result<usize> {
        let mut done = 0;
        while self.next < self.order.len() {
            let r = self.order[self.next] as usize;
            if self.state[r] == RowState::Exact {
                self.next += 1;
                continue;
            }
            // A failed read leaves the row as it was and the job at this row: the call can be
            // repeated once the bytes are there (a source that fetches them asynchronously
            // fails the read and fetches them meanwhile).
            if let Err(e) = self.exact_row(ds, ix, r) {
                self.look_ahead(ds, ix, ahead);
                return Err(e);
            }
            self.next += 1;
            self.state[r] = RowState::Exact;
            done += 1;
            if stop() {
                break;
            }
        }
        Ok(done)
    }

    /// After row `order[next]` failed: tries the rows after it while `ahead()` allows.
    fn look_ahead(&mut self, ds: &Dataset, ix: &FrameIndex, ahead: &mut dyn FnMut() -> bool) {
        let mut tried = 0;
        let mut k = self.next + 1;
        while k < self.order.len() && tried < AHEAD_ROWS && ahead() {
            let r = self.order[k] as usize;
            k += 1;
            if self.state[r] == RowState::Exact {
                continue;
            }
            tried += 1;
            if self.exact_row(ds, ix, r).is_ok() {
                self.state[r] = RowState::Exact;
            }
        }
    }

    fn key(&mut self, ix: &FrameIndex, node: u32) -> u32 {
        let depth = self.depth;
        *self
            .memo
            .entry(node)
            .or_insert_with(|| ix.key_at(node, depth))
    }

    fn set(&mut self, ix: &FrameIndex, cell: usize, s: Option<TraceSample>) {
        let (key, node) = match s {
            Some(s) => (self.key(ix, s.node), s.node),
            None => (0, NONE),
        };
        self.frame.keys[cell] = key;
        self.frame.nodes[cell] = node;
    }

    /// Reads row `r`'s exact samples, then writes them (nothing is written when a read fails).
    fn exact_row(&mut self, ds: &Dataset, ix: &FrameIndex, r: usize) -> Result<()> {
        let base = r * self.win.width as usize;
        let cells = self.read_row(ds, r)?;
        for (c, s) in cells.into_iter().enumerate() {
            self.set(ix, base + c, s);
        }
        Ok(())
    }

    /// The sample in force at each column of row `r`.
    fn read_row(&mut self, ds: &Dataset, r: usize) -> Result<Vec<Option<TraceSample>>> {
        let w = self.win.width as usize;
        let line = self.frame.lines[r] as usize;
        let samples = ds.trace_line_samples(line);
        if samples == 0 || self.win.is_empty() {
            return Ok(vec![None; w]);
        }
        let win = self.win;
        let (min_t, max_t) = ds
            .trace
            .as_ref()
            .map(|t| (t.min_time, t.max_time))
            .unwrap_or((None, None));
        let t_last = win.time(win.width - 1);
        // Scanning may start at any sample at or before the one in force at the first column:
        // the run's first sample when the window starts with the run (no search needed).
        let a = if min_t.is_some_and(|m| win.t0 <= m) {
            0
        } else {
            self.frame.stats.finds += 1;
            ds.data
                .trace_find(line, win.t0)?
                .unwrap_or(0)
                .min(samples - 1)
        };
        // Samples in the window, estimated from the run's time span (a search would cost reads
        // of its own; the estimate only chooses how to read, never what is shown).
        let frac = match (min_t, max_t) {
            (Some(lo), Some(hi)) if hi > lo => {
                (t_last.saturating_sub(win.t0) as f64 + 1.0) / ((hi - lo) as f64 + 1.0)
            }
            _ => 1.0,
        };
        let n = ((samples - a) as f64)
            .min(samples as f64 * frac.clamp(0.0, 1.0))
            .max(1.0);
        let c = self.cost;
        let bytes = n * SAMPLE_BYTES;
        let scan_ns = (n / SCAN_CHUNK as f64).ceil().max(1.0) * c.per_read_ns
            + bytes * c.per_byte_ns
            + n * SCAN_NS;
        // A probe costs a block read unless the previous one fetched its block.
        let probe_reads = (w as f64).min(bytes / c.block as f64 + 1.0);
        let cursor_ns = 2.0 * probe_reads * (c.per_read_ns + c.block as f64 * c.per_byte_ns)
            + w as f64 * CURSOR_NS;
        if scan_ns <= cursor_ns {
            self.scan_row(ds, line, a, samples, n as u64)
        } else {
            self.cursor_row(ds, line, samples)
        }
    }

    /// Reads samples from `a` on (at or before the one in force at the first column) until one
    /// is past the last column's time, in chunks growing from about the expected `n`; column c
    /// gets the last sample with time <= its time.
    fn scan_row(
        &mut self,
        ds: &Dataset,
        line: usize,
        a: u64,
        samples: u64,
        n: u64,
    ) -> Result<Vec<Option<TraceSample>>> {
        let win = self.win;
        let w = win.width as usize;
        let mut col = 0usize;
        let mut t_col = win.time(0);
        let mut cur: Option<TraceSample> = None;
        let mut cells: Vec<Option<TraceSample>> = Vec::with_capacity(w);
        let mut i = a;
        let mut chunk = n.saturating_add(n / 4).saturating_add(64);
        while i < samples && col < w {
            let k = chunk.min(samples - i);
            let got = ds.data.trace_scan(line, i, k, &mut |s| {
                while col < w && t_col < s.time {
                    cells.push(cur);
                    col += 1;
                    t_col = win.time(col as u32);
                }
                if col == w {
                    return false;
                }
                cur = Some(s);
                true
            })?;
            self.frame.stats.probes += 1;
            if got < k && col < w {
                // The reader had fewer samples than the line claims.
                break;
            }
            i += got;
            chunk = chunk.saturating_mul(4);
        }
        cells.resize(w, cur);
        Ok(cells)
    }

    fn cursor_row(
        &mut self,
        ds: &Dataset,
        line: usize,
        samples: u64,
    ) -> Result<Vec<Option<TraceSample>>> {
        let win = self.win;
        let mut cur = LineCursor::new(ds.data.as_ref(), line, samples);
        let mut cells = Vec::with_capacity(win.width as usize);
        for c in 0..win.width {
            cells.push(cur.seek(win.time(c))?);
        }
        self.frame.stats.finds += cur.stats.finds;
        self.frame.stats.probes += cur.stats.probes;
        Ok(cells)
    }

    /// Coarse pass for sources where many small ranges cost one read: the first `max_rows` rows
    /// of the refinement order each get `points` samples spread evenly over their window (found
    /// with lock-step batched binary searches when the window does not cover the whole run),
    /// all read with one batch. A row whose window holds at most `points` samples is read whole
    /// and so becomes exact.
    pub fn sample_coarse(
        &mut self,
        ds: &Dataset,
        ix: &FrameIndex,
        max_rows: usize,
        points: u32,
    ) -> Result<()> {
        let Some(trace) = ds.trace.as_ref() else {
            return Ok(());
        };
        let win = self.win;
        if win.is_empty() || points < 2 {
            return Ok(());
        }
        let t_last = win.time(win.width - 1);
        let rows: Vec<usize> = self
            .order
            .iter()
            .map(|&r| r as usize)
            .filter(|&r| self.state[r] != RowState::Exact)
            .take(max_rows)
            .collect();
        let samples_of = |line: usize| trace.samples(line);
        // Window bounds per row: searches only where the window cuts the run.
        let need_first = trace.min_time.is_none_or(|m| win.t0 > m);
        let need_last = trace.max_time.is_none_or(|m| t_last < m);
        let mut queries = Vec::new();
        for &r in &rows {
            let line = self.frame.lines[r] as usize;
            if samples_of(line) == 0 {
                continue;
            }
            if need_first {
                queries.push((line, win.t0));
            }
            if need_last {
                queries.push((line, t_last));
            }
        }
        let found = ds.data.trace_find_many(&queries)?;
        self.frame.stats.finds += queries.len() as u64;
        let mut found = found.into_iter();
        // (row, first index, indexes to read)
        let mut plan: Vec<(usize, Vec<u64>)> = Vec::new();
        for &r in &rows {
            let line = self.frame.lines[r] as usize;
            let n = samples_of(line);
            if n == 0 {
                self.state[r] = RowState::Exact;
                continue;
            }
            let first = if need_first {
                found.next().flatten()
            } else {
                None
            };
            let last = if need_last {
                found.next().flatten()
            } else {
                Some(n - 1)
            };
            let Some(last) = last.filter(|&l| l < n) else {
                // Before the line's first sample everywhere: exactly empty.
                self.state[r] = RowState::Exact;
                continue;
            };
            let a = first.unwrap_or(0).min(last);
            let span = last - a;
            let idx: Vec<u64> = if span < points as u64 {
                (a..=last).collect()
            } else {
                let mut v: Vec<u64> = (0..points as u64)
                    .map(|j| a + span * j / (points as u64 - 1))
                    .collect();
                v.dedup();
                v
            };
            plan.push((r, idx));
        }
        let queries: Vec<(usize, u64)> = plan
            .iter()
            .flat_map(|(r, idx)| {
                let line = self.frame.lines[*r] as usize;
                idx.iter().map(move |&i| (line, i))
            })
            .collect();
        let got = ds.data.trace_sample_many(&queries)?;
        self.frame.stats.probes += 1;
        let mut at = 0usize;
        let w = win.width as usize;
        for (r, idx) in plan {
            let pts: Vec<TraceSample> = got
                .get(at..at + idx.len())
                .unwrap_or(&[])
                .iter()
                .flatten()
                .copied()
                .collect();
            let whole = idx.len() as u64 == idx.last().map(|&l| l + 1 - idx[0]).unwrap_or(0);
            at += idx.len();
            let mut j = 0usize;
            let mut cur = None;
            for c in 0..w {
                let t = win.time(c as u32);
                while j < pts.len() && pts[j].time <= t {
                    cur = Some(pts[j]);
                    j += 1;
                }
                self.set(ix, r * w + c, cur);
            }
            // Reading every sample of the window is what an exact row does.
            let sorted = pts.windows(2).all(|p| p[0].time <= p[1].time);
            self.state[r] = if whole && sorted && pts.len() == idx.len() {
                RowState::Exact
            } else {
                RowState::Sampled
            };
        }
        Ok(())
    }

    /// The frame as it should be shown now: rows not read yet show the nearest read row above
    /// (below for the first rows).
    pub fn shown(&self) -> TimelineFrame {
        let n = self.state.len();
        let w = self.win.width as usize;
        let mut src: Vec<Option<usize>> = vec![None; n];
        let mut last = None;
        for (r, s) in src.iter_mut().enumerate() {
            if self.state[r] != RowState::Empty {
                last = Some(r);
            }
            *s = last;
        }
        let first = self.state.iter().position(|&s| s != RowState::Empty);
        let mut out = self.frame.clone();
        for (r, s) in src.iter().enumerate() {
            match s.or(first) {
                Some(f) if f != r => {
                    out.keys.copy_within(f * w..(f + 1) * w, r * w);
                    out.nodes.copy_within(f * w..(f + 1) * w, r * w);
                }
                _ => {}
            }
        }
        out
    }

    /// The frame as computed, exact rows and all (`shown()` without the stand-ins).
    pub fn frame(&self) -> &TimelineFrame {
        &self.frame
    }
}
